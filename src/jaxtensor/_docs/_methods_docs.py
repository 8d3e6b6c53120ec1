"""The examples of the Tensor methods that ``_methods`` binds (its method forms, the
generated reductions and the ``real``/``imag`` properties): ``_docstrings`` puts each under
the ``Examples`` heading of its docstring. Every example runs as a test.
"""

EXAMPLES: dict[str, str] = {
    "Tensor.all": """\
>>> import jaxtensor as jt
>>> x = jt.asarray([[True, False], [True, True]])
>>> x.all().item(), x.all(dim=1).tolist()
(False, [False, True])
""",
    "Tensor.any": """\
>>> import jaxtensor as jt
>>> x = jt.asarray([[True, False], [False, False]])
>>> x.any().item(), x.any(dim=1).tolist()
(True, [True, False])
""",
    "Tensor.argmax": """\
>>> import jaxtensor as jt
>>> x = jt.asarray([[1, 5], [7, 3]])
>>> x.argmax().item(), x.argmax(dim=1).tolist()
(2, [1, 0])
""",
    "Tensor.argmin": """\
>>> import jaxtensor as jt
>>> x = jt.asarray([[1, 5], [7, 3]])
>>> x.argmin().item(), x.argmin(dim=0, keepdim=True).tolist()
(0, [[0, 1]])
""",
    "Tensor.argsort": """\
>>> import jaxtensor as jt
>>> x = jt.asarray([3, 1, 2])
>>> x.argsort().tolist(), x.argsort(descending=True).tolist()
([1, 2, 0], [0, 2, 1])
""",
    "Tensor.astype": """\
>>> import jaxtensor as jt
>>> jt.asarray([1.7, -1.7]).astype(jt.int32)
Tensor(shape=[2], dtype=int32, device=cpu,
       [ 1, -1])
""",
    "Tensor.cumprod": """\
>>> import jaxtensor as jt
>>> x = jt.asarray([[1, 2], [3, 4]])
>>> x.cumprod().tolist(), x.cumprod(dim=1).tolist()
([1, 2, 6, 24], [[1, 2], [3, 12]])
""",
    "Tensor.cumsum": """\
>>> import jaxtensor as jt
>>> x = jt.asarray([[1, 2], [3, 4]])
>>> x.cumsum().tolist(), x.cumsum(dim=0).tolist()
([1, 3, 6, 10], [[1, 2], [4, 6]])
""",
    "Tensor.flatten": """\
>>> import jaxtensor as jt
>>> x = jt.asarray([[1, 2], [3, 4]])
>>> y = x.flatten()
>>> y.tolist(), y.base is None
([1, 2, 3, 4], True)
""",
    "Tensor.flip": """\
>>> import jaxtensor as jt
>>> x = jt.asarray([[1, 2], [3, 4]])
>>> x.flip(0).tolist(), x.flip(dims=(0, 1)).tolist()
([[3, 4], [1, 2]], [[4, 3], [2, 1]])
""",
    "Tensor.gather": """\
>>> import jaxtensor as jt
>>> x = jt.asarray([[1, 2], [3, 4]])
>>> x.gather(1, jt.asarray([[0, 0], [1, 0]])).tolist()
[[1, 1], [4, 3]]
""",
    "Tensor.imag": """\
>>> import jaxtensor as jt
>>> z = jt.asarray([1 + 2j, 3 - 4j])
>>> z.imag.tolist()
[2.0, -4.0]
>>> z.imag[:] = 0.0
>>> z.tolist()
[(1+0j), (3+0j)]
""",
    "Tensor.index_add": """\
>>> import jaxtensor as jt
>>> x = jt.zeros((3, 2))
>>> x.index_add(0, jt.asarray([0, 2]), jt.ones((2, 2))).tolist()
[[1.0, 1.0], [0.0, 0.0], [1.0, 1.0]]
""",
    "Tensor.index_add_": """\
>>> import jaxtensor as jt
>>> x = jt.zeros((3, 2))
>>> _ = x.index_add_(0, jt.asarray([0, 0]), jt.ones((2, 2)), alpha=2)
>>> x.tolist()
[[4.0, 4.0], [0.0, 0.0], [0.0, 0.0]]
""",
    "Tensor.index_put": """\
>>> import jaxtensor as jt
>>> x = jt.zeros(4)
>>> x.index_put((jt.asarray([1, 3]),), jt.asarray(5.0)).tolist()
[0.0, 5.0, 0.0, 5.0]
""",
    "Tensor.index_put_": """\
>>> import jaxtensor as jt
>>> x = jt.zeros(4)
>>> _ = x.index_put_((jt.asarray([1, 1]),), jt.asarray([1.0, 2.0]), accumulate=True)
>>> x.tolist()
[0.0, 3.0, 0.0, 0.0]
""",
    "Tensor.index_select": """\
>>> import jaxtensor as jt
>>> x = jt.asarray([[1, 2], [3, 4], [5, 6]])
>>> x.index_select(0, jt.asarray([2, 0])).tolist()
[[5, 6], [1, 2]]
""",
    "Tensor.max": """\
>>> import jaxtensor as jt
>>> x = jt.asarray([[1, 5], [7, 3]])
>>> x.max().item(), x.max(dim=0).tolist()
(7, [7, 5])
""",
    "Tensor.mean": """\
>>> import jaxtensor as jt
>>> x = jt.asarray([[1.0, 2.0], [3.0, 4.0]])
>>> x.mean().item(), x.mean(dim=1).tolist()
(2.5, [1.5, 3.5])
""",
    "Tensor.min": """\
>>> import jaxtensor as jt
>>> x = jt.asarray([[1, 5], [7, 3]])
>>> x.min().item(), x.min(1).tolist()
(1, [1, 3])
""",
    "Tensor.moveaxis": """\
>>> import jaxtensor as jt
>>> jt.zeros((2, 3, 4)).moveaxis(0, -1).shape
(3, 4, 2)
""",
    "Tensor.permute": """\
>>> import jaxtensor as jt
>>> x = jt.zeros((2, 3, 4))
>>> x.permute(2, 0, 1).shape, x.permute((2, 0, 1)).base is x
((4, 2, 3), True)
""",
    "Tensor.prod": """\
>>> import jaxtensor as jt
>>> x = jt.asarray([[1, 2], [3, 4]])
>>> x.prod().item(), x.prod(dim=0).tolist()
(24, [3, 8])
""",
    "Tensor.ravel": """\
>>> import jaxtensor as jt
>>> x = jt.asarray([[1, 2], [3, 4]])
>>> x.ravel().base is x, x.T.ravel().tolist()
(True, [1, 3, 2, 4])
""",
    "Tensor.real": """\
>>> import jaxtensor as jt
>>> z = jt.asarray([1 + 2j, 3 - 4j])
>>> z.real.tolist()
[1.0, 3.0]
>>> z.real[0] = 10.0
>>> z.tolist()
[(10+2j), (3-4j)]
""",
    "Tensor.reshape": """\
>>> import jaxtensor as jt
>>> x = jt.arange(6)
>>> x.reshape(2, 3).shape, x.reshape((3, -1)).shape
((2, 3), (3, 2))
>>> x.reshape(2, 3).base is x
True
""",
    "Tensor.roll": """\
>>> import jaxtensor as jt
>>> jt.asarray([1, 2, 3, 4]).roll(1).tolist()
[4, 1, 2, 3]
""",
    "Tensor.scatter": """\
>>> import jaxtensor as jt
>>> x = jt.zeros((2, 3))
>>> x.scatter(1, jt.asarray([[2], [0]]), jt.asarray([[1.0], [2.0]])).tolist()
[[0.0, 0.0, 1.0], [2.0, 0.0, 0.0]]
>>> x.scatter(1, jt.asarray([[1], [1]]), value=7.0).tolist()
[[0.0, 7.0, 0.0], [0.0, 7.0, 0.0]]
""",
    "Tensor.scatter_": """\
>>> import jaxtensor as jt
>>> x = jt.zeros((2, 3))
>>> _ = x.scatter_(1, jt.asarray([[2], [0]]), jt.asarray([[1.0], [2.0]]))
>>> x.tolist()
[[0.0, 0.0, 1.0], [2.0, 0.0, 0.0]]
""",
    "Tensor.scatter_add": """\
>>> import jaxtensor as jt
>>> x = jt.zeros(3)
>>> x.scatter_add(0, jt.asarray([0, 0, 2]), jt.asarray([1.0, 2.0, 3.0])).tolist()
[3.0, 0.0, 3.0]
""",
    "Tensor.scatter_add_": """\
>>> import jaxtensor as jt
>>> x = jt.zeros(3)
>>> _ = x.scatter_add_(0, jt.asarray([0, 0, 2]), jt.asarray([1.0, 2.0, 3.0]))
>>> x.tolist()
[3.0, 0.0, 3.0]
""",
    "Tensor.scatter_reduce": """\
>>> import jaxtensor as jt
>>> x = jt.asarray([1.0, 1.0, 1.0])
>>> x.scatter_reduce(0, jt.asarray([0, 0, 2]), jt.asarray([5.0, 3.0, 0.5]), 'amax').tolist()
[5.0, 1.0, 1.0]
""",
    "Tensor.scatter_reduce_": """\
>>> import jaxtensor as jt
>>> x = jt.asarray([1.0, 1.0, 1.0])
>>> _ = x.scatter_reduce_(0, jt.asarray([0, 0, 2]), jt.asarray([5.0, 3.0, 0.5]), 'sum', include_self=False)
>>> x.tolist()
[8.0, 1.0, 0.5]
""",
    "Tensor.squeeze": """\
>>> import jaxtensor as jt
>>> x = jt.zeros((1, 3, 1))
>>> x.squeeze().shape, x.squeeze(0).shape, x.squeeze(dim=2).shape
((3,), (3, 1), (1, 3))
""",
    "Tensor.std": """\
>>> import jaxtensor as jt
>>> x = jt.asarray([1.0, 2.0, 3.0, 4.0])
>>> round(x.std().item(), 4), round(x.std(ddof=1).item(), 4)
(1.118, 1.291)
""",
    "Tensor.sum": """\
>>> import jaxtensor as jt
>>> x = jt.asarray([[1, 2], [3, 4]])
>>> x.sum().item(), x.sum(dim=0).tolist(), x.sum(1, keepdims=True).tolist()
(10, [4, 6], [[3], [7]])
""",
    "Tensor.swapaxes": """\
>>> import jaxtensor as jt
>>> jt.zeros((2, 3, 4)).swapaxes(0, 2).shape
(4, 3, 2)
""",
    "Tensor.take_along_dim": """\
>>> import jaxtensor as jt
>>> x = jt.asarray([[10, 30, 20], [60, 40, 50]])
>>> x.take_along_dim(x.argsort(dim=1), dim=1).tolist()
[[10, 20, 30], [40, 50, 60]]
""",
    "Tensor.transpose": """\
>>> import jaxtensor as jt
>>> x = jt.zeros((2, 3, 4))
>>> x.transpose().shape, x.transpose(1, 0, 2).shape, x.transpose(0, 2).shape
((4, 3, 2), (3, 2, 4), (4, 3, 2))
""",
    "Tensor.var": """\
>>> import jaxtensor as jt
>>> x = jt.asarray([1.0, 2.0, 3.0, 4.0])
>>> x.var().item(), round(x.var(correction=1).item(), 4)
(1.25, 1.6667)
""",
    "Tensor.view": """\
>>> import jaxtensor as jt
>>> x = jt.arange(6)
>>> v = x.view(2, 3)
>>> v[0, 0] = 100
>>> x.tolist()[:2]
[100, 1]
>>> x.view(2, 3).T.view(6)
Traceback (most recent call last):
  ...
ValueError: cannot view a Tensor of shape (3, 2) with these strides as shape (6,) without copying; use reshape() (which copies) instead
""",
}
