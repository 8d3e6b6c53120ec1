"""Random programs of writes, loops and conds over two or three small float64 arrays, run by
NumPy with Python ``for``/``while``/``if`` (the oracle) and by jaxtensor with
``jt.fori_loop``/``jt.while_loop``/``jt.cond``/``jt.ds``: eagerly, inside ``jaxtensor.jit``
with the arrays as arguments, and inside ``jaxtensor.jit`` with some arrays closed over or
made inside the function.

A program is a tiny AST of tuples that ``_exec`` interprets against a helper namespace
(``NP`` or ``JT``); ``programs()`` draws one and ``_show`` prints it as Python. Names are
slots of an environment: the arrays, then what ``view``/``new`` statements and loop
variables bind, local to the block that binds them (a Tensor made in a body stays there).

Statements (``ix`` is an index ``(slot, m, c, n, neg)``: ``(slot*m + c) % n``, or ``c`` with
no slot, minus ``n`` if ``neg``):

* ``("view", src, op)``: bind a view of ``src``: ``("T",)``, ``("row", ix)``,
  ``("sl", lo, hi, step)``, ``("csl", lo, hi)`` (columns), ``("ds", ix, k)``, ``("rs", shape)``
* ``("new", src, "copy" | "zeros")``: bind a new array of ``src``'s shape
* ``("write", dst, key, op, value)``: ``dst[key] op value``; a key is a tuple of items
  ``("i", ix)``, ``("s", lo, hi, step)``, ``("ds", ix, k)``, ``("a", ix, n)`` (the integer
  array ``[j, (j + 1) % n]``), ``("all",)``, ``("...",)``; or ``("mask", src, c)``
* ``("iop", dst, op, value)``: ``dst op= value`` on the whole array (an in-place operator)
* ``("for", lo, hi, body)`` (``hi`` an int or ``("iv", slot, c)``: an enclosing loop's
  variable plus ``c``, a traced bound), ``("while", trips, body)`` (a counter Tensor made
  before the loop), ``("if", pred, then, else)``

A program may write out of bounds at a loop variable's value and then run a ``while_loop``
(whose counter only the loop's gated writes change): after the failure the loop must stop,
and the program must raise with every array as NumPy left it. Each program runs under a time
limit, so one that never ends fails its test.

Values: ``("c", v)``, ``("iv", slot, mul, add)``, ``("rd", src, key, mul, add)`` (a scalar
read), ``("blk", src, key, mul)`` (a read of the write's shape). Multipliers are powers of
two, so every result is exact and the comparison can be tight.
"""

from __future__ import annotations

import operator
import os
import threading

import numpy as np
import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import jaxtensor as jt

# (every drawn program is a new program of the same body code: the warning is expected)
pytestmark = pytest.mark.filterwarnings("ignore::jaxtensor.RecompileWarning")


# -- the two helper namespaces ------------------------------------------------------------
def _np_loop(lo, hi, body):
    for i in range(lo, hi):
        body(i)


def _np_while(test, body):
    while test():
        body()


class NP:
    xp = np
    loop = staticmethod(_np_loop)
    while_loop = staticmethod(_np_while)
    cond = staticmethod(lambda p, f, g: f() if p else g())
    ds = staticmethod(lambda i, k: slice(i, i + k))
    arr = staticmethod(np.array)
    call = staticmethod(lambda f, *args: f(*args))


class JT:
    xp = jt
    loop = staticmethod(jt.fori_loop)
    while_loop = staticmethod(jt.while_loop)
    cond = staticmethod(jt.cond)
    ds = staticmethod(jt.ds)
    arr = staticmethod(lambda js: jt.stack([jt.asarray(j) for j in js]))
    call = staticmethod(lambda f, *args: jt.jit(f)(*args))


# -- the interpreter ----------------------------------------------------------------------
_IOPS = {"+=": operator.iadd, "-=": operator.isub, "*=": operator.imul}


def _ix(env, ix):
    slot, m, c, n, neg = ix
    v = c if slot is None else (env[slot] * m + c) % n
    return v - n if neg else v


def _item(h, env, it):
    k = it[0]
    if k == "i":
        return _ix(env, it[1])
    if k == "s":
        return slice(*it[1:])
    if k == "ds":
        return h.ds(_ix(env, it[1]), it[2])
    if k == "a":
        j = _ix(env, it[1])
        return h.arr([j, (j + 1) % it[2]])
    return slice(None) if k == "all" else Ellipsis


def _key(h, env, key):
    if key[0] == "mask":
        return env[key[1]] > key[2]
    return tuple(_item(h, env, it) for it in key)


#: a module global the bodies of ``test_programs_reading_changing_globals`` read
#: (``("g", v)``: ``SCALE[0] * v``), changed between calls as a script would
SCALE = [1.0]


def _value(h, env, v):
    k = v[0]
    if k == "c":
        return v[1]
    if k == "g":
        return SCALE[0] * v[1]
    if k == "iv":
        return env[v[1]] * v[2] + v[3]
    if k == "rd":
        return env[v[1]][_key(h, env, v[2])] * v[3] + v[4]
    return env[v[1]][_key(h, env, v[2])] * v[3]


def _view(h, env, x, op):
    k = op[0]
    if k == "T":
        return x.T
    if k == "row":
        return x[_ix(env, op[1])]
    if k == "sl":
        return x[op[1]:op[2]:op[3]]
    if k == "csl":
        return x[:, op[1]:op[2]]
    if k == "ds":
        return x[h.ds(_ix(env, op[1]), op[2])]
    return x.reshape(op[1])


def _pred(h, env, p):
    if p[0] == "even":
        return env[p[1]] % 2 == 0
    return env[p[1]][_key(h, env, p[2])] > p[3]


def _exec(h, stmts, env):
    """Run ``stmts`` with the list ``env`` (which the block's bindings extend)."""
    for s in stmts:
        k = s[0]
        if k == "view":
            env.append(_view(h, env, env[s[1]], s[2]))
        elif k == "new":
            src = env[s[1]]
            env.append(src * 1.0 if s[2] == "copy" else h.xp.zeros(src.shape, dtype=h.xp.float64))
        elif k == "write":
            x, key, v = env[s[1]], _key(h, env, s[2]), _value(h, env, s[4])
            if s[3] == "=":
                x[key] = v
            else:  # what Python does for x[key] op= v
                x[key] = _IOPS[s[3]](x[key], v)
        elif k == "iop":
            _IOPS[s[2]](env[s[1]], _value(h, env, s[3]))
        elif k == "for":
            hi = s[2] if type(s[2]) is int else env[s[2][1]] + s[2][2]
            h.loop(s[1], hi, _body(h, s[3], env))
        elif k == "while":
            cnt = h.xp.zeros(1, dtype=h.xp.int64)
            h.while_loop(*_while(h, s[2], s[1], cnt, env))
        elif k == "call":
            h.call(lambda *e, s=s: _exec(h, s[1], list(e)), *env)
        else:
            h.cond(_pred(h, env, s[1]), lambda s=s: _exec(h, s[2], list(env)),
                   lambda s=s: _exec(h, s[3], list(env)))


# Bodies close over each Tensor of the environment in its own cell (not over a list), as
# hand-written bodies do: outside jaxtensor.jit a loop is then cached by the body's code and
# static closure (the statements), and the Tensors are arguments of the cached loop.
_SLOTS = 12


def _body(h, stmts, env):
    return _body_cells(h, stmts, len(env), *env)


def _body_cells(h, stmts, n, e0=None, e1=None, e2=None, e3=None, e4=None, e5=None, e6=None,
                e7=None, e8=None, e9=None, e10=None, e11=None):
    def body(i):
        env = [e0, e1, e2, e3, e4, e5, e6, e7, e8, e9, e10, e11][:n]
        _exec(h, stmts, env + [i])
    return body


def _while(h, stmts, trips, cnt, env):
    return _while_cells(h, stmts, trips, cnt, len(env), *env)


def _while_cells(h, stmts, trips, cnt, n, e0=None, e1=None, e2=None, e3=None, e4=None,
                 e5=None, e6=None, e7=None, e8=None, e9=None, e10=None, e11=None):
    def test():
        return cnt[0] < trips

    def body():
        env = [e0, e1, e2, e3, e4, e5, e6, e7, e8, e9, e10, e11][:n]
        _exec(h, stmts, env + [cnt[0] + 0])
        cnt[0] += 1
    return test, body


# -- printing a program -------------------------------------------------------------------
def _show_ix(names, ix):
    slot, m, c, n, neg = ix
    s = str(c) if slot is None else f"({names[slot]}{'*2' if m == 2 else ''} + {c}) % {n}"
    return f"{s} - {n}" if neg else s


def _show_key(names, key):
    if key[0] == "mask":
        return f"{names[key[1]]} > {key[2]}"
    out = []
    for it in key:
        k = it[0]
        out.append(_show_ix(names, it[1]) if k == "i" else f"{it[1]}:{it[2]}:{it[3]}"
                   if k == "s" else f"ds({_show_ix(names, it[1])}, {it[2]})" if k == "ds"
                   else f"arr([j := {_show_ix(names, it[1])}, (j + 1) % {it[2]}])"
                   if k == "a" else ":" if k == "all" else "...")
    return ", ".join(out)


def _show_value(names, v):
    if v[0] == "c":
        return repr(v[1])
    if v[0] == "g":
        return f"SCALE[0] * {v[1]!r}"
    if v[0] == "iv":
        return f"{names[v[1]]} * {v[2]} + {v[3]}"
    tail = f" + {v[4]}" if v[0] == "rd" else ""
    return f"{names[v[1]]}[{_show_key(names, v[2])}] * {v[3]}{tail}"


def _show_block(stmts, names, pad, lines):
    names = list(names)
    for s in stmts:
        k = s[0]
        new = f"v{len(names)}"
        if k == "view":
            op, src = s[2], names[s[1]]
            lines.append(f"{pad}{new} = {src}" + (
                ".T" if op[0] == "T" else f"[{_show_ix(names, op[1])}]" if op[0] == "row"
                else f"[{op[1]}:{op[2]}:{op[3]}]" if op[0] == "sl"
                else f"[:, {op[1]}:{op[2]}]" if op[0] == "csl"
                else f"[ds({_show_ix(names, op[1])}, {op[2]})]" if op[0] == "ds"
                else f".reshape({op[1]})"))
            names.append(new)
        elif k == "new":
            lines.append(f"{pad}{new} = " + (f"{names[s[1]]} * 1.0" if s[2] == "copy" else
                                              f"zeros_like({names[s[1]]})"))
            names.append(new)
        elif k == "write":
            lines.append(f"{pad}{names[s[1]]}[{_show_key(names, s[2])}] {s[3]} "
                         f"{_show_value(names, s[4])}")
        elif k == "iop":
            lines.append(f"{pad}{names[s[1]]} {s[2]} {_show_value(names, s[3])}")
        elif k == "call":
            lines.append(f"{pad}@jt.jit  # called at once, with every name as an argument")
            lines.append(f"{pad}def f():")
            _show_block(s[1], names, pad + "    ", lines)
        elif k in ("for", "while"):
            iv = f"i{len(names)}"
            if k == "for":
                hi = s[2] if type(s[2]) is int else f"{names[s[2][1]]} + {s[2][2]}"
                lines.append(f"{pad}for {iv} in range({s[1]}, {hi}):")
            else:
                lines.append(f"{pad}for {iv} in range({s[1]}):  # while_loop, a counter Tensor")
            _show_block(s[-1], names + [iv], pad + "    ", lines)
        else:
            p = s[1]
            lines.append(f"{pad}if " + (f"{names[p[1]]} % 2 == 0:" if p[0] == "even" else
                                        f"{names[p[1]]}[{_show_key(names, p[2])}] > {p[3]}:"))
            _show_block(s[2], names, pad + "    ", lines)
            lines.append(f"{pad}else:")
            _show_block(s[3], names, pad + "    ", lines)
    if not stmts:
        lines.append(f"{pad}pass")


def _show(n, pre, stmts):
    names = list("abc"[:n])
    lines = []
    if pre is not None:
        _show_block((("view", *pre),), names, "", lines)
        names.append(lines[-1].split()[0])
        lines[-1] += "  # made before the program"
    _show_block(stmts, names, "", lines)
    return "\n".join(lines)


# -- drawing a program --------------------------------------------------------------------
_SHAPES = [(5,), (6,), (4, 3), (3, 4), (2, 3)]


def _refs(scope, shape=None):
    return [k for k, s in enumerate(scope) if s is not None and shape in (None, s)]


def _draw_ix(draw, scope, n, neg=False, oob=None):
    """An index into an axis of size ``n``. An integer index (``neg``, or ``oob``) made from
    a loop variable is out of bounds in some programs (modulo ``n + 1``): NumPy raises
    IndexError, and so must jaxtensor, its Tensors holding what NumPy's arrays hold. (A
    constant out of bounds raises while the loop or function is traced, before anything
    runs: not generated.)"""
    ivs = [k for k, s in enumerate(scope) if s is None]
    slot = draw(st.sampled_from([None, *ivs]))
    if slot is not None and (neg if oob is None else oob) and draw(st.integers(0, 39)) == 0:
        n += 1
    return (slot, draw(st.sampled_from([1, 2])), draw(st.integers(0, n - 1)), n,
            neg and draw(st.booleans()))


def _draw_item(draw, scope, n, kinds):
    """A key item on an axis of size ``n`` and its length (None: an integer)."""
    k = draw(st.sampled_from(kinds))
    if k == "i":
        return ("i", _draw_ix(draw, scope, n, neg=True)), None
    if k == "s":
        lo = draw(st.integers(0, n))
        hi, step = draw(st.integers(lo, n)), draw(st.sampled_from([1, 2]))
        return ("s", lo, hi, step), len(range(lo, hi, step))
    if k == "ds":
        size = draw(st.integers(1, n))
        return ("ds", _draw_ix(draw, scope, n - size + 1), size), size
    if k == "a":
        return ("a", _draw_ix(draw, scope, n, oob=True), n), 2
    return ("all",), n


def _draw_key(draw, scope, shape):
    """A key for a write into an array of ``shape`` and the shape it selects (None: a mask)."""
    form = draw(st.integers(0, 9))
    if form == 0:
        return ("mask", draw(st.sampled_from(_refs(scope, shape))), draw(
            st.sampled_from([-1.0, 0.0, 1.5]))), None
    if form == 1:
        return (("...",),), shape
    items, dims = [], []
    for n in shape[:draw(st.integers(1, len(shape)))]:
        # (a ds() window with an integer array raises, by design: see _indexing/_plan.py)
        used = {it[0] for it in items}
        kinds = ["i", "s", "all"] + ([] if "a" in used else ["ds"])
        if n >= 2 and not used & {"a", "ds"}:
            kinds.append("a")
        it, d = _draw_item(draw, scope, n, kinds)
        items.append(it)
        dims.append(d)
    dims += shape[len(items):]
    return tuple(items), tuple(d for d in dims if d is not None)


def _draw_scalar_key(draw, scope, shape):
    return tuple(("i", _draw_ix(draw, scope, n, neg=True)) for n in shape)


def _blocks(scope, want):
    """(slot, window kinds per axis) of reads that select the shape ``want``."""
    out = []
    for k in _refs(scope):
        s = scope[k]
        if len(want) == 1 and len(s) == 1 and want[0] <= s[0]:
            out.append((k, ("ds",)))
        if len(want) == 1 and len(s) == 2:
            out += [(k, p) for p, n in ((("i", "ds"), s[1]), (("ds", "i"), s[0]))
                    if want[0] <= n]
        if len(want) == 2 and len(s) == 2 and want[0] <= s[0] and want[1] <= s[1]:
            out.append((k, ("ds", "ds")))
    return out


def _draw_value(draw, scope, want, op):
    """A value for a write selecting the shape ``want`` (None: a mask, scalars only)."""
    if op == "*=":
        return ("c", draw(st.sampled_from([0.5, -1.0, 2.0])))
    kinds = ["c", "rd", "rd"]
    if any(s is None for s in scope):
        kinds.append("iv")
    blocks = _blocks(scope, want) if want and 0 not in want else []
    if blocks:
        kinds += ["blk", "blk"]
    k = draw(st.sampled_from(kinds))
    mul = draw(st.sampled_from([0.5, -1.0, 2.0, 1.0]))
    if k == "c":
        return ("c", draw(st.sampled_from([0.0, 1.0, -2.5, 3.0])))
    if k == "iv":
        ivs = [j for j, s in enumerate(scope) if s is None]
        return ("iv", draw(st.sampled_from(ivs)), mul, draw(st.sampled_from([0.0, 1.0])))
    if k == "rd":
        src = draw(st.sampled_from(_refs(scope)))
        return ("rd", src, _draw_scalar_key(draw, scope, scope[src]), mul,
                draw(st.sampled_from([0.0, 1.0, -0.5])))
    src, kinds = draw(st.sampled_from(blocks))
    shape, sizes = scope[src], iter(want)
    key = []
    for n, kind in zip(shape, kinds):
        if kind == "i":
            key.append(("i", _draw_ix(draw, scope, n, neg=True)))
        else:
            size = next(sizes)
            key.append(("ds", _draw_ix(draw, scope, n - size + 1), size))
    return ("blk", src, tuple(key), mul)


def _draw_view(draw, shape, scope, oob=None):
    """A view op on an array of ``shape`` and the view's shape."""
    ops = ["sl", "ds"] + (["rs"] if shape[0] in (4, 6) else []) if len(shape) == 1 else [
        "T", "row", "row", "sl", "csl", "rs"]
    op = draw(st.sampled_from(ops))
    n = shape[0]
    if op == "T":
        return ("T",), shape[::-1]
    if op == "row":
        return ("row", _draw_ix(draw, scope, n, neg=True, oob=oob)), shape[1:]
    if op == "sl":
        lo = draw(st.integers(0, n - 1))
        hi, step = draw(st.integers(lo + 1, n)), draw(st.sampled_from([1, 2]))
        return ("sl", lo, hi, step), (len(range(lo, hi, step)), *shape[1:])
    if op == "csl":
        lo = draw(st.integers(0, shape[1] - 1))
        hi = draw(st.integers(lo + 1, shape[1]))
        return ("csl", lo, hi), (n, hi - lo)
    if op == "ds":
        size = draw(st.integers(1, n))
        return ("ds", _draw_ix(draw, scope, n - size + 1), size), (size,)
    new = (n,) if len(shape) == 1 else (shape[0] * shape[1],)
    if len(shape) == 1:
        new = draw(st.sampled_from([(2, n // 2), (n // 2, 2)]))
    return ("rs", new), new


def _draw_block(draw, scope, depth, min_size=1, max_size=4):
    """A block of statements; ``scope`` holds each slot's shape (None: a loop variable)."""
    scope = list(scope)
    out = []
    for _ in range(draw(st.integers(min_size, max_size))):
        kinds = ["write"] * 5 + ["iop"]
        if len(scope) < _SLOTS - 3:
            kinds += ["view", "view", "new"]
        if depth < 3:
            kinds += ["for", "for", "while", "if", "call"]
            if any(s is None for s in scope):
                kinds.append("oob_while")
        k = draw(st.sampled_from(kinds))
        if k == "oob_while":
            # a write out of bounds for some values of a loop variable, then a while_loop
            # whose counter only its body's (gated) writes change: it must stop at a failure
            ivs = [j for j, s in enumerate(scope) if s is None]
            dst = draw(st.sampled_from(_refs(scope)))
            n = scope[dst][0]
            ix = (draw(st.sampled_from(ivs)), 1, draw(st.integers(0, n)), n + 1, False)
            out.append(("write", dst, (("i", ix),), "=", ("c", 1.0)))
            body = _draw_block(draw, [*scope, None], depth + 1, 1, 2)
            out.append(("while", draw(st.integers(1, 3)), body))
            continue
        if k in ("write", "iop"):
            dst = draw(st.sampled_from(_refs(scope)))
            op = draw(st.sampled_from(["=", "+=", "-=", "*="] if k == "write" else
                                      ["+=", "-=", "*="]))
            if k == "iop":
                out.append(("iop", dst, op, _draw_value(draw, scope, scope[dst], op)))
                continue
            key, want = _draw_key(draw, scope, scope[dst])
            if want is None:  # a mask: an assignment of a scalar
                op = "="
            out.append(("write", dst, key, op, _draw_value(draw, scope, want, op)))
        elif k == "view":
            src = draw(st.sampled_from(_refs(scope)))
            op, shape = _draw_view(draw, scope[src], scope)
            out.append(("view", src, op))
            scope.append(shape)
        elif k == "new":
            src = draw(st.sampled_from(_refs(scope)))
            out.append(("new", src, draw(st.sampled_from(["copy", "zeros"]))))
            scope.append(scope[src])
        elif k == "if":
            ivs = [j for j, s in enumerate(scope) if s is None]
            if ivs and draw(st.booleans()):
                pred = ("even", draw(st.sampled_from(ivs)))
            else:
                src = draw(st.sampled_from(_refs(scope)))
                pred = ("gt", src, _draw_scalar_key(draw, scope, scope[src]),
                        draw(st.sampled_from([-1.0, 0.0, 1.0])))
            out.append(("if", pred, _draw_block(draw, scope, depth + 1, 1, 3),
                        _draw_block(draw, scope, depth + 1, 0, 2)))
        elif k == "call":
            out.append(("call", _draw_block(draw, scope, depth + 1, 1, 3)))
        else:
            body = _draw_block(draw, [*scope, None], depth + 1)
            if k == "while":
                out.append(("while", draw(st.integers(0, 3)), body))
                continue
            lo = draw(st.integers(0, 1))
            ivs = [j for j, s in enumerate(scope) if s is None]
            if ivs and draw(st.booleans()):
                hi = ("iv", draw(st.sampled_from(ivs)), draw(st.integers(0, 2)))
            else:
                hi = draw(st.integers(lo - 1, lo + 4))
            out.append(("for", lo, hi, body))
    return tuple(out)


@st.composite
def programs(draw):
    """(the arrays' initial values, a view of one made before the program or None, the
    statements, where each array and the view live in the ``jit_mixed`` mode: an argument,
    closed over, or made inside the function)."""
    shapes = draw(st.lists(st.sampled_from(_SHAPES), min_size=2, max_size=3))
    values = [draw(arrays(np.float64, s, elements=st.integers(-4, 4).map(lambda v: v / 2)))
              for s in shapes]
    scope, pre = list(shapes), None
    if draw(st.booleans()):
        src = draw(st.integers(0, len(shapes) - 1))
        op, shape = _draw_view(draw, shapes[src], scope, oob=False)
        scope.append(shape)
        pre = (src, op)
    stmts = _draw_block(draw, scope, 0, 1, 5)
    homes = draw(st.lists(st.sampled_from(["arg", "closed", "made"]), min_size=len(scope),
                          max_size=len(scope)))
    if pre is not None:  # (the view of an array made inside is made there too)
        homes[-1] = "made" if homes[pre[0]] == "made" else homes[-1].replace("made", "arg")
    return values, pre, stmts, homes


# -- the test -----------------------------------------------------------------------------
def _arrays(h, values, pre):
    env = [h.xp.asarray(v.copy()) for v in values]
    if pre is not None:
        env.append(_view(h, env, env[pre[0]], pre[1]))
    return env


def _run(h, stmts, env):
    env = list(env)
    _exec(h, stmts, env)
    return env


LIMIT_S = 120  # per program (each takes well under a second or a few seconds to compile)


def _limited(run):
    """``run()`` in a thread, failing the test if it takes more than ``LIMIT_S`` seconds (a
    loop that never ends), instead of hanging the suite."""
    box: list = []

    def target():
        try:
            box.append((True, run()))
        except BaseException as e:  # noqa: BLE001 - re-raised in the caller's thread
            box.append((False, e))

    th = threading.Thread(target=target, daemon=True)
    th.start()
    th.join(LIMIT_S)
    if not box:
        pytest.fail(f"the program did not finish within {LIMIT_S} s (a loop never ended)")
    ok, v = box[0]
    if not ok:
        raise v
    return v


@pytest.mark.parametrize("mode", ["eager", "jit", "jit_mixed"])
@settings(deadline=None, max_examples=int(os.environ.get("FUZZ_N", 25)))  # (more: FUZZ_N)
@given(prog=programs())
def test_random_program_matches_numpy(mode, prog):
    values, pre, stmts, homes = prog
    note(_show(len(values), pre, stmts))
    want = _arrays(NP, values, pre)
    try:
        want = _run(NP, stmts, want)
        raised = False
    except IndexError:
        raised = True
    ts = _arrays(JT, values, pre)
    outside = [t[1:] for t in ts]  # views made before: they see the program's writes
    if mode == "eager":
        homes = ["eager"] * len(ts)

        def run():
            return _run(JT, stmts, ts)
    else:
        if mode == "jit":
            homes = ["arg"] * len(ts)
        note(f"homes: {homes}")

        def f(*args):
            it = iter(args)
            xs = []
            for k, home in enumerate(homes):
                xs.append(next(it) if home == "arg" else ts[k] if home == "closed" else
                          jt.asarray(values[k]) if k < len(values) else
                          _view(JT, xs, xs[pre[0]], pre[1]))
            return _run(JT, stmts, xs)

        def run():
            return jt.jit(f)(*[t for t, home in zip(ts, homes) if home == "arg"])

    if raised:  # and the arrays hold what NumPy left
        with pytest.raises(IndexError):
            _limited(run)
    else:
        got = _limited(run)
        assert len(got) == len(want)
        for k, (g, w) in enumerate(zip(got, want)):
            np.testing.assert_allclose(np.asarray(g), w, rtol=1e-12, err_msg=f"slot {k}")
    for k, (t, o, home) in enumerate(zip(ts, outside, homes)):
        if home != "made":  # (an array made inside the function is not the caller's)
            np.testing.assert_allclose(np.asarray(t), want[k], rtol=1e-12,
                                       err_msg=f"array {k}")
            np.testing.assert_allclose(np.asarray(o), want[k][1:], rtol=1e-12,
                                       err_msg=f"a view of array {k} made before")


def _read_global(stmts):
    """``stmts`` with every constant value ``("c", v)`` read as ``SCALE[0] * v``."""
    if type(stmts) is tuple and len(stmts) == 2 and stmts[0] == "c":
        return ("g", stmts[1])
    if type(stmts) in (tuple, list):
        return type(stmts)(_read_global(e) for e in stmts)
    return stmts


@settings(deadline=None, max_examples=int(os.environ.get("FUZZ_N", 25)) // 4)
@given(prog=programs(), scales=st.lists(st.sampled_from([1.0, 2.0, -0.5, 0.0]),
                                        min_size=2, max_size=3))
def test_programs_reading_changing_globals(prog, scales):
    """Eager loops whose bodies read a module global that changes between calls (as at a
    script's top level) compute what NumPy's Python loops compute with its current value."""
    values, pre, stmts, _ = prog
    stmts = _read_global(stmts)
    note(_show(len(values), pre, stmts))
    arrays, ts = _arrays(NP, values, pre), _arrays(JT, values, pre)
    try:
        for scale in scales:
            SCALE[0] = scale
            try:
                want = _run(NP, stmts, arrays)
                raised = False
            except IndexError:
                raised = True
            if raised:
                with pytest.raises(IndexError):
                    _run(JT, stmts, ts)
                return
            got = _run(JT, stmts, ts)
            for k, (g, w) in enumerate(zip(got, want)):
                np.testing.assert_allclose(np.asarray(g), w, rtol=1e-12,
                                           err_msg=f"slot {k}, SCALE {scale}")
    finally:
        SCALE[0] = 1.0
