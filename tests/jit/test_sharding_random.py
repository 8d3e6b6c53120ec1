"""Differential test: random sequences of views, writes, operators and ``index_select`` on
a sharded Tensor against NumPy, every live alias compared after every step, the storage's
sharding checked (``sharded_sequences.py``), on 1-D and 2-D meshes of eight CPU devices.

The seeds are fixed (a red run is reproducible); ``JT_SHARD_SEED`` picks others.
"""

from __future__ import annotations

import os

import multidevice

SEEDS = [int(s) for s in os.environ.get("JT_SHARD_SEED",
                                         "0" if os.environ.get("CI") else "0,1").split(",")]
STEPS = 40 if os.environ.get("CI") else 60


def test_random_sequences_against_numpy() -> None:
    multidevice.run(f"""
        import sharded_sequences as seq
        for seed in {SEEDS!r}:
            seq.run(seed, (8,), ("x", None), (8, 6), {STEPS})
            seq.run(seed + 100, (8,), (None, "x"), (5, 8), {STEPS})
            seq.run(seed + 200, (4, 2), ("x", "y"), (8, 6), {STEPS})
            seq.run(seed + 300, (2, 4), (("x", "y"),), (16,), {STEPS})
            seq.run(seed + 400, (4, 2), ("y", None, "x"), (4, 3, 8), {STEPS})
        print("ok")
        """, timeout=600)
