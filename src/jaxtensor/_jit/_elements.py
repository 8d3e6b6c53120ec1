"""Element reads a top-level loop's bodies read, lent as what they were read from.

``a, b, c, d = theta`` before a loop makes four element reads whose values are not computed
yet (``Storage.defer``). Computed and lent one by one, they cost the loop call a kernel and
four storages. A top-level loop (``_loops._compiled``) passes instead the arrays they were
read from (immutable: the elements' values, whatever was written since), each once, and the
offsets of all of them as one array (:func:`split`); its program reads the elements from
those before the loop (:func:`read_in`), as the reads would have. The program is keyed
by the reads' structure (where each is, the kind of view), never by their offsets, which
are data: a read at another position compiles nothing.

An element read is a value of its own, so a body that writes one writes a Tensor outside
the loop: the program finds it written (:func:`check_unwritten`) and raises
:class:`Written`, and the loops of that code are lent their elements computed from then on.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from .._core import Deferred, Tensor, _cache, _view, starts_array
from ._trace import Trace

__all__ = ["Written", "check_unwritten", "read_in", "split", "written_by"]

#: the code of the bodies found writing an element read lent to them
written_by = _cache.cache("loop bodies writing their element reads", 256)


class Written(Exception):
    """A loop body wrote an element read lent as its source (the call is made again with
    the element computed)."""


def split(args: list) -> tuple[list, tuple, list, list] | None:
    """Where ``args`` (a loop's distinct arguments) hold element reads not computed yet:
    (the arguments without them; the structure: per read, its position among ``args``, its
    view's structure, its number of offsets and which source it reads; per read, the Tensor
    and its view; the inputs that follow the loop's own: each source array once, then the
    offsets of all the reads, one array), else None.

    A read of the current value of a Tensor the loop is passed too is computed instead:
    lent, it would hold that Tensor's buffer, which the loop could then not update in
    place."""
    found = []
    for j, a in enumerate(args):
        # (an element read not computed yet, nothing queued on it: ``Storage.defer`` makes
        # only element reads)
        if type(a) is not Tensor or a._view is not None:
            continue
        d = a._storage._pending
        if type(d) is Deferred and d.then is None:
            found.append((j, a, d))
    if not found:
        return None
    held = {id(a._storage) for a in args if type(a) is Tensor}
    found = [(j, a, d) for j, a, d in found
             if not (id(d.source) in held and d.array is d.source._array)]
    if not found:
        return None
    lent = {j for j, _, _ in found}
    rest = [a for j, a in enumerate(args) if j not in lent]
    struct: list[Hashable] = []
    reads = []
    sources: dict[int, int] = {}
    tail: list[Any] = []
    starts: list[int] = []
    for j, a, d in found:
        src = d.array
        s = sources.setdefault(id(src), len(tail))
        if s == len(tail):
            tail.append(src)
        v = d.view
        struct.append((j, v.key, len(v.starts), s))
        reads.append((a, v))
        starts.extend(v.starts)
    tail.append(starts_array(tuple(starts)))  # (kept on the device from their second use)
    return rest, tuple(struct), reads, tail


def read_in(trace: Any, ins: list, struct: tuple, reads: list) -> list[tuple[Tensor, Any]]:
    """Take the inputs :func:`split` added off the end of a loop program's inputs ``ins``
    (traced), and put back each element read where it was, its value in ``trace`` read from
    its source before the loop (the answer: each read with that value)."""
    if not isinstance(trace, Trace):
        raise Written  # (not a top-level jaxtensor.jit trace: lent computed instead)
    offsets = ins.pop()
    n_sources = 1 + max(s for _, _, _, s in struct)
    sources = ins[len(ins) - n_sources:]
    del ins[len(ins) - n_sources:]
    made = []
    off = 0
    for (j, _, n, s), (t, v) in zip(struct, reads):
        value = _view.chain_forward(v.steps, v.comp, sources[s],
                                    [offsets[off + i] for i in range(n)])
        off += n
        trace.known(t._storage, value)
        ins.insert(j, t)
        made.append((t, value))
    return made


def check_unwritten(trace: Any, made: list[tuple[Tensor, Any]]) -> None:
    """Raise :class:`Written` where the loop wrote one of the element reads ``made``."""
    for t, value in made:
        if trace.read(t._storage) is not value:
            raise Written
