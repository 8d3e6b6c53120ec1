"""Two local processes × two CPU devices each run ``multiprocess_program.py`` on
``jax.distributed`` (gloo collectives, coordinator on 127.0.0.1); every process's gathered
results equal those of the same program run in one process over four devices, and what
cannot work across processes raises an error that says what to do instead.
"""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import numpy as np

import multidevice

PROGRAM = str(Path(__file__).resolve().parents[1] / "multiprocess_program.py")
TIMEOUT = 240


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(out: Path, pid: int, nproc: int, port: int, devices: int) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, PROGRAM, str(out), str(pid), str(nproc), str(port)],
        env=multidevice.env(devices), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True)


def _wait(procs: list[subprocess.Popen]) -> None:
    logs = []
    try:
        for p in procs:
            logs.append(p.communicate(timeout=TIMEOUT)[0])
    finally:
        for p in procs:  # (a process left waiting for its peer after the other failed)
            if p.poll() is None:
                p.kill()
                p.communicate()
    for p, log in zip(procs, logs):
        assert p.returncode == 0, log[-6000:]


def test_two_processes_see_the_single_process_results(tmp_path: Path) -> None:
    port = _free_port()
    multi = [_start(tmp_path / "multi", pid, 2, port, 2) for pid in range(2)]
    single = _start(tmp_path / "single", 0, 1, 0, 4)
    _wait([*multi, single])
    want = np.load(tmp_path / "single.0.npz")
    for pid in range(2):
        got = np.load(tmp_path / f"multi.{pid}.npz")
        for name in want.files:
            np.testing.assert_array_equal(got[name], want[name], err_msg=f"{name} in {pid}")
        errors = {k: str(got[k]) for k in got.files if k.startswith("error")}
        for what in ("host read", "tolist"):
            assert "several processes" in errors[f"error {what}"], errors
            assert "process_allgather" in errors[f"error {what}"], errors
        assert errors["error float"] == "no error"  # (a replicated element is everywhere)
        assert "NonConcreteBooleanIndexError" in errors["error mask read"], errors
        assert "jaxtensor.where" in errors["error mask read"], errors
