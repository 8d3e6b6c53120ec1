"""A storage keeps its sharding through every kind of eager write.

JAX fixes the number of CPU devices at start-up, so the checks run in a subprocess started
with four host devices (``--xla_force_host_platform_device_count=4``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import jax, jax.numpy as jnp, numpy as np
    import jaxtensor as jt
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    assert len(jax.devices()) == 4, jax.devices()
    mesh = Mesh(np.array(jax.devices()).reshape(2, 2), ("a", "b"))
    spec = P("a", "b")
    t = jt.asarray(jax.device_put(jnp.zeros((8, 8), jnp.float32), NamedSharding(mesh, spec)),
                   copy=True)
    a = np.zeros((8, 8), np.float32)

    def check(what):
        v = t._value()
        assert v.sharding.spec == spec, (what, v.sharding)
        np.testing.assert_array_equal(np.asarray(v), a, err_msg=what)

    t[1, 2] = 3.0; a[1, 2] = 3.0; check("one queued scalar write")
    for k in range(5):
        t[k, k] = 7.0; a[k, k] = 7.0
    t[1, 2] = 4.0; a[1, 2] = 4.0; check("several queued scalar writes")
    t[2:4] = 1.0; a[2:4] = 1.0; check("slice write")
    t[[0, 1], [2, 3]] = 5.0; a[[0, 1], [2, 3]] = 5.0; check("advanced-index write")
    t[t > 4.5] = -1.0; a[a > 4.5] = -1.0; check("boolean-mask write")
    v = t[1:5, ::2]; v[0, 0] = 9.0; a[1, 0] = 9.0; check("write through a view")
    t += 1; a += 1; check("in-place operator")
    t *= 2.0; a *= 2.0; check("in-place operator with a scalar")
    t.index_put_((jt.asarray([0, 7]), jt.asarray([0, 7])), jt.asarray([8.0, 9.0]),
                 accumulate=True)
    a[[0, 7], [0, 7]] += [8.0, 9.0]; check("index_put_ accumulate")
    for k in range(3):  # repeats pass kept device offsets, values and scalars
        t[2:4] = float(k); a[2:4] = k; check("repeated slice write")
        v[0, 1] = 5.0; a[1, 2] = 5.0; check("repeated write through a view")
        np.testing.assert_array_equal(np.asarray(v), a[1:5, ::2])
        u = t * 3.0
        assert u._value().sharding.spec == spec, u._value().sharding
    print("ok")
    """
)


def test_writes_keep_the_storage_sharding() -> None:
    env = dict(os.environ)
    env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") +
                        " --xla_force_host_platform_device_count=4").strip()
    env["JAX_PLATFORMS"] = "cpu"
    proc = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip().endswith("ok")
