"""The one place ``jaxtensor.jit`` generates code: a guard per signature of plain calls.

A *plain* call passes positional Tensors without views (no two sharing a storage) and
numbers or arrays, at the top level. For a signature seen before, its guard checks that the
arguments (and the closed-over storages) still have that signature, lends the storages'
values (deciding donation through :meth:`Storage.lend <jaxtensor._core._storage.Storage.lend>`),
calls the compiled function, and installs the results through ``Storage._install``: what
:meth:`Jitted._call <jaxtensor._jit._jit.Jitted._call>` does, without building the call's
description, looking it up, or looping over lists. It returns :data:`MISS` (having changed
nothing) when the call does not fit, and the general path takes it.

Why generated: ``benchmarks/bench_jit_mutation.py`` (``scalar_writes``, a call doing almost
nothing on the device) measured the generic Python version of this path at about 1 µs more
per call, 15-20% of a small ``jax.jit`` call; the generated guard costs what the old
hand-specialised paths did.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
import numpy as np

from .._core import LOCK, Tensor
from . import _trace as jtr
from ._pytree import results

#: what a guard returns when the call does not have its signature
MISS = object()

PLAIN = frozenset({int, float, complex, np.ndarray, type(jnp.zeros(0))})


def make(key: tuple, n_args: int, plan: Any, donate: bool) -> Callable:
    """The guard of ``key`` (per argument None for a number or array, else whether the
    Tensor's buffer is donated; then, per closed-over storage, whether it is donated)."""
    n_impl = len(key) - n_args
    src = ["def guard(self, args):", f"    if len(args) != {n_args}:", "        return MISS"]
    if n_args:
        src.append("    " + "".join(f"a{j}, " for j in range(n_args)) + "= args")
    sts: list[str] = []
    inputs: list[str] = []
    for j in range(n_args):
        if key[j] is None:
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
    flags = [e for e in key if e is not None]
    src += ["    with LOCK:", "        if plan.stale:", "            return MISS"]
    for i, s in enumerate(sts):
        src.append(f"        x{i}, d{i} = {s}.lend({donate})")
        # (restore undoes only what lend did: it marked a donated storage busy)
        undo = "".join(f"{sts[k]}.restore(x{k}); " for k in range(i + 1))
        src += [f"        if d{i} is not {flags[i]}:", f"            {undo}return MISS"]
    restore = "; ".join(f"{sts[k]}.restore(x{k})" for k in range(len(sts)) if flags[k])
    sts_list = f"[{', '.join(sts)}]"
    src += [
        f"        sts = {sts_list}",
        "        plan.call = sts",
        "        try:",
        f"            res = fn({', '.join(inputs)})",
        "        except BaseException:",
        f"            {restore or 'pass'}",
        "            raise",
        "        finally:",
        "            plan.call = None",
    ]
    src += [f"        del {', '.join(f'x{i}' for i in range(len(sts)))}"] if sts else []
    src += [
        "        if type(res) is not dict:  # traced under checkify",
        "            return self._finish(plan, res, sts, args, False)",
        "        aux, outs = res.popitem()",
        "        if aux.discovered or (aux.checks and jtr.check_error(aux.checks, outs[-1])):",
        "            return self._finish(plan, {aux: outs}, sts, args, False)",
        *(["        if aux.pairs:", "            s0._install(outs[0])"] if len(sts) == 1 else
          ["        for j, k in aux.pairs:", "            sts[k]._install(outs[j])"]),
        "        return None if aux.none else results(aux, outs, sts, args)",
    ]
    ns = {"MISS": MISS, "results": results, "jtr": jtr, "PLAIN": PLAIN, "Tensor": Tensor, "LOCK": LOCK, "plan": plan,
          "fn": plan.fn}
    exec("\n".join(src), ns)  # noqa: S102 - generated from the signature above
    guard = ns["guard"]
    guard.plan = plan
    return guard
