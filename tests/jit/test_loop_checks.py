"""A failed bounds check followed by a ``while_loop`` (issue 31): the loop must stop, the call
raise the eager ``IndexError``, and every Tensor hold what the Python loop left when it
raised. Each program is written once over a helper namespace and run by NumPy with Python
``for``/``while``/``if`` (the oracle) and by jaxtensor's loops in each way a loop is called:
eagerly at the top level, inside ``jaxtensor.jit`` with the Tensors as arguments, and inside
``jaxtensor.jit`` with the Tensors closed over.

A program that hangs would hang the suite, so the jaxtensor runs are made in a subprocess
(this file run as a script) with a time limit: each case it finishes prints one line, and a
case without its line failed (hung, or the process died)."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

LIMIT_S = 30  # per case (each takes 0.1-5 s)
SRC = Path(__file__).resolve().parents[2] / "src"  # (the subprocess imports this tree's)


class PY:
    """Python's loops over NumPy arrays (the oracle)."""

    @staticmethod
    def fori(lo, hi, body):
        for i in range(lo, hi):
            body(i)

    @staticmethod
    def while_(test, body):
        while test():
            body()

    @staticmethod
    def cond(p, f, g):
        return f() if p else g()

    @staticmethod
    def ds(i, k):  # (a fancy index: out of bounds raises IndexError, as ds() does)
        return np.arange(i, i + k)


def _jt():
    import jaxtensor as jt

    class JT:
        fori = staticmethod(jt.fori_loop)
        while_ = staticmethod(jt.while_loop)
        cond = staticmethod(jt.cond)
        ds = staticmethod(jt.ds)
    return JT


# Each program writes X (int64[8]), Y (float32[4]) and two int32 counters C, D, and fails a
# bounds check before (or inside) a while_loop whose condition, on the values that the
# writes gated off after the failure leave, stays true (the loop never ended).
def fori_while(h, X, Y, C, D):
    def body(i):
        Y[i] = i + 1
        X[h.ds(i + 6, 1)] = 7  # i = 2: out of bounds
        C[0] = 0

        def w():
            C[0] += 1
            Y[0] += 1
        h.while_(lambda: C[0] < i + 1, w)  # (i = 2: true with C as i = 1 left it)
    h.fori(0, 4, body)


def fori_cond_while(h, X, Y, C, D):
    def body(i):
        Y[i] += 1
        X[i + 6] = 7
        C[0] = 0

        def w():
            C[0] += 1
            D[0] += 1
        h.cond(Y[i] > 0, lambda: h.while_(lambda: C[0] < i + 2, w), lambda: None)
    h.fori(0, 4, body)


def while_while(h, X, Y, C, D):
    def outer():
        X[h.ds(D[0] + 5, 1)] = D[0]  # D = 3: out of bounds
        C[0] = 0

        def w():
            C[0] += 1
            Y[1] += 2
        h.while_(lambda: C[0] < D[0] + 1, w)
        D[0] += 1
    h.while_(lambda: D[0] < 6, outer)


def fori_while_fails_inside(h, X, Y, C, D):
    def body(i):
        C[0] = 0

        def w():
            Y[0] += 1
            X[C[0] + i * 3] += 1  # i = 2, C = 2: out of bounds
            C[0] += 1
        h.while_(lambda: C[0] < 3, w)
    h.fori(0, 3, body)


def fori_fori_while(h, X, Y, C, D):
    def outer(i):
        def inner(j):
            X[i * 3 + j] = 1  # i = 2, j = 2: out of bounds
            C[0] = 0

            def w():
                C[0] += 1
                D[0] += 1
            h.while_(lambda: C[0] < j + 1, w)
        h.fori(0, 3, inner)
    h.fori(0, 3, outer)


def top_level_then_while(h, X, Y, C, D):
    X[h.ds(D[0] + 8, 1)] = 7  # out of bounds at the top level of the function
    C[0] = 0

    def w():
        C[0] += 1
    h.while_(lambda: C[0] < 1, w)


def while_cond_checks(h, X, Y, C, D):
    # (a traced index in cond_fun: a check where nothing is carried, under checkify)
    def body(i):
        X[i + 5] = 3
        C[0] = 0

        def w():
            C[0] += 1
            Y[2] += 1
        h.while_(lambda: (C[0] < i + 1) & (Y[C[0] % 4] < 100), w)
    h.fori(0, 5, body)


def while_cond_fails(h, X, Y, C, D):
    # (the check of cond_fun fails: at its 6th evaluation, after 5 iterations)
    def body(i):
        C[0] = i

        def w():
            Y[C[0] % 4] += 1
            C[0] += 1
        h.while_(lambda: X[C[0] + 3] == 0, w)  # C = 5: out of bounds
        D[0] += 1
    h.fori(0, 2, body)


def while_cond_fails_first(h, X, Y, C, D):
    # (the check of cond_fun fails at its first evaluation, before any iteration)
    def body(i):
        Y[i] += 1

        def w():
            C[0] += 1
        h.while_(lambda: X[i + 8] == 0, w)  # out of bounds at i = 0
        D[0] += 1
    h.fori(0, 3, body)


PROGRAMS = {f.__name__: f for f in (fori_while, fori_cond_while, while_while,
                                    fori_while_fails_inside, fori_fori_while,
                                    top_level_then_while, while_cond_checks,
                                    while_cond_fails, while_cond_fails_first)}
WAYS = ["eager", "jit_args", "jit_closed"]


def _initial():
    return (np.zeros(8, np.int64), np.zeros(4, np.float32), np.zeros(1, np.int32),
            np.zeros(1, np.int32))


def _run_jaxtensor(name: str, way: str) -> dict:
    import jaxtensor as jt
    prog, JT = PROGRAMS[name], _jt()
    ts = [jt.asarray(a) for a in _initial()]
    if way == "eager":
        def run():
            prog(JT, *ts)
    elif way == "jit_args":
        def run():
            jt.jit(lambda *a: prog(JT, *a))(*ts)
    else:
        def run():
            jt.jit(lambda: prog(JT, *ts))()
    try:
        run()
        raised = None
    except Exception as e:  # noqa: BLE001 - reported to the test
        raised = f"{type(e).__name__}: {e}"
    return {"case": f"{name}:{way}", "raised": raised,
            "state": [np.asarray(t).tolist() for t in ts]}


def _pump(stream, lines: queue.Queue) -> None:
    for x in stream:
        lines.put(x)
    lines.put(None)


def run_limited(cases: list[str], per_case_s: float, script: str = __file__) -> dict:
    """Run ``script`` (which prints ``start <case>`` then one JSON line per case) over
    ``cases`` in subprocesses, each case under ``per_case_s`` seconds: a case that takes
    longer is reported as ``{"hung": True}`` and the rest go on in a fresh process."""
    found: dict = {}
    todo = list(cases)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(SRC), os.environ.get("PYTHONPATH", "")]))
    while todo:
        proc = subprocess.Popen([sys.executable, script, *todo], stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True, env=env)
        lines: queue.Queue = queue.Queue()
        threading.Thread(target=_pump, args=(proc.stdout, lines), daemon=True).start()
        current = None
        while True:
            try:
                line = lines.get(timeout=per_case_s)
            except queue.Empty:  # (the case running hangs)
                proc.kill()
                proc.wait()
                found[current] = {"hung": True}
                break
            if line is None:  # (the process ended: any case left unreported failed)
                proc.wait()
                if current is not None and current not in found:
                    found[current] = {"died": True}
                break
            if line.startswith("start "):
                current = line.split()[1]
            elif line.startswith("{"):
                r = json.loads(line)
                found[r["case"]] = r
        todo = [c for c in todo if c not in found]
        if current is None:
            break
    return found


@pytest.fixture(scope="module")
def results() -> dict:
    """Every case run by jaxtensor in subprocesses under the time limit."""
    return run_limited([f"{n}:{w}" for n in PROGRAMS for w in WAYS], LIMIT_S)


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("name", list(PROGRAMS))
def test_failed_check_before_while_stops_and_leaves_what_python_left(results, name, way):
    want = list(_initial())
    with pytest.raises(IndexError):
        PROGRAMS[name](PY, *want)
    got = results[f"{name}:{way}"]
    assert "hung" not in got, f"{name} ({way}) did not finish within {LIMIT_S} s (a loop hung)"
    assert "died" not in got, f"{name} ({way}): the process running it died"
    assert got["raised"] is not None and got["raised"].startswith("IndexError"), got["raised"]
    for k, (g, w) in enumerate(zip(got["state"], want)):
        np.testing.assert_array_equal(np.asarray(g, w.dtype), w, err_msg=f"Tensor {k}")


if __name__ == "__main__":
    for case in sys.argv[1:]:
        print("start", case, flush=True)
        print(json.dumps(_run_jaxtensor(*case.split(":"))), flush=True)
