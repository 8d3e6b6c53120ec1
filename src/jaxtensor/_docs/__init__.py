"""The docstring machinery: the numpydoc sections of every public docstring, assembled at
import from one description per parameter name. See ``README.md`` beside this file.
"""
