"""The fft extension of the Array API standard (to be filled in)."""

__all__: list[str] = []
