"""Element strides of C-order memory, and NumPy's rule for a reshape without a copy (which
views a reshape can make: ``_view.compose_reshape``)."""

from __future__ import annotations

import math


def c_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    out, acc = [], 1
    for n in reversed(shape):
        out.append(acc)
        acc *= n
    return tuple(reversed(out))


def is_c_contiguous(shape: tuple[int, ...], strides: tuple[int, ...]) -> bool:
    if math.prod(shape) == 0:
        return True
    expected = 1
    for n, s in zip(reversed(shape), reversed(strides)):
        if n != 1:
            if s != expected:
                return False
            expected *= n
    return True


def nocopy_strides(
    shape: tuple[int, ...], strides: tuple[int, ...], new_shape: tuple[int, ...]
) -> tuple[int, ...] | None:
    """NumPy's ``_attempt_nocopy_reshape`` (C order): new strides, or None if a copy is needed."""
    if is_c_contiguous(shape, strides):
        return c_strides(new_shape)
    old = [(n, s) for n, s in zip(shape, strides) if n != 1]
    olddims = [n for n, _ in old]
    oldstrides = [s for _, s in old]
    newdims = list(new_shape)
    newstrides = [0] * len(newdims)
    oi, oj, ni, nj = 0, 1, 0, 1
    while ni < len(newdims) and oi < len(olddims):
        p, q = newdims[ni], olddims[oi]
        while p != q:
            if p < q:
                p *= newdims[nj]
                nj += 1
            else:
                q *= olddims[oj]
                oj += 1
        for ok in range(oi, oj - 1):
            if oldstrides[ok] != olddims[ok + 1] * oldstrides[ok + 1]:
                return None
        newstrides[nj - 1] = oldstrides[oj - 1]
        for nk in range(nj - 1, ni, -1):
            newstrides[nk - 1] = newstrides[nk] * newdims[nk]
        ni = nj
        nj += 1
        oi = oj
        oj += 1
    last = newstrides[ni - 1] if ni >= 1 else 1
    for nk in range(ni, len(newdims)):
        newstrides[nk] = last
    return tuple(newstrides)
