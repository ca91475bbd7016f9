"""mx.mod (Module, BucketingModule): binding, computation, training loops, checkpoints and
bucketing. Expected values are computed with numpy from the module's own parameters.
"""
import logging
import os
import pickle
import re

import numpy as np
import pytest

import mxnet as mx

from module_testing import _bucket_batch, _bucket_sym_gen, _mlp, _np_mlp, _np_params, _problem, _trained_module


# ---- binding and properties --------------------------------------------------------------------
def test_bind_shapes_names_and_params():
    mod = mx.mod.Module(_mlp(), context=mx.cpu())
    assert mod.data_names == ["data"]
    assert mod.label_names == ["softmax_label"]
    assert mod.output_names == ["softmax_output"]
    mod.bind(data_shapes=[("data", (5, 10))], label_shapes=[("softmax_label", (5,))])
    assert mod.binded and mod.for_training
    assert [tuple(d.shape) for d in mod.data_shapes] == [(5, 10)]
    assert isinstance(mod.data_shapes[0], mx.io.DataDesc)
    assert [tuple(d.shape) for d in mod.label_shapes] == [(5,)]
    assert mod.output_shapes == [("softmax_output", (5, 4))]
    mod.init_params()
    arg, aux = mod.get_params()
    assert sorted(arg) == ["fc1_bias", "fc1_weight", "fc2_bias", "fc2_weight"]
    assert aux == {}
    assert arg["fc1_weight"].shape == (16, 10)
    # Uniform(0.01) default: weights small and not all zero, biases zero
    w = arg["fc1_weight"].asnumpy()
    assert np.abs(w).max() <= 0.01 and np.abs(w).max() > 0
    assert (arg["fc1_bias"].asnumpy() == 0).all()


def test_bind_rejects_wrong_data_names():
    mod = mx.mod.Module(_mlp(), context=mx.cpu())
    with pytest.raises(ValueError):
        mod.bind(data_shapes=[("x", (5, 10))])
    with pytest.raises(ValueError):
        mx.mod.Module(_mlp(), data_names=("nope",))


def test_init_params_honours_symbol_init_attrs():
    data = mx.sym.var("data")
    w = mx.sym.var("fc_weight", init=mx.init.Constant(3.0))
    fc = mx.sym.FullyConnected(data, weight=w, num_hidden=4, name="fc")
    bn = mx.sym.BatchNorm(fc, name="bn", fix_gamma=False)
    mod = mx.mod.Module(bn, label_names=None)
    mod.bind(data_shapes=[("data", (2, 3))])
    mod.init_params(initializer=mx.init.Uniform(0.5))
    arg, aux = mod.get_params()
    assert (arg["fc_weight"].asnumpy() == 3.0).all()
    assert (aux["bn_moving_mean"].asnumpy() == 0).all()
    assert (aux["bn_moving_var"].asnumpy() == 1).all()
    assert (arg["bn_gamma"].asnumpy() == 1).all()
    assert (arg["bn_beta"].asnumpy() == 0).all()


def test_init_params_missing_and_force_init():
    mod = mx.mod.Module(_mlp())
    mod.bind(data_shapes=[("data", (2, 10))])
    partial = {"fc1_weight": mx.nd.ones((16, 10))}
    with pytest.raises(RuntimeError, match="fc1_bias"):
        mod.init_params(arg_params=partial)
    mod.init_params(initializer=mx.init.Zero(), arg_params=partial, allow_missing=True)
    arg, _ = mod.get_params()
    assert (arg["fc1_weight"].asnumpy() == 1).all()
    assert (arg["fc2_weight"].asnumpy() == 0).all()
    # a second init_params without force_init is ignored (with a warning)
    with pytest.warns(UserWarning):
        mod.init_params(initializer=mx.init.One())
    assert (mod.get_params()[0]["fc2_weight"].asnumpy() == 0).all()
    mod.init_params(initializer=mx.init.One(), force_init=True)
    assert (mod.get_params()[0]["fc2_weight"].asnumpy() == 1).all()


def test_set_params_allow_missing_and_allow_extra():
    data = mx.sym.var("data")
    net = mx.sym.FullyConnected(data, num_hidden=3, name="fc_0")
    net = mx.sym.Activation(net, act_type="relu")
    net = mx.sym.FullyConnected(net, num_hidden=4, name="fc_1")
    mod = mx.mod.Module(net, label_names=None)
    mod.bind(data_shapes=[("data", (10, 10))])
    mod.init_params()
    arg = {"fc_0_weight": mx.nd.ones((3, 10)), "fc_0_bias": mx.nd.ones((3,)),
           "fc_1_weight": mx.nd.ones((4, 3)), "fc_1_bias": mx.nd.ones((4,))}
    mod.set_params(arg, {})
    assert all((v.asnumpy() == 1).all() for v in mod.get_params()[0].values())

    missing = {k: v * 2 for k, v in arg.items() if k != "fc_1_bias"}
    with pytest.raises(RuntimeError):
        mod.set_params(missing, {}, allow_missing=False)
    mod.set_params(missing, {}, allow_missing=True, force_init=True)
    got = mod.get_params()[0]
    assert (got["fc_0_weight"].asnumpy() == 2).all()
    assert (got["fc_1_bias"].asnumpy() == 1).all()  # kept

    extra = dict(arg)
    extra["fc_2_weight"] = mx.nd.ones((4, 4))
    with pytest.raises(ValueError):
        mod.set_params(extra, {}, allow_missing=True, force_init=True, allow_extra=False)
    mod.set_params(extra, {}, allow_missing=True, force_init=True, allow_extra=True)
    assert (mod.get_params()[0]["fc_0_weight"].asnumpy() == 1).all()


# ---- computation ---------------------------------------------------------------------------------
def test_forward_matches_numpy_and_input_grads():
    data = mx.sym.var("data")
    fc = mx.sym.FullyConnected(data, num_hidden=3, no_bias=True, name="fc")
    mod = mx.mod.Module(fc, label_names=None)
    mod.bind(data_shapes=[("data", (4, 5))], inputs_need_grad=True)
    w = np.random.randn(3, 5).astype(np.float32)
    mod.init_params(arg_params={"fc_weight": mx.nd.array(w)})
    x = np.random.randn(4, 5).astype(np.float32)
    mod.forward(mx.io.DataBatch([mx.nd.array(x)]), is_train=True)
    np.testing.assert_allclose(mod.get_outputs()[0].asnumpy(), x.dot(w.T), rtol=1e-5, atol=1e-5)
    head = np.random.randn(4, 3).astype(np.float32)
    mod.backward([mx.nd.array(head)])
    np.testing.assert_allclose(mod.get_input_grads()[0].asnumpy(), head.dot(w), rtol=1e-5,
                               atol=1e-5)


def test_reshape_and_update():
    """Bias -1 after one update at batch 7, -3 after one more at batch 14 (rescale 1/7)."""
    for ctx in (mx.cpu(), [mx.cpu(0), mx.cpu(0)]):
        data = mx.sym.var("data")
        sym = mx.sym.FullyConnected(data, num_hidden=20, name="fc")
        dshape = (7, 20)
        mod = mx.mod.Module(sym, ("data",), None, context=ctx)
        mod.bind(data_shapes=[("data", dshape)])
        mod.init_params()
        mod.init_optimizer(optimizer_params={"learning_rate": 1})
        mod.forward(mx.io.DataBatch(data=[mx.nd.ones(dshape)], label=None))
        mod.backward([mx.nd.ones(dshape)])
        mod.update()
        assert mod.get_outputs()[0].shape == dshape
        assert (mod.get_params()[0]["fc_bias"].asnumpy() == -1).all()

        dshape = (14, 20)
        mod.reshape(data_shapes=[("data", dshape)])
        mod.forward(mx.io.DataBatch(data=[mx.nd.ones(dshape)], label=None))
        mod.backward([mx.nd.ones(dshape)])
        mod.update()
        assert mod.get_outputs()[0].shape == dshape
        assert (mod.get_params()[0]["fc_bias"].asnumpy() == -3).all()


def test_forward_reshapes_on_new_batch_shape():
    mod = mx.mod.Module(_mlp(), context=mx.cpu())
    mod.bind(data_shapes=[("data", (8, 10))], label_shapes=[("softmax_label", (8,))])
    mod.init_params()
    x = np.random.randn(3, 10).astype(np.float32)
    mod.forward(mx.io.DataBatch([mx.nd.array(x)], [mx.nd.zeros((3,))]), is_train=False)
    assert mod.get_outputs()[0].shape == (3, 4)
    assert [tuple(d.shape) for d in mod.data_shapes] == [(3, 10)]
    np.testing.assert_allclose(mod.get_outputs()[0].asnumpy(), _np_mlp(_np_params(mod), x),
                               rtol=1e-4, atol=1e-5)
    # back to the first shape: parameters are the same arrays
    x8 = np.random.randn(8, 10).astype(np.float32)
    mod.forward(mx.io.DataBatch([mx.nd.array(x8)], [mx.nd.zeros((8,))]), is_train=False)
    np.testing.assert_allclose(mod.get_outputs()[0].asnumpy(), _np_mlp(_np_params(mod), x8),
                               rtol=1e-4, atol=1e-5)


def test_rescale_grad_and_optimizer_sym():
    data = mx.sym.var("data")
    w = mx.sym.var("fc_weight", lr_mult=0.0)
    fc = mx.sym.FullyConnected(data, weight=w, num_hidden=2, name="fc")
    out = mx.sym.SoftmaxOutput(fc, name="softmax")
    mod = mx.mod.Module(out)
    mod.bind(data_shapes=[("data", (5, 3))], label_shapes=[("softmax_label", (5,))])
    mod.init_params(initializer=mx.init.Uniform(1.0))
    mod.init_optimizer(optimizer_params={"learning_rate": 0.5})
    assert mod._optimizer.rescale_grad == pytest.approx(1.0 / 5)
    assert sorted(set(mod._optimizer.idx2name.values())) == ["fc_bias", "fc_weight"]
    before = _np_params(mod)
    batch = mx.io.DataBatch([mx.nd.ones((5, 3))], [mx.nd.ones((5,))])
    mod.forward_backward(batch)
    mod.update()
    after = _np_params(mod)
    np.testing.assert_array_equal(before["fc_weight"], after["fc_weight"])  # lr_mult 0
    assert not np.allclose(before["fc_bias"], after["fc_bias"])


def test_fixed_param_names_are_not_updated():
    x, y = _problem(n=60)
    mod = mx.mod.Module(_mlp(), fixed_param_names=["fc1_weight"])
    it = mx.io.NDArrayIter(x, y, batch_size=20)
    mod.bind(it.provide_data, it.provide_label)
    mod.init_params(initializer=mx.init.Xavier())
    before = _np_params(mod)
    mod.init_optimizer(optimizer_params={"learning_rate": 0.5})
    for batch in it:
        mod.forward_backward(batch)
        mod.update()
    after = _np_params(mod)
    np.testing.assert_array_equal(before["fc1_weight"], after["fc1_weight"])
    assert not np.allclose(before["fc2_weight"], after["fc2_weight"])


# ---- training loops ----------------------------------------------------------------------------
def test_fit_raises_accuracy_and_score_matches_numpy():
    x, y = _problem()
    it = mx.io.NDArrayIter(x, y, batch_size=20)
    mod = mx.mod.Module(_mlp())
    mod.bind(it.provide_data, it.provide_label)
    mod.init_params(initializer=mx.init.Xavier())
    before = dict(mod.score(it, "acc"))["accuracy"]
    mod.fit(it, num_epoch=10, optimizer="sgd",
            optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
    after = dict(mod.score(it, "acc"))["accuracy"]
    assert after > 0.85 and after > before + 0.2, (before, after)
    expected = (np.argmax(_np_mlp(_np_params(mod), x), axis=1) == y).mean()
    assert after == pytest.approx(expected, abs=1e-6)


def test_fit_logs_train_and_validation(caplog):
    x, y = _problem(n=80)
    train = mx.io.NDArrayIter(x, y, batch_size=20)
    val = mx.io.NDArrayIter(x[:40], y[:40], batch_size=10)
    mod = mx.mod.Module(_mlp())
    with caplog.at_level(logging.INFO):
        mod.fit(train, eval_data=val, num_epoch=2, eval_metric=["acc", "ce"])
    text = caplog.text
    assert re.search(r"Epoch\[1\] Train-accuracy=[\d.]+", text)
    assert re.search(r"Epoch\[1\] Train-cross-entropy=[\d.]+", text)
    assert re.search(r"Epoch\[0\] Time cost=[\d.]+", text)
    assert re.search(r"Epoch\[1\] Validation-accuracy=[\d.]+", text)
    with pytest.raises(ValueError):
        mod.fit(train)  # num_epoch is required


def test_predict_iter_predict_and_score_with_padding():
    x, y = _problem(n=10)
    mod = mx.mod.Module(_mlp())
    mod.bind(data_shapes=[("data", (4, 10))], label_shapes=[("softmax_label", (4,))],
             for_training=False)
    mod.init_params(initializer=mx.init.Xavier())
    expected = _np_mlp(_np_params(mod), x)
    it = mx.io.NDArrayIter(x, y, batch_size=4)  # 4 + 4 + 2 (padded by 2)
    out = mod.predict(it)
    assert out.shape == (10, 4)
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-4, atol=1e-6)

    seen = []
    for outputs, nbatch, batch in mod.iter_predict(it):
        seen.append(nbatch)
        lo = nbatch * 4
        np.testing.assert_allclose(outputs[0].asnumpy(), expected[lo:lo + outputs[0].shape[0]],
                                   rtol=1e-4, atol=1e-6)
        assert outputs[0].shape[0] == 4 - batch.pad
    assert seen == [0, 1, 2]

    lists = mod.predict(it, merge_batches=False)
    assert [o[0].shape[0] for o in lists] == [4, 4, 2]
    assert isinstance(mod.predict(it, always_output_list=True), list)
    assert mod.predict(it, num_batch=1).shape == (4, 4)

    # score: padding rows are counted as NDArrayIter delivers them (MXNet does the same)
    acc = dict(mod.score(mx.io.NDArrayIter(x[:8], y[:8], batch_size=4), "acc"))["accuracy"]
    assert acc == pytest.approx((np.argmax(expected[:8], axis=1) == y[:8]).mean())
    # predict on an array directly
    direct = mod.predict(mx.nd.array(x[:4]))
    np.testing.assert_allclose(direct.asnumpy(), expected[:4], rtol=1e-4, atol=1e-6)


def test_update_metric_and_forward_backward():
    x, y = _problem(n=20)
    mod = mx.mod.Module(_mlp())
    mod.bind(data_shapes=[("data", (20, 10))], label_shapes=[("softmax_label", (20,))])
    mod.init_params()
    mod.init_optimizer()
    batch = mx.io.DataBatch([mx.nd.array(x)], [mx.nd.array(y)])
    mod.forward_backward(batch)
    metric = mx.metric.Accuracy()
    mod.update_metric(metric, batch.label)
    pred = mod.get_outputs()[0].asnumpy()
    assert metric.get()[1] == pytest.approx((pred.argmax(axis=1) == y).mean())
    # SoftmaxOutput's gradient w.r.t. its input is softmax - onehot; fc2_bias grad is its sum
    onehot = np.eye(4)[y.astype(int)]
    grad_bias = mod._exec_group.grad_arrays[mod._exec_group.param_names.index("fc2_bias")][0]
    np.testing.assert_allclose(grad_bias.asnumpy(), (pred - onehot).sum(axis=0), rtol=1e-4,
                               atol=1e-5)


# ---- checkpoints ----------------------------------------------------------------------------
def test_model_save_load_checkpoint_roundtrip(tmp_path):
    prefix = str(tmp_path / "net")
    sym = _mlp()
    arg = {"fc1_weight": mx.nd.array(np.random.randn(16, 10)), "fc1_bias": mx.nd.ones((16,))}
    aux = {"bn_moving_var": mx.nd.ones((3,)) * 2}
    mx.model.save_checkpoint(prefix, 7, sym, arg, aux)
    assert os.path.isfile(prefix + "-symbol.json") and os.path.isfile(prefix + "-0007.params")
    raw = mx.nd.load(prefix + "-0007.params")
    assert sorted(raw) == ["arg:fc1_bias", "arg:fc1_weight", "aux:bn_moving_var"]
    sym2, arg2, aux2 = mx.model.load_checkpoint(prefix, 7)
    assert sym2.tojson() == sym.tojson()
    for k in arg:
        np.testing.assert_array_equal(arg2[k].asnumpy(), arg[k].asnumpy())
    np.testing.assert_array_equal(aux2["bn_moving_var"].asnumpy(), 2 * np.ones(3))
    arg3, aux3 = mx.model.load_params(prefix, 7)
    assert sorted(arg3) == sorted(arg) and sorted(aux3) == sorted(aux)
    # keys split at the first ':' only
    mx.nd.save(prefix + "-0008.params", {"arg:a:b": mx.nd.ones((1,))})
    arg4, _ = mx.model.load_params(prefix, 8)
    assert list(arg4) == ["a:b"]
    mx.nd.save(prefix + "-0009.params", {"bad": mx.nd.ones((1,))})
    with pytest.raises(ValueError):
        mx.model.load_params(prefix, 9)


def test_module_checkpoint_with_optimizer_states(tmp_path):
    x, y = _problem(n=100)
    mod, it = _trained_module(x, y, epochs=2)
    prefix = str(tmp_path / "mlp")
    mod.save_checkpoint(prefix, 3, save_optimizer_states=True)
    for suffix in ("-symbol.json", "-0003.params", "-0003.states"):
        assert os.path.isfile(prefix + suffix)

    mod2 = mx.mod.Module.load(prefix, 3, load_optimizer_states=True)
    mod2.bind(it.provide_data, it.provide_label)
    mod2.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
    p1, p2 = _np_params(mod), _np_params(mod2)
    for k in p1:
        np.testing.assert_array_equal(p1[k], p2[k])
    s1 = pickle.loads(mod._updater.get_states())
    s2 = pickle.loads(mod2._updater.get_states())
    assert sorted(s1) == sorted(s2)
    for k in s1:
        np.testing.assert_allclose(s1[k].asnumpy(), s2[k].asnumpy())

    # one more identical step keeps them identical (momentum restored)
    it.reset()
    batch = next(iter(it))
    for m in (mod, mod2):
        m.forward_backward(batch)
        m.update()
    p1, p2 = _np_params(mod), _np_params(mod2)
    for k in p1:
        np.testing.assert_allclose(p1[k], p2[k], rtol=1e-6, atol=1e-7)

    # save_optimizer_states / load_optimizer_states directly
    states = str(tmp_path / "opt.states")
    mod.save_optimizer_states(states)
    mod2.load_optimizer_states(states)


def test_save_params_load_params(tmp_path):
    x, y = _problem(n=40)
    mod, it = _trained_module(x, y, epochs=1)
    fname = str(tmp_path / "p.params")
    mod.save_params(fname)
    mod2 = mx.mod.Module(_mlp())
    mod2.bind(it.provide_data, it.provide_label)
    mod2.init_params()
    mod2.load_params(fname)
    p1, p2 = _np_params(mod), _np_params(mod2)
    for k in p1:
        np.testing.assert_array_equal(p1[k], p2[k])


def test_bucketing_module_shares_parameters_and_trains():
    rng = np.random.RandomState(3)
    mod = mx.mod.BucketingModule(_bucket_sym_gen, default_bucket_key=10, context=mx.cpu())
    mod.bind(data_shapes=[("data", (8, 10, 4))], label_shapes=[("softmax_label", (8,))])
    mod.init_params(initializer=mx.init.Xavier())
    mod.init_optimizer(optimizer_params={"learning_rate": 0.1})
    metric = mx.metric.Accuracy()

    def accuracy(keys):
        metric.reset()
        for key in keys:
            batch, _, _ = _bucket_batch(np.random.RandomState(100 + key), key, n=64)
            mod.forward(batch, is_train=False)
            mod.update_metric(metric, batch.label)
        return metric.get()[1]

    start = accuracy([5, 10])
    for _ in range(60):
        for key in (5, 10, 7):
            batch, _, _ = _bucket_batch(rng, key)
            mod.forward(batch, is_train=True)
            mod.backward()
            mod.update()
    assert sorted(mod._buckets) == [5, 7, 10]
    assert mod.get_outputs()[0].shape == (8, 3)
    default = mod._buckets[10]._exec_group
    for key in (5, 7):
        group = mod._buckets[key]._exec_group
        for name in ("fc_weight", "fc_bias"):
            assert group._params[name][0] is default._params[name][0]
    end = accuracy([5, 10])
    assert end > 0.8 and end > start, (start, end)

    # outputs of every bucket agree with numpy on the shared parameters
    arg, _ = mod.get_params()
    w, b = arg["fc_weight"].asnumpy(), arg["fc_bias"].asnumpy()
    for key in (5, 12):
        batch, x, _ = _bucket_batch(rng, key)
        mod.forward(batch, is_train=False)
        z = x.sum(axis=1).dot(w.T) + b
        e = np.exp(z - z.max(axis=1, keepdims=True))
        np.testing.assert_allclose(mod.get_outputs()[0].asnumpy(), e / e.sum(1, keepdims=True),
                                   rtol=1e-4, atol=1e-5)
    assert mod.symbol is mod._buckets[12].symbol


def test_bucketing_module_checkpoint(tmp_path):
    mod = mx.mod.BucketingModule(_bucket_sym_gen, default_bucket_key=6)
    mod.bind(data_shapes=[("data", (8, 6, 4))], label_shapes=[("softmax_label", (8,))])
    mod.init_params(initializer=mx.init.Xavier())
    prefix = str(tmp_path / "bucket")
    mod.save_checkpoint(prefix, 1)
    mod2 = mx.mod.BucketingModule.load(prefix, 1, sym_gen=_bucket_sym_gen, default_bucket_key=6)
    mod2.bind(data_shapes=[("data", (8, 6, 4))], label_shapes=[("softmax_label", (8,))])
    a1, a2 = mod.get_params()[0], mod2.get_params()[0]
    for k in a1:
        np.testing.assert_array_equal(a1[k].asnumpy(), a2[k].asnumpy())
