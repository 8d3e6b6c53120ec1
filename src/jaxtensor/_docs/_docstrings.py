"""The numpydoc sections of the public docstrings, assembled once when the package is imported.

Each public function's docstring is written by hand next to its code (or, for the generated
element-wise functions, in ``jaxtensor._elementwise_docs`` beside them): a summary, prose and
an example. What can be derived is added here, so that ``help(jt.name)`` and the API reference show numpydoc
sections everywhere: ``Parameters`` (from the signature, described by ``_params``),
``Returns`` (the return annotation and the summary line), ``Raises`` and ``See Also`` (from
``_refs``) and the ``Examples`` heading over the ``>>>`` lines. The examples of the
Tensor method forms live in ``_methods_docs``. A docstring that already has a ``Parameters``
or an ``Examples`` section is left as written.

>>> import jaxtensor as jt
>>> print(jt.argmin.__doc__.split("Parameters")[0].strip())
Index of the first minimum (over the flattened Tensor when ``axis`` is None).
"""

from __future__ import annotations

import inspect
import re
import textwrap
from collections.abc import Iterator
from typing import Any

from .. import _elementwise as ew
from ._methods_docs import EXAMPLES
from ._params import BY_FUNCTION, PARAMS
from ._refs import RAISES, SEE_ALSO

_SECTION = re.compile(r"^\s*(Parameters|Examples)\n\s*-{5,}$", re.M)
_RETURNS = {
    "Tensor": "Tensor", "tuple[Tensor, ...]": "tuple of Tensor", "builtins.bool": "bool",
    "bool": "bool", "np.dtype": "dtype", "None": None, "Callable": "callable",
    "np.ndarray": "numpy.ndarray", "jax.Array": "jax.Array", "Any": None,
}
# the element-wise functions' operands, by the dtype category of ``_elementwise``'s tables
_OPERAND = {
    "any": "a numeric (or, where it applies, boolean) dtype",
    "floating-point": "a floating-point dtype (integers are promoted to the default float)",
    "integer": "an integer dtype",
    "integer or boolean": "an integer or boolean dtype",
    "boolean": "the boolean dtype",
}
_BOOL_RESULT = {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
                "isfinite", "isinf", "isnan", "signbit", "logical_and", "logical_or",
                "logical_xor", "logical_not"}

# parameters that have no description in _params (should stay empty)
UNDESCRIBED: list[str] = []


def _fill(text: str, indent: str) -> str:
    return textwrap.fill(text, 92, initial_indent=indent, subsequent_indent=indent,
                         break_on_hyphens=False, break_long_words=False)


def _param(key: str, p: inspect.Parameter) -> tuple[str, str, str]:
    short = key.rpartition(".")[2]
    found = (BY_FUNCTION.get(f"{key}.{p.name}") or BY_FUNCTION.get(f"{short}.{p.name}")
             or PARAMS.get(p.name))
    if found is None:  # (a new parameter: tests/internals/test_internals.py asks for its description)
        UNDESCRIBED.append(f"{key}.{p.name}")
        found = ("optional" if p.default is not p.empty else "", "")
    typ, desc = found
    if p.annotation in ("int", "int | None") and typ.startswith("int or tuple of int"):
        typ = "int" + typ.removeprefix("int or tuple of int")
    if p.default is not p.empty and "optional" not in typ:
        typ += ", optional"
    star = {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "")
    return star + p.name, typ, desc


def _elementwise_params(name: str, category: str, arity: int) -> list[str]:
    operand = _OPERAND[category]
    if arity == 1:
        out = ["x : Tensor", _fill(f"Input Tensor of {operand}.", "    ")]
    else:
        out = ["x1, x2 : Tensor or Python scalar", _fill(
            f"Operands of {operand}; they broadcast together, and at least one is a Tensor "
            "(a Python scalar of the Tensor's kind takes the Tensor's dtype).", "    ")]
    if arity == 2:
        result = ("A boolean Tensor of the broadcast shape." if name in _BOOL_RESULT else
                  "A Tensor of the promoted dtype and the broadcast shape.")
    else:
        result = ("A boolean" if name in _BOOL_RESULT else "A") + " Tensor of the shape of ``x``."
    return ["", "Parameters", "----------", *out, "", "Returns", "-------", "Tensor",
            _fill(result, "    ")]


def _takes_axis(obj: Any) -> bool:
    try:
        params = inspect.signature(obj).parameters
    except (TypeError, ValueError):
        return False
    return any(n in params for n in ("axis", "axes", "dim", "dims", "axis1", "source"))


def _signature_sections(key: str, obj: Any, summary: str) -> list[str]:
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return []
    out: list[str] = []
    params = [p for p in sig.parameters.values()
              if p.name != "self" and not p.name.startswith("_")]
    if params:
        out += ["", "Parameters", "----------"]
        for p in params:
            name, typ, desc = _param(key, p)
            out += [f"{name} : {typ}", _fill(desc, "    ")]
    ret = sig.return_annotation
    if ret is not sig.empty:
        typ = _RETURNS.get(ret, ret) if isinstance(ret, str) else getattr(ret, "__name__", None)
        if typ:
            if summary.startswith("Method form of"):
                summary = "The result, as the function returns it."
            out += ["", "Returns", "-------", typ, _fill(summary, "    ")]
    return out


def assemble(key: str, obj: Any, doc: str | None, *, elementwise: tuple[str, int] | None = None,
             examples: str | None = None) -> str | None:
    """The numpydoc docstring of the public name ``key`` (``None``: leave it as it is)."""
    doc = inspect.cleandoc(doc or "")
    if _SECTION.search(doc):
        return None
    lines = doc.split("\n") if doc else []
    at = next((i for i, line in enumerate(lines) if line.lstrip().startswith(">>>")), len(lines))
    head, example = lines[:at], lines[at:]
    if examples:
        example = [*example, *inspect.cleandoc(examples).split("\n")]
    example = textwrap.dedent("\n".join(example)).split("\n")
    while head and (not head[-1].strip() or head[-1].lstrip().startswith("!!!")):
        head.pop()  # (and a Markdown admonition line that introduced the examples)
    if not head or not example:
        return None
    out = list(head)
    para = head[:head.index("")] if "" in head else head
    summary = " ".join(" ".join(para).split())
    if elementwise is not None:
        out += _elementwise_params(key, *elementwise)
    elif callable(obj) and not inspect.isclass(obj) and not isinstance(obj, property):
        out += _signature_sections(key, obj, summary)
    short = key.removeprefix("linalg.").removeprefix("fft.")
    raises = list(RAISES.get(key) or RAISES.get(short) or ())
    if elementwise is not None and elementwise[0] in ("integer", "integer or boolean"):
        raises.append(("TypeError", f"An operand is not of {_OPERAND[elementwise[0]]}."))
    if _takes_axis(obj) and not any(exc == "IndexError" for exc, _ in raises):
        raises.append(("IndexError", "An axis is out of range for the Tensor's dimensions."))
    if raises:
        out += ["", "Raises", "------"]
        for exc, when in raises:
            out += [exc, _fill(when, "    ")]
    see = SEE_ALSO.get(key) or SEE_ALSO.get(short)
    if see:
        out += ["", "See Also", "--------", *(f"{name} : {what}" for name, what in see)]
    out += ["", "Examples", "--------", *example]
    return "\n".join(out) + "\n"


def _public(namespace: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    linalg, fft, tensor = namespace["linalg"], namespace["fft"], namespace["Tensor"]
    seen: set[int] = set()
    for names, prefix in ((namespace, ""), (vars(linalg), "linalg."), (vars(fft), "fft.")):
        for n in names["__all__"]:
            obj = names[n]
            if callable(obj) and not inspect.isclass(obj) and id(obj) not in seen:
                seen.add(id(obj))
                yield prefix + n, obj
    for n in dir(tensor):
        if not n.startswith("_"):
            static = inspect.getattr_static(tensor, n)
            obj = static if isinstance(static, property) else getattr(tensor, n)
            if id(obj) not in seen:
                seen.add(id(obj))
                yield "Tensor." + n, obj


def complete_all(namespace: dict[str, Any]) -> None:
    """Give every public function, method and property of the package (whose globals are
    ``namespace``) its numpydoc sections."""
    table = {row[0]: (row[2], 2) for row in ew._BINARY}
    table.update({row[0]: (row[2], 1) for row in ew._UNARY})
    for key, obj in _public(namespace):
        doc = assemble(key, obj, obj.__doc__, elementwise=table.get(key),
                       examples=EXAMPLES.get(key))
        if doc is not None:
            obj.__doc__ = doc
