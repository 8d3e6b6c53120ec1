"""The one place ``jaxtensor.jit`` generates code: a guard per signature of plain calls.

A *plain* call passes positional Tensors without views (no two sharing a storage) and
numbers or arrays, at the top level. For a signature seen before, its guard checks that the
arguments (and the closed-over storages) still have that signature, lends the storages'
values (deciding donation through :meth:`Storage.lend <jaxtensor._core._storage.Storage.lend>`),
calls the compiled function, and hands the results to the one write-back,
:meth:`Jitted._finish <jaxtensor._jit._jit.Jitted._finish>`: what
:meth:`Jitted._call <jaxtensor._jit._jit.Jitted._call>` does, without building the call's
description, looking it up, or looping over lists. It returns :data:`MISS` (having changed
nothing) when the call does not fit, and the general path takes it. A first failing call
whose plan's gated program is not compiled yet puts back what it was lent and raises
:class:`~._plans.Unready` out of its locks; the entry compiles that program holding no
lock and makes the call again. The generated code is named as a file of this package (its
source in ``linecache``), so its frame leaves tracebacks with jaxtensor's own.

Why generated: the generic Python version of this path cost a measurable part of a small
``jax.jit`` call (docs/measurements.md, section "The generated guard of jaxtensor.jit").
"""

from __future__ import annotations

import linecache
import os
from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
import numpy as np

from .._core import Storage, Tensor
from ._plans import Unready

_HERE = os.path.dirname(os.path.abspath(__file__))

#: what a guard returns when the call does not have its signature
MISS = object()

PLAIN = frozenset({int, float, complex, np.ndarray, type(jnp.zeros(0))})


def lock(storages: list[Storage]) -> list[Any]:
    """Take the locks of ``storages`` in one global order (by address: two calls sharing
    storages never wait for each other); the locks taken, for :func:`unlock`."""
    locks = [st.lock() for st in sorted(storages, key=id)]
    for lk in locks:
        lk.acquire()
    return locks


def unlock(locks: list[Any]) -> None:
    for lk in reversed(locks):
        lk.release()


def _source_name(key: tuple, kind: str) -> str:
    """The file name of the generated guard of ``key`` (a file of the package that does not
    exist: its source is in ``linecache``)."""
    sig = "".join("n" if e is None else ("D" if e else "k") for e in key)
    return os.path.join(_HERE, f"<guard {sig} {kind}>")


def make(key: tuple, n_args: int, plan: Any, donate: bool, call_var: Any) -> Callable:
    """The guard of ``key`` (per argument None for a number or array, else whether the
    Tensor's buffer is donated; then, per closed-over storage, whether it is donated);
    ``call_var``: the context variable a trace reads the call from."""
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
    sts_list = f"[{', '.join(sts)}]"
    single = len(sts) == 1  # (the commonest: one storage's lock, without sorting)
    if single:
        src += ["    with s0._lock or s0.lock():"]
    else:
        src += [f"    held = lock({sts_list})", "    try:"]
    src += ["        if plan.stale:", "            return MISS"]
    for i, s in enumerate(sts):
        src.append(f"        x{i}, d{i} = {s}.lend({donate})")
        # (restore undoes only what lend did: it marked a donated storage busy)
        undo = "".join(f"{sts[k]}.restore(x{k}); " for k in range(i + 1))
        src += [f"        if d{i} is not {flags[i]}:", f"            {undo}return MISS"]
    restore = "; ".join(f"{sts[k]}.restore(x{k})" for k in range(len(sts)) if flags[k])
    coded = hasattr(plan.fn, "again")  # (see _checks._body_hoisted: checks, then writes)
    args = ", ".join(inputs)
    call = (f"            res = fast({args})\n"
            "            for aux in res:\n"
            "                if aux.coded and nonzero(res[aux][-1]):\n"
            f"                    res = again(({''.join(i + ', ' for i in inputs)}), aux, "
            "res[aux])") if coded else f"            res = fn({args})"
    if coded and plan.host is not None:  # (decided at the plan's first trace, made before)
        call = (f"            if not host(({''.join(i + ', ' for i in inputs)})):\n"
                f"                res = slow({args})\n"
                "            else:\n" + "\n".join("    " + line for line in call.split("\n")))
    src += [
        f"        sts = {sts_list}",
        "        tok = CALL.set(sts)",
        "        try:",
        call,
        "        except BaseException as e:",
        "            if type(e) is Unready:",
        "                e.put_back(sts)",
        f"            {restore or 'pass'}",
        "            raise",
        "        finally:",
        "            CALL.reset(tok)",
    ]
    src += [f"        del {', '.join(f'x{i}' for i in range(len(sts)))}"] if sts else []
    src += ["        return self._finish(plan, res, sts, args, False)"]
    if not single:
        src += ["    finally:", "        unlock(held)"]
    ns = {"MISS": MISS, "PLAIN": PLAIN, "Tensor": Tensor, "plan": plan, "fn": plan.fn,
          "lock": lock, "unlock": unlock, "CALL": call_var, "Unready": Unready}
    if coded:
        ns.update(fast=plan.fn.fast, nonzero=plan.fn.nonzero, again=plan.fn.again,
                  slow=plan.fn.slow, host=plan.host)
    text = "\n".join(src) + "\n"
    name = _source_name(key, ("coded" if coded else "") + (
        " host" if coded and plan.host is not None else ""))
    # (a file name in the package: tracebacks drop the guard's frame with jaxtensor's own,
    # and, with that filtering off, show its source)
    linecache.cache[name] = (len(text), None, text.splitlines(True), name)
    exec(compile(text, name, "exec"), ns)  # noqa: S102 - generated from the signature above
    guard = ns["guard"]
    guard.plan = plan
    return guard
