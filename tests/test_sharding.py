"""Sharded Tensors on eight simulated CPU devices: values as unsharded, shardings kept.

The rule checked here (docs/scaling.md): a *written storage* keeps its sharding exactly,
whatever the write; a *result* (a view's value, an operator's or a reduction's output) has
the sharding JAX's own propagation gives the same ``jax.numpy`` expression on the sharded
``jax.Array``, and is never gathered onto one device. JAX fixes the device count at
start-up, so each test runs its body in a subprocess (``multidevice.run``).
"""

from __future__ import annotations

import multidevice

CHECKS = """
def same_placement(r, ref, what):
    # a result: JAX's propagation for the same jax.numpy expression, never one device
    rs, js = r.sharding, ref.sharding
    assert rs.is_equivalent_to(js, r.ndim), (what, rs, js)
    assert len(rs.device_set) == len(jax.devices()), (what, rs)
"""


def test_writes_keep_the_storage_sharding() -> None:
    multidevice.run(
        """
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
        """,
        devices=4,
    )


def test_queued_scalar_writes_into_a_row_sharded_tensor() -> None:
    # the flush pads its scatter to a power of two with out-of-bounds indices; on a sharded
    # N-D base those were unravelled with clipping, onto the last element (never written)
    multidevice.run(
        """
        mesh = Mesh(np.array(jax.devices()), ("x",))
        for shape, spec in [((8, 4), P("x", None)), ((2, 8, 3), P(None, "x")), ((16,), P("x"))]:
            base = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
            for n in (1, 2, 3, 5, 7):
                t = jt.asarray(jax.device_put(jnp.asarray(base), NamedSharding(mesh, spec)),
                               copy=True)
                a = base.copy()
                rng = np.random.default_rng(n)
                for _ in range(n):
                    k = tuple(int(rng.integers(s)) for s in shape)
                    t[k] = -1.0; a[k] = -1.0
                v = t._value()
                np.testing.assert_array_equal(np.asarray(v), a, err_msg=f"{shape} {n}")
                assert v.sharding == NamedSharding(mesh, spec), v.sharding
        """
    )
