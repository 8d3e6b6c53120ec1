"""The program of ``tests/jit/test_multiprocess.py``: global Tensors over the devices of every
process, mutated through views and setitem, ``index_select`` and a ``jaxtensor.jit`` step.

``python multiprocess_program.py OUT PROCESS_ID NUM_PROCESSES PORT`` runs one process of a
multi-controller run (``jax.distributed``, CPU collectives over gloo, the coordinator on
127.0.0.1:PORT); ``NUM_PROCESSES`` 1 runs the same program in one process over all of its
devices. Every process gathers the global results (``multihost_utils.process_allgather``) and
writes them to ``OUT`` (``.npz``, with the process id in the name).
"""

from __future__ import annotations

import sys

import jax

jax.config.update("jax_cpu_collectives_implementation", "gloo")
out, pid, nproc, port = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
if nproc > 1:
    jax.distributed.initialize(coordinator_address=f"127.0.0.1:{port}", num_processes=nproc,
                               process_id=pid, initialization_timeout=60)

import numpy as np  # noqa: E402
from jax.experimental import multihost_utils  # noqa: E402
from jax.sharding import Mesh, NamedSharding  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402

import jaxtensor as jt  # noqa: E402

mesh = Mesh(np.array(jax.devices()), ("x",))  # every device of every process
rows = NamedSharding(mesh, P("x", None))
base = np.arange(8 * 6, dtype=np.float32).reshape(8, 6)


def global_tensor(a: np.ndarray) -> jt.Tensor:
    """A Tensor over the global array whose rows this process holds its part of."""
    n = a.shape[0] // jax.process_count()
    local = a[jax.process_index() * n:(jax.process_index() + 1) * n]
    return jt.asarray(jax.make_array_from_process_local_data(rows, local, a.shape))


t = global_tensor(base)
assert t.sharding == rows and t.shape == (8, 6)
results: dict[str, np.ndarray] = {}


def gather(x: jt.Tensor) -> np.ndarray:
    return np.asarray(multihost_utils.process_allgather(x.to_jax(), tiled=True))


# views and setitem of several kinds
v = t[1:7, ::2]
v[0, 0] = 100.0
v[2:4] = -1.0
t.T[5] = 7.0
for k in range(4):  # queued scalar writes
    t[k, k] = float(10 + k)
t[[0, 7], [1, 2]] = 55.0
t[t > 40] = 0.0  # a boolean mask with a scalar: lowered to where on global arrays
t[:, 3] += 0.5
results["after_writes"] = gather(t)
results["view"] = gather(v)

# an integer index array that is itself a global array (bounds checked on device)
part = 4 // jax.process_count()
gidx = jax.make_array_from_process_local_data(
    NamedSharding(mesh, P("x")),
    np.array([7, 1, 4, 2], np.int32)[jax.process_index() * part:][:part], (4,))
results["global_index_read"] = gather(t[jt.asarray(gidx)])
t[jt.asarray(gidx), 0] = -3.0

# index_select along the non-sharded and the sharded axis
idx = jt.asarray(np.array([5, 0, 2], np.int32))
results["index_select_1"] = gather(jt.index_select(t, 1, idx))
results["index_select_0"] = gather(jt.index_select(t, 0, jt.asarray(np.array([7, 0, 3]))))


@jt.jit
def step(x: jt.Tensor, lr: float) -> jt.Tensor:
    x[1:3] *= lr
    x[x < 0] = 0.0
    return x.sum(axis=0)


for _ in range(2):
    s = step(t, 0.5)
results["after_jit"] = gather(t)
results["jit_result"] = gather(s)
assert t.sharding.is_equivalent_to(rows, 2), t.sharding

if jax.process_count() > 1:  # what cannot work across processes says so
    for what, f in [("host read", lambda: np.asarray(t)), ("float", lambda: float(t[7, 0])),
                    ("tolist", lambda: t.tolist()), ("mask read", lambda: t[t > 5])]:
        try:
            f()
        except Exception as e:  # noqa: BLE001 - the message is what is checked
            results[f"error {what}"] = np.array(f"{type(e).__name__}: {e}")
        else:
            results[f"error {what}"] = np.array("no error")

np.savez(f"{out}.{pid}.npz", **results)
print("done", pid)
