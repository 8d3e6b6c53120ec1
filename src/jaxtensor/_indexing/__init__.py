"""Indexing: ``x[key]`` and ``x[key] = value``, parsed once into a typed plan, then lowered
to a view (basic keys) or a gather/scatter (advanced keys). See ``README.md`` beside this
file. Builds on the core only; the namespace builds on it.
"""

from ._advanced import rebuild, resolve
from ._getset import getitem, setitem
from ._jax_hook import install as install_jax_hook
from ._plan import NonConcreteBooleanIndexError, ds
from ._values import prepare_value

__all__ = [
    "NonConcreteBooleanIndexError", "ds", "getitem", "install_jax_hook",
    "prepare_value", "rebuild", "resolve", "setitem",
]
