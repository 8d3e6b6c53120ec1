"""_indexing_functions (to be filled in)."""

__all__: list[str] = []
