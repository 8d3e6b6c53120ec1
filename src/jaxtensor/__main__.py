"""``python -m jaxtensor``: a short tour of what the library does, and the environment."""

from __future__ import annotations

import ast
import platform

import jax
import numpy as np

import jaxtensor as jt


def _show(title: str, code: str, env: dict) -> None:
    """Print each statement like an interactive session, then run it (echoing values)."""
    print(f"\n# {title}")
    code = code.strip()
    for node in ast.parse(code).body:
        src = ast.get_source_segment(code, node)
        lines = src.splitlines()
        print(f">>> {lines[0]}")
        for line in lines[1:]:
            print(f"... {line}")
        if isinstance(node, ast.Expr):
            result = eval(compile(ast.Expression(node.value), "<tour>", "eval"), env)  # noqa: S307
            if result is not None:
                print(result)
        else:
            exec(compile(ast.Module([node], []), "<tour>", "exec"), env)  # noqa: S102


def main() -> None:
    env: dict = {"jt": jt, "jax": jax, "np": np}
    print("jaxtensor tour")
    _show(
        "Views: basic indexing returns a view; writes through it reach the base",
        """
a = jt.ones((2, 3))
b = a[0]
b[1] = 10
a
jt.shares_memory(a, b)
c = a[[0]]
c[0] = -1
a
""",
        env,
    )
    _show(
        "setitem casts to the destination dtype (floats truncate into integers)",
        """
x = jt.ones((2, 3), dtype=jt.int32)
x[0] = 2.7
x
""",
        env,
    )
    for name, fn in _extra_sections():
        fn(env, name)
    print("\n# Environment")
    print(f"jaxtensor {_version()} | JAX {jax.__version__} | NumPy {np.__version__} | "
          f"Python {platform.python_version()}")
    print(f"devices: {jax.devices()}")
    print(f"64-bit mode (x64): {jax.config.read('jax_enable_x64')}; default dtypes: "
          f"float {jt.ones(1).dtype}, int {jt.arange(1).dtype}")


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("jaxtensor")
    except Exception:  # noqa: BLE001
        return "(source tree)"


def _extra_sections() -> list:
    """Sections for features that live in other modules (index_select, jit, loops, grad)."""
    out = []
    if hasattr(jt, "index_select"):
        out.append(("index_select", lambda env, n: _show(
            "index_select: a tiled lax loop compiled by XLA",
            """
t = jt.reshape(jt.arange(12.0), (3, 4))
jt.index_select(t, 0, jt.asarray([0, 2]))
jt.index_select(t, -1, jt.asarray([0, 2]))
""", env)))
    if hasattr(jt, "jit"):
        out.append(("jit", lambda env, n: _show(
            "jaxtensor.jit: NumPy-style mutation, compiled, written back to your Tensor",
            """
def fill(x):
    for i in range(4): x[i] = i * i
fill_c = jt.jit(fill)
y = jt.zeros(4)
fill_c(y)
y
""", env)))
    if hasattr(jt, "fori_loop"):
        out.append(("loops", lambda env, n: _show(
            "jaxtensor.fori_loop: a loop that writes, compiled into one XLA loop",
            """
x = jt.ones(6)
def step(i):
    x[i] = x[i - 1] * 0.5 + x[i]
jt.fori_loop(1, 6, step)
x
d = jt.zeros(6)
def window(k):
    d[jt.ds(k, 2)] += 1
jt.fori_loop(0, 5, window)
d
""", env)))
    if hasattr(jt, "grad") and hasattr(jt, "sum"):
        out.append(("grad", lambda env, n: _show(
            "Gradients flow through indexing and setitem",
            """
f = lambda w: jt.sum(w[::2] ** 2)
jt.grad(f)(jt.arange(5.0))
def g(w):
    y = jt.zeros(5)
    y[1:4] = w[:3] * 2.0
    y[2] = 0.0
    return jt.sum(y ** 2)
jt.grad(g)(jt.ones(4))
""", env)))
    return out


if __name__ == "__main__":
    main()
