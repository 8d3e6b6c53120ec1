"""_info (to be filled in)."""

__all__: list[str] = []
