"""The optional test dependencies: the PyTorch oracle (extra ``torch``) and the client
libraries (extra ``clients``). Without one, the tests that need it skip with the reason and
the install command; under CI (``CI=true``, where every extra is installed) such a skip
fails the run (``conftest.py``), so a missing package can never hide a regression there."""

from __future__ import annotations

from types import ModuleType

import pytest

#: the start of every skip reason given here (``conftest.py`` looks for it under CI)
MISSING = "optional test dependency missing:"


def require(module: str, extra: str) -> ModuleType:
    """``module``, imported; or skip the calling test (module) with the reason."""
    return pytest.importorskip(
        module, reason=f"{MISSING} {module} is not installed (pip install -e \".[{extra}]\")")
