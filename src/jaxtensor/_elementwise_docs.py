"""The docstrings of the element-wise functions that ``_elementwise`` makes from its table.

Every example runs as a test (``tests/docs/test_docs.py`` collects them from the functions).
"""

DOCS: dict[str, str] = {
    "abs": """Element-wise absolute value (the magnitude for complex input).

    >>> import jaxtensor as jt
    >>> jt.abs(jt.asarray([-1.5, 2.0]))
    Tensor(shape=[2], dtype=float64, device=cpu,
           [1.5, 2. ])
    """,
    "acos": """Element-wise inverse cosine.

    >>> import jaxtensor as jt
    >>> jt.acos(jt.asarray([1.0]))
    Tensor(shape=[1], dtype=float64, device=cpu,
           [0.])
    """,
    "acosh": """Element-wise inverse hyperbolic cosine.

    >>> import jaxtensor as jt
    >>> jt.acosh(jt.asarray([1.0]))
    Tensor(shape=[1], dtype=float64, device=cpu,
           [0.])
    """,
    "add": """Element-wise ``x1 + x2``.

    >>> import jaxtensor as jt
    >>> jt.add(jt.asarray([1, 2]), 3)
    Tensor(shape=[2], dtype=int64, device=cpu,
           [4, 5])
    """,
    "asin": """Element-wise inverse sine.

    >>> import jaxtensor as jt
    >>> jt.asin(jt.asarray([0.0]))
    Tensor(shape=[1], dtype=float64, device=cpu,
           [0.])
    """,
    "asinh": """Element-wise inverse hyperbolic sine.

    >>> import jaxtensor as jt
    >>> jt.asinh(jt.asarray([0.0]))
    Tensor(shape=[1], dtype=float64, device=cpu,
           [0.])
    """,
    "atan": """Element-wise inverse tangent.

    >>> import jaxtensor as jt
    >>> jt.atan(jt.asarray([0.0]))
    Tensor(shape=[1], dtype=float64, device=cpu,
           [0.])
    """,
    "atan2": """Element-wise quadrant-aware inverse tangent of ``x1 / x2``.

    >>> import jaxtensor as jt
    >>> jt.atan2(jt.asarray([1.0]), 1.0)
    Tensor(shape=[1], dtype=float64, device=cpu,
           [0.78539816])
    """,
    "atanh": """Element-wise inverse hyperbolic tangent.

    >>> import jaxtensor as jt
    >>> jt.atanh(jt.asarray([0.0]))
    Tensor(shape=[1], dtype=float64, device=cpu,
           [0.])
    """,
    "bitwise_and": """Element-wise bitwise AND of integer or boolean operands.

    >>> import jaxtensor as jt
    >>> jt.bitwise_and(jt.asarray([12, 10]), 6)
    Tensor(shape=[2], dtype=int64, device=cpu,
           [4, 2])
    """,
    "bitwise_invert": """Element-wise bitwise NOT (logical NOT for booleans).

    >>> import jaxtensor as jt
    >>> jt.bitwise_invert(jt.asarray([0, 5], dtype=jt.int8))
    Tensor(shape=[2], dtype=int8, device=cpu,
           [-1, -6])
    """,
    "bitwise_left_shift": """Element-wise ``x1 << x2`` of integer operands (``x2`` must be non-negative).

    >>> import jaxtensor as jt
    >>> jt.bitwise_left_shift(jt.asarray([1, 3]), 2)
    Tensor(shape=[2], dtype=int64, device=cpu,
           [ 4, 12])
    """,
    "bitwise_or": """Element-wise bitwise OR of integer or boolean operands.

    >>> import jaxtensor as jt
    >>> jt.bitwise_or(jt.asarray([12, 10]), 1)
    Tensor(shape=[2], dtype=int64, device=cpu,
           [13, 11])
    """,
    "bitwise_right_shift": """Element-wise arithmetic ``x1 >> x2`` of integer operands.

    >>> import jaxtensor as jt
    >>> jt.bitwise_right_shift(jt.asarray([16, -16]), 2)
    Tensor(shape=[2], dtype=int64, device=cpu,
           [ 4, -4])
    """,
    "bitwise_xor": """Element-wise bitwise XOR of integer or boolean operands.

    >>> import jaxtensor as jt
    >>> jt.bitwise_xor(jt.asarray([12, 10]), 6)
    Tensor(shape=[2], dtype=int64, device=cpu,
           [10, 12])
    """,
    "ceil": """Element-wise ceiling; integer input is returned unchanged (same dtype).

    >>> import jaxtensor as jt
    >>> jt.ceil(jt.asarray([-1.5, 1.2]))
    Tensor(shape=[2], dtype=float64, device=cpu,
           [-1.,  2.])
    """,
    "conj": """Element-wise complex conjugate (a copy of real input).

    >>> import jaxtensor as jt
    >>> jt.conj(jt.asarray([1 + 2j]))
    Tensor(shape=[1], dtype=complex128, device=cpu,
           [1.-2.j])
    """,
    "copysign": """Element-wise magnitude of ``x1`` with the sign of ``x2``.

    >>> import jaxtensor as jt
    >>> jt.copysign(jt.asarray([1.0, 2.0]), -1.0)
    Tensor(shape=[2], dtype=float64, device=cpu,
           [-1., -2.])
    """,
    "cos": """Element-wise cosine (radians).

    >>> import jaxtensor as jt
    >>> jt.cos(jt.asarray([0.0]))
    Tensor(shape=[1], dtype=float64, device=cpu,
           [1.])
    """,
    "cosh": """Element-wise hyperbolic cosine.

    >>> import jaxtensor as jt
    >>> jt.cosh(jt.asarray([0.0]))
    Tensor(shape=[1], dtype=float64, device=cpu,
           [1.])
    """,
    "divide": """Element-wise true division ``x1 / x2``; integers divide in the default float dtype.

    >>> import jaxtensor as jt
    >>> jt.divide(jt.asarray([1, 3]), 2)
    Tensor(shape=[2], dtype=float64, device=cpu,
           [0.5, 1.5])
    """,
    "equal": """Element-wise ``x1 == x2``.

    >>> import jaxtensor as jt
    >>> jt.equal(jt.asarray([1, 2]), 2)
    Tensor(shape=[2], dtype=bool, device=cpu,
           [False,  True])
    """,
    "exp": """Element-wise ``e ** x``.

    >>> import jaxtensor as jt
    >>> jt.exp(jt.asarray([0.0, 1.0]))
    Tensor(shape=[2], dtype=float64, device=cpu,
           [1.        , 2.71828183])
    """,
    "expm1": """Element-wise ``exp(x) - 1``, accurate near zero.

    >>> import jaxtensor as jt
    >>> jt.expm1(jt.asarray([0.0]))
    Tensor(shape=[1], dtype=float64, device=cpu,
           [0.])
    """,
    "floor": """Element-wise floor; integer input is returned unchanged (same dtype).

    >>> import jaxtensor as jt
    >>> jt.floor(jt.asarray([-1.5, 1.2]))
    Tensor(shape=[2], dtype=float64, device=cpu,
           [-2.,  1.])
    """,
    "floor_divide": """Element-wise floor division ``x1 // x2``.

    >>> import jaxtensor as jt
    >>> jt.floor_divide(jt.asarray([7, -7]), 2)
    Tensor(shape=[2], dtype=int64, device=cpu,
           [ 3, -4])
    """,
    "greater": """Element-wise ``x1 > x2``.

    >>> import jaxtensor as jt
    >>> jt.greater(jt.asarray([1, 3]), 2)
    Tensor(shape=[2], dtype=bool, device=cpu,
           [False,  True])
    """,
    "greater_equal": """Element-wise ``x1 >= x2``.

    >>> import jaxtensor as jt
    >>> jt.greater_equal(jt.asarray([1, 2]), 2)
    Tensor(shape=[2], dtype=bool, device=cpu,
           [False,  True])
    """,
    "hypot": """Element-wise ``sqrt(x1**2 + x2**2)`` without overflow.

    >>> import jaxtensor as jt
    >>> jt.hypot(jt.asarray([3.0]), 4.0)
    Tensor(shape=[1], dtype=float64, device=cpu,
           [5.])
    """,
    "isfinite": """Element-wise test for finite values (integers are always finite).

    >>> import jaxtensor as jt
    >>> jt.isfinite(jt.asarray([1.0, jt.inf, jt.nan]))
    Tensor(shape=[3], dtype=bool, device=cpu,
           [ True, False, False])
    """,
    "isinf": """Element-wise test for infinities.

    >>> import jaxtensor as jt
    >>> jt.isinf(jt.asarray([1.0, -jt.inf, jt.nan]))
    Tensor(shape=[3], dtype=bool, device=cpu,
           [False,  True, False])
    """,
    "isnan": """Element-wise test for NaN.

    >>> import jaxtensor as jt
    >>> jt.isnan(jt.asarray([1.0, jt.inf, jt.nan]))
    Tensor(shape=[3], dtype=bool, device=cpu,
           [False, False,  True])
    """,
    "less": """Element-wise ``x1 < x2``.

    >>> import jaxtensor as jt
    >>> jt.less(jt.asarray([1, 2]), 2)
    Tensor(shape=[2], dtype=bool, device=cpu,
           [ True, False])
    """,
    "less_equal": """Element-wise ``x1 <= x2``.

    >>> import jaxtensor as jt
    >>> jt.less_equal(jt.asarray([1, 3]), 2)
    Tensor(shape=[2], dtype=bool, device=cpu,
           [ True, False])
    """,
    "log": """Element-wise natural logarithm.

    >>> import jaxtensor as jt
    >>> jt.log(jt.asarray([1.0]))
    Tensor(shape=[1], dtype=float64, device=cpu,
           [0.])
    """,
    "log10": """Element-wise base-10 logarithm.

    >>> import jaxtensor as jt
    >>> jt.log10(jt.asarray([100.0]))
    Tensor(shape=[1], dtype=float64, device=cpu,
           [2.])
    """,
    "log1p": """Element-wise ``log(1 + x)``, accurate near zero.

    >>> import jaxtensor as jt
    >>> jt.log1p(jt.asarray([0.0]))
    Tensor(shape=[1], dtype=float64, device=cpu,
           [0.])
    """,
    "log2": """Element-wise base-2 logarithm.

    >>> import jaxtensor as jt
    >>> jt.log2(jt.asarray([8.0]))
    Tensor(shape=[1], dtype=float64, device=cpu,
           [3.])
    """,
    "logaddexp": """Element-wise ``log(exp(x1) + exp(x2))`` without overflow.

    >>> import jaxtensor as jt
    >>> jt.logaddexp(jt.asarray([0.0]), 0.0)
    Tensor(shape=[1], dtype=float64, device=cpu,
           [0.69314718])
    """,
    "logical_and": """Element-wise logical AND (non-boolean input is tested for non-zero).

    >>> import jaxtensor as jt
    >>> jt.logical_and(jt.asarray([True, False]), True)
    Tensor(shape=[2], dtype=bool, device=cpu,
           [ True, False])
    """,
    "logical_not": """Element-wise logical NOT.

    >>> import jaxtensor as jt
    >>> jt.logical_not(jt.asarray([True, False]))
    Tensor(shape=[2], dtype=bool, device=cpu,
           [False,  True])
    """,
    "logical_or": """Element-wise logical OR.

    >>> import jaxtensor as jt
    >>> jt.logical_or(jt.asarray([True, False]), False)
    Tensor(shape=[2], dtype=bool, device=cpu,
           [ True, False])
    """,
    "logical_xor": """Element-wise logical XOR.

    >>> import jaxtensor as jt
    >>> jt.logical_xor(jt.asarray([True, False]), True)
    Tensor(shape=[2], dtype=bool, device=cpu,
           [False,  True])
    """,
    "maximum": """Element-wise maximum; NaN if either operand is NaN.

    >>> import jaxtensor as jt
    >>> jt.maximum(jt.asarray([1.0, 5.0]), 3.0)
    Tensor(shape=[2], dtype=float64, device=cpu,
           [3., 5.])
    """,
    "minimum": """Element-wise minimum; NaN if either operand is NaN.

    >>> import jaxtensor as jt
    >>> jt.minimum(jt.asarray([1.0, 5.0]), 3.0)
    Tensor(shape=[2], dtype=float64, device=cpu,
           [1., 3.])
    """,
    "multiply": """Element-wise ``x1 * x2``.

    >>> import jaxtensor as jt
    >>> jt.multiply(jt.asarray([1, 2]), jt.asarray([3, 4]))
    Tensor(shape=[2], dtype=int64, device=cpu,
           [3, 8])
    """,
    "negative": """Element-wise ``-x``.

    >>> import jaxtensor as jt
    >>> jt.negative(jt.asarray([1, -2]))
    Tensor(shape=[2], dtype=int64, device=cpu,
           [-1,  2])
    """,
    "nextafter": """Element-wise next representable float after ``x1`` in the direction of ``x2``.

    >>> import jaxtensor as jt
    >>> bool(jt.nextafter(jt.asarray(1.0), 2.0) > 1.0)
    True
    """,
    "not_equal": """Element-wise ``x1 != x2``.

    >>> import jaxtensor as jt
    >>> jt.not_equal(jt.asarray([1, 2]), 2)
    Tensor(shape=[2], dtype=bool, device=cpu,
           [ True, False])
    """,
    "positive": """Element-wise ``+x`` (a copy).

    >>> import jaxtensor as jt
    >>> jt.positive(jt.asarray([1, -2]))
    Tensor(shape=[2], dtype=int64, device=cpu,
           [ 1, -2])
    """,
    "pow": """Element-wise ``x1 ** x2``.

    >>> import jaxtensor as jt
    >>> jt.pow(jt.asarray([1.0, 2.0, 3.0]), 2)
    Tensor(shape=[3], dtype=float64, device=cpu,
           [1., 4., 9.])
    """,
    "reciprocal": """Element-wise ``1 / x``.

    >>> import jaxtensor as jt
    >>> jt.reciprocal(jt.asarray([2.0, 4.0]))
    Tensor(shape=[2], dtype=float64, device=cpu,
           [0.5 , 0.25])
    """,
    "remainder": """Element-wise remainder with the sign of the divisor (Python's ``%``).

    >>> import jaxtensor as jt
    >>> jt.remainder(jt.asarray([7, -7]), 3)
    Tensor(shape=[2], dtype=int64, device=cpu,
           [1, 2])
    """,
    "round": """Element-wise rounding to the nearest integer, ties to even.

    >>> import jaxtensor as jt
    >>> jt.round(jt.asarray([0.5, 1.5, 2.4]))
    Tensor(shape=[3], dtype=float64, device=cpu,
           [0., 2., 2.])
    """,
    "sign": """Element-wise sign: -1, 0 or 1 (``x / |x|`` for complex, 0 for 0).

    >>> import jaxtensor as jt
    >>> jt.sign(jt.asarray([-3.0, 0.0, 2.0]))
    Tensor(shape=[3], dtype=float64, device=cpu,
           [-1.,  0.,  1.])
    """,
    "signbit": """Element-wise test of the sign bit (True for -0.0 and negative NaNs too).

    >>> import jaxtensor as jt
    >>> jt.signbit(jt.asarray([-0.0, 0.0, -2.0]))
    Tensor(shape=[3], dtype=bool, device=cpu,
           [ True, False,  True])
    """,
    "sin": """Element-wise sine (radians).

    >>> import jaxtensor as jt
    >>> jt.sin(jt.asarray([0.0]))
    Tensor(shape=[1], dtype=float64, device=cpu,
           [0.])
    """,
    "sinh": """Element-wise hyperbolic sine.

    >>> import jaxtensor as jt
    >>> jt.sinh(jt.asarray([0.0]))
    Tensor(shape=[1], dtype=float64, device=cpu,
           [0.])
    """,
    "sqrt": """Element-wise square root (principal branch for complex input).

    >>> import jaxtensor as jt
    >>> jt.sqrt(jt.asarray([4.0, 9.0]))
    Tensor(shape=[2], dtype=float64, device=cpu,
           [2., 3.])
    """,
    "square": """Element-wise ``x * x``.

    >>> import jaxtensor as jt
    >>> jt.square(jt.asarray([2, -3]))
    Tensor(shape=[2], dtype=int64, device=cpu,
           [4, 9])
    """,
    "subtract": """Element-wise ``x1 - x2``.

    >>> import jaxtensor as jt
    >>> jt.subtract(jt.asarray([1.0, 2.0]), 0.5)
    Tensor(shape=[2], dtype=float64, device=cpu,
           [0.5, 1.5])
    """,
    "tan": """Element-wise tangent (radians).

    >>> import jaxtensor as jt
    >>> jt.tan(jt.asarray([0.0]))
    Tensor(shape=[1], dtype=float64, device=cpu,
           [0.])
    """,
    "tanh": """Element-wise hyperbolic tangent.

    >>> import jaxtensor as jt
    >>> jt.tanh(jt.asarray([0.0]))
    Tensor(shape=[1], dtype=float64, device=cpu,
           [0.])
    """,
    "trunc": """Element-wise rounding toward zero.

    >>> import jaxtensor as jt
    >>> jt.trunc(jt.asarray([-1.5, 1.7]))
    Tensor(shape=[2], dtype=float64, device=cpu,
           [-1.,  1.])
    """,
}
