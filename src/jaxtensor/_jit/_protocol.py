"""The call protocol of ``jaxtensor.jit``, written once.

A top-level call of a compiled plan, holding its storages' locks:

1. take the locks (:func:`lock`: one global order) and give up (:data:`MISS`, nothing
   changed) if the plan was dropped meanwhile;
2. lend each storage's value (``Storage.lend``, which decides donation) and give up,
   restoring what was lent, if the donation differs from the plan's;
3. run the program with the call in :data:`~._plans.CALL` (:data:`_RUN`: a plan whose checks
   are hoisted or decided on the host runs its fast program and, after a failed check or
   where the host does not clear the call, its gated one);
4. on an error, put back what a call that must compile its gated program consumed
   (:class:`Unready`), restore what was lent, and raise;
5. write back through ``Jitted._finish`` (the one write-back) and release the locks.

:data:`_LOCKED` is that protocol, the one definition of it. Both shapes of a call run code
made from it: the general path (:func:`general`, per storage count and donation) and the
guard of a plain call's signature (``_guard.py``, which puts its signature checks in front).
A plan's compiled function for hoisted or host-decided checks (:func:`coded`) runs
:data:`_RUN` too. Generated, not written as loops over lists: the generic Python form of the
plain path cost a measurable share of a small call (docs/measurements.md, section "The
generated guard of jaxtensor.jit"). The code is named as a file of this package, its source
in ``linecache``: its frames leave tracebacks with jaxtensor's own.

A call that left its locks by :class:`Unready` or :class:`~._plans.Retrace` is made again
after :func:`recover`, which compiles the gated program holding no lock.
"""

from __future__ import annotations

import linecache
import os
from collections.abc import Callable
from typing import Any

import numpy as np

from .._core import Storage, cache
from ._plans import CALL, Plan, Retrace

_HERE = os.path.dirname(os.path.abspath(__file__))

#: what a call returns when it gave up having changed nothing (made again by the caller)
MISS = object()


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


class Unready(Exception):
    """A call needs its plan's gated program, which is not compiled yet. Raised where the
    call holds its storages' locks: the protocol puts back the values the call consumed
    (:meth:`put_back`, holding the locks), leaves the locks, and :func:`recover` compiles
    the gated program (:meth:`ready`, holding none: no lock is held while JAX traces or
    compiles); then the call is made again."""

    def __init__(self, make: Callable[[], Callable], values: tuple, args: tuple) -> None:
        super().__init__("the gated program is not compiled yet")
        self.make = make
        self.values = values  # (storage number, its value unchanged) per donated storage
        self.inputs = args  # the gated program's arguments (to compile it for)
        self.call = CALL.get()

    def put_back(self, storages: list[Storage]) -> None:
        for k, v in self.values:
            storages[k]._install(v)  # (the caller holds the storages' locks)
        self.values = ()  # (a reference kept would keep the next call from donating)

    def ready(self) -> None:
        """Trace and compile the gated program (raises :class:`Retrace` as a trace may)."""
        tok = CALL.set(self.call)
        try:
            self.make().lower(*self.inputs).compile()  # (kept by jax.jit for the next call)
        finally:
            CALL.reset(tok)
            del self.inputs


def recover(e: Exception, jitted: Any, plan: Plan) -> None:
    """After a call left its locks by ``e`` (:class:`Unready` or ``Retrace``), holding no
    lock: compile the gated program, or trace the function again under checkify; the caller
    then makes the call again."""
    if type(e) is Unready:
        try:
            e.ready()
            return
        except Retrace:
            pass
    jitted._retrace(plan)


#: The run of a plan's program (step 3). ``{args}``: the program's arguments (``{targs}``:
#: as a tuple's items); ``{uncleared}``: whether the host did not clear the call (only for
#: host-decided checks). The fast program's last output is the number of the first failed
#: check when its checks were hoisted ahead of the writes (``Aux.coded``): a failed call
#: wrote nothing and is made ``again`` by the gated program.
_RUN = """\
if {uncleared}:
    res = slow({args})
else:
    res = fast({args})
    for aux in res:
        if aux.coded and nonzero(res[aux][-1]):
            res = again(({targs}), aux, res[aux])"""

#: The protocol of a top-level call (steps 1-5). ``{take}``/``{release}``: the locks;
#: ``{lend}``: per storage, lend and compare the donation; ``{place}``: where the values lent
#: go among the program's arguments; ``{run}``: :data:`_RUN` or a plain program's call;
#: ``{call}``: the call a trace started meanwhile reads (:data:`~._plans.CALL`);
#: ``{restore}``: per storage that may be donated; ``{drop}``: the references to the values
#: lent, before the write-back; ``{leaves}``: the call's leaves, for the results.
_LOCKED = """\
{take}
    if plan.stale:
        return MISS
{lend}
{place}
    sts = [{sts}]
    tok = CALL.set({call})
    try:
{run}
    except BaseException as e:
        if type(e) is Unready:
            e.put_back(sts)
{restore}
        raise
    finally:
        CALL.reset(tok)
{drop}
    return self._finish(plan, res, sts, {leaves}, False)
{release}"""


def indent(text: str, n: int) -> str:
    return "\n".join(" " * n + line if line else line for line in text.split("\n"))


def run_source(args: str, coded: bool, uncleared: str | None, fn: str = "fn") -> str:
    """Step 3 for a plain program (``fn``), or :data:`_RUN`'s (without the host's test
    where ``uncleared`` is None; it may name ``{targs}``)."""
    if not coded:
        return f"res = {fn}({args})"
    targs = "".join(a + ", " for a in args.split(", ") if a)
    if uncleared is None:
        fast = _RUN.partition("\nelse:\n")[2].format(args=args, targs=targs)
        return "\n".join(line[4:] for line in fast.split("\n"))
    return _RUN.format(args=args, targs=targs, uncleared=uncleared.format(targs=targs))


def locked_source(n: int, flags: tuple, donate: bool, run: str, place: list[str],
                  call: str, leaves: str, drop: str = "") -> str:
    """:data:`_LOCKED` for ``n`` storages ``s0``, ``s1``, ... whose donation must be
    ``flags``; the values lent are ``x0``, ``x1``, ..."""
    sts = [f"s{k}" for k in range(n)]
    if n == 1:  # (the commonest: one storage's lock, without sorting)
        take, release = "with s0._lock or s0.lock():", ""
    else:
        take, release = f"held = lock([{', '.join(sts)}])\ntry:", "finally:\n    unlock(held)"
    lend = []
    for k in range(n):
        # (restore undoes only what lend did: it marked a donated storage busy)
        undo = "".join(f"s{j}.restore(x{j}); " for j in range(k + 1))
        lend += [f"x{k}, d{k} = s{k}.lend({donate})", f"if d{k} is not {flags[k]}:",
                 f"    {undo}return MISS"]
    restore = [f"s{k}.restore(x{k})" for k in range(n) if flags[k]] or ["pass"]
    dropped = [f"x{k}" for k in range(n)] + ([drop] if drop else [])
    text = _LOCKED.format(
        take=take, release=release, lend=indent("\n".join(lend), 4),
        place=indent("\n".join(place), 4), sts=", ".join(sts), call=call,
        run=indent(run, 8), restore=indent("\n".join(restore), 8),
        drop=indent(f"del {', '.join(dropped)}", 4) if dropped else "", leaves=leaves)
    return "\n".join([line for line in text.split("\n") if line.strip()])


def build(src: str, name: str, ns: dict[str, Any]) -> dict[str, Any]:
    """Run generated source ``src`` as the file ``name`` of this package (a file that does
    not exist: its source is in ``linecache``, so tracebacks drop its frames with
    jaxtensor's own and, with that filtering off, show its source)."""
    path = os.path.join(_HERE, f"<{name}>")
    linecache.cache[path] = (len(src), None, src.splitlines(True), path)
    ns.update(MISS=MISS, CALL=CALL, Unready=Unready, lock=lock, unlock=unlock)
    exec(compile(src, path, "exec"), ns)  # noqa: S102 - generated from _LOCKED and _RUN
    return ns


_GENERAL = cache("jaxtensor.jit general call protocols", 512)


def general(n: int, flags: tuple, donate: bool) -> Callable:
    """The protocol of a call of ``n`` storages whose donation must be ``flags``, for the
    general path: ``(jitted, plan, storages, inputs, call, leaves)``, where ``inputs`` are
    the program's arguments with the storages' places to fill (a fresh list)."""
    key = (n, flags, donate)
    fn = _GENERAL.get(key)
    if fn is None:
        head = ["def protocol(self, plan, sts, ins, call, leaves):"]
        if n:
            head.append(f"    {''.join(f's{k}, ' for k in range(n))}= sts")
        head.append("    P = plan.positions")
        # (plan.fn runs _RUN itself where the plan's checks are hoisted: see coded)
        run = run_source("*ins", False, None, "plan.fn")
        body = locked_source(n, flags, donate, run,
                             [f"ins[P[{k}]] = x{k}" for k in range(n)], "call", "leaves",
                             drop="ins")
        sig = "".join("D" if f else "k" for f in flags)
        fn = _GENERAL[key] = build("\n".join(head) + "\n" + indent(body, 4) + "\n",
                                   f"call protocol {sig}", {})["protocol"]
    return fn


def nested(jitted: Any, plan: Plan, storages: list[Storage], inputs: list, call: Any,
           leaves: Any, before: Any) -> Any:
    """A call inside another trace: no lock, nothing lent or donated (the enclosing
    computation owns the values), its writes go to the enclosing trace (``before``: that
    trace's gate, see ``Trace.write_if``). :data:`MISS` after a check in a nested trace
    (the function is traced again under checkify)."""
    tok = CALL.set(call)
    try:
        res = plan.fn(*inputs)
    except Retrace:
        del inputs
        jitted._retrace(plan)
        return MISS
    finally:
        CALL.reset(tok)
    return jitted._finish(plan, res, storages, leaves, True, before)


_CODED = build(
    "def coded(fast, nonzero, again, slow, plan):\n"
    "    def call(*ins):\n"
    "        host = plan.host\n"
    + indent(run_source("*ins", True, "host is not None and not host(ins)"), 8)
    + "\n        return res\n    return call\n", "coded call", {})["coded"]


def coded(fast: Callable, plan: Plan, make_gated: Callable[[], Callable]) -> Callable:
    """The compiled function of a plan whose checks are hoisted or decided on the host: its
    program ``fast``, whose last output is the number of the first failed check when the
    trace's checks were hoisted ahead of the writes (``Aux.coded``): then a failed call,
    which wrote nothing, is made again by the plan's gated program (made by
    ``make_gated()`` after the first failure, :class:`Unready`), whose results carry the
    error and the writes eager code makes before it. Where the plan's checks are decided on
    the host (``plan.host``), ``fast`` has no checks and runs only the calls the host
    clears; the others run the gated program (``slow``).

    It runs :data:`_RUN`, as the guard of a plain call does inline, with the function's
    attributes ``fast``, ``nonzero``, ``again`` and ``slow``. (Plain functions, not an
    object's ``__call__``: docs/measurements.md, section "The coded call".)"""
    gated: list[Callable] = []
    positions = plan.positions
    buffer_read = [True]

    def nonzero(code: Any) -> bool:
        # Read with the buffer protocol where the array has one (XLA:CPU; it waits for
        # the value), not np.asarray: docs/measurements.md, section "The coded call".
        if buffer_read[0]:
            try:
                return any(memoryview(code).tobytes())
            except Exception:  # (an accelerator's buffer: BufferError; np.asarray tells the rest)
                buffer_read[0] = False
        return bool(np.asarray(code))

    def make() -> Callable:
        if not gated:
            gated.append(make_gated())
        return gated[0]

    def slow(*ins: Any) -> Any:
        if not gated:  # (nothing was run: the values lent are unchanged)
            raise Unready(make, (), ins)
        return gated[0](*ins)

    def again(ins: tuple, aux: Any, outs: tuple) -> Any:
        args = list(ins)
        for j, k in aux.pairs:  # (the values the failed call was given, unchanged)
            args[positions[k]] = outs[j]
        if not gated:  # (the failed call wrote nothing: its outputs are the values lent)
            raise Unready(make, tuple([(k, outs[j]) for j, k in aux.pairs]), tuple(args))
        return gated[0](*args)

    call = _CODED(fast, nonzero, again, slow, plan)
    call.fast = fast
    call.nonzero = nonzero
    call.again = again
    call.slow = slow
    call.lower = fast.lower
    return call
