"""Eager creation functions: jaxtensor against the raw eager ``jax.numpy`` call, NumPy and
PyTorch, µs per call (the result waited for).

Each case's four versions are timed in alternating rounds of ``--calls`` calls in one
process, one core; the best round of each is kept. What a loop program pays before its
loop (``L = zeros(...)``, ``parent = arange(n)``, ``cp = zeros_like(d)``, ``stack[0] =
asarray([sr, sc])``). NumPy's ``asarray`` of its own array is no copy: its column is
``np.array(host)``, the copy the others make.

Run: ``python benchmarks/bench_creation.py`` (prints the table).
"""

from __future__ import annotations

import argparse
import platform
import time
from collections.abc import Callable

import _common  # noqa: F401  (one core, before jax)
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import jaxtensor as jt  # noqa: E402

torch = _common.torch_one_thread()


def cases() -> dict[str, dict[str, Callable[[], object]]]:
    x = jt.ones(2000)
    jx, nx = jnp.ones(2000), np.ones(2000)
    host = np.random.default_rng(0).standard_normal((100, 100))
    tx = torch.ones(2000, dtype=torch.float64) if torch is not None else None
    wait = jax.block_until_ready

    def jt_(f: Callable[[], jt.Tensor]) -> Callable[[], object]:
        return lambda: wait(f().to_jax())

    def jnp_(f: Callable[[], object]) -> Callable[[], object]:
        return lambda: wait(f())
    out = {
        "zeros((121, 161), int32)": {
            "jaxtensor": jt_(lambda: jt.zeros((121, 161), dtype=jt.int32)),
            "jnp": jnp_(lambda: jnp.zeros((121, 161), jnp.int32)),
            "numpy": lambda: np.zeros((121, 161), np.int32),
            "torch": lambda: torch.zeros((121, 161), dtype=torch.int32)},
        "ones(2000)": {
            "jaxtensor": jt_(lambda: jt.ones(2000)), "jnp": jnp_(lambda: jnp.ones(2000)),
            "numpy": lambda: np.ones(2000),
            "torch": lambda: torch.ones(2000, dtype=torch.float64)},
        "full(2000, 2.5)": {
            "jaxtensor": jt_(lambda: jt.full(2000, 2.5)),
            "jnp": jnp_(lambda: jnp.full(2000, 2.5)), "numpy": lambda: np.full(2000, 2.5),
            "torch": lambda: torch.full((2000,), 2.5, dtype=torch.float64)},
        "zeros_like(x), 2000": {
            "jaxtensor": jt_(lambda: jt.zeros_like(x)), "jnp": jnp_(lambda: jnp.zeros_like(jx)),
            "numpy": lambda: np.zeros_like(nx), "torch": lambda: torch.zeros_like(tx)},
        "arange(2000, int32)": {
            "jaxtensor": jt_(lambda: jt.arange(2000, dtype=jt.int32)),
            "jnp": jnp_(lambda: jnp.arange(2000, dtype=jnp.int32)),
            "numpy": lambda: np.arange(2000, dtype=np.int32),
            "torch": lambda: torch.arange(2000, dtype=torch.int32)},
        "eye(50)": {
            "jaxtensor": jt_(lambda: jt.eye(50)), "jnp": jnp_(lambda: jnp.eye(50)),
            "numpy": lambda: np.eye(50), "torch": lambda: torch.eye(50, dtype=torch.float64)},
        "asarray([3, 4])": {
            "jaxtensor": jt_(lambda: jt.asarray([3, 4])),
            "jnp": jnp_(lambda: jnp.asarray([3, 4])), "numpy": lambda: np.asarray([3, 4]),
            "torch": lambda: torch.as_tensor([3, 4])},
        "asarray(host (100, 100) float64)": {
            "jaxtensor": jt_(lambda: jt.asarray(host)),
            "jnp": jnp_(lambda: jnp.asarray(host)), "numpy": lambda: np.array(host),
            "torch": lambda: torch.tensor(host)},
        "x[3] * 2.0 (element read, used)": {
            "jaxtensor": jt_(lambda: x[3] * 2.0), "jnp": jnp_(lambda: jx[3] * 2.0),
            "numpy": lambda: nx[3] * 2.0, "torch": lambda: tx[3] * 2.0},
    }
    if torch is None:
        for c in out.values():
            del c["torch"]
    return out


def best(fns: dict[str, Callable[[], object]], calls: int, rounds: int) -> dict[str, float]:
    """Best µs per call of each function, in alternating rounds."""
    for f in fns.values():
        f()
        f()
    t = {k: float("inf") for k in fns}
    for _ in range(rounds):
        for k, f in fns.items():
            t0 = time.perf_counter()
            for _ in range(calls):
                f()
            t[k] = min(t[k], (time.perf_counter() - t0) / calls * 1e6)
    return t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=15)
    a = ap.parse_args()
    print("| call | jaxtensor µs | raw eager jnp µs | NumPy µs | PyTorch µs | jaxtensor / jnp |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, fns in cases().items():
        t = best(fns, a.calls, a.rounds)
        torch_t = f"{t['torch']:.1f}" if "torch" in t else "n/a"
        print(f"| {name} | {t['jaxtensor']:.1f} | {t['jnp']:.1f} | {t['numpy']:.2f} | "
              f"{torch_t} | {t['jaxtensor'] / t['jnp']:.2f}x |")
    print(f"\nMachine: {platform.machine()}, jax {jax.__version__}, backend "
          f"{jax.default_backend()}, Python {platform.python_version()}.")


if __name__ == "__main__":
    main()
