"""Versioned storage: the one mutable cell behind a Tensor and all its views.

A :class:`Storage` holds the whole base value as an immutable ``jax.Array`` (or a tracer
inside a traced function), a ``version`` that every write changes, and an ``exported`` flag
set whenever the current array is handed to the user (``to_jax``, ``__jax_array__``,
``__array__``, DLPack).

Every change of the value ends in one method, :meth:`Storage._install`. A write reaches it
through :meth:`Storage.update`: it computes the new value with a kernel of the caller's
choice, decides in one place (:meth:`donatable`) whether the old buffer may be donated to that
kernel (so a write costs what it writes, not a copy of the base), and installs the result; the
flush of queued scalar writes runs the same way. :meth:`replace` installs a whole value
computed elsewhere (no kernel, no donation), :meth:`install` does so past a running
``jaxtensor.jit`` trace, and a compiled call's write-back installs the call's results.

Threads: each storage has its own lock (:meth:`Storage.lock`), which serialises its
read-modify-writes (they never interleave, so no write is lost), and while a write runs, the
storage's slot holds a marker that makes readers of other threads wait for it (a buffer being
donated is never handed out). Work on one storage never waits for another's; an eager
write's kernel is compiled at its first run, under the lock of the one storage it writes
(``docs/architecture.md``, *Threads and locks*). A ``jaxtensor.jit`` call takes the locks of all its
storages, in one global order (by address, so two calls cannot wait for each other), from
lending their values to installing its results. Queued scalar writes are appended without
the lock (``list.append`` is atomic) and applied under it.

Under ``jaxtensor.jit`` (see ``_context.py``) reads and writes go to the running trace instead.
"""

from __future__ import annotations

import itertools
import sys
import threading
import weakref
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.core import eval_context

from . import _cache, _config
from ._config import X64
from ._context import current as _current_jit
from ._jax_private import EvalTrace, trace_state

Tracer = jax.core.Tracer
_ArrayImpl = type(jnp.zeros(()))
_getrefcount = sys.getrefcount

_IDX = np.int64 if X64 else np.int32

#: Guards the creation of storages' locks (made on first use: most results are never
#: written).
_MAKING = threading.Lock()
#: Versions are unique over the process: a value cached under one version can never be
#: mistaken for another storage state, whichever thread wrote it.
_versions = itertools.count(1)


class _Busy:
    """The value of a storage's slot while a write computes its new value."""

    __slots__ = ()
    shape = dtype = None

    def __repr__(self) -> str:
        return "<being written>"


BUSY = _Busy()


class Deferred:
    """The value of an element read (``x[i, j]``), not computed yet: what ``read(view,
    array)`` gives, ``array`` being the base value held when it was read (arrays are
    immutable, so that is the element's value whatever is written later).

    It stands in both the element's storage slot (with the element's shape and dtype) and its
    queue (``_pending``), so the first read of the element settles it like a queued write
    (:meth:`Storage._flush`). The source storage lists its deferred readers
    (``Storage.readers``) and settles those still holding its current value before a write
    that would donate that value (:meth:`Storage._detach`): copy-on-write at the element.
    (Correctness never rests on that list: a reader it misses keeps the array referenced, so
    the write copies instead of donating.)

    ``source`` is the storage read; ``then``, if set, an in-place operator applied to the
    element before its first read, ``then(target)`` (target: the element's storage, or a view
    of the source where ``x[i] op= v`` writes the result back as one kernel). Made by
    :meth:`Storage.defer`.
    """

    __slots__ = ("array", "view", "read", "shape", "dtype", "source", "then")

    def __repr__(self) -> str:
        return "<element not read yet>"

_flush_kernels = _cache.cache("queued-write flush kernels", 256)
_pickers = _cache.cache("queued-write flush kernel pickers", 256)


def current_trace() -> object:
    return trace_state.value


class TracerLeakError(RuntimeError):
    """A Tensor created outside a traced function was mutated inside it.

    ``jax.jit`` cannot carry the write out of the trace; ``jaxtensor.jit`` can.

    Examples
    --------
    >>> import jax, jaxtensor as jt
    >>> x = jt.zeros(2)
    >>> @jax.jit
    ... def f(y):
    ...     x[0] = y
    ...     return y
    >>> try:
    ...     f(1.0)
    ... except jt.TracerLeakError as e:
    ...     print(type(e).__name__)
    TracerLeakError
    """


class Storage:
    """The base value of a family of aliasing Tensors.

    Attributes:
        array: the whole base value (``jax.Array`` or tracer), queued writes applied.
        version: changed by every write; views compare it with their cache.
        exported: the current ``array`` object has been handed out, so it must never be
            donated (donation would invalidate the user's reference).
        trace: the JAX trace the storage was created under.
    """

    __slots__ = ("_array", "shape", "dtype", "version", "exported", "trace", "_pending", "meta",
                 "layout", "_lock", "readers", "__weakref__")

    def __init__(self, array: Any, *, exported: bool = False) -> None:
        self._array = array
        # (fixed for the storage's life: every write keeps them; read without settling the
        # queued writes)
        self.shape = tuple(array.shape)
        self.dtype = array.dtype
        self.version = 0
        self.exported = exported
        self.trace = trace_state.value
        self._pending: list[tuple[int, Any]] | None = None
        self.meta: Any = None  # what the indexing code derives once from shape and dtype
        # the Sharding every value keeps when it spans several devices, False on one device,
        # None until decided by the first write (:func:`_layout`)
        self.layout: Any = None
        self._lock: threading.RLock | None = None
        # weak references to the storages of element reads not computed yet (``Deferred``)
        self.readers: list[weakref.ref] | None = None

    def lock(self) -> threading.RLock:
        """This storage's lock (re-entrant), made on first use: held by every
        read-modify-write of the storage and by a compiled call writing it."""
        lk = self._lock
        if lk is None:
            with _MAKING:
                lk = self._lock
                if lk is None:
                    lk = self._lock = threading.RLock()
        return lk

    # -- reading -------------------------------------------------------------------------
    @property
    def array(self) -> Any:
        """The whole base value, with every queued write applied."""
        jt = _current_jit.get()
        if jt is not None:
            return jt.read(self)
        a = self._array  # (read once: a write in another thread may replace it)
        if self._pending or a is BUSY:
            del a  # (the flush may donate it)
            return self._settle()
        return a

    def settled(self) -> Any:
        """The value outside any ``jaxtensor.jit`` trace: queued writes applied, a write in
        another thread waited for."""
        a = self._array
        if self._pending or a is BUSY:
            del a  # (the flush may donate it)
            return self._settle()
        return a

    def _settle(self) -> Any:
        # (no reference to the old value may be held here: the flush donates it)
        with self.lock():
            if self._pending:
                self._flush()
            return self._array

    def __repr__(self) -> str:
        a = self._array
        return (
            f"Storage(shape={tuple(a.shape)}, dtype={a.dtype}, version={self.version}, "
            f"exported={self.exported})"
        )

    # -- writing ---------------------------------------------------------------------------
    def donatable(self, arr: Any, held: int = 1) -> bool:
        """Whether ``arr`` (this storage's current value) may be donated to a kernel: it was
        never handed out, it is a concrete array, and nobody but this storage and the
        caller's ``held`` references holds it. The one place donation is decided."""
        if self.exported or type(arr) is not _ArrayImpl:
            return False
        # getrefcount's argument and this method's parameter, the caller's references, the
        # storage's slot
        return _getrefcount(arr) <= 2 + held + (self._array is arr)

    def can_donate(self) -> bool:
        """``donatable`` of the current value, for callers holding no reference to it (with
        writes queued or an element not computed yet: of the new array their flush makes,
        as :meth:`lend` finds it)."""
        if self._pending:
            return not self.exported
        # (the element reads that still hold it: :meth:`lend` settles them first)
        return self.donatable(self._array, held=len(self._holding(self._array)))

    def update(self, pick: Callable[[bool | None], Callable], *args: Any) -> None:
        """Read-modify-write: the value becomes ``pick(donate)(value, *args)``.

        ``pick(True)``/``pick(False)`` return a compiled kernel that may / may not donate
        its first argument (decided by :meth:`donatable`); ``pick(None)`` a plain function
        for traced values (it becomes part of the caller's computation). The read, the
        kernel and the install happen under the storage's lock. If the kernel raises, nothing
        changes.
        """
        jt = _current_jit.get()
        if jt is not None:
            jt.update(self, pick(None), args)
            return
        self._apply(pick, args)

    def replace(self, new: Any) -> None:
        """Make ``new``, a whole value of the storage's shape and dtype that the caller
        computed, the value: no kernel runs and nothing is donated (the old buffer is
        dropped). Inside a ``jaxtensor.jit`` trace (or a checked transform), the running
        trace's ``write`` takes ``new`` (gated by the checks made so far); otherwise it is
        installed under the storage's lock (:meth:`_install`: a new version, not exported, moved to the storage's
        sharding, which the first write decides). Queued scalar writes are not applied
        first: any still queued (queued after the caller read the value) stay queued and
        apply over ``new`` at the next read."""
        jt = _current_jit.get()
        if jt is not None:
            jt.write(self, new)
            return
        with self.lock():
            if self.layout is None:
                self.layout = _layout(self._array)
            self._install(new)

    def install(self, new: Any) -> None:
        """Install ``new`` as the value, bypassing any running ``jaxtensor.jit`` trace (for
        the trace itself, and for the write-back of a compiled call)."""
        with self.lock():
            self._install(new)

    def lend(self, donate: bool) -> tuple[Any, bool]:
        """The current value for a compiled call the caller makes (holding the storage's lock),
        and whether the call may donate it. If it may, the slot holds :data:`BUSY` until
        the caller installs the call's result (or :meth:`restore` s the value)."""
        if self._pending:
            self._flush()
        if donate and self.readers:
            self._detach(self._array)
        arr = self._array
        if self.layout is None:
            self.layout = _layout(arr)
        if donate and not self.exported and type(arr) is _ArrayImpl:
            # the slot is marked first, so that no other thread can take the value between
            # the count of its references and the mark
            self._array = BUSY
            if self.donatable(arr):
                return arr, True
            self._array = arr
        return arr, False

    def restore(self, arr: Any) -> None:
        """Undo :meth:`lend` (the call failed before it could consume the value)."""
        if self._array is BUSY:
            self._array = arr

    def _apply(self, pick: Callable[[bool | None], Callable], args: tuple,
               flush: bool = True) -> None:
        """:meth:`update` outside any ``jaxtensor.jit`` trace (``flush=False``: for the
        flush itself)."""
        with self.lock():
            if flush and self._pending:
                self._flush()
            old = self._array
            if type(old) is not _ArrayImpl or (flush and _any_tracer(args)):
                self._install(pick(None)(old, *args))
                return
            if self.layout is None:
                self.layout = _layout(old)
            if self.readers:
                self._detach(old)
            self._array = BUSY
            try:
                new = pick(self.donatable(old))(old, *args)
            except BaseException:
                self._array = old
                raise
            del old
            self._install(new)

    # -- element reads -------------------------------------------------------------------
    def defer(self, view: Any, read: Callable, dtype: Any) -> Storage | None:
        """A storage for the element ``view`` (0-D) of this storage's current value, its value
        computed (``read(view, value)``) on its first read, or None where that cannot wait (a
        traced value). No device work; the storage keeps the value alive until then."""
        arr = self._array
        if self._pending or arr is BUSY:
            del arr
            arr = self._settle()
        if type(arr) is not _ArrayImpl:
            return None
        d = _new(Deferred)  # (made field by field: this runs for every element read)
        d.array, d.view, d.read, d.shape, d.dtype, d.source, d.then = (
            arr, view, read, (), dtype, self, None)
        st = _new(Storage)
        st._array = st._pending = d
        st.shape = ()
        st.dtype = dtype
        st.version = 0
        st.exported = False
        st.trace = trace_state.value
        st.meta = st.layout = st._lock = st.readers = None
        self.register(st)
        return st

    def _read_deferred(self, p: Deferred) -> Any:
        """The value of ``p``, this storage's element read, computed together with those of
        up to :data:`_BATCH` - 1 more reads of the same value through views of the same
        structure not computed yet, where its ``read`` can (``read.batch``): the elements of
        ``a, b, c, d = x`` are computed by one kernel at the first use of any of them, not by
        four. A sibling busy in another thread is left to it."""
        batch = getattr(p.read, "batch", None)
        rs = p.source.readers
        if batch is None or p.then is not None or not rs or len(rs) < 2 or not p.view.starts:
            if rs and rs[-1]() is self:  # (the one reader: it leaves the list)
                rs.pop()
            return p.read(p.view, p.array)
        others: list[Storage] = []
        held: list[threading.RLock] = []
        key = p.view.key
        n = len(rs)
        tail = rs[-_BATCH_SCAN:]
        live: list[weakref.ref] | None = []  # (the tail's readers not computed yet)
        try:
            for r in tail:
                st = r()
                if st is None or st is self:
                    continue
                d = st._pending
                if type(d) is not Deferred:
                    continue
                live.append(r)
                if (d.array is not p.array or d.read is not p.read or d.then is not None
                        or d.view.key != key):
                    continue
                lk = st.lock()
                if not lk.acquire(blocking=False):
                    continue
                held.append(lk)
                if st._pending is d:
                    others.append(st)
                    if len(others) == _BATCH - 1:
                        live = None  # (the tail not seen to its end)
                        break
            if not others:
                return p.read(p.view, p.array)
            values = batch([p.view, *(st._pending.view for st in others)], p.array)
            for st, v in zip(others, values[1:]):
                st._array = v
                st._pending = None
            return values[0]
        finally:
            for lk in held:
                lk.release()
            if live is not None and len(live) < len(tail) and len(rs) == n:
                rs[n - len(tail):] = live  # (the rest, computed or gone, leave the list)

    def register(self, st: Storage) -> None:
        """List ``st`` (an element read not computed yet) among this storage's readers."""
        ref = weakref.ref(st)
        rs = self.readers
        if rs is None:
            self.readers = [ref]
        else:
            rs.append(ref)
            n = len(rs)
            if n >= 32 and not n & (n - 1):  # (at powers of two: amortised O(1) per read)
                rs[:] = [r for r in rs if _deferred(r) is not None]

    def _holding(self, arr: Any) -> list[Storage]:
        """The element reads not computed yet that hold ``arr`` (this storage's value)."""
        out = []
        for r in self.readers or ():
            d = _deferred(r)
            st = r()
            if d is not None and d.array is arr and st is not None:
                out.append(st)
        return out

    def _detach(self, old: Any) -> None:
        """Compute the element reads still holding ``old`` (this storage's value, about to be
        donated to a write): each then holds its own 0-D value, not the base's buffer."""
        holding = self._holding(old)
        self.readers = None
        for st in holding:
            st._settle()

    def _install(self, new: Any) -> None:
        """The one place a storage's value changes (callers hold the storage's lock)."""
        if isinstance(new, Tracer) and self.trace is not trace_state.value:
            raise TracerLeakError(
                "a Tensor created outside this traced function is being mutated inside it; "
                "under jax.jit/grad/vmap that would leak a tracer into the Tensor. Pass the "
                "Tensor as an argument and return its new value, or use jaxtensor.jit, which "
                "writes mutations of closed-over Tensors back after the call."
            )
        lay = self.layout
        if lay and type(new) is _ArrayImpl:
            s = new.sharding
            if s is not lay and not s.is_equivalent_to(lay, new.ndim):
                # a written storage keeps its sharding, whatever the value's own
                new = jax.device_put(new, lay)
        self._array = new
        self.version = next(_versions)
        self.exported = False

    # -- queued scalar writes ------------------------------------------------------------
    def queue(self, flat: int, value: Any) -> None:
        """Record ``value.flat[flat] = value`` (a checked index, a Python number of the
        storage's kind) to be applied with the next read of any alias.

        Eager loops of scalar writes are the NumPy idiom that a dispatch per write makes
        slow; queued writes are applied together, in order (the last write to an element
        wins), by one compiled, donated scatter.
        """
        p = self._pending
        if p is None:
            with self.lock():
                p = self._pending
                if p is None:
                    p = self._pending = []
        p.append((flat, value))
        self.version = next(_versions)
        if len(p) >= _config.MAX_PENDING:
            self._settle()

    def _flush(self) -> None:
        """Apply the queued writes (the caller holds the storage's lock)."""
        p = self._pending
        if type(p) is Deferred:
            if type(trace_state.value) is EvalTrace:
                v = self._read_deferred(p)
            else:  # (first read inside a trace: computed eagerly, as queued writes are)
                with eval_context():
                    v = self._read_deferred(p)
            self._array = v
            self._pending = None
            del v
            if p.then is not None:
                tok = _current_jit.set(None)  # (the element's own write, in no trace)
                try:
                    with eval_context():
                        p.then(self)
                finally:
                    _current_jit.reset(tok)
            return
        taken = len(p)
        items = p[:taken]
        n = taken
        # (the items leave the queue only once applied: until then readers in other threads
        # see a non-empty queue and wait for this flush; writes queued meanwhile by other
        # threads stay after them, for the next flush)
        try:
            arr = self._array
            if n == 1:
                ii = np.array([items[0][0]], dtype=_IDX)
                vv = np.array([items[0][1]], dtype=arr.dtype)
                bucket = 1
            else:
                ii = np.fromiter((i for i, _ in items), dtype=_IDX, count=n)
                vv = np.array([v for _, v in items], dtype=arr.dtype)
                # keep the last write to each element (the program's order), deterministically
                _, first_rev = np.unique(ii[::-1], return_index=True)
                if len(first_rev) < n:
                    keep = n - 1 - first_rev
                    ii, vv = ii[keep], vv[keep]
                    n = len(ii)
                bucket = 1 << (n - 1).bit_length()
                if bucket > n:  # pad with dropped (out-of-bounds) writes: one kernel per size class
                    ii = np.concatenate([ii, np.full(bucket - n, arr.size, _IDX)])
                    vv = np.concatenate([vv, np.zeros(bucket - n, vv.dtype)])
            # One write into an N-D base: XLA:CPU turns the flat form into a full-size, partitioned
            # dynamic-update-slice fusion (docs/measurements.md, section "One queued write into
            # an N-D base"); the N-D scatter stays a one-element update;
            # and a sharded base keeps its sharding only through the N-D form (a flat reshape
            # loses every sharded axis but the first)
            unravel = arr.ndim > 1 and (bucket == 1 or len(arr.sharding.device_set) > 1)
            del arr
            if type(trace_state.value) is EvalTrace:
                self._apply(_flush_picker(bucket, unravel), (ii, vv), flush=False)
            else:
                # read first inside a trace (a closed-over Tensor met by jaxtensor.jit or
                # jax.jit): the queued writes are concrete and happened before it, so they
                # are applied eagerly (traced, the result would leak a tracer)
                with eval_context():
                    self._apply(_flush_picker(bucket, unravel), (ii, vv), flush=False)
        finally:
            del p[:taken]


_new = object.__new__

#: element reads computed by one kernel at most (:meth:`Storage._read_deferred`), and the
#: latest readers of a storage searched for them
_BATCH = 8
_BATCH_SCAN = 16


def _deferred(r: weakref.ref) -> Deferred | None:
    """The not-yet-computed element read behind ``r`` (a reader's weak reference), if any."""
    s = r()
    if s is None:
        return None
    d = s._pending
    return d if type(d) is Deferred else None


def _layout(arr: Any) -> Any:
    """The sharding a storage holding ``arr`` keeps (False: one device; None: not known)."""
    if type(arr) is not _ArrayImpl:
        return None
    s = arr.sharding
    return s if len(s.device_set) > 1 else False


def _flush_picker(bucket: int, unravel: bool) -> Callable[[bool | None], Callable]:
    pick = _pickers.get((bucket, unravel))
    if pick is None:
        pick = _pickers[bucket, unravel] = _make_picker(bucket, unravel)
    return pick


def _make_picker(bucket: int, unravel: bool) -> Callable[[bool | None], Callable]:
    def pick(donate: bool | None) -> Callable:
        fn = _scatter_unravel if unravel else _scatter_flat
        if donate is None:
            return fn
        key = (bucket, donate, unravel)
        k = _flush_kernels.get(key)
        if k is None:
            k = _flush_kernels[key] = jax.jit(fn, donate_argnums=(0,) if donate else ())
        return k

    return pick


def _any_tracer(args: tuple) -> bool:
    for a in args:
        if isinstance(a, Tracer):
            return True
        if type(a) is tuple and _any_tracer(a):  # (a view's traced offsets, ``View.dyn``)
            return True
    return False


def _scatter_flat(base: Any, idx: Any, vals: Any) -> Any:
    flat = base.reshape(-1).at[idx].set(vals, mode="drop", unique_indices=True)
    return flat.reshape(base.shape)


def _scatter_unravel(base: Any, idx: Any, vals: Any) -> Any:
    # (not jnp.unravel_index: it clips, so a padding index ``base.size`` became the last
    # element and overwrote it; here the padding's first coordinate is out of bounds, dropped)
    coords = []
    for n in reversed(base.shape[1:]):
        coords.append(idx % n)
        idx = idx // n
    coords.append(idx)
    return base.at[tuple(reversed(coords))].set(vals, mode="drop", unique_indices=True)
