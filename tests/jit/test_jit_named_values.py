"""A ``jaxtensor.jit`` function reads, at every call, the values it names: its closure
cells, defaults and globals (and those of the user's functions among them), and the items
of lists, tuples and dicts there. A call after one changed computes what the function
computes eagerly, never the program of the old value; a call after none changed compiles
nothing."""

from __future__ import annotations

import types
import warnings

import numpy as np
import pytest

import jaxtensor as jt
from measure import count_compiles


def _module(src: str, jit: bool = True) -> dict:
    """``src`` run as a script's top level, in a module of its own (``JIT``: ``jt.jit``, or
    nothing for the eager oracle)."""
    mod = types.ModuleType("__main__")
    mod.__dict__.update(np=np, jt=jt, JIT=jt.jit if jit else (lambda f: f))
    exec(compile(src, "<user_script>", "exec"), mod.__dict__)
    return mod.__dict__


# Each program defines ``f(x)``, which writes ``x`` and may write the Tensors it names, and
# ``change(k)``, which changes what ``f`` reads by name before the k-th call; ``state()`` is
# every Tensor the program keeps.
PROGRAMS = {
    "a global number": """
S = 1.0
def f(x):
    x[...] = x * S + 1
def change(k):
    global S
    S = (2.0, -0.0, 0.0, 3)[k]
def state():
    return []
""",
    "a closed-over number rebound": """
def make():
    s = 1.0
    def f(x):
        x[1:] += s
    def change(k):
        nonlocal s
        s = (1.5, True, 1, 2.5)[k]
    return f, change
f, change = make()
def state():
    return []
""",
    "a global Tensor rebound, the old one kept": """
T = jt.ones(3)
kept = []
def f(x):
    x[...] = x + T * 2
    T[0] += 1
def change(k):
    global T
    kept.append(T)
    T = jt.full(3, float(k + 5))
def state():
    return kept + [T]
""",
    "a closed-over Tensor rebound, the old one kept": """
def make():
    acc = jt.zeros(())
    kept = []
    def f(x):
        acc[...] += jt.sum(x)
        x[0] = acc
    def change(k):
        nonlocal acc
        kept.append(acc)
        acc = jt.zeros(()) + k
    return f, change, lambda: kept + [acc]
f, change, state = make()
""",
    "list and dict items": """
coef = [1.0, 2.0]
cfg = {"shift": 0.5, "n": 1}
def f(x):
    x[:cfg["n"]] = x[:cfg["n"]] * coef[0] + coef[1] + cfg["shift"]
def change(k):
    coef[0] = (3.0, 3.0, -1.0, 0.5)[k]
    cfg["shift"] = (0.5, 4.0, 4.0, 1.0)[k]
    cfg["n"] = (1, 1, 2, 3)[k]
def state():
    return []
""",
    "a helper rebound, and a helper's global": """
K = 2.0
def helper(v):
    return v * K
def f(x):
    x[...] = helper(x) + 1
def change(k):
    global helper, K
    if k == 1:
        def helper(v):
            return v - K
    else:
        K = float(k + 3)
def state():
    return []
""",
    "a nested jaxtensor.jit function's global": """
G = 1.0
@JIT
def inner(x):
    x[0] += G
def f(x):
    inner(x)
    x[1] = x[0] * 2
def change(k):
    global G
    G = float(k) + 0.25
def state():
    return []
""",
    "a default argument": """
def f(x, s=1.0):
    x[...] = x + s
def change(k):
    f.__defaults__ = ((2.0, 2.0, 7.0, -1.0)[k],)
def state():
    return []
""",
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_jit_reads_what_it_names_at_every_call(name: str) -> None:
    src = PROGRAMS[name]
    eager, compiled = _module(src, jit=False), _module(src)
    fn = jt.jit(compiled["f"])
    for k in range(4):
        for ns in (eager, compiled):
            ns["change"](k)
        want = jt.arange(1.0, 4.0)
        got = jt.arange(1.0, 4.0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", jt.RecompileWarning)
            eager["f"](want)
            fn(got)
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want), err_msg=f"call {k}")
        for a, b in zip(compiled["state"](), eager["state"](), strict=True):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b), err_msg=f"call {k}")


def test_unchanged_values_compile_nothing() -> None:
    """Values equal to the traced ones, made anew (a tuple, a dict, a float), and
    unchanged Tensors: no new program."""
    ns = _module("""
P = (1.0, 2)
cfg = {"a": 0.5}
T = jt.ones(3)
def f(x):
    x[...] = x * P[0] + P[1] + cfg["a"] + T
""")
    fn = jt.jit(ns["f"])
    x = jt.zeros(3)
    fn(x)
    fn(x)
    ns["P"] = (float("1.0"), 2)
    ns["cfg"] = {"a": 0.25 + 0.25}
    n = count_compiles(lambda: fn(x))
    assert n == 0
    ns["P"] = (1.0, 3)
    n = count_compiles(lambda: fn(x))
    assert n == 1
    np.testing.assert_array_equal(np.asarray(x), [15.0] * 3)


def test_recompiling_for_a_global_warns_naming_it() -> None:
    ns = _module("""
step = 0
def f(x):
    x[...] += step
""")
    fn = jt.jit(ns["f"])
    x = jt.zeros(2)
    with pytest.warns(jt.RecompileWarning, match=r"the global 'step' changed \(int 6 -> int 7\)"):
        for s in range(10):
            ns["step"] = s
            fn(x)
    np.testing.assert_array_equal(np.asarray(x), [45, 45])


def test_a_written_closed_over_tensor_rebound_after_calls() -> None:
    """The Tensor a compiled function writes is the one its name holds at the call, also
    when the one it wrote before is still alive."""
    ns = _module("""
acc = jt.zeros(())
@jt.jit
def add(x):
    acc[...] += jt.sum(x)
""")
    add = ns["add"]
    add(jt.ones(3))
    add(jt.ones(3))
    old = ns["acc"]
    ns["acc"] = jt.zeros(())
    add(jt.ones(3))
    assert (float(old), float(ns["acc"])) == (6.0, 3.0)
