"""_linear_algebra (to be filled in)."""

__all__: list[str] = []
