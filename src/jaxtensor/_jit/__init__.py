"""Compiled code with eager semantics: ``jaxtensor.jit`` and the transformations built on
it (``grad``, ``vmap``, ...), and control flow whose bodies write Tensors (``fori_loop``,
``while_loop``, ``cond``). See ``README.md`` beside this file. Builds on the core only.
"""

from . import _loops, _transforms
from ._errors import IndexOverflowError, RecompileWarning, UnrolledLoopWarning
from ._loops import *  # noqa: F403
from ._transforms import *  # noqa: F403

__all__ = sorted([*_transforms.__all__, *_loops.__all__, "RecompileWarning",
                  "UnrolledLoopWarning"])
