"""The examples of the PyTorch indexing notes, against PyTorch (CPU).

Boolean masks mixed with ints and slices, fancy indexing with index tensors broadcast
together, the ``arrange_at_dim`` identity and ``gather`` written as fancy indexing. Each
example runs in PyTorch and in jaxtensor on the same data and must agree (shape and
values); where the notes print a result it is checked too.

One printed line of the notes is from an old PyTorch: ``a[index_2, 1]`` printed
``[-0.2438, -0.3307, -1.3863, 0.1587]`` (the int applied first, the mask to the remaining
axes). Current PyTorch (2.13) and NumPy give ``[-0.2438, 0.3157, -1.1343, 0.1587]`` (the
mask covers axes 0-1, the int axis 2, the same as ``a[index_2][:, 1]``), which is what
jaxtensor gives (NumPy's rule). The notes pass a Python *list* of index tensors (``x[all_idx]``),
which PyTorch reads as a tuple; NumPy 2 (our oracle) reads a list as one array, so the
jaxtensor spelling is ``x[tuple(all_idx)]``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import jaxtensor as jt
from optional_deps import require

torch = require("torch", "torch")  # the PyTorch oracle

# the tensor the notes print, to 4 decimals
A_PRINTED = [
    [[-0.5820, -2.7869], [0.4172, -0.2438]],
    [[-0.8403, 0.3157], [-0.3307, -0.4388]],
    [[-0.3768, -1.1343], [-1.3863, 0.1587]],
]


def agree(t: jt.Tensor, ref: torch.Tensor, printed: Any = None) -> None:
    assert isinstance(t, jt.Tensor)
    assert tuple(t.shape) == tuple(ref.shape)
    np.testing.assert_array_equal(np.asarray(t), ref.numpy())
    if printed is not None:
        np.testing.assert_allclose(np.asarray(t), np.asarray(printed, np.float32), atol=1e-4)


# -- bool indexing -------------------------------------------------------------------------------
BOOL_EXAMPLES: list[tuple[str, Callable[[Any, Any, Any, Any], Any], Any]] = [
    ("a[index_0]", lambda a, i0, i1, i2: a[i0],
     [[[-0.3768, -1.1343], [-1.3863, 0.1587]]]),
    ("a[:, index_1, 1]", lambda a, i0, i1, i2: a[:, i1, 1],
     [[-2.7869], [0.3157], [-1.1343]]),
    ("a[index_2]", lambda a, i0, i1, i2: a[i2],
     [[0.4172, -0.2438], [-0.8403, 0.3157], [-0.3768, -1.1343], [-1.3863, 0.1587]]),
    # printed by an old PyTorch as [-0.2438, -0.3307, -1.3863, 0.1587]: see the module doc
    ("a[index_2, 1]", lambda a, i0, i1, i2: a[i2, 1], [-0.2438, 0.3157, -1.1343, 0.1587]),
    ("a[index_2][:, 1]", lambda a, i0, i1, i2: a[i2][:, 1], [-0.2438, 0.3157, -1.1343, 0.1587]),
    ("a[:, :, 1][index_2]", lambda a, i0, i1, i2: a[:, :, 1][i2],
     [-0.2438, 0.3157, -1.1343, 0.1587]),
    # more of the same rules: 1-D masks on later axes, a mask with a slice, with an int
    ("a[:, index_1]", lambda a, i0, i1, i2: a[:, i1], None),
    ("a[index_0, :, index_1]", lambda a, i0, i1, i2: a[i0, :, i1], None),
    ("a[1, index_1]", lambda a, i0, i1, i2: a[1, i1], None),
    ("a[index_0, 1:]", lambda a, i0, i1, i2: a[i0, 1:], None),
    ("a[..., index_1]", lambda a, i0, i1, i2: a[..., i1], None),
    ("a[index_2, 1:]", lambda a, i0, i1, i2: a[i2, 1:], None),
    ("a[None, index_2]", lambda a, i0, i1, i2: a[None, i2], None),
]


@pytest.mark.parametrize(("name", "f", "printed"), BOOL_EXAMPLES, ids=[e[0] for e in BOOL_EXAMPLES])
@pytest.mark.parametrize("data", ["printed", "random"])
def test_bool_indexing(name: str, f: Callable, printed: Any, data: str):
    if data == "printed":
        a_t = torch.tensor(A_PRINTED)
    else:
        a_t = torch.randn(3, 2, 2, generator=torch.Generator().manual_seed(0))
        printed = None
    index_0 = torch.tensor([False, False, True])
    index_1 = torch.tensor([True, False])
    index_2 = torch.tensor([[False, True], [True, False], [True, True]])
    a = jt.asarray(a_t.numpy())
    ref = f(a_t, index_0, index_1, index_2)
    for spell in (lambda m: jt.asarray(m.numpy()), lambda m: m.numpy(), lambda m: m.tolist()):
        got = f(a, spell(index_0), spell(index_1), spell(index_2))
        agree(got, ref, printed)


def test_bool_mask_assignment():
    """Masks assign as well as read (the notes: "可进行赋值和取值")."""
    a_t = torch.tensor(A_PRINTED)
    a = jt.asarray(a_t.numpy())
    index_0 = torch.tensor([False, False, True])
    index_1 = torch.tensor([True, False])
    index_2 = torch.tensor([[False, True], [True, False], [True, True]])
    a_t[index_2] = 0.5
    a[jt.asarray(index_2.numpy())] = 0.5
    agree(a, a_t)
    a_t[index_0, :, index_1] = torch.tensor([[9.0]])
    a[index_0.numpy(), :, index_1.numpy()] = jt.asarray([[9.0]])
    agree(a, a_t)
    a_t[index_2, 1] = torch.arange(4, dtype=torch.float32)
    a[index_2.numpy(), 1] = jt.arange(4, dtype=jt.float32)
    agree(a, a_t)
    a_t[a_t < 0] = -1
    a[a < 0] = -1
    agree(a, a_t)


# -- fancy indexing ------------------------------------------------------------------------------
def test_fancy_indexing_examples():
    a_t = torch.tensor([0, 1, 2, 3, 4])
    idx_0 = torch.tensor([[3, 2], [1, 4]])
    a = jt.asarray([0, 1, 2, 3, 4])
    agree(a[jt.asarray([[3, 2], [1, 4]])], a_t[idx_0], [[3, 2], [1, 4]])
    b_t = torch.tensor([[0, 1], [2, 3], [4, 5]])
    idx_0 = torch.tensor([[1, 0], [2, 1]])
    idx_1 = torch.tensor([0, 1])
    b = jt.asarray([[0, 1], [2, 3], [4, 5]])
    got = b[jt.asarray([[1, 0], [2, 1]]), jt.asarray([0, 1])]
    agree(got, b_t[idx_0, idx_1], [[2, 1], [4, 3]])


@pytest.mark.parametrize(
    "key",
    [
        lambda i, j, k: (i, j),
        lambda i, j, k: (i, slice(None), j),
        lambda i, j, k: (slice(None), i, k),
        lambda i, j, k: (0, i, k),
        lambda i, j, k: (i, 1, k),
        lambda i, j, k: (Ellipsis, k),
        lambda i, j, k: (slice(1, None), j, slice(None, None, 2)),
        lambda i, j, k: (i[:, :1], j[:1], k),
    ],
)
def test_fancy_indexing_with_broadcast_index_tensors(key: Callable):
    """Index tensors broadcast to one shape; the kept (sliced) axes act as whole elements."""
    x_t = torch.arange(2 * 3 * 4).reshape(2, 3, 4)
    x = jt.arange(24).reshape((2, 3, 4))
    i = torch.tensor([[0, 1, 1], [1, 0, 0]])  # shape (2, 3)
    j = torch.tensor([2, -1, 0])  # shape (3,)
    k = torch.tensor([[3], [0]])  # shape (2, 1)
    ref = x_t[key(i, j, k)]
    agree(x[key(jt.asarray(i.numpy()), jt.asarray(j.numpy()), jt.asarray(k.numpy()))], ref)
    # and assignment through the same index
    x_t[key(i, j, k)] = -ref
    x[key(jt.asarray(i.numpy()), jt.asarray(j.numpy()), jt.asarray(k.numpy()))] = jt.asarray(
        -ref.numpy())
    agree(x, x_t)


def test_fancy_indexing_out_of_bounds_is_an_index_error():
    x = jt.arange(6).reshape((2, 3))
    with pytest.raises(IndexError):
        torch.arange(6).reshape(2, 3)[torch.tensor([0, 2])]
    with pytest.raises(IndexError, match="index 2 is out of bounds for axis 0 with size 2"):
        x[jt.asarray([0, 2])]
    with pytest.raises(IndexError, match="index 3 is out of bounds for axis 1 with size 3"):
        x[jt.asarray([[0, 1]]), jt.asarray([[0], [1], [3]])]  # broadcasts, but 3 is too big
    with pytest.raises(IndexError):
        x[jt.asarray([0, 1]), jt.asarray([0, 1, 2])]  # does not broadcast


# -- arrange_at_dim ---------------------------------------------------------------------------------
def arrange_at_dim_torch(arr_size: int, at_dim: int, total_dim: int) -> torch.Tensor:
    data = torch.arange(arr_size)
    assert at_dim < total_dim, "expect at_dim < total_dim"
    prefix = [1] * at_dim
    suffix = [1] * (total_dim - 1 - at_dim)
    return data.view(*prefix, -1, *suffix).contiguous()


def arrange_at_dim(arr_size: int, at_dim: int, total_dim: int) -> jt.Tensor:
    """The notes' helper in jaxtensor: ``Tensor.view`` with -1 (``.contiguous()`` has nothing
    to do: a Tensor's value is always materialised on demand)."""
    data = jt.arange(arr_size)
    assert at_dim < total_dim, "expect at_dim < total_dim"
    prefix = [1] * at_dim
    suffix = [1] * (total_dim - 1 - at_dim)
    return data.view(*prefix, -1, *suffix)


def test_arrange_at_dim_identity():
    a_t = torch.arange(2 * 3 * 4).view(2, 3, 4).contiguous()
    a = jt.arange(2 * 3 * 4).view(2, 3, 4)
    idx_t = [arrange_at_dim_torch(a_t.shape[d], d, a_t.ndim) for d in range(3)]
    idx = [arrange_at_dim(a.shape[d], d, a.ndim) for d in range(3)]
    for it, ij in zip(idx_t, idx):
        agree(ij, it)
    agree(idx[0], idx_t[0], [[[0]], [[1]]])
    agree(idx[1], idx_t[1], [[[0], [1], [2]]])
    agree(idx[2], idx_t[2], [[[0, 1, 2, 3]]])
    # every position is indexed at its own place
    same = a[idx[0], idx[1], idx[2]] == a
    agree(same, a_t[idx_t[0], idx_t[1], idx_t[2]] == a_t, np.ones((2, 3, 4), bool))
    assert same.dtype == jt.bool and bool(jt.all(same))
    # because the broadcast index tensors form the coordinates of each position
    bt = torch.broadcast_tensors(*idx_t)
    bj = jt.broadcast_arrays(*idx)
    for x, y in zip(bj, bt):
        agree(x, y)
    agree(bj[0], bt[0], [[[0] * 4] * 3, [[1] * 4] * 3])
    agree(bj[1], bt[1], [[[0] * 4, [1] * 4, [2] * 4]] * 2)
    agree(bj[2], bt[2], [[[0, 1, 2, 3]] * 3] * 2)


@pytest.mark.parametrize("shape", [(2, 3), (1, 4, 2), (2, 1, 3, 2)])
def test_arrange_at_dim_identity_any_shape(shape: tuple[int, ...]):
    n = int(np.prod(shape))
    a = jt.arange(n).reshape(shape)
    idx = tuple(arrange_at_dim(shape[d], d, len(shape)) for d in range(len(shape)))
    np.testing.assert_array_equal(np.asarray(a[idx]), np.asarray(a))
    # and a write through the same index is a write of every element
    a[idx] = -a
    np.testing.assert_array_equal(np.asarray(a), -np.arange(n).reshape(shape))


# -- gather as fancy indexing ---------------------------------------------------------------------------
def my_gather(input_t: jt.Tensor, dim: int, index: jt.Tensor) -> jt.Tensor:
    all_idx = []
    for i in range(index.ndim):
        all_idx.append(arrange_at_dim(index.shape[i], i, input_t.ndim) if i != dim else index)
    return input_t[tuple(all_idx)]  # a tuple: NumPy reads a list as one array


def my_gather_torch(input_t: torch.Tensor, dim: int, index: torch.Tensor) -> torch.Tensor:
    all_idx = []
    for i in range(index.ndim):
        all_idx.append(
            arrange_at_dim_torch(index.shape[i], i, input_t.ndim) if i != dim else index)
    return input_t[tuple(all_idx)]


def test_gather_as_fancy_indexing_examples():
    x_t = torch.tensor([[0, 1, 2], [3, 4, 5], [6, 7, 8]])
    i_t = torch.tensor([[1], [0], [2]])
    x = jt.asarray([[0, 1, 2], [3, 4, 5], [6, 7, 8]])
    i = jt.asarray([[1], [0], [2]])
    rst = torch.gather(x_t, dim=0, index=i_t)
    agree(my_gather(x, 0, i), rst, [[3], [0], [6]])
    agree(my_gather(x, 0, i), my_gather_torch(x_t, 0, i_t))
    rst = torch.gather(x_t, dim=1, index=i_t)
    agree(my_gather(x, 1, i), rst, [[1], [3], [8]])
    agree(my_gather(x, 1, i), my_gather_torch(x_t, 1, i_t))


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_gather_as_fancy_indexing_random(dim: int):
    g = torch.Generator().manual_seed(dim + 7)
    x_t = torch.randn(3, 4, 5, generator=g)
    d = dim % 3
    ishape = [2, 3, 4]
    index_t = torch.randint(0, x_t.shape[d], ishape, generator=g)
    x, index = jt.asarray(x_t.numpy()), jt.asarray(index_t.numpy())
    agree(my_gather(x, d, index), torch.gather(x_t, d, index_t))


def test_scatter_as_fancy_assignment():
    """``scatter`` is the same index written to: input[index[i][j]][j] = src[i][j] (dim 0)."""
    x_t = torch.zeros(3, 3, dtype=torch.int64)
    src_t = torch.tensor([[1, 2, 3], [4, 5, 6]])
    index_t = torch.tensor([[2, 0, 1], [0, 1, 2]])  # no duplicates per column
    ref = x_t.scatter(0, index_t, src_t)
    x = jt.zeros((3, 3), dtype=jt.int64)
    all_idx = (jt.asarray(index_t.numpy()), arrange_at_dim(3, 1, 2))
    x[all_idx] = jt.asarray(src_t.numpy())
    agree(x, ref)
