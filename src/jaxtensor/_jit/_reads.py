"""What a loop body's trace can read from Python, as a key: the cache of eager loops.

An eager ``fori_loop``/``while_loop`` reuses a compiled loop only for a call whose bodies
would trace to the same program. What a trace can read from Python is what the body
reaches: its closure, defaults and the globals its code names, and from there (recursively)
containers, the attributes of objects and classes, and the closures, defaults and globals
of the functions it reaches. :class:`Reader` walks that graph and writes each value it meets
as *atoms*: a type and a value (a float by its bits, so ``-0.0`` is not ``0.0``; a bool is
not an int). Tensors are not read: they are collected as arguments of the compiled loop (so
a new Tensor of the same shape reuses it, and its buffer is donated). Library code
(jaxtensor, JAX, NumPy, the standard library) is taken as it is, by identity.
"""

from __future__ import annotations

import dis
import sys
import types
from typing import Any

import jax
import numpy as np

from .._core import Tensor, _cache, _config

__all__ = ["NUMBERS", "Reader", "describe", "dynamic", "rebuild"]

Tracer = jax.core.Tracer
_ArrayImpl = type(jax.numpy.zeros(0))

# values whose value is the atom (type and ==, for types whose == compares values exactly)
_EXACT = frozenset({int, bool, str, bytes, type(None), type(Ellipsis), range})
#: Python numbers a body itself reads that can be data of its compiled loop
NUMBERS = (float, complex)
# (and every package installed in site-packages)
_LIBRARIES = frozenset({"jax", "numpy", "jaxtensor", "scipy", "torch", "ml_dtypes",
                        "opt_einsum", "_pytest", "pytest", "hypothesis", "IPython"})
_library_memo: dict[str, bool] = {}
_names_memo = _cache.cache("names read by code", 4096)


def dynamic(v: Any) -> bool:
    """Whether ``v`` is passed to the compiled loop as an argument (traced)."""
    return isinstance(v, (Tensor, jax.Array, np.ndarray, Tracer)) and not isinstance(
        v, np.generic)


def _library(module: str | None) -> bool:
    if module is None:  # (a function made by exec without a module name: the user's)
        return False
    found = _library_memo.get(module)
    if found is None:
        top = module.partition(".")[0]
        path = getattr(sys.modules.get(top), "__file__", None) or ""
        found = _library_memo[module] = top != "__main__" and (
            top in _LIBRARIES or top in sys.stdlib_module_names
            or "site-packages" in path or "dist-packages" in path)
    return found


def code_names(code: types.CodeType
               ) -> tuple[tuple[str, ...], frozenset[str], tuple[str, ...]]:
    """(the globals ``code`` and the functions defined in it may read, the attribute
    names they read (their string constants too, for ``getattr``), the modules they import
    by absolute name)."""
    memo = _names_memo.get(id(code))
    if memo is not None and memo[0] is code:
        return memo[1]
    globs: dict[str, None] = {}
    attrs: set[str] = set()
    imports: dict[str, None] = {}
    todo = [code]
    while todo:
        c = todo.pop()
        level = 0
        for ins in dis.get_instructions(c):
            op = ins.opname
            if op in ("LOAD_GLOBAL", "LOAD_NAME", "STORE_GLOBAL", "DELETE_GLOBAL"):
                globs[ins.argval] = None
            elif op in ("LOAD_ATTR", "LOAD_METHOD", "STORE_ATTR", "IMPORT_FROM"):
                attrs.add(ins.argval)
            elif op == "LOAD_CONST":
                v = ins.argval
                if type(v) is int:
                    level = v  # (an import's level is the constant loaded before it)
                elif type(v) is str and v.isidentifier():
                    attrs.add(v)  # (a name ``getattr(module, "K")`` may read)
            elif op == "IMPORT_NAME":
                if level == 0:
                    imports[ins.argval] = None
                    imports[ins.argval.partition(".")[0]] = None
        todo += [k for k in c.co_consts if isinstance(k, types.CodeType)]
    found = (tuple(globs), frozenset(attrs), tuple(imports))
    _names_memo[id(code)] = (code, found)  # (the code kept: its id is not reused)
    return found


# what a class holds that is code (a dunder method of the user's is read as any method)
_CODE = (types.FunctionType, staticmethod, classmethod, property)


class _Ident:
    """An atom equal only to itself: an object taken by identity (kept alive by the key,
    so its id is not reused)."""

    __slots__ = ("v",)

    def __init__(self, v: Any) -> None:
        self.v = v

    def __eq__(self, other: object) -> bool:
        return type(other) is _Ident and other.v is self.v

    def __hash__(self) -> int:
        return id(self.v)

    def __repr__(self) -> str:
        return f"a {type(self.v).__name__} (by identity)"


class Reader:
    """Walks what bodies reach; ``atoms`` is the key, ``tensors`` the Tensors met (in the
    order met), ``labels`` (when asked for) where each atom was read, for messages."""

    __slots__ = ("atoms", "tensors", "seen", "labels", "depth", "numbers", "modules", "attrs")

    def __init__(self, labels: bool = False, numbers: bool = False) -> None:
        #: whether the Python floats and complex numbers a body itself closes over, takes
        #: as defaults or names as globals are arguments (data) rather than atoms
        self.numbers = numbers
        self.depth = 0
        self.atoms: list = []
        self.tensors: list = []
        self.seen: dict[int, int] = {}
        self.labels: list[str] | None = [] if labels else None
        #: the user's modules met (where first), and per module the attributes read from it
        self.modules: dict[int, tuple[types.ModuleType, str, set[str]]] = {}
        #: the attribute names the code walked reads
        self.attrs: set[str] = set()

    def bodies(self, fns: tuple, args: list | None) -> tuple:
        """Walk a call's bodies (``args``: where their own arguments go, see
        :meth:`function`), then the user's modules met: where each body's arguments go."""
        wheres = []
        for f in fns:
            if type(f) is types.FunctionType:
                wheres.append(self.function(f, "the body", args))
            else:
                self.value(f, "the body")
                wheres.append(None)
        self._modules()
        return tuple(wheres)

    def _modules(self) -> None:
        """Read from each of the user's modules met the attributes any code walked names
        (wherever the module was met: in a list, an object, a global), until reading them
        meets no new module or name."""
        while True:
            more = False
            for m, where, done in list(self.modules.values()):
                g = vars(m)
                for name in sorted(self.attrs - done):
                    done.add(name)
                    more = True
                    if name in g:
                        self.value(g[name], f"{where}.{name}")
            if not more:
                return

    def _add(self, where: str, *atoms: Any) -> None:
        self.atoms += atoms
        if self.labels is not None:
            self.labels += [where] * len(atoms)

    def value(self, v: Any, where: str) -> None:
        t = type(v)
        if t in _EXACT:
            self._add(where, t, v)
            return
        if t is float:
            self._add(where, float, v.hex())
            return
        if t is complex:
            self._add(where, complex, v.real.hex(), v.imag.hex())
            return
        if t is Tensor or isinstance(v, Tensor):
            self._add(where, Tensor)
            self.tensors.append(v)
            return
        if isinstance(v, np.generic):
            self._add(where, t, v.tobytes())
            return
        if isinstance(v, (_ArrayImpl, Tracer)):  # (immutable: by identity)
            self._add(where, _Ident(v))
            return
        k = id(v)
        seen = self.seen.get(k)
        if seen is not None:
            self._add(where, "seen", seen)
            return
        if self.depth >= _config.READS_MAX_DEPTH:
            self._add(where, _Ident(object()))  # (equal to nothing: sound, compiled anew)
            return
        self.seen[k] = len(self.seen)
        self.depth += 1
        try:
            self._structured(v, t, where)
        finally:
            self.depth -= 1

    def _structured(self, v: Any, t: type, where: str) -> None:
        if t is slice:
            self._add(where, slice)
            for e in (v.start, v.stop, v.step):
                self.value(e, where)
        elif isinstance(v, np.ndarray):
            self._add(where, np.ndarray, v.dtype, v.shape, v.tobytes())
        elif t is tuple or t is list or t is dict or t is set or t is frozenset:
            self._add(where, t)
            self._builtin(v, where)
        elif t is types.FunctionType:
            self.function(v, where)
            inner = getattr(v, "_jaxtensor_jit", None)
            if inner is not None:  # (a jaxtensor.jit function: what its function reads)
                self.value(inner._fn, where)
        elif t is types.MethodType:
            self._add(where, t)
            self.value(v.__func__, where)
            self.value(v.__self__, f"{where}.__self__")
        elif t is types.ModuleType:
            self._add(where, _Ident(v))
            if not _library(v.__name__):  # (its attributes read at the end: _modules)
                self.modules.setdefault(id(v), (v, where, set()))
        elif isinstance(v, type):
            self._add(where, _Ident(v))
            if not _library(v.__module__):
                for c in v.__mro__[:-1]:
                    if not _library(c.__module__):
                        for name, e in list(vars(c).items()):
                            # (a dunder method the user wrote is code like any other)
                            if not name.startswith("__") or isinstance(e, _CODE):
                                self.value(e, f"{where}.{name}")
        elif isinstance(v, (staticmethod, classmethod)):
            self._add(where, t)
            self.value(v.__func__, where)
        elif isinstance(v, property):
            self._add(where, t)
            self.value(v.fget, where)
        elif _library(t.__module__):
            # a library's value (a dtype, a jax.Array's sharding, a functools.partial...)
            if t.__module__ == "functools" and t.__name__ == "partial":
                self._add(where, t)
                self.value(v.func, where)
                self.value(v.args, f"{where}.args")
                self.value(v.keywords, f"{where}.keywords")
                return
            if isinstance(v, (tuple, list, dict, set, frozenset)):  # (OrderedDict, ...)
                self._add(where, t)
                self._builtin(v, where)
                return
            try:
                hash(v)
                # (with its text: equal values may differ, ``Decimal("0.5")`` and "0.50",
                # datetimes of one instant in two time zones)
                self._add(where, t, v, repr(v))
            except TypeError:
                self._add(where, _Ident(v))
        else:  # an object of the user's class: its class and attributes
            self._add(where, t)
            self.value(t, f"type({where})")
            self._builtin(v, where)
            d = getattr(v, "__dict__", None)
            if d is not None:
                self.value(d, where)
            for c in t.__mro__:
                for name in getattr(c, "__slots__", ()):
                    if isinstance(name, str) and hasattr(v, name):
                        self.value(getattr(v, name), f"{where}.{name}")

    def _builtin(self, v: Any, where: str) -> None:
        """What a list, tuple, dict or set holds, or an object of a subclass of a built-in
        type holds as that type (a namedtuple's items, a ``float`` subclass's number)."""
        if isinstance(v, (tuple, list)):
            self._add(where, len(v))
            for j, e in enumerate(v):
                self.value(e, f"{where}[{j}]")
        elif isinstance(v, dict):
            self._add(where, len(v))
            for key, e in dict.items(v):
                self.value(key, f"a key of {where}")
                self.value(e, f"{where}[{key!r}]")
        elif isinstance(v, (set, frozenset)):
            self._add(where, len(v))
            for e in v:
                self.value(e, f"an element of {where}")
        else:
            for base in (bool, int, float, complex, str, bytes):
                if isinstance(v, base):
                    self.value(base(v), where)
                    return

    def _argument(self, v: Any, where: str) -> bool:
        """Whether ``v``, read by a body itself, is an argument of the compiled loop (its
        atom is then its kind alone)."""
        if dynamic(v):
            self._add(where, "argument")
            return True
        if self.numbers and type(v) in NUMBERS:
            self._add(where, "number", type(v))
            return True
        return False

    def function(self, fn: types.FunctionType, where: str, args: list | None = None
                 ) -> tuple:
        """A function reached from a body: its code, closure, defaults and globals. With
        ``args`` (a body itself), the arrays and Tensors it closes over, takes as defaults
        or names as globals are appended to ``args`` instead: the returned (cells,
        defaults, globals) say where, for :func:`rebuild`."""
        code = fn.__code__
        self._add(where, _Ident(code), _Ident(fn.__globals__))
        if args is None and _library(fn.__module__):
            return (), (), ()
        globs, attrs, imports = code_names(code)
        self.attrs |= attrs
        for name in imports:  # (a module the code imports: its attributes, at the end)
            m = sys.modules.get(name)
            if m is not None:
                self.value(m, f"the module {name!r} imported by {fn.__qualname__}")
        sub = args is not None
        cells: list[bool] = []
        for name, c in zip(code.co_freevars, fn.__closure__ or ()):
            try:
                v = c.cell_contents
            except ValueError:
                self._add(where, "empty cell")
                cells.append(False)
                continue
            cells.append(sub and self._argument(v, where))
            if cells[-1]:
                args.append(v)  # type: ignore[union-attr]
            else:
                self.value(v, f"{name!r} (closed over by {fn.__qualname__})")
        defaults: list[bool] = []
        if sub and fn.__defaults__:
            for j, v in enumerate(fn.__defaults__):
                defaults.append(self._argument(v, where))
                if defaults[-1]:
                    args.append(v)  # type: ignore[union-attr]
                else:
                    self.value(v, f"default {j} of {fn.__qualname__}")
        else:
            self.value(fn.__defaults__, f"the defaults of {fn.__qualname__}")
        self.value(fn.__kwdefaults__, f"the defaults of {fn.__qualname__}")
        g = fn.__globals__
        names: list[str] = []
        for name in globs:
            v = g.get(name, _Missing)
            if v is _Missing:
                self._add(name, "no global")
            elif sub and self._argument(v, name):
                names.append(name)
                args.append(v)  # type: ignore[union-attr]
            else:
                self.value(v, f"the global {name!r}")
        if fn.__dict__:  # (the function's attributes: ``helper.scale = 2``)
            self.value(fn.__dict__, f"the attributes of {fn.__qualname__}")
        return tuple(cells), tuple(defaults), tuple(names)


class _Missing:
    pass


def describe(atoms: tuple, labels: list[str], old: tuple) -> str:
    """What differs between the atoms ``old`` and ``atoms`` (labelled by ``labels``)."""
    for j, (a, b) in enumerate(zip(old, atoms)):
        if type(a) is not type(b) or a != b:
            where = labels[j] if j < len(labels) else "what the body reads"
            return f"{where} changed ({_shown(old, j)} -> {_shown(atoms, j)})"
    if len(old) != len(atoms):
        return "the structure of what the body reads changed"
    return "nothing the body reads changed (its Tensors' shapes, dtypes or aliasing did)"


def _shown(atoms: tuple, j: int) -> str:
    a = atoms[j]
    if isinstance(a, type) and j + 1 < len(atoms):
        j += 1
    elif not (j and isinstance(atoms[j - 1], type)):
        return repr(a)
    t, a = atoms[j - 1], atoms[j]
    if t is float and type(a) is str:
        a = float.fromhex(a)
    return f"{t.__name__} {a!r}"


def rebuild(fn: types.FunctionType, where: tuple, args: Any) -> types.FunctionType:
    """``fn`` over ``args`` (an iterator): its closed-over cells, defaults and globals that
    :meth:`Reader.function` found to be arrays and Tensors replaced by them, in order."""
    cells_at, defaults_at, names = where
    cells = []
    for c, is_arg in zip(fn.__closure__ or (), cells_at):
        if is_arg:
            c = types.CellType(next(args))
        cells.append(c)
    defaults = fn.__defaults__
    if defaults and any(defaults_at):
        defaults = tuple(next(args) if a else v for v, a in zip(defaults, defaults_at))
    g = fn.__globals__
    if names:
        g = dict(g)
        g.update((n, next(args)) for n in names)
    new = types.FunctionType(fn.__code__, g, fn.__name__, defaults,
                             tuple(cells) if fn.__closure__ is not None else None)
    new.__kwdefaults__ = fn.__kwdefaults__
    return new
