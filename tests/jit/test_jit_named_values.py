"""A ``jaxtensor.jit`` function reads, at every call, the values it names: its closure
cells, defaults and globals (and those of the user's functions among them), and the items
of lists, tuples and dicts there. A call after one changed computes what the function
computes eagerly, never the program of the old value; a call after none changed compiles
nothing."""

from __future__ import annotations

import warnings

import jax.numpy as jnp
import numpy as np
import pytest

import jaxtensor as jt
from measure import count_compiles
from test_loop_cache import _module as _script


def _module(src: str, jit: bool = True) -> dict:
    """``src`` run as a script's top level, in a module of its own (``JIT``: ``jt.jit``, or
    nothing for the eager oracle)."""
    return _script(src, JIT=jt.jit if jit else (lambda f: f))


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
    "a global Tensor rebound, the old one dropped": """
T = jt.ones(3)
def f(x):
    x[...] = x + T * 2
    T[0] += 1
def change(k):
    global T
    T = (T * 2, jt.zeros(6)[::2] + 0, jt.arange(4.0)[1:], jt.full(1, 5.0))[k]
def state():
    return [T]
""",
    "a closed-over Tensor rebound, the old one dropped": """
def make():
    acc = jt.zeros(())
    def f(x):
        acc[...] += jt.sum(x)
        x[0] = acc
    def change(k):
        nonlocal acc
        acc = acc + k
    return f, change, lambda: [acc]
f, change, state = make()
""",
    "tuple items, rebound": """
coef = (1.0, 2.0)
def make():
    cfg = (0.5, 1)
    def f(x):
        x[:cfg[1]] = x[:cfg[1]] * coef[0] + coef[1] + cfg[0]
    def change(k):
        global coef
        nonlocal cfg
        coef = ((3.0, 2.0), (3.0, 2.0), (-1.0, 2.0), (0.5, True))[k]
        cfg = ((0.5, 1), (4.0, 1), (4.0, 2), (1.0, 3))[k]
    return f, change
f, change = make()
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
cfg = (0.5,)
T = jt.ones(3)
def f(x):
    x[...] = x * P[0] + P[1] + cfg[0] + T
""")
    fn = jt.jit(ns["f"])
    x = jt.zeros(3)
    fn(x)
    fn(x)
    ns["P"] = (float("1.0"), 2)
    ns["cfg"] = (0.25 + 0.25,)
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


_CALLABLES = """
import functools
K = 1.0
class M:
    def fwd(self, x):
        x[...] = x * K + 1
    def __call__(self, x):
        x[...] = x * K - 1
def g(a, x, *, c=0.5):
    x[...] = x * K + a + c
def loss(x):
    return jt.sum(x * x * K)
m = M()
CALLABLES = {"a method": m.fwd, "a partial": functools.partial(g, 2.0),
             "a callable object": m, "a keyword-only default": g,
             "a vmap of a function": jt.vmap(loss), "a grad of a function": jt.grad(loss)}
def change(k):
    global K
    K = float(k + 1)
    g.__kwdefaults__["c"] = float(k) / 4
"""


@pytest.mark.parametrize("what", ["a method", "a partial", "a callable object",
                                  "a keyword-only default", "a vmap of a function",
                                  "a grad of a function"])
def test_jit_of_other_callables_reads_their_names(what: str) -> None:
    """``jaxtensor.jit`` of a bound method, a ``functools.partial``, a callable object or a
    wrapper (``vmap``, ``grad``): the function called is probed, keyword-only defaults
    too."""
    eager, compiled = _module(_CALLABLES, jit=False), _module(_CALLABLES)
    fn = jt.jit(compiled["CALLABLES"][what])
    for k in range(3):
        for ns in (eager, compiled):
            ns["change"](k)
        args = (2.0,) if what == "a keyword-only default" else ()
        want, got = jt.arange(1.0, 4.0), jt.arange(1.0, 4.0)
        w = eager["CALLABLES"][what](*args, want)
        r = fn(*args, got)
        if w is not None:
            want, got = w, r
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), err_msg=f"call {k}")


def test_lower_after_a_change_is_the_new_program() -> None:
    ns = _module("""
KF = 1.0
def f(x):
    x[...] = x * KF
""")
    fn = jt.jit(ns["f"])
    x = jt.ones(2)
    fn(x)
    ns["KF"] = 7.25
    assert "7.25" in fn.lower(x).as_text()


def test_a_jit_function_in_an_eager_loop_body_reads_its_names() -> None:
    """An eager loop's cache reaches what a ``jaxtensor.jit`` function its body calls
    reads (its function's globals)."""
    ns = _module("""
K = 1.0
@jt.jit
def g(x):
    x[...] = x + K
def run():
    a = jt.zeros(3)
    jt.fori_loop(0, 3, lambda i: g(a))
    return a
""")
    assert ns["run"]().tolist() == [3.0] * 3
    ns["K"] = 5.0
    assert ns["run"]().tolist() == [15.0] * 3


def test_lists_and_dicts_are_compared_by_identity() -> None:
    """A list or dict the function names is the same object at every call: a callback
    appending to it at run time (the program does not read it) compiles nothing, and a key
    whose ``==`` raises is never compared."""
    import jax

    ns = _module("""
import jax
LOG = []
class Key:
    def __hash__(self):
        return 1
    def __eq__(self, other):
        raise RuntimeError("compared")
CFG = {Key(): 1.0}
def f(x):
    x[...] = x + len(CFG)
    jax.debug.callback(lambda v: LOG.append(float(v)), jt.sum(x).to_jax())
""")
    fn = jt.jit(ns["f"])
    x = jt.zeros(2)
    fn(x)
    n = count_compiles(lambda: [fn(x) for _ in range(20)])
    jax.effects_barrier()
    assert n == 0 and len(ns["LOG"]) == 21
    ns["CFG"] = {ns["Key"](): 2.0}
    fn(x)
    np.testing.assert_array_equal(np.asarray(x), [22.0, 22.0])


def test_a_rebound_value_is_not_kept_alive() -> None:
    """A named value rebound (a large array, say) is not held by the function's probes or
    its RecompileWarning bookkeeping once a call has traced the new one."""
    import gc
    import weakref

    ns = _module("""
import jax.numpy as jnp
TABLE = jnp.ones(4)
def f(x):
    x[...] = x + TABLE
""")
    fn = jt.jit(ns["f"])
    x = jt.zeros(4)
    fn(x)
    first = weakref.ref(ns["TABLE"])
    ns["TABLE"] = jnp.full(4, 2.0)
    fn(x)
    gc.collect()
    assert first() is None
    np.testing.assert_array_equal(np.asarray(x), [3.0] * 4)


_REBOUND = """
W = jt.zeros(3)
b = jt.zeros(())
TRACES = []
def helper(x):
    return W * x
@JIT
def step(x):
    TRACES.append(1)
    b[...] += 1
    return jt.sum(helper(x) * 0.5 + W * x * 0.5) + b
"""


def test_a_tensor_rebound_in_place_of_one_gone_compiles_nothing() -> None:
    """``W = W - lr * g`` between calls of a function that reads the global ``W`` (and a
    helper that reads it too): the new Tensor takes the old one's place in the program
    (nothing can reach the old one), so calls after the first trace and compile nothing, and
    each reads the ``W`` of its call."""
    ns = _module(_REBOUND)
    w, b = np.zeros(3), 0.0
    x = jt.asarray([1.0, 2.0, 3.0])
    got, want = [], []

    def calls() -> None:
        nonlocal w, b
        for _ in range(5):
            got.append(float(ns["step"](x)))
            b += 1
            want.append(float(np.sum(w * [1.0, 2.0, 3.0]) + b))
            ns["W"] = ns["W"] - 0.5 * x
            w = w - 0.5 * np.array([1.0, 2.0, 3.0])

    calls()
    assert len(ns["TRACES"]) == 1
    assert count_compiles(calls) == 0 and len(ns["TRACES"]) == 1
    assert got == want
    np.testing.assert_array_equal(np.asarray(ns["W"]), w)
    assert float(ns["b"]) == b


@pytest.mark.parametrize("rebind", ["the old one kept", "a view", "another shape",
                                    "the argument", "two names to one Tensor"])
def test_a_tensor_rebound_otherwise_traces_again(rebind: str) -> None:
    """Where the old Tensor lives on, or the new one is a view, another shape, an argument
    or what another name holds too, a trace decides: the call computes what it does
    eagerly."""
    src = _REBOUND + "V = jt.ones(3)\n@JIT\ndef both(x):\n    return jt.sum(W * x + V)\n"
    results = []
    for jit in (False, True):
        ns = _module(src, jit)
        fn = ns["both" if rebind == "two names to one Tensor" else "step"]
        x = jt.asarray([1.0, 2.0, 3.0])
        out = [float(fn(x))]
        kept = []
        if rebind == "the old one kept":
            kept.append(ns["W"])
            ns["W"] = ns["W"] + 1
        elif rebind == "a view":
            ns["W"] = jt.arange(6.0)[::2]
        elif rebind == "another shape":
            ns["W"] = jt.full(1, 2.0)
        elif rebind == "the argument":
            ns["W"] = x
        else:
            ns["W"] = ns["V"] = jt.full(3, 2.0)
        out.append(float(fn(x)))
        x[0] = 10.0  # (where W is x, the next call reads it)
        out.append(float(fn(x)))
        results.append(out)
        if jit and rebind != "two names to one Tensor":
            assert len(ns["TRACES"]) == 2
    assert results[1] == results[0]
