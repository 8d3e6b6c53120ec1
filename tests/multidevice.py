"""Run a test body in a fresh Python process with several simulated CPU devices.

JAX fixes the number of CPU devices when it starts
(``--xla_force_host_platform_device_count``), so a test that needs eight devices runs its
body as a script in a subprocess. The subprocess imports this worktree's ``jaxtensor`` (its
``src`` comes first on ``PYTHONPATH``), prints what it wants checked, and the test asserts on
its exit status. Keep each script short: starting JAX costs about two seconds.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

SRC = str(Path(__file__).resolve().parent.parent / "src")
TESTS = str(Path(__file__).resolve().parent)

#: Imported by every script: the mesh helpers and the NumPy oracle checks.
PRELUDE = """
import jax, jax.numpy as jnp, numpy as np
import jaxtensor as jt
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
"""


def env(devices: int, xla_flags: str = "") -> dict[str, str]:
    """The environment of a subprocess with ``devices`` CPU devices and this tree's code."""
    e = dict(os.environ)
    flags = [f for f in e.get("XLA_FLAGS", "").split()
             if not f.startswith("--xla_force_host_platform_device_count")]
    e["XLA_FLAGS"] = " ".join([*flags, f"--xla_force_host_platform_device_count={devices}",
                               *xla_flags.split()])
    e["JAX_PLATFORMS"] = "cpu"
    e["PYTHONPATH"] = os.pathsep.join([SRC, TESTS, *filter(None, [e.get("PYTHONPATH")])])
    return e


def run(script: str, devices: int = 8, timeout: float = 240, helpers: str = "",
        xla_flags: str = "") -> str:
    """Run ``PRELUDE``, ``helpers`` and ``script`` (each dedented) with ``devices`` CPU
    devices (and more ``xla_flags``); its stdout (it must exit 0)."""
    code = PRELUDE + textwrap.dedent(helpers) + textwrap.dedent(script)
    proc = subprocess.run([sys.executable, "-c", code], env=env(devices, xla_flags), capture_output=True,
                          text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-8000:]
    return proc.stdout
