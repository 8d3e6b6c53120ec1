"""Every cache jaxtensor keeps, behind one policy: bounded, thread-safe, clearable.

jaxtensor memoises decisions that cost far more than a dictionary lookup: compiled kernels
(keyed by the static structure of a write or an operation), index plans (keyed by a shape
and the static signature of an index), kernel choices, and device copies of constants
passed again and again. Each such memo is a :class:`Cache`, made with :func:`cache`:

- **bounded**: a cache holds at most ``maxsize`` entries; inserting into a full cache drops
  its oldest entry (first in, first out: the hot paths only read, and a read must not pay
  for bookkeeping);
- **keyed on every input** of the decision it caches (the caller's duty: a key that leaves
  an input out would return a stale decision);
- **thread-safe**: a lookup is one ``dict`` read, atomic under the GIL; an insertion takes
  the cache's lock, so concurrent misses never corrupt it (two threads may both build the
  value; one of them is kept — every cached value is a pure function of its key);
- **clearable**: :func:`clear_caches` (public as ``jaxtensor.clear_caches``) empties them
  all, as ``jax.clear_caches`` does for JAX's own.

>>> from jaxtensor._core import _cache
>>> c = _cache.cache("example", maxsize=2)
>>> c["a"] = 1; c["b"] = 2; c["c"] = 3    # the oldest entry, "a", is dropped
>>> sorted(c)
['b', 'c']
>>> _cache.clear_caches(); len(c)
0
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Hashable
from typing import Any

__all__ = ["clear_caches"]


class Cache(dict):
    """A bounded memo: reads are plain ``dict`` reads, insertions evict the oldest entry.

    Use ``cache.get(key)`` (or ``cache[key]``) to read and ``cache[key] = value`` (or
    :meth:`get_or_make`) to insert.
    """

    __slots__ = ("name", "maxsize", "_lock", "__weakref__")

    def __init__(self, name: str, maxsize: int) -> None:
        super().__init__()
        if maxsize < 1:
            raise ValueError(f"cache {name!r}: maxsize must be at least 1, got {maxsize}")
        self.name = name
        self.maxsize = maxsize
        self._lock = threading.Lock()

    def __setitem__(self, key: Hashable, value: Any) -> None:
        with self._lock:
            if key not in self and len(self) >= self.maxsize:
                for oldest in self:
                    dict.__delitem__(self, oldest)
                    break
            dict.__setitem__(self, key, value)

    def setdefault(self, key: Hashable, default: Any = None) -> Any:  # keeps the bound
        v = self.get(key, _MISSING)
        if v is _MISSING:
            self[key] = v = default
        return v

    def update(self, *args: Any, **kwargs: Any) -> None:  # keeps the bound
        for k, v in dict(*args, **kwargs).items():
            self[k] = v

    def get_or_make(self, key: Hashable, make: Callable[[], Any]) -> Any:
        """The value cached for ``key``, made by ``make()`` and inserted on a miss."""
        v = self.get(key, _MISSING)
        if v is _MISSING:
            v = make()
            self[key] = v
        return v

    __hash__ = object.__hash__  # identity: a cache is registered by itself, not its content

    def __eq__(self, other: object) -> bool:
        return self is other

    def __repr__(self) -> str:
        return f"Cache({self.name!r}, {len(self)}/{self.maxsize} entries)"

    def __reduce__(self) -> Any:  # a cache is process-local state: never pickled with content
        return (Cache, (self.name, self.maxsize))


_MISSING = object()
_registry: weakref.WeakSet[Cache] = weakref.WeakSet()
_registry_lock = threading.Lock()


def cache(name: str, maxsize: int = 4096) -> Cache:
    """A new :class:`Cache` registered with :func:`clear_caches`."""
    c = Cache(name, maxsize)
    with _registry_lock:
        _registry.add(c)
    return c


def all_caches() -> list[Cache]:
    """Every live cache (for diagnostics and tests)."""
    with _registry_lock:
        return sorted(_registry, key=lambda c: c.name)


def clear_caches() -> None:
    """Empty every jaxtensor cache: compiled kernels, index plans, kernel choices and kept
    device constants.

    Nothing changes but speed: the next operation of each kind plans and compiles again.
    Call it to release memory held by kernels for shapes a program no longer uses, or after
    changing JAX's configuration. JAX's own compilation caches are separate:
    ``jax.clear_caches()`` empties those.

    >>> import jaxtensor as jt
    >>> x = jt.zeros(3)
    >>> x[1] = 2.0
    >>> jt.clear_caches()
    >>> x[2] = 3.0        # plans and compiles again
    >>> x.tolist()
    [0.0, 2.0, 3.0]
    """
    with _registry_lock:
        caches = list(_registry)
    for c in caches:
        with c._lock:
            dict.clear(c)
