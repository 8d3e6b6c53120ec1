"""The guard of a plain call's signature: the call protocol (``_protocol.py``) with the
signature's checks in front.

A *plain* call passes positional Tensors without views (no two sharing a storage) and
numbers or arrays, at the top level. For a signature seen before, its guard checks that the
arguments (and the closed-over storages) still have that signature, then runs the call
protocol made from ``_protocol._LOCKED`` for those storages (lend, run, restore on error,
write back through ``Jitted._finish``): what the general path runs, without building the
call's description or looking it up. It returns :data:`MISS` (having changed nothing) when
the call does not fit, and the general path takes it.

Why generated: the generic Python version of this path cost a measurable part of a small
``jax.jit`` call (docs/measurements.md, section "The generated guard of jaxtensor.jit").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax.numpy as jnp
import numpy as np

from .._core import Tensor
from . import _protocol
from ._protocol import MISS

__all__ = ["MISS", "PLAIN", "STATIC", "Fixed", "make"]

PLAIN = frozenset({int, float, complex, np.ndarray, type(jnp.zeros(0))})
#: the types of static arguments a guard compares (a value of its exact type and equal, a
#: float by its bits: as the plan's key, ``_spec.strict``, compares them)
STATIC = frozenset({int, float, bool, str, bytes, type(None)})


class Fixed(NamedTuple):
    """A static argument's value in a guard's key."""

    value: Any


def make(key: tuple, n_args: int, plan: Any, donate: bool) -> Callable:
    """The guard of ``key`` (per argument None for a number or array, a :class:`Fixed`
    static value, else whether the Tensor's buffer is donated; then, per closed-over
    storage, whether it is donated)."""
    n_impl = len(key) - n_args
    ns: dict[str, Any] = {}
    src = ["def guard(self, args):", f"    if len(args) != {n_args}:", "        return MISS"]
    if n_args:
        src.append("    " + "".join(f"a{j}, " for j in range(n_args)) + "= args")
    sts: list[str] = []
    inputs: list[str] = []
    for j in range(n_args):
        if type(key[j]) is Fixed:
            v = key[j].value
            ns[f"S{j}"], ns[f"T{j}"] = (v.hex(), float) if type(v) is float else (v, type(v))
            same = f"a{j}.hex() != S{j}" if type(v) is float else f"a{j} != S{j}"
            src += [f"    if type(a{j}) is not T{j} or {same}:", "        return MISS"]
        elif key[j] is None:
            src += [f"    if type(a{j}) not in PLAIN:", "        return MISS"]
            inputs.append(f"a{j}")
        else:
            src += [f"    if type(a{j}) is not Tensor or a{j}._view is not None "
                    f"or a{j}._base is not None:", "        return MISS",
                    f"    s{len(sts)} = a{j}._storage"]
            sts.append(f"s{len(sts)}")
            inputs.append(f"x{len(sts) - 1}")
    if n_impl:
        src += ["    imp = self._implicit", f"    if len(imp) != {n_impl}:", "        return MISS"]
        for m in range(n_impl):
            s = f"s{len(sts)}"
            src += [f"    {s} = imp[{m}]()", f"    if {s} is None:", "        return MISS"]
            inputs.append(f"x{len(sts)}")
            sts.append(s)
    for i, s in enumerate(sts):
        for other in sts[:i]:
            src += [f"    if {s} is {other}:", "        return MISS"]
    flags = tuple([e for e in key if e is not None and type(e) is not Fixed])
    coded = hasattr(plan.fn, "again")  # (see _checks._body_hoisted: checks, then writes)
    host = coded and plan.host is not None  # (decided at the plan's first trace, made before)
    args = ", ".join(inputs)
    run = _protocol.run_source(args, coded, "not host(({targs}))" if host else None)
    leaves = "args"
    if any(type(e) is Fixed for e in key[:n_args]):  # (the dynamic arguments' leaves)
        src.append("    dyn = (" + "".join(f"a{j}, " for j in range(n_args)
                                         if type(key[j]) is not Fixed) + ")")
        leaves = "dyn"
    src.append(_protocol.indent(_protocol.locked_source(len(sts), flags, donate, run, [], "sts",
                                               leaves), 4))
    ns.update(PLAIN=PLAIN, Tensor=Tensor, plan=plan, fn=plan.fn)
    if coded:
        ns.update(fast=plan.fn.fast, nonzero=plan.fn.nonzero, again=plan.fn.again,
                  slow=plan.fn.slow, host=plan.host)
    sig = "".join("n" if e is None else "s" if type(e) is Fixed else ("D" if e else "k")
                  for e in key)
    kind = ("coded" if coded else "") + (" host" if host else "")
    ns = _protocol.build("\n".join(src) + "\n", f"guard {sig} {kind}", ns)
    guard = ns["guard"]
    guard.plan = plan
    return guard
