"""_index_select (to be filled in)."""

__all__: list[str] = []
