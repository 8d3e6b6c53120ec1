"""_data_type_functions (to be filled in)."""

__all__: list[str] = []
