"""Thread safety of eager use: several Python threads using jaxtensor at once.

The guarantee under test: every single write call (``x[k] = v``, a slice write, a write
through a view, a queued scalar write, an in-place method such as ``index_add_``, a
``jaxtensor.jit`` call's write-back) is one read-modify-write of the storage, serialised
with every other, so no write is lost, none crashes, and every read returns a value the
tensor actually had (a thread's reads see its own earlier writes). A ``jaxtensor.jit`` trace
in one thread never affects eager work in another. Compound Python statements (``x[k] += v``
is a read, then a write) are not atomic, as in NumPy and PyTorch.

Each test runs 4 threads started together at a barrier, with a short GIL switch interval so
that their steps interleave as finely as possible, and collects every exception raised in
any thread.
"""

from __future__ import annotations

import sys
import threading
import traceback
from collections.abc import Callable

import numpy as np
import pytest

import jaxtensor as jt

N_THREADS = 4
ROUNDS = 300


@pytest.fixture(autouse=True)
def _fine_interleaving():
    """Switch threads every few microseconds (default 5 ms) while a test runs."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(old)


def run_threads(*targets: Callable[[], None], timeout: float = 60.0) -> None:
    """Run each target in its own thread, all released at once by a barrier; fail with
    every exception any of them raised (with its traceback)."""
    barrier = threading.Barrier(len(targets))
    errors: list[str] = []

    def wrap(fn: Callable[[], None]) -> Callable[[], None]:
        def body() -> None:
            try:
                barrier.wait()
                fn()
            except BaseException:  # noqa: BLE001 - every failure must reach the test
                errors.append(traceback.format_exc())

        return body

    threads = [threading.Thread(target=wrap(fn), daemon=True) for fn in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout)
    assert not any(t.is_alive() for t in threads), "a thread did not finish (deadlock?)"
    assert not errors, "exceptions in threads:\n" + "\n".join(errors)


def values(t: jt.Tensor) -> np.ndarray:
    return np.asarray(t)


# -- writes into one storage ------------------------------------------------------------------
def test_disjoint_slice_writes_are_never_lost():
    k = 16
    x = jt.zeros(N_THREADS * k)

    def writer(t: int) -> Callable[[], None]:
        lo, hi = t * k, (t + 1) * k
        own = x[lo:hi]  # a view held over the whole run

        def body() -> None:
            for r in range(1, ROUNDS + 1):
                if r % 3 == 0:
                    x[lo:hi] = float(r)  # slice write on the base
                elif r % 3 == 1:
                    own[:] = float(r)  # write through a view
                else:
                    own[1:] = float(r)  # write through a view of the view
                    own[0] = float(r)  # a scalar write into a view
                # nobody else writes this range: a write of another thread made from a stale
                # base (a lost write) would show here as an older value
                seen = values(x[lo:hi])
                assert (seen == r).all(), (t, r, seen)

        return body

    run_threads(*(writer(t) for t in range(N_THREADS)))
    np.testing.assert_array_equal(values(x), np.full(N_THREADS * k, float(ROUNDS)))


def test_disjoint_rows_of_a_matrix():
    x = jt.zeros((N_THREADS, 8), dtype=jt.int32)

    def writer(t: int) -> Callable[[], None]:
        def body() -> None:
            for r in range(1, ROUNDS + 1):
                x[t] = r  # a row
                x[t, r % 8] = -r  # an N-D scalar write (queued)
                want = np.full(8, r)
                want[r % 8] = -r
                np.testing.assert_array_equal(values(x[t]), want)

        return body

    run_threads(*(writer(t) for t in range(N_THREADS)))
    want = np.full((N_THREADS, 8), ROUNDS)
    want[:, ROUNDS % 8] = -ROUNDS
    np.testing.assert_array_equal(values(x), want)


def test_scalar_writes_are_all_applied():
    k = 50
    x = jt.zeros(N_THREADS * k, dtype=jt.int32)
    y = jt.zeros((N_THREADS, k))

    def writer(t: int) -> Callable[[], None]:
        def body() -> None:
            for r in range(1, ROUNDS // 50 + 1):
                for j in range(k):
                    x[t * k + j] = r * 1000 + j  # queued on the shared storage
                    y[t, j] = float(r)
                # a read (of the thread's own part) applies every queued write, including
                # those other threads are appending meanwhile
                np.testing.assert_array_equal(values(x[t * k:(t + 1) * k]),
                                              r * 1000 + np.arange(k))
                assert (values(y[t]) == r).all()

        return body

    run_threads(*(writer(t) for t in range(N_THREADS)))
    last = ROUNDS // 50
    np.testing.assert_array_equal(values(x), np.tile(last * 1000 + np.arange(k), N_THREADS))
    np.testing.assert_array_equal(values(y), np.full((N_THREADS, k), float(last)))


def test_scalar_writes_mixed_with_slice_writes_and_reads():
    """Queued writes of two threads, slice writes of a third, reads of a fourth, one storage."""
    x = jt.zeros(64)

    def scalars(t: int) -> Callable[[], None]:
        def body() -> None:
            for r in range(1, ROUNDS + 1):
                x[t * 8 + r % 8] = float(r)
                if r % 8 == 7 and r > 8:  # its last 8 writes, whoever applied them
                    got = values(x[t * 8:(t + 1) * 8])
                    np.testing.assert_array_equal(np.sort(got), np.arange(r - 7, r + 1.0))

        return body

    def slices() -> None:
        for r in range(1, ROUNDS + 1):
            x[32:64] = float(r)
            x[48:56] = -float(r)

    def reader() -> None:
        last = np.zeros(64)
        for _ in range(ROUNDS):
            v = values(x)
            head = v[32:48]
            # a slice write is never seen half done
            assert (head == head[0]).all(), head
            assert (v[48:56] == v[48]).all()
            # no element goes back in time: each one's writes land in their order
            assert (v[:16] >= last[:16]).all(), (last[:16], v[:16])
            # (x[48] goes 0, 1, -1, 2, -2, ...: the slice write, then the inner one)
            assert v[32] >= last[32] and abs(v[48]) >= abs(last[48]), (last, v)
            last = v

    run_threads(scalars(0), scalars(1), slices, reader)
    want = np.zeros(64)
    for t in range(2):
        for r in range(ROUNDS - 7, ROUNDS + 1):
            want[t * 8 + r % 8] = r
    want[32:64] = ROUNDS
    want[48:56] = -ROUNDS
    np.testing.assert_array_equal(values(x), want)


def test_overlapping_slice_writes_are_whole():
    """Overlapping writes are serialised: each one lands whole (never torn by another), and
    the final value is the last write of some thread."""
    x = jt.zeros(40)
    # thread t writes [8t, 8t + 16): each half overlaps a neighbour's range
    ranges = [(8 * t, 8 * t + 16) for t in range(N_THREADS)]

    def writer(t: int) -> Callable[[], None]:
        lo, hi = ranges[t]

        def body() -> None:
            for r in range(1, ROUNDS + 1):
                x[lo:hi] = float(t * 10_000 + r)

        return body

    def check(v: np.ndarray) -> None:
        for lo in range(0, 40, 8):  # each block of 8 belongs to the last write that covered it
            block = v[lo:lo + 8]
            assert (block == block[0]).all(), (lo, block)
            if block[0]:
                owner, r = divmod(int(block[0]), 10_000)
                assert lo in (ranges[owner][0], ranges[owner][0] + 8)
                assert 1 <= r <= ROUNDS

    seen: list[np.ndarray] = []

    def reader() -> None:
        for _ in range(ROUNDS):
            seen.append(values(x))

    run_threads(*(writer(t) for t in range(N_THREADS)), reader)
    for v in seen:
        check(v)
    final = values(x)
    check(final)
    # every block's final owner wrote its last round
    for lo in range(0, 40, 8):
        assert int(final[lo]) % 10_000 == ROUNDS


def test_whole_writes_of_the_same_range_never_tear():
    x = jt.zeros((8, 8))
    row = x[2:6]

    def writer(t: int) -> Callable[[], None]:
        def body() -> None:
            for r in range(1, ROUNDS + 1):
                code = float(t * 10_000 + r)
                if r % 2:
                    x[2:6] = code
                else:
                    row[...] = code

        return body

    def reader() -> None:
        last = {}
        for _ in range(ROUNDS):
            v = values(row)
            assert (v == v.flat[0]).all(), v
            owner, r = divmod(int(v.flat[0]), 10_000)
            assert r >= last.get(owner, 0)  # one thread's writes land in its order
            last[owner] = r

    run_threads(writer(0), writer(1), writer(2), reader)
    v = values(x)
    assert (v[2:6] == v[2, 0]).all()
    assert int(v[2, 0]) % 10_000 == ROUNDS
    assert (v[:2] == 0).all() and (v[6:] == 0).all()


def test_in_place_methods_are_atomic():
    """``index_add_``/``index_put_(accumulate=True)`` are one read-modify-write each: no
    increment is lost."""
    x = jt.zeros(8, dtype=jt.int32)
    idx = jt.asarray([0, 3, 3, 7])
    ones = jt.ones(4, dtype=jt.int32)

    def adder(t: int) -> Callable[[], None]:
        def body() -> None:
            for _ in range(ROUNDS):
                if t % 2:
                    x.index_add_(0, idx, ones)
                else:
                    x.index_put_((idx,), ones, accumulate=True)

        return body

    run_threads(*(adder(t) for t in range(N_THREADS)))
    total = N_THREADS * ROUNDS
    np.testing.assert_array_equal(values(x), [total, 0, 0, 2 * total, 0, 0, 0, total])


def test_compound_in_place_operators_do_not_crash():
    """``x[a:b] += 1`` is a read then a write (two calls, as in NumPy): increments may be lost
    between threads, but nothing raises and the result is one of the possible interleavings
    (between one thread's count and all threads' counts, the same in every element)."""
    x = jt.zeros(16)
    y = jt.zeros(16)

    def adder() -> None:
        for _ in range(ROUNDS):
            x[4:12] += 1.0
            y[4:12] += 1.0  # (alternated with x: interleave two storages too)

    run_threads(*([adder] * N_THREADS))
    for v in (values(x), values(y)):
        assert (v[:4] == 0).all() and (v[12:] == 0).all()
        mid = v[4:12]
        assert (mid == mid[0]).all(), mid
        assert ROUNDS <= mid[0] <= N_THREADS * ROUNDS


def test_reads_see_only_values_that_existed():
    """One writer steps the whole tensor through 1, 2, 3, ...; readers (base, views, method
    calls, operators) only ever see one of those states, in order."""
    x = jt.zeros((4, 16))
    view = x[1:3, ::2]

    def writer() -> None:
        for r in range(1, ROUNDS + 1):
            if r % 2:
                x[...] = float(r)
            else:
                x[:, :] = float(r)

    def reader(kind: int) -> Callable[[], None]:
        def body() -> None:
            last = 0.0
            for _ in range(ROUNDS):
                if kind == 0:
                    v = values(x)
                elif kind == 1:
                    v = values(view)
                else:
                    v = values(x + 0.0)
                    s = float(jt.sum(x)) / x.size  # a state, not a mix of two
                    assert s == int(s), s
                assert (v == v.flat[0]).all(), v
                assert v.flat[0] >= last
                last = v.flat[0]

        return body

    run_threads(writer, reader(0), reader(1), reader(2))
    np.testing.assert_array_equal(values(x), np.full((4, 16), float(ROUNDS)))


# -- eager work beside jaxtensor.jit traces ------------------------------------------------------
def test_eager_work_beside_jit_traces():
    """Thread E works eagerly (operators, writes, views) while thread J traces and calls
    ``jaxtensor.jit`` functions: new shapes (retraces), a function writing a closed-over
    Tensor, a failing bounds check. Neither sees the other's state."""
    acc = jt.zeros(4, dtype=jt.int32)  # closed over by a jitted function
    done = threading.Event()

    @jt.jit
    def scale_and_write(x, i):
        y = x * 2.0
        x[i] = -1.0  # a traced index: a bounds check
        return y

    @jt.jit
    def bump_acc(n):
        acc[0] += n

    n_shapes = 8

    def jit_thread() -> None:
        try:
            for r in range(n_shapes):
                x = jt.arange(float(r + 2))  # a new shape every round: a retrace
                y = scale_and_write(x, r)
                np.testing.assert_array_equal(values(y), 2.0 * np.arange(r + 2))
                want = np.arange(r + 2.0)
                want[r] = -1.0
                np.testing.assert_array_equal(values(x), want)
                bump_acc(1)
                with pytest.raises(IndexError):
                    scale_and_write(x, r + 2)  # out of bounds: raised here, in this thread
                np.testing.assert_array_equal(values(x), want)  # the failed call wrote nothing
        finally:
            done.set()

    def eager_thread() -> None:
        b = jt.arange(8.0)
        c = jt.zeros(8)
        view = c[2:6]
        r = 0
        while not done.is_set() or r < ROUNDS:
            r += 1
            np.testing.assert_array_equal(values(b + 1.0), np.arange(8.0) + 1.0)
            c[r % 8] = float(r)  # queued
            view[:] = float(-r)  # through a view
            v = values(c)
            assert (v[2:6] == -r).all()
            assert v[r % 8] == (-r if 2 <= r % 8 < 6 else r)
            assert float((b * b).sum()) == 140.0
            acc[1] = r  # an eager write into the storage the jitted function writes
        assert int(acc[1]) == r

    def jit_caller_with_own_tensors() -> None:
        @jt.jit
        def step(x):
            x[1:] += x[:-1]
            return x.sum()

        z = jt.ones(5)
        for _ in range(ROUNDS // 10):
            z[...] = 1.0
            assert float(step(z)) == 9.0
            np.testing.assert_array_equal(values(z), [1.0, 2.0, 2.0, 2.0, 2.0])

    run_threads(jit_thread, eager_thread, jit_caller_with_own_tensors)
    assert int(acc[0]) == n_shapes


def test_threads_calling_one_jitted_function():
    """A ``jaxtensor.jit`` function called from 4 threads at once, each on its own Tensors
    and all on one shared closed-over counter: every call's write-back lands, the first
    calls (which trace, find the closed-over Tensor and recompile) included. Repeated over
    fresh functions, the first calls racing each time."""
    n_funcs, calls = 4, 10
    counters = [jt.zeros((), dtype=jt.int32) for _ in range(n_funcs)]

    def make(counter: jt.Tensor) -> Callable:
        @jt.jit
        def step(x, v):
            x[:] = v
            counter[...] += 1
            return x + 1.0

        return step

    steps = [make(c) for c in counters]
    barrier = threading.Barrier(N_THREADS)

    def caller(t: int) -> Callable[[], None]:
        def body() -> None:
            x = jt.zeros(3 + t % 2)  # two shapes: two plans in use at once
            for step in steps:
                barrier.wait()  # the threads' first calls of each function race
                for r in range(calls):
                    y = step(x, float(r))
                    np.testing.assert_array_equal(values(x), float(r))
                    np.testing.assert_array_equal(values(y), float(r) + 1.0)

        return body

    run_threads(*(caller(t) for t in range(N_THREADS)))
    assert [int(c) for c in counters] == [N_THREADS * calls] * n_funcs


@pytest.mark.parametrize("closed_over", [False, True])
def test_a_first_jit_call_never_stalls_work_on_other_tensors(closed_over: bool) -> None:
    """While one thread's first ``jaxtensor.jit`` call traces (and compiles) its function,
    another thread writes and reads unrelated Tensors: no lock is held through tracing, so
    the other thread finishes while the trace is still running (the trace waits for it)."""
    tracing, other_done = threading.Event(), threading.Event()
    seen: list[bool] = []
    z = jt.zeros(4)  # closed over by the traced function in one variant

    @jt.jit
    def slow(x):
        tracing.set()
        seen.append(other_done.wait(timeout=30))  # (inside the trace: Python runs here)
        x[0] = 1.0
        if closed_over:
            z[1] = 2.0

    y = jt.zeros(8)
    x = jt.zeros(3)

    def first_call() -> None:
        slow(x)

    def other() -> None:
        assert tracing.wait(timeout=30)
        y[2] = 5.0
        y[1:4] += 1.0
        jt.reshape(y, (2, 4)).T[1, 0] = 5.0  # (views, reads)
        assert float(y[2]) == 6.0
        other_done.set()

    run_threads(first_call, other)
    assert seen and seen[0], "the other thread waited for the trace"
    assert x.tolist() == [1.0, 0.0, 0.0] and (not closed_over or z.tolist()[1] == 2.0)


def test_element_reads_computed_together_across_threads():
    """Threads unpack elements of one Tensor (``a, b, c, d = x``, computed together at the
    first use, possibly with another thread's reads of the same value) while another writes
    it whole: every element read is a value the Tensor had at that position, never torn."""
    x = jt.asarray(np.zeros(4))  # (every write makes row k: k * 10 + position)
    seen: list[list[float]] = [[] for _ in range(N_THREADS - 1)]

    def writer() -> None:
        for k in range(1, ROUNDS):
            x[...] = jt.asarray(np.arange(4.0) + 10 * k)

    def reader(out: list[float]) -> Callable[[], None]:
        def body() -> None:
            for _ in range(ROUNDS):
                a, b, c, d = x
                for pos, v in ((3, d), (1, b), (0, a), (2, c)):
                    out.append((pos, float(v)))
        return body

    run_threads(writer, *(reader(s) for s in seen))
    for out in seen:
        for pos, v in out:
            assert v == 0.0 or (v - pos) % 10 == 0, (pos, v)
        assert len(out) == 4 * ROUNDS
