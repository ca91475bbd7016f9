"""gluon.Trainer and Module with kvstores: which store is used, whether it applies the optimizer,
and the values training gives. Expected numbers are worked out by hand in the comments (plain
SGD arithmetic) or come from numpy / from training without any store."""
import copy

import numpy as np
import pytest

import mxnet as mx
from mxnet import autograd, gluon
from mxnet.test_utils import environment

from module_testing import _mlp, _np_params, _problem

CTXS = [mx.cpu(0), mx.cpu(1)]


def _param(shape=(10,), ctx=CTXS, **kwargs):
    x = gluon.Parameter("x", shape=shape, **kwargs)
    x.initialize(ctx=ctx, init="zeros")
    return x


def _backward_ones(x):
    """Gradient 1 in every element of every copy (d(w + 1)/dw)."""
    with autograd.record():
        for w in x.list_data():
            y = w + 1
            y.backward()


def _all(arr, value):
    return bool((arr.asnumpy() == value).all())


# ---- which store, and who updates -----------------------------------------------------------
def test_one_context_needs_no_kvstore():
    x = _param(ctx=[mx.cpu(0)])
    trainer = gluon.Trainer([x], "sgd", {"learning_rate": 1.0, "momentum": 0.5})
    _backward_ones(x)
    trainer.step(1)
    assert trainer._kvstore is None
    assert trainer._update_on_kvstore is None
    assert _all(x.data(), -1)  # 0 - 1 * 1


def test_kvstore_is_created_at_first_step_not_before():
    x = _param()
    trainer = gluon.Trainer([x], "sgd", {"learning_rate": 0.1}, kvstore="device")
    assert trainer._kvstore is None and not trainer._kv_initialized
    _backward_ones(x)
    trainer.step(1)
    assert trainer._kv_initialized and trainer._kvstore.type == "device"


def test_teststore_cannot_update_and_forcing_it_fails():
    x = _param()
    kv = mx.kv.create("teststore")
    trainer = gluon.Trainer([x], "sgd", {"learning_rate": 1.0, "momentum": 0.5}, kvstore=kv)
    _backward_ones(x)
    trainer.step(1)
    assert trainer._kvstore is kv  # an instance is used as given
    assert trainer._update_on_kvstore is False
    assert _all(x.data(mx.cpu(1)), -2)  # 0 - 1 * (1 + 1)
    invalid = gluon.Trainer([x], "sgd", kvstore=kv, update_on_kvstore=True)
    with pytest.raises(ValueError):
        invalid._init_kvstore()


def test_two_contexts_sum_then_lr_mult_and_state_round_trip(tmp_path):
    x = _param()
    trainer = gluon.Trainer([x], "sgd", {"learning_rate": 1.0, "momentum": 0.5})
    _backward_ones(x)
    trainer.step(1)
    assert trainer._optimizer.param_dict[0] is x
    # summed gradient 2: momentum m = -1 * 2, w = -2
    assert _all(x.data(mx.cpu(1)), -2) and _all(x.data(mx.cpu(0)), -2)
    x.lr_mult = 0.5
    _backward_ones(x)
    trainer.step(1)
    # m = 0.5 * -2 - 0.5 * 2 = -2, w = -2 + -2
    assert _all(x.data(mx.cpu(1)), -4)

    assert trainer._update_on_kvstore is True  # default MXNET_UPDATE_ON_KVSTORE=1, device store
    fname = str(tmp_path / "trainer.states")
    trainer.save_states(fname)
    before = copy.deepcopy(trainer._kvstore._updater.states)
    trainer.load_states(fname)
    after = trainer._kvstore._updater.states
    assert set(before) == set(after)
    for key in before:
        np.testing.assert_array_equal(before[key].asnumpy(), after[key].asnumpy())
    assert trainer._optimizer is trainer._kvstore._updater.optimizer
    with pytest.raises(AssertionError):
        trainer.update(1)
    with pytest.raises(AssertionError):
        trainer.allreduce_grads()


def test_without_update_on_kvstore_allreduce_then_update():
    x = _param()
    trainer = gluon.Trainer([x], "sgd", {"learning_rate": 1.0, "momentum": 0.5},
                            update_on_kvstore=False)
    with autograd.record():
        for i, w in enumerate(x.list_data()):
            y = i * w
            y.backward()
    assert (x.grad(mx.cpu(0)).asnumpy() != x.grad(mx.cpu(1)).asnumpy()).all()
    trainer.allreduce_grads()
    assert (x.grad(mx.cpu(0)).asnumpy() == x.grad(mx.cpu(1)).asnumpy()).all()
    assert _all(x.grad(mx.cpu(0)), 1)  # 0 + 1
    trainer.update(1)
    assert trainer._kvstore.type == "device" and trainer._update_on_kvstore is False
    assert _all(x.data(mx.cpu(1)), -1) and _all(x.data(mx.cpu(0)), -1)


def test_states_round_trip_without_update_on_kvstore(tmp_path):
    x = _param()
    trainer = gluon.Trainer([x], "sgd", {"learning_rate": 1.0, "momentum": 0.5},
                            update_on_kvstore=False)
    _backward_ones(x)
    trainer.step(1)
    fname = str(tmp_path / "t.states")
    trainer.save_states(fname)
    before = copy.deepcopy(trainer._updaters[0].states)
    trainer.load_states(fname)
    for updater in trainer._updaters:
        for key in before:
            np.testing.assert_array_equal(before[key].asnumpy(), updater.states[key].asnumpy())
    assert trainer._optimizer is trainer._updaters[0].optimizer


def test_lr_follows_lr_mult_after_load_states(tmp_path):
    with environment("MXNET_UPDATE_ON_KVSTORE", "1"):
        x = _param(lr_mult=1.0)
        trainer = gluon.Trainer([x], "sgd", {"learning_rate": 0.1})
        _backward_ones(x)
        trainer.step(1)
        assert trainer._kvstore._updater.optimizer._get_lr(0) == pytest.approx(0.1)
        fname = str(tmp_path / "lr.states")
        trainer.save_states(fname)
        trainer.load_states(fname)
        x.lr_mult = 2.0
        assert trainer._kvstore._updater.optimizer._get_lr(0) == pytest.approx(0.2)


def test_env_turns_update_on_kvstore_off():
    with environment("MXNET_UPDATE_ON_KVSTORE", "0"):
        x = _param()
        trainer = gluon.Trainer([x], "sgd", {"learning_rate": 0.1})
        trainer._init_kvstore()
        assert trainer._kvstore is not None and trainer._update_on_kvstore is False
        explicit = gluon.Trainer([x], "sgd", {"learning_rate": 0.1}, update_on_kvstore=True)
        explicit._init_kvstore()
        assert explicit._update_on_kvstore is True


@pytest.mark.parametrize("kv", ["local", "device"])
def test_reloading_params_resets_the_store(kv, tmp_path):
    params = gluon.ParameterDict()
    x = params.get("x", shape=(10,), lr_mult=1.0)
    params.initialize(ctx=CTXS, init="zeros")
    trainer = gluon.Trainer(params, "sgd", {"learning_rate": 0.1}, kvstore=kv)
    fname = str(tmp_path / "reset.params")
    params.save(fname)
    _backward_ones(x)
    trainer.step(1)
    assert trainer._kvstore.type == kv
    assert _all(x.data(mx.cpu(0)), -0.2)  # 0 - 0.1 * 2
    mx.nd.waitall()
    params.load(fname)
    assert trainer._update_on_kvstore is None  # reset: decided again at the next step
    assert trainer._kvstore is None and trainer._kv_initialized is False
    _backward_ones(x)
    trainer.step(1)
    # from the loaded zeros, not from -0.2 kept in the old store
    assert _all(x.data(mx.cpu(0)), -0.2) and _all(x.data(mx.cpu(1)), -0.2)


def test_params_are_ordered_by_sorted_name():
    net = gluon.nn.Sequential()
    layers = {"ones_": 1, "zeros_": 0}
    for name, init in layers.items():
        net.add(gluon.nn.Dense(10, in_units=10, weight_initializer=mx.init.Constant(init),
                               use_bias=False, prefix=name))
    params = net.collect_params()
    net.initialize()
    trainer = gluon.Trainer(params, "sgd")
    for name in layers:
        expected_idx = 0 if name == "ones_" else 1
        assert trainer._params[expected_idx].name == name + "weight"


@pytest.mark.parametrize("kv,expected", [("local", False), ("device", True)])
def test_big_parameter_is_not_updated_in_a_local_store(kv, expected):
    # only exactly 'local' drops update_on_kvstore above 16M (16,777,216) elements
    big = gluon.Parameter("big", shape=(16777217,), dtype="float16", grad_req="null")
    big.initialize(ctx=CTXS, init="zeros")
    small = _param()
    trainer = gluon.Trainer([big, small], "sgd", {"learning_rate": 0.1}, kvstore=kv)
    trainer._init_kvstore()
    assert trainer._kvstore.type == kv
    assert trainer._update_on_kvstore is expected


def test_str_kvstore_on_one_context_with_forced_update_is_unguarded():
    x = _param(ctx=[mx.cpu(0)])
    trainer = gluon.Trainer([x], "sgd", kvstore="device", update_on_kvstore=True)
    with pytest.raises(AttributeError):
        trainer._init_kvstore()


def test_dist_types_are_accepted_at_construction():
    x = _param()
    for kv in ("dist_sync", "dist_device_sync", "dist_async"):
        trainer = gluon.Trainer([x], "sgd", kvstore=kv)
        assert trainer._kvstore is None and not trainer._kv_initialized


def test_lr_scheduler_steps_every_second_update():
    for update_on_kvstore in (None, False):
        x = _param()
        freq, factor, lr = 2, 0.1, 1.0
        sched = mx.lr_scheduler.FactorScheduler(freq, factor=factor, base_lr=lr)
        trainer = gluon.Trainer([x], "sgd", {"learning_rate": lr, "lr_scheduler": sched},
                                update_on_kvstore=update_on_kvstore)
        for i in range(10):
            _backward_ones(x)
            trainer.step(1)
            if i % freq == 0:
                assert trainer.learning_rate == pytest.approx(lr), (update_on_kvstore, i)
                lr *= factor


def test_kvstore_none_still_sums_copies():
    x = _param()
    trainer = gluon.Trainer([x], "sgd", {"learning_rate": 0.5}, kvstore=None)
    _backward_ones(x)
    trainer.step(1)
    assert trainer._kvstore is None and trainer._update_on_kvstore is None
    assert _all(x.data(mx.cpu(0)), -1) and _all(x.data(mx.cpu(1)), -1)  # 0 - 0.5 * 2


def test_gradient_compression_params_reach_the_store():
    # 2-bit, threshold 0.5: each device's gradient 1 is sent as +0.5 (residual 0.5 kept), so
    # the sum is 1.0 instead of 2.0 and sgd(lr 1) gives -1.
    x = _param()
    trainer = gluon.Trainer([x], "sgd", {"learning_rate": 1.0}, kvstore="device",
                            compression_params={"type": "2bit", "threshold": 0.5})
    _backward_ones(x)
    trainer.step(1)
    assert _all(x.data(mx.cpu(0)), -1) and _all(x.data(mx.cpu(1)), -1)


# ---- the calls the Trainer makes, seen by a store of our own -----------------------------------
class _RecordingStore(mx.kv.KVStoreBase):
    """Sums like TestStore and records every call; its type and capability are settable."""

    def __init__(self, kv_type="recording", capable=True):
        self._type = kv_type
        self._capable = capable
        self.calls = []
        self.optimizer = None

    def broadcast(self, key, value, out, priority=0):
        self.calls.append(("broadcast", key, priority, len(out)))
        for o in out:
            o[:] = value.as_in_context(o.context)

    def pushpull(self, key, value, out=None, priority=0):
        self.calls.append(("pushpull", key, priority, out is not None))
        total = value[0].copy()
        for v in value[1:]:
            total += v.as_in_context(total.context)
        for o in (value if out is None else out):
            o[:] = total.as_in_context(o.context)

    def set_optimizer(self, optimizer):
        self.calls.append(("set_optimizer",))
        self.optimizer = optimizer

    def set_gradient_compression(self, compression_params):
        self.calls.append(("set_gradient_compression", dict(compression_params)))

    def is_capable(self, capability):
        return self._capable

    def save_optimizer_states(self, fname, dump_optimizer=False):
        raise NotImplementedError()

    def load_optimizer_states(self, fname):
        raise NotImplementedError()

    @property
    def type(self):
        return self._type

    @property
    def rank(self):
        return 0

    @property
    def num_workers(self):
        return 1


def _three_params():
    a, b, c = (gluon.Parameter(n, shape=(3,)) for n in ("a", "b", "c"))
    b.grad_req = "null"
    for p in (a, b, c):
        p.initialize(ctx=CTXS, init="ones")
    return [a, b, c]


def test_keys_priorities_and_skipped_null_grads():
    params = _three_params()
    store = _RecordingStore()
    trainer = gluon.Trainer(params, "sgd", {"learning_rate": 1.0}, kvstore=store,
                            compression_params={"type": "2bit"}, update_on_kvstore=False)
    for p in (params[0], params[2]):
        _backward_ones(p)
    trainer.step(1)
    assert store.calls == [
        ("set_gradient_compression", {"type": "2bit"}),
        ("broadcast", 0, 0, 2), ("broadcast", 1, 0, 2), ("broadcast", 2, 0, 2),
        ("pushpull", 0, 0, False), ("pushpull", 2, -2, False)]
    # ones - 1 * (1 + 1); b (grad_req null) untouched
    assert _all(params[0].data(mx.cpu(1)), -1) and _all(params[1].data(mx.cpu(1)), 1)


def test_update_on_store_pushes_grads_and_pulls_weights():
    params = _three_params()
    store = _RecordingStore()
    trainer = gluon.Trainer(params, "sgd", {"learning_rate": 1.0}, kvstore=store)
    for p in (params[0], params[2]):
        _backward_ones(p)
    trainer.step(1)
    assert trainer._update_on_kvstore is True
    assert store.calls[0] == ("set_optimizer",) and store.optimizer is trainer._optimizer
    assert ("pushpull", 2, -2, True) in store.calls
    # the store wrote the summed gradient into the weights (it applies no optimizer itself)
    assert _all(params[2].data(mx.cpu(0)), 2)


def test_dist_async_always_updates_on_the_store():
    x = _param()
    trainer = gluon.Trainer([x], "sgd", kvstore=_RecordingStore("dist_async"))
    trainer._init_kvstore()
    assert trainer._update_on_kvstore is True and trainer._distributed is True
    with environment("MXNET_UPDATE_ON_KVSTORE", "0"):
        trainer = gluon.Trainer([x], "sgd", kvstore=_RecordingStore("dist_async"))
        trainer._init_kvstore()
        assert trainer._update_on_kvstore is True
    trainer = gluon.Trainer([x], "sgd", kvstore=_RecordingStore("dist_async"),
                            update_on_kvstore=False)
    with pytest.raises(ValueError, match="async"):
        trainer._init_kvstore()


def test_incapable_store_silently_off_unless_forced():
    x = _param()
    trainer = gluon.Trainer([x], "sgd", kvstore=_RecordingStore(capable=False))
    trainer._init_kvstore()
    assert trainer._update_on_kvstore is False
    forced = gluon.Trainer([x], "sgd", kvstore=_RecordingStore(capable=False),
                           update_on_kvstore=True)
    with pytest.raises(ValueError, match="update_on_kvstore=False"):
        forced._init_kvstore()


def test_distributed_store_cannot_be_reset():
    x = _param()
    trainer = gluon.Trainer([x], "sgd", kvstore=_RecordingStore("dist_sync"))
    _backward_ones(x)
    trainer.step(1)
    assert trainer._update_on_kvstore is True
    with pytest.raises(RuntimeError, match="Cannot reset distributed KVStore."):
        x.set_data(mx.nd.zeros((10,)))


def test_batch_size_change_on_a_distributed_updating_store_warns():
    x = _param()
    trainer = gluon.Trainer([x], "sgd", kvstore=_RecordingStore("dist_sync"))
    _backward_ones(x)
    trainer.step(4)
    assert trainer._optimizer.rescale_grad == pytest.approx(0.25)
    _backward_ones(x)
    with pytest.warns(UserWarning, match="batch_size"):
        trainer.step(2)
    assert trainer._optimizer.rescale_grad == pytest.approx(0.5)


def test_set_data_before_first_step_keeps_pending_params():
    x = _param()
    store = _RecordingStore()
    trainer = gluon.Trainer([x], "sgd", {"learning_rate": 1.0}, kvstore=store)
    trainer._init_kvstore()
    x.set_data(mx.nd.ones((10,)))  # not in the store yet: nothing to reset
    assert trainer._kvstore is store
    _backward_ones(x)
    trainer.step(1)
    assert ("broadcast", 0, 0, 2) in store.calls


# ---- Module ----------------------------------------------------------------------------------
def _fit(kvstore, ctx, epochs=3, optimizer_params=None):
    x, y = _problem(n=120)
    mx.random.seed(5)
    np.random.seed(5)
    mod = mx.mod.Module(_mlp(), context=ctx)
    it = mx.io.NDArrayIter(x, y, batch_size=20)
    mod.fit(it, num_epoch=epochs, kvstore=kvstore, initializer=mx.init.Xavier(),
            optimizer_params=optimizer_params or {"learning_rate": 0.1, "momentum": 0.9})
    return mod


@pytest.mark.parametrize("kvstore", ["local", "device"])
def test_module_fit_with_a_store_matches_no_store(kvstore):
    reference = _np_params(_fit(None, mx.cpu()))
    without = _np_params(_fit(None, CTXS))
    mod = _fit(kvstore, CTXS)
    assert mod._kvstore is not None and mod._kvstore.type == kvstore
    assert mod._update_on_kvstore is True and mod._updater is None
    trained = _np_params(mod)
    for k in reference:
        np.testing.assert_allclose(trained[k], reference[k], rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(without[k], reference[k], rtol=1e-4, atol=1e-5)
    # every device holds the same weights
    for arrays in mod._exec_group.param_arrays:
        np.testing.assert_array_equal(arrays[0].asnumpy(), arrays[1].asnumpy())


def test_module_store_sums_and_module_updates_when_env_says_so():
    reference = _np_params(_fit(None, mx.cpu()))
    with environment("MXNET_UPDATE_ON_KVSTORE", "0"):
        mod = _fit("local", CTXS)
    assert mod._kvstore.type == "local" and mod._update_on_kvstore is False
    assert mod._updater is not None
    trained = _np_params(mod)
    for k in reference:
        np.testing.assert_allclose(trained[k], reference[k], rtol=1e-4, atol=1e-5)


def test_module_one_device_uses_no_store():
    mod = _fit("local", mx.cpu(), epochs=1)
    assert mod._kvstore is None and mod._update_on_kvstore is False


def test_module_one_sgd_step_against_numpy():
    # softmax regression, one batch of 20 split over two devices: the store sums the two
    # halves' gradients, so w1 = w0 - lr * (P - Y)^T X / 20, with P the softmax of X w0^T + b0
    rng = np.random.RandomState(3)
    x = rng.randn(20, 5).astype(np.float32)
    y = rng.randint(0, 3, size=20).astype(np.float32)
    w0 = rng.randn(3, 5).astype(np.float32) * 0.1
    b0 = rng.randn(3).astype(np.float32) * 0.1
    sym = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3,
                                                     name="fc"), name="softmax")
    for kvstore in ("local", "device"):
        mod = mx.mod.Module(sym, context=CTXS)
        it = mx.io.NDArrayIter(x, y, batch_size=20)
        mod.fit(it, num_epoch=1, kvstore=kvstore, optimizer_params={"learning_rate": 0.5},
                arg_params={"fc_weight": mx.nd.array(w0), "fc_bias": mx.nd.array(b0)})
        z = x.dot(w0.T) + b0
        p = np.exp(z - z.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        d = p - np.eye(3, dtype=np.float32)[y.astype(int)]
        arg, _ = mod.get_params()
        np.testing.assert_allclose(arg["fc_weight"].asnumpy(), w0 - 0.5 * d.T.dot(x) / 20,
                                   rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(arg["fc_bias"].asnumpy(), b0 - 0.5 * d.sum(axis=0) / 20,
                                   rtol=1e-5, atol=1e-6)


def test_module_optimizer_states_through_the_store(tmp_path):
    mod = _fit("device", CTXS, epochs=1)
    assert mod._update_on_kvstore
    fname = str(tmp_path / "mod.states")
    mod.save_optimizer_states(fname)
    other = mx.mod.Module(_mlp(), context=CTXS)
    other.bind(data_shapes=mod.data_shapes, label_shapes=mod.label_shapes)
    other.init_params(arg_params=mod.get_params()[0], aux_params=mod.get_params()[1])
    other.init_optimizer(kvstore="device", optimizer_params={"learning_rate": 0.1,
                                                             "momentum": 0.9})
    other.load_optimizer_states(fname)
    saved = mod._kvstore._updater.states
    loaded = other._kvstore._updater.states
    assert set(saved) == set(loaded) and saved
    for key in saved:
        np.testing.assert_array_equal(saved[key].asnumpy(), loaded[key].asnumpy())


def test_module_kvstore_instance_is_used_as_given():
    kv = mx.kv.create("local")
    mod = _fit(kv, CTXS, epochs=1)
    assert mod._kvstore is kv


def test_module_rejects_other_kvstore_objects():
    mod = mx.mod.Module(_mlp(), context=CTXS)
    it = mx.io.NDArrayIter(*_problem(n=40), batch_size=20)
    with pytest.raises(TypeError):
        mod.fit(it, num_epoch=1, kvstore=3)
