"""_set (to be filled in)."""

__all__: list[str] = []
