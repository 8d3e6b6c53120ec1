"""The cache of eager loops is keyed on what the bodies read, never only on their code.

Each stale-value class (module globals, the loop variable of a top-level Python loop,
list/dict contents, attributes, signed zeros, bool-vs-int keys, default arguments incl.
Tensors) runs the same program as a Python loop on NumPy (the oracle) and through
``jt.fori_loop``/``jt.while_loop``, with the values read changing between calls. Fresh
closures over values of the same types compile nothing (JAX's compile events counted);
gradients through a loop leave nothing a later call meets; a body compiled again and again
warns once (``RecompileWarning``), naming what changed.
"""

from __future__ import annotations

import types

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxtensor as jt
from measure import count_compiles

N = 4


def np_fori(lo, hi, body):
    for i in range(lo, hi):
        body(i)


def np_while(cond, body):
    while cond():
        body()


def _module(src: str, **names: object) -> dict:
    """``src`` run as a script's top level (its names are globals of a module of its own,
    with ``names`` among them)."""
    mod = types.ModuleType("__main__")  # (as a script run by python)
    mod.__dict__.update(np=np, jt=jt, **names)
    exec(compile(src, "<user_script>", "exec"), mod.__dict__)
    return mod.__dict__


# Each program: ``src`` defines ``run(xp, fori, while_, x)`` that writes ``x`` several times,
# changing what the body reads between the loop calls. It runs with NumPy and a Python loop,
# and with jaxtensor's loops, in a module of its own each.
PROGRAMS = {
    "module global": """
G = 1.0
def body(i):
    x[i] += G
def run(xp, fori, while_, x_):
    global G, x
    x = x_
    for G in (1.0, 2.5, -3.0):
        fori(0, 4, body)
""",
    "enclosing loop variable": """
# (the loops run at the script's top level: step is a global, not a closure cell)
for step in range(3):
    def body(i):
        x[i] += step
    fori(0, 3, body)
for step in range(3):
    n = xp.zeros(1)
    def more():
        return n[0] < step + 1
    def grow():
        n[0] += 1
        x[3] += step
    while_(more, grow)
def run(xp, fori, while_, x_):
    pass
""",
    "list contents": """
def run(xp, fori, while_, x_):
    coef = [1.0, 2.0]
    def body(i):
        x_[i] = x_[i] * coef[0] + coef[1]
    for c in (1.0, 0.5, 3.0):
        coef[0] = c
        coef.append(c)
        fori(0, 4, body)
""",
    "dict contents": """
def run(xp, fori, while_, x_):
    p = {"a": 1.0}
    def body(i):
        x_[i] += p["a"]
    for a in (1.0, 7.0, -2.0):
        p["a"] = a
        fori(1, 3, body)
""",
    "attributes": """
class Params:
    scale = 2.0
    def __init__(self):
        self.shift = 1.0
    def step(self, v):
        return v * self.scale + self.shift
def run(xp, fori, while_, x_):
    p = Params()
    def body(i):
        x_[i] = p.step(x_[i])
    for s in (1.0, 3.0, 0.5):
        p.shift = s
        fori(0, 4, body)
        Params.scale = s          # a class attribute
        fori(0, 2, body)
    Params.scale = 2.0
""",
    "a bound method as the body": """
class Sim:
    def __init__(self, x):
        self.x = x
        self.rate = 1.0
    def body(self, i):
        self.x[i] += self.rate
def run(xp, fori, while_, x_):
    s = Sim(x_)
    for r in (1.0, 2.0, 0.25):
        s.rate = r
        fori(0, 4, s.body)
""",
    "a structure deeper than the walk": """
class Node:
    def __init__(self, nxt, v):
        self.nxt, self.v = nxt, v
def run(xp, fori, while_, x_):
    head = None
    for _ in range(150):
        head = Node(head, 1.0)
    def body(i):
        x_[i] += head.v
    for v in (1.0, 4.0):
        head.v = v
        fori(0, 4, body)
""",
    "signed zeros": """
def run(xp, fori, while_, x_):
    for v in (0.0, -0.0, 0.0, -0.0):
        def body(i):
            x_[i] = v
        fori(0, 2, body)
""",
    "bool and int keys": """
def run(xp, fori, while_, x_):
    for key in ((1,), (True,), (1,), (False,)):
        def body(i):
            x_[key] = x_[key] + 1.0
        fori(0, 2, body)
""",
    "default arguments": """
def run(xp, fori, while_, x_):
    for k in (1.0, 2.0, 4.0):
        y = xp.asarray([k, k + 1, k + 2, k + 3])
        def body(i, k=k, y=y, x=x_):
            x[i] += k * y[i]
        fori(0, 4, body)
""",
    # (the same body object called again: a repeat top-level call checks what the last call
    # of its code read without walking it, _jit/_probes.py)
    "a closure cell rebound (the same body)": """
def run(xp, fori, while_, x_):
    s = 1.0
    def body(i):
        x_[i] += s
    for s in (1.0, 3, True, xp.asarray(4.0), np.float32(1.5), np.float32(2.5), 1.0):
        fori(0, 4, body)
    k = 1
    def bump(i):
        x_[k] = x_[k] + 1.0
    for k in (1, True, 1, False, 2):
        fori(0, 2, bump)
    z = 0.0
    def put(i):
        x_[3] = z
    for z in (0.0, -0.0):
        fori(0, 1, put)
""",
    "defaults reassigned (the same body)": """
def run(xp, fori, while_, x_):
    def body(i, k=1.0):
        x_[i] += k
    for k in (1.0, 2.0, -1.5, xp.asarray(0.25), 3):
        body.__defaults__ = (k,)
        fori(0, 4, body)
""",
    "the same code over other globals": """
import types
G = 1.0
def run(xp, fori, while_, x_):
    def body(i):
        x_[i] += G
    other = types.FunctionType(body.__code__, {"G": 5.0}, "body", None, body.__closure__)
    for f in (body, other, body, other):
        fori(0, 4, f)
""",
    "a helper's closure (fresh closures)": """
def run(xp, fori, while_, x_):
    for k in (2.0, 0.5, 3, True, 0.0, -0.0):
        def rhs(v):
            return v * k
        def body(i):
            x_[i] = rhs(x_[i])
        fori(0, 4, body)
""",
    "Tensors reached through a helper": """
def run(xp, fori, while_, x_):
    y = xp.asarray([4.0, 3.0, 2.0, 1.0])
    for k in range(3):
        w = xp.asarray([1.0, 2.0, 3.0, 4.0]) * (k + 1)
        def scale(v, i):
            return v * w[i] + y[i]
        def body(i):
            x_[i] = scale(x_[i], i) - y[i] * 0.5
        fori(0, 4, body)
""",
    "a helper's global": """
G2 = 1.0
def helper(v):
    return v * G2
def run(xp, fori, while_, x_):
    global G2
    def body(i):
        x_[i] = helper(x_[i]) + 1.0
    for G2 in (1.0, 2.0, 2.0, -1.0, 0.5):
        fori(0, 4, body)
""",
    "tuples, global and closed over": """
OFFSETS = ((1, 0), (0, 1))
def run(xp, fori, while_, x_):
    global OFFSETS
    for OFFSETS, scale in ((((1, 0), (0, 1)), (2.0, 0.5)), (((1, 0), (0, 1)), (2.0, 0.5)),
                           (((0, 1), (1, 0)), (2.0, -0.0)), (((True, 0), (0, 1)), (0.0, 1)),
                           (((1, 0), (0, 2)), (0.0, 1.0)), (((1.0, 0), (0, 1)), (1.0, 3))):
        def body(i):
            for (a, b), s in zip(OFFSETS, scale):
                x_[(i + int(a) + b) % 4] += s * (a + b) + b
        fori(0, 4, body)
""",
    "a namedtuple of numbers and Tensors": """
from collections import namedtuple
State = namedtuple("State", "t k c")
def run(xp, fori, while_, x_):
    y = xp.zeros(4)
    def step(s):
        def body(i):
            s.t[i] = s.t[i] * s.k + s[2]
        fori(0, 4, body)
    for t, k, c in ((x_, 1.0, 0.5), (y, 2.0, 0.5), (x_, 2.0, -1.5), (x_, 3, 1)):
        step(State(t, k, c))
    x_[:] = x_ + y * 100
""",
    "subclasses of built-in types": """
from collections import OrderedDict, defaultdict
class L(list): pass
class D(dict): pass
class Meters(float): pass
class T(tuple): pass
def run(xp, fori, while_, x_):
    dd = defaultdict(float, a=1.0)
    for k in (1.0, 2.0, -0.5):
        for c in (L([k]), D(a=k), Meters(k), T((k,)), OrderedDict(a=k), dd):
            def body(i):
                x_[i] += (c if type(c) is Meters else c[0] if isinstance(c, (L, T))
                          else c["a"])
            fori(0, 4, body)
        dd["a"] = k * 3
""",
    "a function's attributes": """
def helper(v):
    return v * helper.scale
helper.scale = 1.0
def run(xp, fori, while_, x_):
    def body(i):
        x_[i] = helper(x_[i]) + i
    for s in (1.0, 2.0, -0.5):
        helper.scale = s
        fori(0, 4, body)
        body.bias = s
""",
    "dunder methods of the user's classes": """
SCL = 1.0
class Scaler:
    def __call__(self, v):
        return v * SCL
    def __rmul__(self, v):
        return v + SCL
class Body:
    def __init__(self, x):
        self.x = x
    def __call__(self, i):
        self.x[i] += i * SCL
sc = Scaler()
def run(xp, fori, while_, x_):
    global SCL
    for SCL in (1.0, 2.0, 0.5):
        def body(i):
            x_[i] = sc(x_[i]) + x_[i] * sc
        fori(0, 4, body)
        fori(0, 4, Body(x_))
""",
    "a module reached through a list, an object, a package, getattr": """
import types
cfg = types.ModuleType("cfg")
cfg.K = 1.0
pkg = types.ModuleType("pkg")
pkg.sub = cfg
class Holder:
    pass
def run(xp, fori, while_, x_):
    mods = [cfg]
    h = Holder()
    h.mod = cfg
    for k in (1.0, 2.0, -3.0):
        cfg.K = k
        def body(i):
            x_[i] += mods[0].K * (i + 1)
        def body2(i):
            x_[i] += h.mod.K
        def body3(i):
            x_[i] += getattr(cfg, "K") * 3 + pkg.sub.K
        fori(0, 4, body)
        fori(0, 4, body2)
        fori(0, 4, body3)
""",
    "a module the body imports": """
import sys, types
cfg = sys.modules.setdefault("jt_loop_test_cfg", types.ModuleType("jt_loop_test_cfg"))
def run(xp, fori, while_, x_):
    for k in (1.0, 2.0, -3.0):
        cfg.K = k
        def body(i):
            import jt_loop_test_cfg as c
            x_[i] += c.K
        def body2(i):
            from jt_loop_test_cfg import K
            x_[i] += K * 2
        fori(0, 4, body)
        fori(0, 4, body2)
""",
    "aliased Tensors in fresh closures": """
def run(xp, fori, while_, x_):
    y = xp.zeros(4)
    def make(p, q, r):
        def body(i):
            p[i] += 1.0
            q[i] += 10.0
            r[i] += 100.0
        return body
    for a, b, c in ((x_, x_, y), (x_, y, y), (y, x_, y), (x_, y, x_), (x_, x_, y)):
        fori(0, 4, make(a, b, c))
    x_[:] = x_ + y * 1000
""",
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_loop_reads_current_values_like_numpy(name: str) -> None:
    src = PROGRAMS[name]
    expected = np.arange(1.0, N + 1, dtype=np.float32)
    _module(src, xp=np, fori=np_fori, while_=np_while, x=expected)["run"](
        np, np_fori, np_while, expected)
    got = jt.asarray(np.arange(1.0, N + 1, dtype=np.float32))
    _module(src, xp=jt, fori=jt.fori_loop, while_=jt.while_loop, x=got)["run"](
        jt, jt.fori_loop, jt.while_loop, got)
    np.testing.assert_array_equal(np.asarray(got), expected)
    assert list(np.signbit(np.asarray(got))) == list(np.signbit(expected))


def test_while_loop_reads_current_globals() -> None:
    """A ``while_loop`` whose condition and body read globals that change."""
    src = """
LIMIT = 3.0
INC = 1.0
def cond():
    return x[0] < LIMIT
def body():
    x[0] += INC
    x[1] += 1
def run(xp, fori, while_, x_):
    global LIMIT, INC, x
    x = x_
    for LIMIT, INC in ((3.0, 1.0), (10.0, 2.0), (12.0, 0.5)):
        while_(cond, body)
"""
    expected = np.zeros(N, np.float32)
    _module(src)["run"](np, np_fori, np_while, expected)
    got = jt.zeros(N)
    _module(src)["run"](jt, jt.fori_loop, jt.while_loop, got)
    np.testing.assert_array_equal(np.asarray(got), expected)


def _ode(xp, k, y0, dt=0.1, steps=5):
    """Euler steps of dy/dt = -k y with a right-hand side made per call."""
    y = xp.zeros(steps + 1)
    y[0] = y0

    def rhs(v):
        return -k[0] * v + k[1]

    def body(i):
        y[i + 1] = y[i] + dt * rhs(y[i])
    if xp is np:
        np_fori(0, steps, body)
    else:
        jt.fori_loop(0, steps, body)
    return y


def _helper(xp, x):
    def twice(v):
        return 2.0 * v

    def body(i):
        x[i] = twice(x[i]) + x[i - 1]
    (np_fori if xp is np else jt.fori_loop)(1, N, body)


def _defaults(xp, x):
    w = xp.asarray([1.0, 2.0, 3.0, 4.0], dtype=xp.float32)

    def body(i, x=x, w=w, c=0.5):
        x[i] += w[i] * c
    (np_fori if xp is np else jt.fori_loop)(0, N, body)


FRESH = {
    "helper def": lambda xp, x: _helper(xp, x),
    "ode rhs closed over parameters": lambda xp, x: x.__setitem__(
        slice(None), _ode(xp, xp.asarray([0.5, 0.1], dtype=xp.float32), 1.0)[:N]),
    "default arguments": lambda xp, x: _defaults(xp, x),
}


@pytest.mark.parametrize("name", list(FRESH))
def test_fresh_closures_of_the_same_types_compile_nothing(name: str) -> None:
    f = FRESH[name]
    x = jt.arange(1.0, N + 1)
    e = np.arange(1.0, N + 1, dtype=np.float32)
    for _ in range(2):
        f(jt, x)
        f(np, e)
    assert count_compiles(lambda: [f(jt, x) for _ in range(3)]) == 0
    for _ in range(3):
        f(np, e)
    np.testing.assert_allclose(np.asarray(x), e, rtol=1e-6)
    y = jt.arange(1.0, N + 1)  # another Tensor of the same shape
    assert count_compiles(lambda: f(jt, y)) == 0


def _ode_loss(k):
    return _ode(jt, k, 1.0).sum()


def _ode_loss_jax(k):
    def body(i, y):
        return y.at[i + 1].set(y[i] + 0.1 * (-k[0] * y[i] + k[1]))
    y = jnp.zeros(6).at[0].set(1.0)
    return jax.lax.fori_loop(0, 5, body, y).sum()


def test_grad_through_a_loop_then_more_calls() -> None:
    """Two gradients, then plain calls with fresh Tensors: no tracer kept in a cache."""
    for k in ([0.5, 0.1], [1.5, -0.2]):
        g = jt.grad(_ode_loss)(jt.asarray(k))
        np.testing.assert_allclose(np.asarray(g), np.asarray(jax.grad(_ode_loss_jax)(
            jnp.asarray(k))), rtol=1e-5)
    for k in ([0.5, 0.1], [2.0, 0.3]):
        v = float(_ode_loss(jt.asarray(k)))
        np.testing.assert_allclose(v, float(_ode_loss_jax(jnp.asarray(k))), rtol=1e-6)
        e = _ode(np, np.asarray(k, np.float32), 1.0).sum()
        np.testing.assert_allclose(v, e, rtol=1e-5)
    g = jt.grad(_ode_loss)(jt.asarray([0.7, 0.0]))  # and a gradient after plain calls
    np.testing.assert_allclose(np.asarray(g), np.asarray(jax.grad(_ode_loss_jax)(
        jnp.asarray([0.7, 0.0]))), rtol=1e-5)




def test_equal_library_values_that_differ_are_not_stale():
    """A library value equal to the last call's but behaving differently (a ``Decimal`` of
    another exponent, a datetime of the same instant in another time zone) gives the
    Python loop's result, not the first call's program (keyed by ``==`` alone)."""
    import datetime
    import decimal

    box = {"t": datetime.datetime(2020, 1, 1, 12, tzinfo=datetime.timezone.utc),
           "d": decimal.Decimal("0.50")}

    def run():
        x = jt.zeros(3)
        t, d = box["t"], box["d"]

        def body(i):
            x[i] = t.hour + i + len(str(d))
        jt.fori_loop(0, 3, body)
        return x.tolist()

    def want():
        return [float(box["t"].hour + i + len(str(box["d"]))) for i in range(3)]

    assert run() == want()
    box["t"] = datetime.datetime(2020, 1, 1, 14,
                                 tzinfo=datetime.timezone(datetime.timedelta(hours=2)))
    assert run() == want()
    box["d"] = decimal.Decimal("0.5")
    assert run() == want()
