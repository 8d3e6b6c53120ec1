"""Interval arithmetic of the integer and bool scalar primitives (``_ranges.py``'s walk):
the exact interval of a primitive's result from its operands', before wrapping."""

from __future__ import annotations

from typing import Any

import numpy as np

#: a closed interval of integers (``lo <= hi``)
Iv = tuple[int, int]


def dtype_range(aval: Any) -> Iv | None:
    """The values of ``aval``'s dtype, if it is an integer or bool scalar."""
    if aval.shape != () and int(np.prod(aval.shape)) != 1:
        return None
    dt = np.dtype(aval.dtype)
    if dt == np.bool_:
        return (0, 1)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return (int(info.min), int(info.max))
    return None


def fit(iv: Iv, full: Iv) -> Iv:
    """``iv`` where the dtype holds it, else (the device wraps) the dtype's whole range."""
    return iv if full[0] <= iv[0] and iv[1] <= full[1] else full


def const(v: Any) -> Iv | None:
    """The interval of a literal or constant (None: not an integer or bool scalar)."""
    try:
        a = np.asarray(v)
    except Exception:  # (a tracer, or anything NumPy cannot read: nothing known)
        return None
    if a.size != 1 or a.dtype.kind not in "iub":
        return None
    x = int(a.reshape(()))
    return (x, x)


def _tdiv(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


CMP = {"lt": lambda a, b: a < b, "le": lambda a, b: a <= b, "gt": lambda a, b: a > b,
       "ge": lambda a, b: a >= b, "eq": lambda a, b: a == b, "ne": lambda a, b: a != b}
SWAP = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le", "eq": "eq", "ne": "ne"}
NEGATE = {"lt": "ge", "le": "gt", "gt": "le", "ge": "lt", "eq": "ne", "ne": "eq"}
SAME = frozenset({"copy", "copy_p", "reshape", "squeeze", "broadcast_in_dim"})
CALLS = frozenset({"jit", "pjit", "closed_call", "core_call"})
#: the primitives :func:`apply` models (of integer or bool scalars); any other's result is
#: anything its dtype holds
MODELLED = frozenset({"add", "sub", "mul", "neg", "abs", "max", "min", "clamp", "rem",
                      "div", "integer_pow", "convert_element_type", "and", "or", "not",
                      "xor", *SAME, "lt", "le", "gt", "ge", "eq", "ne"})


def is_scalar(a: Any) -> bool:
    """Whether ``a`` (a node, or an inner literal) is an integer or bool scalar."""
    if isinstance(a, tuple):
        return const(a[1]) is not None
    return dtype_range(a.aval()) is not None


def compare(op: str, a: Iv, b: Iv) -> Iv:
    """The bool interval of ``a op b``: known where every pair agrees."""
    corners = {CMP[op](a[0], b[1]), CMP[op](a[1], b[0]), CMP[op](a[0], b[0]),
               CMP[op](a[1], b[1])}
    if op in ("eq", "ne") and not (a[0] == a[1] == b[0] == b[1]):
        disjoint = a[1] < b[0] or b[1] < a[0]
        corners = {op == "ne"} if disjoint else {True, False}
    return (int(min(corners)), int(max(corners)))


def restrict(op: str, a: Iv, b: Iv) -> Iv | None:
    """Where ``a`` lies given ``a op b`` holds for some value of ``b`` (None: nowhere)."""
    lo, hi = a
    if op == "lt":
        hi = min(hi, b[1] - 1)
    elif op == "le":
        hi = min(hi, b[1])
    elif op == "gt":
        lo = max(lo, b[0] + 1)
    elif op == "ge":
        lo = max(lo, b[0])
    elif op == "eq":
        lo, hi = max(lo, b[0]), min(hi, b[1])
    elif op == "ne" and b[0] == b[1]:
        if lo == b[0]:
            lo += 1
        if hi == b[0]:
            hi -= 1
    return (lo, hi) if lo <= hi else None


def apply(name: str, params: dict, args: list[Iv], ins: list, full: Iv) -> Iv:
    """The interval of primitive ``name`` of scalars in ``args`` (exact, before wrapping)."""
    if name in ("add", "sub", "mul") and len(args) == 2:
        (a, b), (c, d) = args
        if name == "add":
            return (a + c, b + d)
        if name == "sub":
            return (a - d, b - c)
        ps = (a * c, a * d, b * c, b * d)
        return (min(ps), max(ps))
    if name == "neg":
        return (-args[0][1], -args[0][0])
    if name == "abs":
        a, b = args[0]
        return (0 if a <= 0 <= b else min(abs(a), abs(b)), max(abs(a), abs(b)))
    if name in ("max", "min") and len(args) == 2:
        (a, b), (c, d) = args
        return (max(a, c), max(b, d)) if name == "max" else (min(a, c), min(b, d))
    if name == "clamp":  # (``clamp(lo, x, hi)``: ``min(max(x, lo), hi)``)
        (l0, l1), (x0, x1), (h0, h1) = args
        return (min(max(x0, l0), h0), min(max(x1, l1), h1))
    if name == "integer_pow" and params.get("y", -1) >= 0:
        (a, b), y = args[0], params["y"]
        ps = [a ** y, b ** y] + ([0] if a <= 0 <= b else [])
        return (min(ps), max(ps))
    if name == "convert_element_type" or name in SAME:
        a, b = args[0]
        if full == (0, 1):  # (to bool: whether it is nonzero)
            return (int(not (a <= 0 <= b)), int(not a == b == 0))
        return args[0]
    if name in ("rem", "div") and len(args) == 2:
        (a, b), (c, d) = args
        if c <= 0 <= d:
            return full  # (may divide by zero)
        if name == "div":
            qs = [_tdiv(x, y) for x in (a, b) for y in (c, d)]
            return (min(qs), max(qs))
        m = max(abs(c), abs(d)) - 1  # (|a rem b| < |b|, with the sign of a)
        return (max(a, -m) if a < 0 else 0, min(b, m) if b > 0 else 0)
    if name in CMP and len(args) == 2:
        return compare(name, args[0], args[1])
    if full == (0, 1) and name in ("and", "or", "not", "xor"):
        if name == "not":
            return (1 - args[0][1], 1 - args[0][0])
        (a, b), (c, d) = args
        if name == "and":
            return (a & c, b & d)
        if name == "or":
            return (a | c, b | d)
        return (0, 1) if not (a == b and c == d) else (a ^ c, a ^ c)
    return full
