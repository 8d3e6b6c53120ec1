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

        def check(what):  # (reads that export nothing: later writes may still donate)
            assert t.sharding.spec == spec, (what, t.sharding)
            np.testing.assert_array_equal(t.numpy(), a, err_msg=what)

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
            assert u.sharding.spec == spec, u.sharding
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
                np.testing.assert_array_equal(t.numpy(), a, err_msg=f"{shape} {n}")
                assert t.sharding == NamedSharding(mesh, spec), t.sharding
        """
    )


def test_results_and_writes_on_1d_and_2d_meshes() -> None:
    multidevice.run("""
        m1 = Mesh(np.array(jax.devices()), ("x",))
        m2 = Mesh(np.array(jax.devices()).reshape(4, 2), ("x", "y"))
        layouts = [NamedSharding(m1, P("x", None)), NamedSharding(m1, P(None, "x")),
                   NamedSharding(m2, P("x", "y")), NamedSharding(m2, P("y", "x")),
                   NamedSharding(m2, P(None, ("x", "y")))]
        base = np.arange(128, dtype=np.float32).reshape(8, 16) - 40
        i3 = np.array([0, 3, 5, 5])
        reads = [  # (name, on a Tensor or a jax.Array, on NumPy)
            ("slice", lambda x: x[1:5, ::2], None),
            ("slice whole rows", lambda x: x[2:6], None),
            ("transpose", lambda x: x.T, None),
            ("reshape", lambda x: x.reshape(4, 32), None),
            ("reshape split", lambda x: x.reshape(8, 2, 8), None),
            ("int", lambda x: x[3], None),
            ("ellipsis int", lambda x: x[..., 2], None),
            ("newaxis", lambda x: x[None, 2:4], None),
            ("int array", lambda x: x[i3], lambda a: a[i3]),
            ("int arrays", lambda x: x[i3, i3 + 1], lambda a: a[i3, i3 + 1]),
            ("slice + int array", lambda x: x[1:, i3], lambda a: a[1:, i3]),
            ("add", lambda x: x + 1.0, None),
            ("mul tensors", lambda x: x * x, None),
            ("sin", lambda x: (jt if isinstance(x, jt.Tensor) else jnp).sin(x), np.sin),
            ("sum", lambda x: x.sum(), None),
            ("sum axis 0", lambda x: x.sum(axis=0), None),
            ("max axis 1", lambda x: x.max(axis=1), None),
            ("mean keepdims", lambda x: x.mean(axis=1, keepdims=True), None),
            ("cumsum", lambda x: (jt if isinstance(x, jt.Tensor) else jnp).cumulative_sum(
                x, axis=1), lambda a: np.cumsum(a, axis=1)),
            ("take axis 1", lambda x: (jt if isinstance(x, jt.Tensor) else jnp).take(
                x, (jt if isinstance(x, jt.Tensor) else jnp).asarray(i3), axis=1),
             lambda a: np.take(a, i3, axis=1)),
        ]
        for sh in layouts:
            j = jax.device_put(jnp.asarray(base), sh)
            t = jt.asarray(j)
            assert t.sharding == sh and t.to_jax() is j  # no copy
            for name, f, g in reads:
                what = f"{name} on {sh.spec}"
                r, ref = f(t), f(j)
                np.testing.assert_allclose(np.asarray(r), (g or f)(base), rtol=1e-6,
                                           err_msg=what)
                same_placement(r, ref, what)
            for d in (0, 1):
                r = jt.index_select(t, d, jt.asarray(i3))
                np.testing.assert_array_equal(np.asarray(r), np.take(base, i3, axis=d))
                same_placement(r, jnp.take(j, jnp.asarray(i3), axis=d), f"index_select {d}")
            r = t[t > 10]  # a data-dependent shape: computed, then laid out as JAX does
            np.testing.assert_array_equal(np.asarray(r), base[base > 10])
            assert len(r.sharding.device_set) >= 1
        print("ok")
        """, helpers=CHECKS)


def test_every_write_kind_keeps_the_storage_sharding() -> None:
    multidevice.run("""
        m1 = Mesh(np.array(jax.devices()), ("x",))
        m2 = Mesh(np.array(jax.devices()).reshape(4, 2), ("x", "y"))
        layouts = [NamedSharding(m1, P("x", None)), NamedSharding(m1, P(None, "x")),
                   NamedSharding(m2, P("x", "y")), NamedSharding(m2, P(None, ("y", "x")))]
        base = np.arange(128, dtype=np.float32).reshape(8, 16) - 40
        i3, j3 = np.array([0, 5, 7]), np.array([1, 1, 15])

        def both(f, g=None):
            return f, g or f

        def scalar_loop(x):
            for k in range(6):
                x[k, (3 * k) % 16] = float(k)

        def views(x):
            v = x[1:7, ::3]
            v[0, 0] = 11.0
            w = v.T
            w[1] = 12.0
            x.T[2:4][..., 1] = 13.0

        writes = [
            ("int", both(lambda x: x.__setitem__(3, 1.5))),
            ("queued scalars", both(scalar_loop)),
            ("queued then read", both(lambda x: (x.__setitem__((7, 15), 2.0),
                                                 x.__setitem__((0, 0), 3.0)))),
            ("slice", both(lambda x: x.__setitem__(slice(2, 6), 9.0))),
            ("slice from array", both(lambda x: x.__setitem__(
                (slice(None), slice(1, 3)), np.ones((8, 2), np.float32)))),
            ("ellipsis", both(lambda x: x.__setitem__((Ellipsis, 2), 4.0))),
            ("newaxis", both(lambda x: x.__setitem__((None, 1), 4.0))),
            ("int array", both(lambda x: x.__setitem__(i3, -1.0))),
            ("int arrays", both(lambda x: x.__setitem__((i3, j3), -2.0))),
            ("int arrays values", both(lambda x: x.__setitem__((i3, j3), np.array(
                [1.0, 2.0, 3.0], np.float32)))),
            ("mask scalar", both(lambda x: x.__setitem__(x > 40, 0.0))),
            ("mask rows", both(lambda x: x.__setitem__(np.arange(8) % 2 == 0, 5.0))),
            ("mask values", both(lambda x: x.__setitem__(x < -30, x[x < -30] * 2))),
            ("slice + int array", both(lambda x: x.__setitem__((slice(1, 4), i3), 7.0))),
            ("iadd", both(lambda x: x.__iadd__(2.0))),
            ("imul tensor", both(lambda x: x.__imul__(x))),
            ("views", both(views)),
            ("index_put accumulate", (
                lambda t: t.index_put_((jt.asarray([0, 7, 0]),), jt.asarray(1.0),
                                       accumulate=True),
                lambda a: np.add.at(a, [0, 7, 0], 1.0))),
            ("index_add", (lambda t: t.index_add_(1, jt.asarray([0, 15, 0]), jt.ones((8, 3))),
                           lambda a: np.add.at(a, (slice(None), [0, 15, 0]), 1.0))),
            ("scatter", (lambda t: t.scatter_(0, jt.asarray([[7, 6, 5, 4, 3, 2, 1, 0] * 2]),
                                              jt.full((1, 16), 5.0)),
                         lambda a: a.__setitem__(([7, 6, 5, 4, 3, 2, 1, 0] * 2, range(16)),
                                                 5.0))),
            ("scatter_add", (lambda t: t.scatter_add_(1, jt.asarray([[3, 3]] * 8),
                                                      jt.ones((8, 2))),
                             lambda a: a.__setitem__((slice(None), 3), a[:, 3] + 2))),
        ]
        for sh in layouts:
            for name, (f, g) in writes:
                t = jt.asarray(jax.device_put(jnp.asarray(base), sh), copy=True)
                a = base.copy()
                f(t); g(a)
                what = f"{name} on {sh.spec}"
                np.testing.assert_array_equal(t.numpy(), a, err_msg=what)
                assert t.sharding == sh, (what, t.sharding)
        print("ok")
        """)


def test_a_value_laid_out_otherwise_does_not_move_the_storage() -> None:
    multidevice.run("""
        m = Mesh(np.array(jax.devices()), ("x",))
        rows, cols = NamedSharding(m, P("x", None)), NamedSharding(m, P(None, "x"))
        a = np.arange(64, dtype=np.float32).reshape(8, 8)
        x = jt.asarray(a, device=rows)
        y = jt.asarray(a * 2, device=cols)
        x[...] = y; a[...] = a * 2
        x[:] = x.T + 1; a[:] = a.T + 1
        x[1:3] = y[1:3]; a[1:3] = (np.arange(64).reshape(8, 8) * 2)[1:3]
        x += y.T; a += (np.arange(64, dtype=np.float32).reshape(8, 8) * 2).T
        assert x.sharding.is_equivalent_to(rows, 2), x.sharding
        np.testing.assert_array_equal(np.asarray(x), a)

        @jt.jit
        def f(x, y):
            x[...] = y * 3
            y[:, 0] = x[0]
        f(x, y)
        assert x.sharding.is_equivalent_to(rows, 2), x.sharding
        assert y.sharding.is_equivalent_to(cols, 2), y.sharding
        print("ok")
        """)


def test_jit_in_and_out_shardings() -> None:
    multidevice.run("""
        m = Mesh(np.array(jax.devices()).reshape(4, 2), ("x", "y"))
        rows, cols = NamedSharding(m, P("x", None)), NamedSharding(m, P(None, "x"))

        def step(x, i, y):
            x[i] = 1.0
            x[:, 1:3] += 2.0
            y[0, 0] += 5.0
            return jt.index_select(x, 1, jt.asarray([0, 2, 3, 5])), x.sum(axis=0)

        f = jt.jit(step, in_shardings=(rows, None, None), out_shardings=(cols, None))
        t = jt.asarray(np.arange(128.0).reshape(8, 16))  # on one device: placed by the call
        u = jt.ones((4, 4))
        a = np.arange(128.0).reshape(8, 16)
        for k in range(3):
            r, s = f(t, k, u)
            a[k] = 1; a[:, 1:3] += 2
            assert t.sharding.is_equivalent_to(rows, 2), t.sharding
            assert r.sharding.is_equivalent_to(cols, 2), r.sharding
            np.testing.assert_array_equal(np.asarray(t), a)
            np.testing.assert_array_equal(np.asarray(r), a[:, [0, 2, 3, 5]])
            np.testing.assert_array_equal(np.asarray(s), a.sum(axis=0))
        assert float(u[0, 0]) == 16.0
        w = jt.asarray(np.ones((8, 16)), device=cols)  # laid out otherwise: moved to rows
        f(w, 0, u)
        assert w.sharding.is_equivalent_to(rows, 2), w.sharding
        f(w, 1, u)
        assert w.sharding.is_equivalent_to(rows, 2), w.sharding
        v = t[1:]
        g = jt.jit(lambda v: v.sum(), in_shardings=cols)
        try:
            g(v)
        except ValueError as e:
            assert "view" in str(e), e
        else:
            raise AssertionError("a view laid out otherwise was accepted")
        print("ok")
        """)


def _collectives(dump) -> str:
    """A subprocess helper: ``collectives(f)`` runs ``f`` and returns its result with the
    collectives of the programs it compiled (XLA dumps them into ``dump``; with
    ``compiles=False`` it may compile none)."""
    return f"""
        import glob, re
        DUMP = {str(dump)!r}
        COLLECTIVE = re.compile(r"all-gather|all-reduce|collective-permute|all-to-all|"
                                r"reduce-scatter")

        def collectives(f, compiles=True):
            before = set(glob.glob(DUMP + "/*after_optimizations.txt"))
            r = f()
            jax.block_until_ready(r)
            new = set(glob.glob(DUMP + "/*after_optimizations.txt")) - before
            assert new or not compiles, "no program was compiled"
            return r, {{c for n in new for c in COLLECTIVE.findall(open(n).read())}}
        """


def test_index_select_communicates_only_along_the_sharded_axis(tmp_path) -> None:
    # the compiled (partitioned) programs the eager calls ran, as XLA dumps them
    multidevice.run("""
        mesh = Mesh(np.array(jax.devices()), ("x",))
        idx = np.array([3, 0, 5, 5, 1, 2, 7, 6])
        for shape, axis in [((64, 32), 0), ((32, 64), 1), ((8, 64, 16), 1)]:
            spec = P(*["x" if d == axis else None for d in range(len(shape))])
            a = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
            x = jt.asarray(a, device=NamedSharding(mesh, spec))
            for d in range(len(shape)):
                r, found = collectives(lambda: jt.index_select(x, d, jt.asarray(idx)))
                np.testing.assert_array_equal(np.asarray(r), np.take(a, idx, axis=d))
                if d != axis:
                    assert not found, (shape, spec, d, found)
                    assert r.sharding.is_equivalent_to(x.sharding, len(shape)), r.sharding
                else:  # each device gathers the rows it holds, then one all-reduce
                    assert found == {"all-reduce"}, (shape, spec, d, found)
        print("ok")
        """, helpers=_collectives(tmp_path), xla_flags=f"--xla_dump_to={tmp_path}")


def test_max_min_reduce_shard_by_shard(tmp_path) -> None:
    """max/min of a sharded Tensor propagate NaN and reduce each shard where it lies: one
    all-reduce over the sharded axis, no data moved between devices otherwise."""
    multidevice.run("""
        mesh = Mesh(np.array(jax.devices()), ("x",))
        a = np.random.default_rng(0).random((64, 40)).astype(np.float32)
        a[13, 7] = np.nan
        x = jt.asarray(a, device=NamedSharding(mesh, P("x", None)))
        for name in ("max", "min"):
            for axis in (None, 0, 1, (0, 1)):
                r, found = collectives(lambda: getattr(jt, name)(x, axis=axis), compiles=False)
                np.testing.assert_array_equal(np.asarray(r), getattr(np, name)(a, axis=axis))
                assert found <= {"all-reduce"}, (name, axis, found)
                if axis == 1:
                    assert not found, (name, axis, found)
            f = jt.jit(lambda t: getattr(jt, name)(t, axis=0))
            np.testing.assert_array_equal(np.asarray(f(x)), getattr(np, name)(a, axis=0))
        print("ok")
        """, helpers=_collectives(tmp_path), xla_flags=f"--xla_dump_to={tmp_path}")


def test_placing_tensors_on_a_sharding() -> None:
    multidevice.run("""
        mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ("x", "y"))
        sh, rows = NamedSharding(mesh, P("x", "y")), NamedSharding(mesh, P("x"))
        a = np.arange(32.0, dtype=np.float32).reshape(8, 4)
        j = jax.device_put(a, sh)
        t = jt.asarray(j)
        assert t.sharding == sh and t.to_jax() is j  # wrapped, not copied
        t[0, 0] = 5.0  # (the caller's array is never donated or changed)
        assert float(j[0, 0]) == 0.0 and t.sharding == sh
        made = {
            "zeros": jt.zeros((8, 4), device=sh), "ones": jt.ones((8, 4), device=sh),
            "full": jt.full((8, 4), 2.0, device=sh), "empty": jt.empty((8, 4), device=sh),
            "eye": jt.eye(8, 4, device=sh), "zeros_like": jt.zeros_like(t),
            "asarray list": jt.asarray(a.tolist(), device=sh),
            "asarray numpy": jt.asarray(a, device=sh),
            "asarray Tensor": jt.asarray(jt.asarray(a), device=sh),
            "device_put Tensor": jt.device_put(jt.asarray(a), sh),
            "device_put numpy": jt.device_put(a, sh),
            "to_device": jt.asarray(a).to_device(sh),
        }
        for name, u in made.items():
            assert u.sharding == sh, (name, u.sharding)
        for name in ("asarray list", "asarray numpy", "asarray Tensor", "device_put Tensor",
                     "device_put numpy", "to_device"):
            np.testing.assert_array_equal(np.asarray(made[name]), a, err_msg=name)
        assert jt.device_put(t, sh) is t and t.to_device(sh) is t
        r = jt.arange(8, device=rows)
        assert r.sharding == rows and r.device == rows
        back = t.to_device(jax.devices()[0])
        assert back.sharding.device_set == {jax.devices()[0]}
        print("ok")
        """)
