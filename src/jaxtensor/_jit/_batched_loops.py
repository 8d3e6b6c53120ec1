"""A while loop whose condition a ``vmap`` batch decides, under checkify: checkify takes no
such loop ("checkify-of-vmap-of-while"), so a trace that meets one is made again with each
``jaxtensor.vmap`` nested in it mapping its members one after another (``lax.map``),
whose loops are then unbatched (as a top-level ``jaxtensor.vmap`` does on its own)."""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from typing import Any

#: Set while a trace is made again for a batched while loop: nested vmaps map members.
MAPPING = contextvars.ContextVar("jaxtensor vmap maps its members", default=False)


def is_batched_loop_error(e: BaseException) -> bool:
    """Whether ``e`` is checkify's refusal of a batched while loop."""
    return isinstance(e, ValueError) and "batched while-loops" in str(e)


def checked_or_mapped(make: Callable[[], Any]) -> Any:
    """``make()`` (a trace under checkify); where checkify refuses a batched while loop in
    it, ``make()`` again with nested ``jaxtensor.vmap`` calls mapping their members."""
    try:
        return make()
    except ValueError as e:
        if not is_batched_loop_error(e) or MAPPING.get():
            raise
    tok = MAPPING.set(True)
    try:
        return make()
    finally:
        MAPPING.reset(tok)
