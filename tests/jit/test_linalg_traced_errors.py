"""``LinAlgError`` of traced code: ``inv``, ``solve``, ``matrix_power`` (a negative power),
``cholesky`` and the functions computed by an SVD (of a matrix holding a NaN) inside ``jaxtensor.jit``, an eager ``fori_loop`` body, a ``fori_loop`` inside
``jaxtensor.jit``, a nested ``jaxtensor.jit``, ``jaxtensor.grad`` and ``jaxtensor.vmap`` raise
the error eager code raises (class and message, checked by the trace's checks), and leave
every Tensor as eager code leaves it (the writes before the failing call kept, later ones
skipped). The oracle is the same program run eagerly (a Python loop for a loop), and NumPy
(or ``jax.grad`` of the ``jax.numpy`` function) for the values where nothing fails.

Every input is a stack of two 3x3 matrices in float64 (one shape: few compilations)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxtensor as jt

pytestmark = pytest.mark.filterwarnings("ignore::jaxtensor.RecompileWarning")

_RNG = np.random.default_rng(11)


def _regular() -> np.ndarray:
    return _RNG.standard_normal((3, 3)) + 3 * np.eye(3)


def _spd() -> np.ndarray:
    b = _RNG.standard_normal((3, 3))
    return b @ b.T + 3 * np.eye(3)


_SINGULAR = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 1.0, 1.0]])  # row 1 = 2 * row 0
_INDEFINITE = np.diag([1.0, -1.0, 1.0])
_NAN = np.where(np.eye(3) == 1, 4.0, np.nan)

# stacks of two matrices: where NumPy raises for the stack and where it does not
SQUARE = {
    "regular": np.stack([_regular(), _regular()]),
    "second_singular": np.stack([_regular(), _SINGULAR]),
    "both_singular": np.stack([np.zeros((3, 3)), _SINGULAR]),
    "near_singular": np.stack([_regular(), _SINGULAR + 1e-6 * np.eye(3)]),
    "nan": np.stack([_regular(), _NAN]),
}
SYMMETRIC = {
    "positive_definite": np.stack([_spd(), _spd()]),
    "second_indefinite": np.stack([_spd(), _INDEFINITE]),
    "both_indefinite": np.stack([-np.eye(3), _INDEFINITE]),
    "nan": np.stack([_spd(), _NAN]),
}

# the functions computed by an SVD, which NumPy's LAPACK does not converge on a NaN
SVD_INPUTS = {
    "regular": np.stack([_regular(), _regular()]),
    "singular": np.stack([_regular(), _SINGULAR]),
    "second_nan": np.stack([_regular(), _NAN]),
    "both_nan": np.stack([_NAN, _NAN]),
}

_B = np.arange(1.0, 4.0)
#: name -> (jaxtensor's function of a Tensor, NumPy's of an array, the inputs)
FUNCTIONS: dict[str, tuple[Callable, Callable, dict]] = {
    "inv": (jt.linalg.inv, np.linalg.inv, SQUARE),
    "solve": (lambda x: jt.linalg.solve(x, jt.asarray(_B)),
              lambda a: np.linalg.solve(a, _B), SQUARE),
    "matrix_power": (lambda x: jt.linalg.matrix_power(x, -2),
                     lambda a: np.linalg.matrix_power(a, -2), SQUARE),
    "cholesky": (jt.linalg.cholesky, np.linalg.cholesky, SYMMETRIC),
    "svdvals": (jt.linalg.svdvals, lambda a: np.linalg.svd(a, compute_uv=False), SVD_INPUTS),
    "pinv": (jt.linalg.pinv, np.linalg.pinv, SVD_INPUTS),
    "matrix_rank": (jt.linalg.matrix_rank, np.linalg.matrix_rank, SVD_INPUTS),
    "matrix_norm_2": (lambda x: jt.linalg.matrix_norm(x, ord=2),
                      lambda a: np.linalg.norm(a, 2, axis=(-2, -1)), SVD_INPUTS),
}
CASES = [(f, name) for f, (_, _, inputs) in FUNCTIONS.items() for name in inputs]


def _outcome(f: Callable[[], Any]) -> Any:
    try:
        return f()
    except np.linalg.LinAlgError as e:
        return e


def _same_error(got: Any, want: Exception) -> None:
    assert isinstance(got, jt.linalg.LinAlgError), got
    assert type(got) is type(want) and str(got) == str(want)


def _close(got: Any, want: Any) -> None:
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, atol=1e-6)


# -- the whole stack in one call: jit, a nested jit; the Tensors written around the call ----
def _program(f: Callable) -> Callable:
    def prog(x: jt.Tensor, before: jt.Tensor, out: jt.Tensor, after: jt.Tensor) -> None:
        before[0] = 1.0
        out[...] = f(x)
        after[0] = 1.0

    return prog


_PROGRAMS: dict[tuple[str, str], Callable] = {}


def _compiled(fname: str, how: str) -> Callable:
    """One compiled program per function and kind (compiled once for every input)."""
    key = (fname, how)
    if key not in _PROGRAMS:
        prog = _program(FUNCTIONS[fname][0])
        _PROGRAMS[key] = {
            "jit": lambda: jt.jit(prog),
            "nested_jit": lambda: jt.jit(lambda *t: jt.jit(prog)(*t)),
            "unchecked": lambda: jt.jit(prog, check_bounds=False),
        }[how]()
    return _PROGRAMS[key]


def _run_program(prog: Callable, a: np.ndarray, shape: tuple) -> tuple[Any, list]:
    tensors = [jt.zeros(1), jt.full(shape, -1.0), jt.zeros(1)]
    return _outcome(lambda: prog(jt.asarray(a), *tensors)), [t.numpy() for t in tensors]


# (a nested jit's checks are its caller's: inv and cholesky stand for the two kinds of check)
@pytest.mark.parametrize(("fname", "name", "how"),
                         [(*c, "jit") for c in CASES]
                         + [(*c, "nested_jit") for c in CASES if c[0] in ("inv", "cholesky")])
def test_jit_raises_as_eager_and_leaves_what_eager_leaves(fname: str, name: str,
                                                           how: str) -> None:
    f, np_f, inputs = FUNCTIONS[fname]
    a = inputs[name]
    shape = np_f(inputs[next(iter(inputs))]).shape
    want, eager_state = _run_program(_program(f), a, shape)
    got, state = _run_program(_compiled(fname, how), a, shape)
    for g, w in zip(state, eager_state):
        np.testing.assert_array_equal(g, w)
    numpy = _outcome(lambda: np_f(a))
    if isinstance(want, Exception):
        assert isinstance(numpy, np.linalg.LinAlgError)
        _same_error(got, want)
        assert state[0][0] == 1.0 and state[2][0] == 0.0  # (kept before, skipped after)
    else:
        assert got is None and not isinstance(numpy, Exception)
        _close(state[1], numpy)


# (matrix_rank: JAX's rank of a NaN matrix is a finite 0)
@pytest.mark.parametrize("fname", [f for f in FUNCTIONS if f != "matrix_rank"])
def test_check_bounds_false_turns_the_check_off(fname: str) -> None:
    """``check_bounds=False`` removes every check of the call: JAX's results, no error."""
    f, _, inputs = FUNCTIONS[fname]
    a = inputs[{id(SQUARE): "second_singular", id(SYMMETRIC): "second_indefinite",
                id(SVD_INPUTS): "second_nan"}[id(inputs)]]
    got, state = _run_program(_compiled(fname, "unchecked"), a, np.shape(f(jt.asarray(
        inputs[next(iter(inputs))]))))
    assert got is None
    assert not np.isfinite(state[1][1]).all() and np.isfinite(state[1][0]).all()
    assert state[2][0] == 1.0


def test_a_failed_call_without_donation_changes_nothing() -> None:
    """``donate=False``: a call whose check fails leaves every Tensor as it was (the writes
    before the failing call too), as for an index check."""
    prog = jt.jit(_program(jt.linalg.inv), donate=False)
    got, state = _run_program(prog, SQUARE["second_singular"], (2, 3, 3))
    _same_error(got, _outcome(lambda: jt.linalg.inv(jt.asarray(SQUARE["second_singular"]))))
    assert state[0][0] == 0.0 and (state[1] == -1.0).all() and state[2][0] == 0.0
    got, state = _run_program(prog, SQUARE["regular"], (2, 3, 3))
    assert got is None and state[0][0] == state[2][0] == 1.0
    _close(state[1], np.linalg.inv(SQUARE["regular"]))


# -- one matrix per iteration: an eager fori_loop, a fori_loop inside jit ----------------
def _loop_program(f: Callable, loop: Callable) -> Callable:
    def prog(x: jt.Tensor, out: jt.Tensor, done: jt.Tensor) -> None:
        def body(i: Any) -> None:
            out[i] = f(x[i])
            done[i] = 1.0

        loop(body)

    return prog


def _python_loop(body: Callable) -> None:
    for i in range(2):
        body(i)


def _fori(body: Callable) -> None:
    jt.fori_loop(0, 2, body)


_LOOPS: dict[tuple[str, str], Callable] = {}


def _looped(fname: str, how: str) -> Callable:
    key = (fname, how)
    if key not in _LOOPS:
        prog = _loop_program(FUNCTIONS[fname][0], _fori)
        _LOOPS[key] = prog if how == "fori_loop" else jt.jit(prog)
    return _LOOPS[key]


@pytest.mark.parametrize("how", ["fori_loop", "jit_fori_loop"])
@pytest.mark.parametrize(("fname", "name"), CASES)
def test_loops_raise_as_eager_and_leave_what_eager_leaves(fname: str, name: str,
                                                          how: str) -> None:
    f, np_f, inputs = FUNCTIONS[fname]
    a = inputs[name]
    shape = np_f(inputs[next(iter(inputs))]).shape

    def run(prog: Callable) -> tuple[Any, list]:
        out, done = jt.full(shape, -1.0), jt.zeros(2)
        return _outcome(lambda: prog(jt.asarray(a), out, done)), [out.numpy(), done.numpy()]

    want, eager_state = run(_loop_program(f, _python_loop))
    got, state = run(_looped(fname, how))
    for g, w in zip(state, eager_state):
        np.testing.assert_array_equal(g, w)
    if isinstance(want, Exception):
        _same_error(got, want)
        assert state[1].tolist() == ([0.0, 0.0] if name.startswith("both") else [1.0, 0.0])
    else:
        assert got is None
        _close(state[0], np_f(a))


# -- transforms: vmap over the stack, grad ------------------------------------------------
def _first_eager_error(f: Callable, a: np.ndarray) -> Any:
    """The error of the first member of the stack eager code fails on, or None."""
    for m in a:
        e = _outcome(lambda m=m: f(jt.asarray(m)))
        if isinstance(e, Exception):
            return e
    return None


@pytest.mark.parametrize(("fname", "name"), CASES)
def test_vmap_raises_the_error_of_the_failing_member(fname: str, name: str) -> None:
    f, np_f, inputs = FUNCTIONS[fname]
    a = inputs[name]
    want = _first_eager_error(f, a)
    got = _outcome(lambda: jt.vmap(f)(jt.asarray(a)))
    if want is not None:
        _same_error(got, want)
    else:
        _close(got, np_f(a))


_JAX = {
    "inv": jnp.linalg.inv,
    "solve": lambda a: jnp.linalg.solve(a, jnp.broadcast_to(_B, a.shape[:-1])[..., None])[..., 0],
    "matrix_power": lambda a: jnp.linalg.matrix_power(a, -2),
    "cholesky": jnp.linalg.cholesky,
    "svdvals": jnp.linalg.svdvals,
    "pinv": jnp.linalg.pinv,
    "matrix_norm_2": lambda a: jnp.linalg.matrix_norm(a, ord=2),
}


# (each new function under jt.grad compiles its derivative: a failing stack per function,
# and a passing one for the two kinds of check)
@pytest.mark.parametrize(("fname", "name"), [
    (f, name) for f, name in CASES if f != "matrix_rank" and (name.startswith("second")
    or (f in ("inv", "cholesky", "svdvals") and name in ("regular", "positive_definite")))])
def test_grad_raises_as_eager(fname: str, name: str) -> None:
    """``jt.grad`` of a loss through the function: the eager error where eager code raises,
    else ``jax.grad`` of the ``jax.numpy`` loss."""
    f, _, inputs = FUNCTIONS[fname]
    a = inputs[name]
    want = _outcome(lambda: f(jt.asarray(a)))
    got = _outcome(lambda: jt.grad(lambda x: jt.sum(f(x) ** 2))(jt.asarray(a)))
    if isinstance(want, Exception):
        _same_error(got, want)
    else:
        _close(got, jax.grad(lambda x: jnp.sum(_JAX[fname](x) ** 2))(jnp.asarray(a)))


def test_a_single_matrix_is_named_x_and_a_stack_member_by_its_index() -> None:
    f = jt.jit(lambda x, b: jt.linalg.solve(x, b))
    with pytest.raises(jt.linalg.LinAlgError, match=r"^linalg\.solve\(\): x1 is singular"):
        f(jt.asarray(_SINGULAR), jt.asarray(_B))
    stack = np.stack([np.stack([_regular(), _regular()]), np.stack([_regular(), _SINGULAR])])
    with pytest.raises(jt.linalg.LinAlgError, match=r"^linalg\.solve\(\): x1\[1, 1\] is"):
        f(jt.asarray(stack), jt.asarray(_B))
