"""Compiled code with eager semantics: ``jaxtensor.jit`` and the transformations built on
it (``grad``, ``vmap``, ...). See ``README.md`` beside this file. Builds on the core only.
"""

from ._jit import IndexOverflowError
from ._transforms import *  # noqa: F403
from ._transforms import __all__

