"""Random sequences of views, writes, operators and ``index_select`` on a sharded Tensor and
on a NumPy array side by side (run by ``tests/jit/test_sharding_random.py`` in a subprocess with
eight CPU devices).

Every step picks a live alias (the base or a view made earlier) and does one thing to the
Tensor and the same to its NumPy twin; after every step every live alias is compared with
its twin, and the base storage must still have the sharding it started with. A failure
prints the seed and the steps so far.
"""

from __future__ import annotations

import sys

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

import jaxtensor as jt

MAX_ALIASES = 6


def _slice(rng: np.random.Generator, n: int) -> slice:
    step = int(rng.choice([1, 1, 2, 3, -1, -2]))
    a, b = sorted(int(v) for v in rng.integers(0, n + 1, 2))
    if a == b and rng.random() < 0.8:  # (mostly non-empty)
        a, b = 0, n
    return slice(a, b, step) if step > 0 else slice(b - 1 if b else None, a - 1 if a else None,
                                                    step)


def basic_key(rng: np.random.Generator, shape: tuple[int, ...], with_int: bool = True) -> tuple:
    key: list = []
    for n in shape:
        r = rng.random()
        if with_int and n and r < 0.3:
            key.append(int(rng.integers(-n, n)))
        elif r < 0.75:
            key.append(_slice(rng, n))
        else:
            key.append(slice(None))
    if key and rng.random() < 0.2:
        key.insert(int(rng.integers(len(key) + 1)), None)
    if key and rng.random() < 0.2 and key[-1] == slice(None):
        key[-1] = Ellipsis
    return tuple(key)


def advanced_key(rng: np.random.Generator, a: np.ndarray) -> tuple | np.ndarray:
    shape = a.shape
    r = rng.random()
    if r < 0.25:
        return a > float(rng.choice(a.reshape(-1))) if a.size else a > 0  # a mask of values
    axis = int(rng.integers(len(shape)))
    if r < 0.4:  # a mask along one axis
        m = rng.random(shape[axis]) < 0.5
        return (slice(None),) * axis + (m,)
    key = list(basic_key(rng, shape, with_int=False))
    key = [k for k in key if k is not None and k is not Ellipsis]
    key += [slice(None)] * (len(shape) - len(key))
    n = shape[axis]
    k = int(rng.integers(1, min(n, 3) + 1))
    key[axis] = rng.choice(n, k, replace=False) - (n if rng.random() < 0.3 else 0)
    if len(shape) > 1 and rng.random() < 0.3:  # a second array index, broadcast with the first
        other = (axis + 1) % len(shape)
        key[other] = rng.integers(0, shape[other], k)
        # (repeated pairs would make which value wins unspecified)
        pairs = {(int(i) % n, int(j)) for i, j in zip(key[axis], key[other])}
        if len(pairs) < k:
            key[other] = key[other][:1] * 0 + int(key[other][0])
            key[axis] = key[axis][:1]
    return tuple(key)


def _value(rng: np.random.Generator, shape: tuple[int, ...]) -> float | np.ndarray:
    if rng.random() < 0.5 or not shape:
        return float(rng.integers(-20, 20))
    return rng.integers(-20, 20, shape).astype(np.float32)


def run(seed: int, mesh_shape: tuple[int, ...], spec: tuple, shape: tuple[int, ...],
        steps: int, sharded: bool = True) -> None:
    """``steps`` random steps from ``seed`` (``sharded=False``: the same on one device)."""
    rng = np.random.default_rng(seed)
    names = ("x", "y")[: len(mesh_shape)]
    mesh = Mesh(np.array(jax.devices()).reshape(mesh_shape), names)
    sharding = NamedSharding(mesh, P(*spec))
    a = np.arange(np.prod(shape), dtype=np.float32).reshape(shape) - 10
    if not sharded:
        sharding = jax.sharding.SingleDeviceSharding(jax.devices()[0])
    t = jt.asarray(a, device=sharding)
    aliases = [(t, a)]
    log: list[str] = []

    def check(what: str) -> None:
        for k, (u, b) in enumerate(aliases):
            np.testing.assert_array_equal(np.asarray(u), b, err_msg=f"alias {k} after {what}")
        s = t.sharding  # (t owns the storage: its value is the whole base)
        assert s.is_equivalent_to(sharding, len(shape)), (what, s)

    try:
        for _ in range(steps):
            i = int(rng.integers(len(aliases)))
            u, b = aliases[i]
            r = rng.random()
            if r < 0.25 and b.ndim:  # a view
                choice = rng.random()
                if choice < 0.6:
                    key = basic_key(rng, b.shape)
                    what = f"view {i}[{key}]"
                    # (all-int keys give the element's value in both; with ``...`` a view)
                    key = key if Ellipsis in key else (*key, Ellipsis)
                    nu, nb = u[key], b[key]
                elif choice < 0.8:
                    what = f"view {i}.mT/T"
                    nu, nb = (u.mT, np.swapaxes(b, -1, -2)) if b.ndim >= 2 else (u[::-1], b[::-1])
                elif i == 0:
                    newshape = tuple(reversed(shape)) if len(shape) == 2 else (2, -1)
                    what = f"reshape {newshape}"
                    nu, nb = jt.reshape(u, newshape), b.reshape(newshape)
                else:
                    what = f"view {i}[None]"
                    nu, nb = u[None], b[None]
                log.append(what)
                aliases.append((nu, nb))
                if len(aliases) > MAX_ALIASES:
                    del aliases[1]
            elif r < 0.4 and b.ndim and b.size:  # queued scalar writes
                what = f"scalar writes into {i}"
                log.append(what)
                for _ in range(int(rng.integers(1, 6))):
                    k = tuple(int(rng.integers(n)) for n in b.shape)
                    v = float(rng.integers(-20, 20))
                    u[k] = v
                    b[k] = v
            elif r < 0.6:  # a basic-index write
                key = basic_key(rng, b.shape) if b.ndim else (Ellipsis,)
                v = _value(rng, b[key].shape)
                what = f"write {i}[{key}] = {v!r}"
                log.append(what)
                u[key] = v
                b[key] = v
            elif r < 0.75 and b.ndim and b.size:  # an advanced-index write
                key = advanced_key(rng, b)
                sel = b[key].shape
                v = _value(rng, sel) if rng.random() < 0.7 else float(rng.integers(-9, 9))
                what = f"write {i}[{key!r}] = {v!r}"
                log.append(what)
                tk = key
                if isinstance(key, np.ndarray):  # a mask of the alias's values, as a Tensor
                    tk = jt.asarray(key)
                u[tk] = v
                b[key] = v
            elif r < 0.85:  # an in-place operator
                op = rng.choice(["+=", "*=", "-="])
                v = float(rng.choice([1.0, -1.0, 2.0, 0.5]))
                what = f"{i} {op} {v}"
                log.append(what)
                if op == "+=":
                    u += v
                    b += v
                elif op == "*=":
                    u *= v
                    b *= v
                else:
                    u -= v
                    b -= v
            else:  # results: index_select, operators, a reduction
                what = f"results of {i}"
                log.append(what)
                if b.ndim and b.size:
                    d = int(rng.integers(b.ndim))
                    idx = rng.integers(-b.shape[d], b.shape[d], int(rng.integers(1, 5)))
                    np.testing.assert_array_equal(
                        np.asarray(jt.index_select(u, d, jt.asarray(idx))),
                        np.take(b, idx, axis=d), err_msg=what)
                    np.testing.assert_allclose(np.asarray(u.sum(axis=d)), b.sum(axis=d),
                                               err_msg=what)
                np.testing.assert_array_equal(np.asarray(u * 2.0 - u), b * 2.0 - b,
                                              err_msg=what)
            check(what)
    except BaseException:
        print(f"seed {seed}, mesh {mesh_shape}, spec {spec}, shape {shape}; steps:",
              *log, sep="\n  ", file=sys.stderr)
        raise
