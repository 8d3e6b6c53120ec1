"""A small part of client libraries' own array-API tests, on jaxtensor.

Each client's ``ci`` subset (run_clients.py) runs on its references (NumPy, and
array_api_strict for einops, xarray and marray) and on jaxtensor: every test that passes on
a reference must pass on jaxtensor, or be listed with its reason in known_failures.txt.
The clients are optional test dependencies (the ``clients`` extra): a missing one skips, and
fails under CI (``tests/optional_deps.py``).
The whole of the tracked tests runs with ``python tests/clients/run_clients.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run_clients  # noqa: E402

from optional_deps import require  # noqa: E402

MODULES = {"array-api-extra": "array_api_extra", "scipy": "scipy", "scikit-learn": "sklearn",
           "einops": "einops", "xarray": "xarray", "marray": "marray"}


@pytest.mark.parametrize("client", sorted(run_clients.SUITES))
def test_client_suite_passes_on_jaxtensor_where_it_passes_on_numpy(client: str) -> None:
    require(MODULES[client], "clients")
    backends = run_clients.backends(client)
    runs = {b: run_clients.run_client(client, "ci", b, timeout=600) for b in backends}
    for backend, run in runs.items():
        assert run.returncode in (0, 1) and run.outcomes, (backend, run.tail)
    assert runs["numpy"].count("passed") > 0
    assert runs[run_clients.CANDIDATE].count("passed") > 0
    references = [runs[b] for b in backends if b != run_clients.CANDIDATE]
    comparison = run_clients.compare(
        client, references, runs[run_clients.CANDIDATE], run_clients.load_known_failures()
    )
    assert not comparison.unexpected, (
        f"{client}: passed on a reference, not on jaxtensor (fix, or list in "
        f"known_failures.txt with the reason): {comparison.unexpected}"
    )
