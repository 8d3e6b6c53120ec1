"""Write docs/api.md, the API reference index, from the package itself.

Run ``python docs/gen_api.py`` after adding or renaming a public name (``tests/test_docs.py``
fails until api.md lists every name of ``jaxtensor.__all__``, ``linalg.__all__``,
``fft.__all__`` and every public Tensor attribute). Descriptions are the first sentence of
each docstring; ``DESCRIBE`` supplies them where a docstring is missing.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import jaxtensor as jt
from jaxtensor import fft, linalg

OUT = Path(__file__).resolve().parent / "api.md"

# where a docstring is missing (or is not the right one-liner for this index)
DESCRIBE = {
    "__array_api_version__": "The Array API version the namespace conforms to (a string).",
    "e": "Euler's number, a Python float.",
    "inf": "Positive infinity, a Python float.",
    "nan": "Not a number, a Python float.",
    "pi": "The ratio of a circle's circumference to its diameter, a Python float.",
    "newaxis": "`None`: an index that inserts an axis of size 1.",
    "expand_dims": "A view with a new axis of size 1 inserted at `axis`.",
    "flip": "A view with the order of elements reversed along `axis` (all axes by default).",
    "matrix_transpose": "A view with the last two axes swapped.",
    "moveaxis": "A view with axes moved from `source` to `destination` positions.",
    "permute_dims": "A view with axes permuted to `axes`.",
    "squeeze": "A view without the size-1 axes named by `axis`.",
    "fft": "The Array API `fft` extension: see [jaxtensor.fft](#jaxtensorfft).",
    "linalg": "The Array API `linalg` extension: see [jaxtensor.linalg](#jaxtensorlinalg).",
    **{d: f"The `{d}` data type (a NumPy `dtype` object: `jt.{d} == numpy.dtype('{d}')`)."
       for d in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                 "uint64", "float32", "float64", "complex64", "complex128")},
    # Tensor members
    "Tensor.T": "The transpose of a 2-D Tensor (a view).",
    "Tensor.mT": "The last two axes swapped (a view).",
    "Tensor.base": "The Tensor that owns the storage this one views; `None` for an owner.",
    "Tensor.device": "The `jax.Device` holding the value (a sharding when spread over several).",
    "Tensor.dtype": "The data type, a NumPy `dtype` object.",
    "Tensor.ndim": "The number of axes.",
    "Tensor.shape": "The shape, a tuple of ints.",
    "Tensor.size": "The number of elements.",
    "Tensor.item": "The value of a one-element Tensor as a Python scalar.",
    "Tensor.tolist": "The value as nested Python lists (a scalar for 0-D).",
    "Tensor.numpy": "A NumPy copy of the value.",
    "Tensor.reshape": "`reshape(self, shape)`: a view when NumPy would return one, else a copy.",
}

# Tensor dunders listed in the index, grouped (one row per group)
OPERATORS = [
    ("__getitem__", "`x[key]`: basic indexing gives a view, advanced indexing a copy "
                    "(see the [guide](guide.md#indexing))."),
    ("__setitem__", "`x[key] = value`: writes through the storage, casting to `x.dtype` "
                    "(see the [guide](guide.md#assignment-and-dtype-casting))."),
    ("__add__", "Arithmetic `+ - * / // % ** @` (and their reflected `__r*__` forms): "
                "the element-wise functions."),
    ("__iadd__", "In-place `+= -= *= /= //= %= **= @= &= |= ^= <<= >>=`: the result is "
                 "written back through the storage, cast to `x.dtype`."),
    ("__and__", "Bitwise `& | ^ << >> ~` on integer and boolean Tensors."),
    ("__eq__", "Comparisons `== != < <= > >=` (boolean Tensors)."),
    ("__neg__", "Unary `-x`, `+x`, `abs(x)`."),
    ("__bool__", "`bool()`, `int()`, `float()`, `complex()`, `operator.index()` of a "
                 "one-element Tensor."),
    ("__len__", "`len(x)` (the first axis) and iteration (yields views of `x[i]`)."),
    ("__array__", "NumPy conversion (`np.asarray(x)`); marks the buffer exported."),
    ("__jax_array__", "JAX conversion (`jnp.asarray(x)`); marks the buffer exported."),
    ("__dlpack__", "DLPack export (with `__dlpack_device__`): `np.from_dlpack`, "
                   "`torch.from_dlpack`."),
    ("__array_namespace__", "The Array API namespace: the `jaxtensor` module."),
]

SECTIONS = [
    ("Tensor and errors", ["Tensor", "TracerLeakError", "NonConcreteBooleanIndexError"]),
    ("Constants", ["__array_api_version__", "e", "inf", "nan", "pi", "newaxis"]),
    ("Data types", ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                    "uint64", "float32", "float64", "complex64", "complex128"]),
    ("Creation functions", "_creation"),
    ("Data type functions", "_data_type_functions"),
    ("Element-wise functions", "_elementwise"),
    ("Indexing functions: index_select, take, gather, scatter",
     ["_index_select", "_indexing_functions"]),
    ("Inspection", "_info"),
    ("Linear algebra (main namespace)", "_linear_algebra"),
    ("Manipulation functions", "_manipulation"),
    ("Searching functions", "_searching"),
    ("Set functions", "_set"),
    ("Sorting functions", "_sorting"),
    ("Statistical functions", "_statistical"),
    ("Utility functions", "_utility"),
    ("Transforms: jit, grad, vmap", "_transforms"),
    ("Extensions", ["linalg", "fft"]),
]

TENSOR_SECTIONS = [
    ("Attributes", ["shape", "dtype", "ndim", "size", "device", "base", "T", "mT"]),
    ("Conversion", ["item", "tolist", "numpy", "to_jax", "to_device"]),
    ("Views and shape", ["view", "reshape", "ravel", "flatten", "transpose", "permute",
                         "swapaxes", "moveaxis", "squeeze", "flip", "roll"]),
    ("Reductions, sorting and scans", ["sum", "prod", "mean", "var", "std", "max", "min",
                                       "all", "any", "argmax", "argmin", "argsort",
                                       "cumsum", "cumprod"]),
    ("index_select, gather and scatter (the `*_` forms write in place)", None),
]


def _rst_to_md(s: str) -> str:
    s = re.sub(r":(?:func|class|meth|attr|mod|data):`~?([^`]+)`", r"`\1`", s)
    return s.replace("``", "`")


def describe(key: str, obj: object) -> str:
    if key in DESCRIBE:
        return DESCRIBE[key]
    doc = inspect.getdoc(obj) or ""
    para = " ".join(doc.split("\n\n")[0].split())
    if not para:
        raise SystemExit(f"{key}: no docstring; add one, or a line to DESCRIBE in {__file__}")
    # the first sentence, when the first paragraph is long
    if len(para) > 150:
        m = re.search(r"(?<=\.)\s", para)
        if m and m.start() > 20:
            para = para[: m.start()]
    para = _rst_to_md(para.rstrip(";:,"))
    return para if para.endswith((".", "?", "!")) else para + "."


def signature(obj: object, drop_self: bool = False) -> str:
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return ""
    params = list(sig.parameters.values())
    if drop_self and params and params[0].name in ("self", "x"):
        params = params[1:]
    params = [p for p in params if not p.name.startswith("_")]  # private knobs
    sig = sig.replace(parameters=params, return_annotation=inspect.Signature.empty)
    params = [p.replace(annotation=inspect.Parameter.empty) for p in sig.parameters.values()]
    return str(sig.replace(parameters=params))


def _cell(s: str) -> str:
    return s.replace("|", "\\|")


def _row(name: str, obj: object, key: str, *, drop_self: bool = False) -> str:
    sig = signature(obj, drop_self) if callable(obj) and not inspect.isclass(obj) else ""
    return f"| `{_cell(name + sig)}` | {_cell(describe(key, obj))} |"


def _table(rows: list[str]) -> list[str]:
    return ["| name | description |", "| --- | --- |", *rows, ""]


def main_namespace() -> list[str]:
    by_module: dict[str, list[str]] = {}
    for n in jt.__all__:
        mod = getattr(getattr(jt, n), "__module__", None) or ""
        by_module.setdefault(mod.removeprefix("jaxtensor."), []).append(n)
    lines: list[str] = []
    seen: set[str] = set()
    for title, what in SECTIONS:
        if isinstance(what, str):
            names = sorted(by_module.get(what, []))
        elif all(m.startswith("_") and not m.endswith("__") for m in what):
            names = sorted(n for m in what for n in by_module.get(m, []))
        else:
            names = list(what)
        names = [n for n in names if n not in seen]
        seen.update(names)
        lines += [f"### {title}", ""]
        lines += _table([_row(n, getattr(jt, n), n) for n in names])
    rest = sorted(set(jt.__all__) - seen)
    if rest:
        lines += ["### Other", ""]
        lines += _table([_row(n, getattr(jt, n), n) for n in rest])
    return lines


def submodule(mod: object, prefix: str) -> list[str]:
    rows = []
    for n in sorted(mod.__all__):
        obj = getattr(mod, n)
        key = f"{prefix}.{n}"
        if key not in DESCRIBE and getattr(jt, n, None) is obj:  # same function as jt.<n>
            key = n
        rows.append(_row(f"{prefix}.{n}", obj, key))
    return _table(rows)


def tensor() -> list[str]:
    T = jt.Tensor
    public = sorted(n for n in dir(T) if not n.startswith("_"))
    lines: list[str] = []
    placed: set[str] = set()
    for title, names in TENSOR_SECTIONS:
        if names is None:  # the rest: the indexing family
            names = [n for n in public if n not in placed]
        placed.update(names)
        rows = []
        for n in names:
            static = inspect.getattr_static(T, n)
            obj = getattr(T, n)
            if isinstance(static, property):
                rows.append(f"| `Tensor.{n}` | {_cell(describe(f'Tensor.{n}', static))} |")
            else:
                rows.append(_row(f"Tensor.{n}", obj, f"Tensor.{n}", drop_self=True))
        lines += [f"### {title}", ""] + _table(rows)
    lines += ["### Operators and protocols", ""]
    lines += _table([f"| `Tensor.{n}` | {_cell(d)} |" for n, d in OPERATORS])
    return lines


HEADER = """\
# API reference

Every public name of `jaxtensor` (the Array API namespace; `import jaxtensor as jt`),
`jaxtensor.linalg`, `jaxtensor.fft`, and the methods and attributes of `Tensor`, grouped by
section, with a one-line description each (the first line of its docstring: `help(jt.name)`
has the rest). The [user guide](guide.md) explains the model behind them; the functions
follow the [Python Array API standard](https://data-apis.org/array-api/latest/), version
`jt.__array_api_version__`:

```python
>>> import jaxtensor as jt
>>> jt.__array_api_version__
'2025.12'

```

This page is generated by `python docs/gen_api.py` (do not edit it by hand);
`tests/test_docs.py` checks that it lists every public name.

Contents: [jaxtensor](#jaxtensor) · [jaxtensor.linalg](#jaxtensorlinalg) ·
[jaxtensor.fft](#jaxtensorfft) · [Tensor](#tensor)
"""


def render() -> str:
    lines = [HEADER, "## jaxtensor", ""]
    lines += main_namespace()
    lines += ["## jaxtensor.linalg", "",
              "`import jaxtensor as jt; jt.linalg.<name>` (the standard's `linalg` extension).",
              ""]
    lines += submodule(linalg, "linalg")
    lines += ["## jaxtensor.fft", "",
              "`jt.fft.<name>` (the standard's `fft` extension).", ""]
    lines += submodule(fft, "fft")
    lines += ["## Tensor", "",
              "Tensors are made by the creation functions (`jt.asarray`, `jt.zeros`, ...), "
              "never by calling `Tensor(...)`.", ""]
    lines += tensor()
    return "\n".join(lines).rstrip() + "\n"


if __name__ == "__main__":
    OUT.write_text(render(), encoding="utf-8")
    print(f"wrote {OUT}")
