"""The store interface (KVStoreBase), its registry, the pure-Python 'teststore', the 'device'
store through that interface, and the 'test' optimizer."""
import os
import shutil
import subprocess
import sys
import warnings

import numpy as np
import pytest

import mxnet as mx
from mxnet import nd
from mxnet.kvstore import KVStoreBase

SHAPE = (4, 4)
NDEV = 4
CTXS = [mx.cpu(i) for i in range(NDEV)]


# -- registry and create ---------------------------------------------------------------------------

def test_create_rejects_non_str():
    for bad in (None, 3, ["local"]):
        with pytest.raises(TypeError):
            mx.kv.create(bad)


def test_registry_first_and_case_insensitive():
    kv = mx.kv.create("TestStore")
    assert isinstance(kv, mx.kv.TestStore)
    assert kv.type == "teststore"
    assert KVStoreBase.kv_registry["teststore"] is mx.kv.TestStore
    assert KVStoreBase.kv_registry["horovod"] is mx.kv.Horovod


def test_register_uses_the_lower_case_name_and_warns_on_replacement():
    saved = dict(KVStoreBase.kv_registry)
    try:
        @KVStoreBase.register
        class MyStore(KVStoreBase):
            @property
            def type(self):
                return "mine"
        assert KVStoreBase.kv_registry["mystore"] is MyStore
        assert mx.kv.create("MYSTORE").type == "mine"
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            KVStoreBase.register(MyStore)  # the same class again: quiet
        assert not caught
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")

            @KVStoreBase.register
            class mystore(KVStoreBase):  # pylint: disable=invalid-name
                pass
        assert len(caught) == 1 and "mystore" in str(caught[0].message)
        assert KVStoreBase.kv_registry["mystore"] is mystore
    finally:
        KVStoreBase.kv_registry.clear()
        KVStoreBase.kv_registry.update(saved)


def test_base_methods_are_abstract():
    base = KVStoreBase()
    for call in (lambda: base.broadcast(0, nd.ones(SHAPE), nd.ones(SHAPE)),
                 lambda: base.pushpull(0, nd.ones(SHAPE)), lambda: base.set_optimizer(None),
                 lambda: base.is_capable("optimizer"), lambda: base.save_optimizer_states("f"),
                 lambda: base.load_optimizer_states("f"), lambda: base.type, lambda: base.rank,
                 lambda: base.num_workers):
        with pytest.raises(NotImplementedError):
            call()


# -- the same checks on 'teststore' and 'device' ---------------------------------------------------------

@pytest.mark.parametrize("kv_type", ["teststore", "device"])
def test_broadcast(kv_type):
    kv = mx.kv.create(kv_type)
    value = np.random.RandomState(1).rand(*SHAPE).astype(np.float32)
    out = nd.zeros(SHAPE)
    kv.broadcast(3, nd.array(value), out=out)
    np.testing.assert_array_equal(out.asnumpy(), value)
    outs = [nd.zeros(SHAPE, ctx=c) for c in CTXS]
    kv.broadcast(4, nd.array(value), out=outs)
    for o in outs:
        np.testing.assert_array_equal(o.asnumpy(), value)
        assert o.context in CTXS


@pytest.mark.parametrize("kv_type", ["teststore", "device"])
@pytest.mark.parametrize("key", [3, "a"])
def test_pushpull(kv_type, key):
    kv = mx.kv.create(kv_type)
    if kv_type != "teststore":
        kv.init(key, nd.zeros(SHAPE))
    rs = np.random.RandomState(2)
    grads = [rs.rand(*SHAPE).astype(np.float32) for _ in CTXS]
    expected = np.sum(grads, axis=0)
    out = nd.zeros(SHAPE)
    kv.pushpull(key, [nd.array(g, ctx=c) for g, c in zip(grads, CTXS)], out=out)
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-6)
    outs = [nd.zeros(SHAPE, ctx=c) for c in CTXS]
    kv.pushpull(key, [nd.ones(SHAPE, ctx=c) for c in CTXS], out=outs)
    for o in outs:
        np.testing.assert_array_equal(o.asnumpy(), np.full(SHAPE, float(NDEV)))
    values = [nd.ones(SHAPE, ctx=c) * 2 for c in CTXS]
    kv.pushpull(key, values)
    for v in values:
        np.testing.assert_array_equal(v.asnumpy(), np.full(SHAPE, 2.0 * NDEV))


def test_teststore_pushpull_in_place_after_out():
    kv = mx.kv.create("teststore")
    out = [nd.zeros(SHAPE), nd.zeros(SHAPE, ctx=mx.cpu(1))]
    kv.pushpull(1, [nd.ones(SHAPE)] * 2, out=out)
    for o in out:
        np.testing.assert_array_equal(o.asnumpy(), np.full(SHAPE, 2.0))
    kv.pushpull(1, out)
    for o in out:
        np.testing.assert_array_equal(o.asnumpy(), np.full(SHAPE, 4.0))
        assert o.context in (mx.cpu(0), mx.cpu(1))


def test_teststore_single_value():
    kv = mx.kv.create("teststore")
    value = nd.ones(SHAPE) * 3
    out = nd.zeros(SHAPE)
    kv.pushpull(0, value, out=out)
    np.testing.assert_array_equal(out.asnumpy(), np.full(SHAPE, 3.0))
    kv.pushpull(0, value)
    np.testing.assert_array_equal(value.asnumpy(), np.full(SHAPE, 3.0))


def test_teststore_identity_and_capability(tmp_path):
    kv = mx.kv.create("teststore")
    assert (kv.rank, kv.num_workers) == (0, 1)
    assert kv.is_capable("optimizer") is False
    assert kv.is_capable(KVStoreBase.OPTIMIZER) is False
    with pytest.raises(ValueError):
        kv.is_capable("compression")
    with pytest.raises(NotImplementedError):
        kv.set_optimizer(mx.optimizer.create("sgd"))
    with pytest.raises(NotImplementedError):
        kv.save_optimizer_states(str(tmp_path / "s"))
    with pytest.raises(NotImplementedError):
        kv.load_optimizer_states(str(tmp_path / "s"))


def test_device_store_is_capable():
    kv = mx.kv.create("device")
    assert kv.is_capable("optimizer") is True
    assert isinstance(kv, KVStoreBase)


HOROVOD_SCRIPT = r"""
import numpy as np
import mxnet as mx
from mxnet import nd
kv = mx.kv.create("horovod")
assert kv.type == "horovod"
r, n = kv.rank, kv.num_workers
total = n * (n + 1) / 2
out = nd.zeros((2, 3))
kv.broadcast("w", nd.ones((2, 3)) * (r + 1), out=out)          # rank 0's value
assert (out.asnumpy() == 1).all(), out.asnumpy()
outs = [nd.zeros((2, 3)), nd.zeros((2, 3), ctx=mx.cpu(1))]
kv.broadcast("w", nd.ones((2, 3)) * (r + 5), out=outs)          # again, the same key
for o in outs:
    assert (o.asnumpy() == 5).all(), o.asnumpy()
for i in range(3):
    # each listed array is reduced over the ranks on its own
    vals = [nd.ones((2, 3)) * (r + 1) * (i + 1), nd.ones((2, 3), ctx=mx.cpu(1)) * (r + 1) * 10]
    kv.pushpull(0, vals)
    assert (vals[0].asnumpy() == total * (i + 1)).all(), vals[0].asnumpy()
    assert (vals[1].asnumpy() == 10 * total).all(), vals[1].asnumpy()
value = nd.ones((5,)) * (r + 1)
o = nd.zeros((5,))
kv.pushpull("b", value, out=o)                                  # another shape, str key
assert (o.asnumpy() == total).all() and (value.asnumpy() == r + 1).all()
kv.set_optimizer(mx.optimizer.create("sgd"))                    # no-ops
kv.save_optimizer_states("unused")
kv.load_optimizer_states("unused")
assert not kv.is_capable("optimizer")
print("OK horovod rank %d of %d" % (r, n))
"""


def test_horovod_single_process(run_python):
    r = run_python(HOROVOD_SCRIPT)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "OK horovod rank 0 of 1" in r.stdout


@pytest.mark.skipif(shutil.which("mpirun") is None, reason="needs OpenMPI's mpirun")
def test_horovod_under_mpirun(tmp_path):
    script = tmp_path / "horovod_store.py"
    script.write_text(HOROVOD_SCRIPT)
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    env = dict(os.environ)
    env.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                "OMPI_MCA_btl_vader_single_copy_mechanism": "none",
                "PYTHONPATH": os.path.join(root, "python")})
    n = 3
    proc = subprocess.run(["mpirun", "-np", str(n), "--oversubscribe", "--bind-to", "none", sys.executable,
                           str(script)], env=env, cwd=str(tmp_path), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, timeout=240)
    out = proc.stdout.decode(errors="replace")
    assert proc.returncode == 0, out
    for rank in range(n):
        assert "OK horovod rank %d of %d" % (rank, n) in out, out


def test_horovod_is_not_capable():
    assert mx.kv.Horovod.is_capable("optimizer") is False
    with pytest.raises(ValueError):
        mx.kv.Horovod.is_capable("other")


# -- the 'test' optimizer --------------------------------------------------------------------------

def test_test_optimizer_rule():
    rs = np.random.RandomState(0)
    w0 = rs.randn(*SHAPE).astype(np.float32)
    g = rs.randn(*SHAPE).astype(np.float32) * 4
    o = mx.optimizer.create("test", rescale_grad=0.5, clip_gradient=0.1, learning_rate=7.0, wd=3.0)
    assert isinstance(o, mx.optimizer.Test)
    weight = nd.array(w0)
    state = o.create_state(0, weight)
    np.testing.assert_array_equal(state.asnumpy(), np.zeros(SHAPE))
    assert state.shape == weight.shape and state.context == weight.context
    o.update(0, weight, nd.array(g), state)
    expected = w0 + 0.5 * g  # neither clipped nor scaled by lr or decayed, as in MXNet 1.x
    np.testing.assert_allclose(weight.asnumpy(), expected, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(state.asnumpy(), weight.asnumpy())


def test_test_optimizer_through_updater():
    o = mx.optimizer.create("test", rescale_grad=2.0)
    updater = mx.optimizer.get_updater(o)
    weight = nd.ones(SHAPE)
    for i in range(3):
        updater(0, nd.ones(SHAPE) * (i + 1), weight)
    np.testing.assert_allclose(weight.asnumpy(), np.full(SHAPE, 1 + 2.0 * (1 + 2 + 3)))


@pytest.mark.parametrize("name,named", [("dist_async", "dist_sync"), ("nccl", "device")])
def test_types_not_provided_raise_naming_the_alternative(name, named):
    with pytest.raises(mx.base.MXNetError) as info:
        mx.kv.create(name)
    assert named in str(info.value) and name in str(info.value)
