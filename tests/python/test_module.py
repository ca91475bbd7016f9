"""mx.mod (Module, BucketingModule), mx.model checkpoints, mx.callback and mx.viz.

Expected values are computed with numpy from the module's own parameters.
"""
import logging
import os
import pickle
import re

import numpy as np
import pytest

import mxnet as mx


# ---- helpers -----------------------------------------------------------------------------------
def _mlp(num_hidden=16, num_classes=4):
    data = mx.sym.var("data")
    fc1 = mx.sym.FullyConnected(data, num_hidden=num_hidden, name="fc1")
    act = mx.sym.Activation(fc1, act_type="relu", name="relu1")
    fc2 = mx.sym.FullyConnected(act, num_hidden=num_classes, name="fc2")
    return mx.sym.SoftmaxOutput(fc2, name="softmax")


def _problem(n=400, dim=10, classes=4, seed=0):
    """Linearly separable classes: label = argmax(x @ w)."""
    rng = np.random.RandomState(seed)
    x = rng.randn(n, dim).astype(np.float32)
    w = rng.randn(dim, classes).astype(np.float32)
    y = np.argmax(x.dot(w), axis=1).astype(np.float32)
    return x, y


def _np_mlp(params, x):
    h = np.maximum(x.dot(params["fc1_weight"].T) + params["fc1_bias"], 0)
    z = h.dot(params["fc2_weight"].T) + params["fc2_bias"]
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def _np_params(mod):
    arg, _ = mod.get_params()
    return {k: v.asnumpy() for k, v in arg.items()}


def _trained_module(x, y, epochs=8, batch_size=20, **fit_kwargs):
    mx.random.seed(1)
    np.random.seed(1)
    it = mx.io.NDArrayIter(x, y, batch_size=batch_size, shuffle=True)
    mod = mx.mod.Module(_mlp(), context=mx.cpu())
    mod.fit(it, num_epoch=epochs, optimizer="sgd",
            optimizer_params={"learning_rate": 0.1, "momentum": 0.9},
            initializer=mx.init.Xavier(), **fit_kwargs)
    return mod, it


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
        np.testing.assert_allclose(s1[k].value, s2[k].value)

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


# ---- bucketing -----------------------------------------------------------------------------
def _bucket_sym_gen(seq_len):
    data = mx.sym.var("data")
    pooled = mx.sym.sum(data, axis=1)  # (N, L, 4) -> (N, 4): parameters independent of L
    fc = mx.sym.FullyConnected(pooled, num_hidden=3, name="fc")
    return mx.sym.SoftmaxOutput(fc, name="softmax"), ("data",), ("softmax_label",)


def _bucket_batch(rng, seq_len, n=8):
    x = rng.randn(n, seq_len, 4).astype(np.float32)
    y = np.argmax(x.sum(axis=1)[:, :3], axis=1).astype(np.float32)
    return mx.io.DataBatch([mx.nd.array(x)], [mx.nd.array(y)], bucket_key=seq_len,
                           provide_data=[mx.io.DataDesc("data", x.shape)],
                           provide_label=[mx.io.DataDesc("softmax_label", y.shape)]), x, y


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


# ---- callbacks ------------------------------------------------------------------------------
def test_speedometer_and_do_checkpoint(tmp_path, caplog):
    x, y = _problem(n=120)
    prefix = str(tmp_path / "cb")
    with caplog.at_level(logging.INFO):
        mod, _ = _trained_module(x, y, epochs=2, batch_size=10,
                                 batch_end_callback=[mx.callback.Speedometer(10, frequent=3),
                                                     mx.callback.log_train_metric(4)],
                                 epoch_end_callback=mx.callback.do_checkpoint(prefix))
    lines = re.findall(r"Epoch\[(\d+)\] Batch \[(\d+)-(\d+)\]\tSpeed: [\d.]+ samples/sec"
                       r"\taccuracy=[\d.]+", caplog.text)
    assert ("0", "0", "3") in lines and ("0", "3", "6") in lines and ("1", "6", "9") in lines
    assert re.search(r"Iter\[0\] Batch\[4\] Train-accuracy=[\d.]+", caplog.text)
    for epoch in (1, 2):
        assert os.path.isfile("%s-%04d.params" % (prefix, epoch))
    assert os.path.isfile(prefix + "-symbol.json")
    sym, arg, aux = mx.model.load_checkpoint(prefix, 2)
    assert sym.list_arguments() == mod.symbol.list_arguments()
    trained = _np_params(mod)
    for k, v in arg.items():
        np.testing.assert_array_equal(v.asnumpy(), trained[k])


def test_speedometer_without_auto_reset_and_progress(caplog):
    metric = mx.metric.Accuracy()
    metric.update([mx.nd.array([1, 0])], [mx.nd.array([[0, 1], [0, 1]])])
    speed = mx.callback.Speedometer(4, frequent=2, auto_reset=False)
    bar = mx.callback.ProgressBar(total=4, length=8)
    with caplog.at_level(logging.INFO):
        for nbatch in range(5):
            param = mx.model.BatchEndParam(epoch=3, nbatch=nbatch, eval_metric=metric,
                                           locals=None)
            speed(param)
            bar(param)
    assert re.search(r"Epoch\[3\] Batch \[0-4\]\tSpeed: [\d.]+ samples/sec\taccuracy=0.5",
                     caplog.text)
    assert "[====----] 50%" in caplog.text
    assert metric.num_inst == 2  # not reset


def test_module_checkpoint_callback(tmp_path):
    x, y = _problem(n=40)
    mod = mx.mod.Module(_mlp())
    prefix = str(tmp_path / "mc")
    it = mx.io.NDArrayIter(x, y, batch_size=20)
    mod.fit(it, num_epoch=2, epoch_end_callback=mx.callback.module_checkpoint(
        mod, prefix, period=2, save_optimizer_states=True))
    assert not os.path.exists(prefix + "-0001.params")
    assert os.path.isfile(prefix + "-0002.params") and os.path.isfile(prefix + "-0002.states")


# ---- monitor and visualization ----------------------------------------------------------------
def test_monitor_collects_outputs_and_arguments():
    x, y = _problem(n=4)
    mod = mx.mod.Module(_mlp())
    mod.bind(data_shapes=[("data", (4, 10))], label_shapes=[("softmax_label", (4,))])
    mod.init_params()
    mod.init_optimizer()
    mon = mx.mon.Monitor(1, pattern=".*", sort=True)
    mod.install_monitor(mon)
    mon.tic()
    mod.forward_backward(mx.io.DataBatch([mx.nd.array(x)], [mx.nd.array(y)]))
    rows = mon.toc()
    names = [r[1] for r in rows]
    assert names == sorted(names)
    for name in ("fc1_output", "relu1_output", "fc2_output", "softmax_output", "fc1_weight",
                 "fc2_bias", "data"):
        assert name in names, names
    # inactive between tic()s: nothing collected
    mod.forward(mx.io.DataBatch([mx.nd.array(x)], [mx.nd.array(y)]))
    assert mon.toc() == []


def _lenet():
    data = mx.sym.var("data")
    c1 = mx.sym.Convolution(data, kernel=(5, 5), num_filter=20, name="conv1")
    b1 = mx.sym.BatchNorm(c1, name="bn1")
    a1 = mx.sym.Activation(b1, act_type="relu", name="relu1")
    p1 = mx.sym.Pooling(a1, kernel=(2, 2), stride=(2, 2), pool_type="max", name="pool1")
    c2 = mx.sym.Convolution(p1, kernel=(5, 5), num_filter=50, name="conv2")
    a2 = mx.sym.Activation(c2, act_type="relu", name="relu2")
    p2 = mx.sym.Pooling(a2, kernel=(2, 2), stride=(2, 2), pool_type="max", name="pool2")
    f = mx.sym.Flatten(p2, name="flatten")
    fc1 = mx.sym.FullyConnected(f, num_hidden=500, name="fc1")
    fc2 = mx.sym.FullyConnected(fc1, num_hidden=10, name="fc2")
    return mx.sym.SoftmaxOutput(fc2, name="softmax")


def test_print_summary(capsys):
    mx.viz.print_summary(_lenet(), shape={"data": (1, 1, 28, 28)})
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == "_" * 120
    assert lines[1].startswith("Layer (type)") and "Output Shape" in lines[1]
    assert lines[1].index("Output Shape") == int(120 * .44)
    assert lines[1].index("Param #") == int(120 * .64)
    assert lines[1].index("Previous Layer") == int(120 * .74)
    conv1 = [l for l in lines if l.startswith("conv1(Convolution)")][0]
    assert "20x24x24" in conv1 and " 520 " in conv1 and conv1.rstrip().endswith("data")
    assert re.search(r"^bn1\(BatchNorm\)\s+20x24x24\s+40\s+conv1", out, re.M)
    assert re.search(r"^conv2\(Convolution\)\s+50x8x8\s+25050\s+pool1", out, re.M)
    assert re.search(r"^fc1\(FullyConnected\)\s+500\s+400500\s+flatten", out, re.M)
    assert re.search(r"^fc2\(FullyConnected\)\s+10\s+5010\s+fc1", out, re.M)
    assert re.search(r"^data\(null\)\s+1x28x28\s+0", out, re.M)
    assert "Total params: %d" % (520 + 40 + 25050 + 400500 + 5010) in out
    assert lines[-1] == "_" * 120
    # without shapes: no shape column, still a table
    mx.viz.print_summary(_lenet())
    out = capsys.readouterr().out
    assert "conv1(Convolution)" in out and "Total params:" in out


def test_print_summary_multiple_inputs_and_narrow_lines(capsys):
    a = mx.sym.var("data")
    c1 = mx.sym.Convolution(a, kernel=(3, 3), num_filter=4, pad=(1, 1), name="c1")
    c2 = mx.sym.Convolution(a, kernel=(1, 1), num_filter=6, no_bias=True, name="c2")
    cat = mx.sym.Concat(c1, c2, dim=1, name="cat")
    mx.viz.print_summary(cat, shape={"data": (2, 3, 8, 8)}, line_length=80)
    out = capsys.readouterr().out
    assert re.search(r"^c2\(Convolution\)\s+6x8x8\s+18\s+data", out, re.M)
    assert re.search(r"^cat\(Concat\)\s+10x8x8\s+0\s+c1", out, re.M)
    assert re.search(r"^\s+c2\s*$", out, re.M)  # second input on its own row
    assert "Total params: %d" % (3 * 4 * 9 + 4 + 18) in out
    assert all(len(l) <= 80 for l in out.splitlines())


def test_plot_network_needs_graphviz():
    try:
        import graphviz  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="graphviz"):
            mx.viz.plot_network(_mlp())
        return
    dot = mx.viz.plot_network(_lenet(), shape={"data": (1, 1, 28, 28)})
    assert "conv1" in dot.source


def test_data_desc_and_batch_axis():
    d = mx.io.DataDesc("data", (4, 3), layout="TNC")
    assert mx.io.DataDesc.get_batch_axis(d.layout) == 1
    assert d.dtype == np.float32


# ---- more of 1.x's module behaviours -------------------------------------------------------------
def test_fp16_module_keeps_dtype():
    data = mx.sym.var("data")
    sym = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(data, num_hidden=2, name="fc"),
                               name="softmax")
    mod = mx.mod.Module(sym)
    mod.bind(data_shapes=[mx.io.DataDesc("data", (4, 5), np.float16)],
             label_shapes=[mx.io.DataDesc("softmax_label", (4,), np.float16)])
    mod.init_params()
    mod.init_optimizer(optimizer_params={"learning_rate": 0.1, "multi_precision": True})
    mod.forward_backward(mx.io.DataBatch([mx.nd.ones((4, 5), dtype="float16")],
                                         [mx.nd.ones((4,), dtype="float16")]))
    mod.update()
    assert mod.get_outputs()[0].dtype == np.float16
    assert mod.get_params()[0]["fc_weight"].dtype == np.float16


def test_group2ctxs_on_one_device():
    data = mx.sym.var("data")
    with mx.AttrScope(ctx_group="dev1"):
        fc1 = mx.sym.FullyConnected(data, num_hidden=4, name="fc1")
    with mx.AttrScope(ctx_group="dev2"):
        fc2 = mx.sym.FullyConnected(fc1, num_hidden=2, name="fc2")
    out = mx.sym.SoftmaxOutput(fc2, name="softmax")
    mod = mx.mod.Module(out, group2ctxs=[{"dev1": mx.cpu(0), "dev2": mx.cpu(0)}])
    mod.bind(data_shapes=[("data", (4, 5))], label_shapes=[("softmax_label", (4,))])
    mod.init_params()
    mod.init_optimizer()
    mod.forward_backward(mx.io.DataBatch([mx.nd.ones((4, 5))], [mx.nd.ones((4,))]))
    mod.update()
    assert mod.get_outputs()[0].shape == (4, 2)


def test_two_contexts_split_the_batch_and_match_one():
    x, y = _problem(n=120)
    results = []
    for ctx in (mx.cpu(), [mx.cpu(0), mx.cpu(0)]):
        mx.random.seed(5)
        mod = mx.mod.Module(_mlp(), context=ctx)
        it = mx.io.NDArrayIter(x, y, batch_size=20)
        mod.fit(it, num_epoch=3, kvstore="device", initializer=mx.init.Xavier(),
                optimizer_params={"learning_rate": 0.1})
        results.append((_np_params(mod), mod.predict(it).asnumpy()))
        if isinstance(ctx, list):
            assert len(mod._exec_group.execs) == 2
            assert [s.stop - s.start for s in mod._exec_group.slices] == [10, 10]
            parts = mod.get_outputs(merge_multi_context=False)
            assert [p.shape for p in parts[0]] == [(10, 4), (10, 4)]
    (p1, o1), (p2, o2) = results
    for k in p1:
        np.testing.assert_allclose(p1[k], p2[k], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(o1, o2, rtol=1e-4, atol=1e-5)


class _BucketIter(mx.io.DataIter):
    """Batches of sequences whose length (the bucket key) varies from batch to batch."""

    def __init__(self, keys, batch_size=8, seed=0):
        super(_BucketIter, self).__init__(batch_size)
        self.keys = list(keys)
        self.seed = seed
        self.provide_data = [mx.io.DataDesc("data", (batch_size, max(keys), 4))]
        self.provide_label = [mx.io.DataDesc("softmax_label", (batch_size,))]
        self.default_bucket_key = max(keys)
        self.reset()

    def reset(self):
        self.rng = np.random.RandomState(self.seed)
        self.pos = 0

    def next(self):
        if self.pos == len(self.keys):
            raise StopIteration
        key = self.keys[self.pos]
        self.pos += 1
        batch, _, _ = _bucket_batch(self.rng, key, n=self.batch_size)
        return batch


def test_bucketing_module_fit_and_score():
    train = _BucketIter([4, 9, 6, 9, 4, 6] * 10, seed=1)
    val = _BucketIter([4, 9, 6] * 4, batch_size=16, seed=2)
    mod = mx.mod.BucketingModule(_bucket_sym_gen, default_bucket_key=train.default_bucket_key)
    mod.fit(train, eval_data=val, num_epoch=3, initializer=mx.init.Xavier(),
            optimizer_params={"learning_rate": 0.1})
    acc = dict(mod.score(val, "acc"))["accuracy"]
    assert acc > 0.8, acc
    assert sorted(mod._buckets) == [4, 6, 9]
    preds = mod.predict(val, merge_batches=False)
    assert [p[0].shape for p in preds[:3]] == [(16, 3)] * 3


def test_fit_with_monitor_logs_stats(caplog):
    x, y = _problem(n=20)
    mon = mx.mon.Monitor(2, pattern="fc1.*")
    mod = mx.mod.Module(_mlp())
    with caplog.at_level(logging.INFO):
        mod.fit(mx.io.NDArrayIter(x, y, batch_size=10), num_epoch=1, monitor=mon)
    assert re.search(r"Batch:\s+1 fc1_output\s+", caplog.text)
    assert re.search(r"Batch:\s+1 fc1_weight\s+", caplog.text)
    assert "relu1_output" not in caplog.text


def test_state_names_are_inputs_not_params():
    data = mx.sym.var("data")
    state = mx.sym.var("state")
    out = mx.sym.FullyConnected(data, num_hidden=3, name="fc") + state
    mod = mx.mod.Module(out, label_names=None, state_names=["state"])
    mod.bind(data_shapes=[("data", (2, 4))])
    mod.init_params(initializer=mx.init.One())
    assert sorted(mod.get_params()[0]) == ["fc_bias", "fc_weight"]
    mod.set_states(value=5)
    mod.forward(mx.io.DataBatch([mx.nd.ones((2, 4))]), is_train=False)
    np.testing.assert_allclose(mod.get_outputs()[0].asnumpy(), np.full((2, 3), 4 + 5.0))
    np.testing.assert_allclose(mod.get_states()[0].asnumpy(), np.full((2, 3), 5.0))
    mod.set_states(states=[mx.nd.zeros((2, 3))])
    mod.forward(mx.io.DataBatch([mx.nd.ones((2, 4))]), is_train=False)
    np.testing.assert_allclose(mod.get_outputs()[0].asnumpy(), np.full((2, 3), 4.0))


def test_errors_before_bind_and_init():
    mod = mx.mod.Module(_mlp())
    with pytest.raises(RuntimeError):
        mod.init_params()
    with pytest.raises(RuntimeError):
        mod.forward(mx.io.DataBatch([mx.nd.ones((2, 10))]))
    mod.bind(data_shapes=[("data", (2, 10))], for_training=False)
    mod.init_params()
    with pytest.raises(RuntimeError):
        mod.backward()
    with pytest.raises(RuntimeError):
        mod.get_input_grads()


def test_force_rebind_keeps_trained_parameters():
    x, y = _problem(n=40)
    mod, it = _trained_module(x, y, epochs=1)
    it.reset()
    mod.forward_backward(next(iter(it)))
    mod.update()  # the host copies are stale now
    group = mod._exec_group
    trained = {n: a[0].asnumpy() for n, a in zip(group.param_names, group.param_arrays)}
    mod.bind(data_shapes=[("data", (5, 10))], label_shapes=[("softmax_label", (5,))],
             for_training=False, force_rebind=True)
    np.testing.assert_allclose(mod.predict(mx.nd.array(x[:5])).asnumpy(),
                               _np_mlp(trained, x[:5]), rtol=1e-4, atol=1e-6)
    for k, v in _np_params(mod).items():
        np.testing.assert_array_equal(v, trained[k])


def test_monitor_counts_as_mxnet():
    """21 stats: 5 forward outputs, 10 backward outputs, 6 arguments (MXNet 1.x's count)."""
    x = mx.sym.var("data")
    x = mx.sym.FullyConnected(x, num_hidden=2, name="fc_0")
    x = mx.sym.Activation(x, act_type="sigmoid", name="act_0")
    x = mx.sym.FullyConnected(x, num_hidden=2, name="fc_1")
    x = mx.sym.Activation(x, act_type="sigmoid", name="act_1")
    x = mx.sym.SoftmaxOutput(x, name="softmax")

    def mean_abs(arr):
        return mx.nd.sum(mx.nd.abs(arr)) / arr.size

    mon = mx.mon.Monitor(1, stat_func=mean_abs, pattern=".*", sort=True)
    it = mx.io.NDArrayIter(np.array([[0.05, 0.10]]), np.array([1.0]), batch_size=1)
    mod = mx.mod.Module(x, context=[mx.cpu()])
    mod.bind(it.provide_data, label_shapes=it.provide_label, for_training=True)
    mod.install_monitor(mon)
    mod.init_params(arg_params={"fc_0_weight": mx.nd.array([[.15, .20], [.25, .30]]),
                                "fc_0_bias": mx.nd.array([.35, .35]),
                                "fc_1_weight": mx.nd.array([[.40, .45], [.50, .55]]),
                                "fc_1_bias": mx.nd.array([.60, .60])})
    mon.tic()
    mod.forward_backward(next(iter(it)))
    res = mon.toc()
    assert len(res) == 21
    keys = ["act_0", "act_1", "data", "fc_0", "fc_1", "softmax"]
    counts = [sum(1 for _, k, _ in res if k.startswith(key)) for key in keys]
    assert counts == [2, 2, 1, 6, 6, 4]
    stats = {k: float(v.split()[0]) for _, k, v in res}
    assert stats["fc_0_weight"] == pytest.approx(np.mean([.15, .20, .25, .30]))
    h = 1 / (1 + np.exp(-(np.array([.05, .10]).dot([[.15, .25], [.20, .30]]) + .35)))
    assert stats["act_0_output"] == pytest.approx(h.mean(), rel=1e-5)


def test_bucketing_batch_without_provide_data():
    mod = mx.mod.BucketingModule(_bucket_sym_gen, default_bucket_key=6)
    mod.bind(data_shapes=[("data", (8, 6, 4))], label_shapes=[("softmax_label", (8,))])
    mod.init_params()
    batch = mx.io.DataBatch([mx.nd.ones((8, 3, 4))], [mx.nd.zeros((8,))], bucket_key=3)
    mod.forward(batch, is_train=False)
    assert mod.get_outputs()[0].shape == (8, 3)
    assert [tuple(d.shape) for d in mod.data_shapes] == [(8, 3, 4)]


def test_sequential_module_with_symbolic_and_python_loss():
    x, y = _problem(n=200)
    data = mx.sym.var("data")
    body = mx.sym.FullyConnected(data, num_hidden=16, name="fc1")
    body = mx.sym.Activation(body, act_type="relu", name="relu1")
    body = mx.sym.FullyConnected(body, num_hidden=4, name="fc2")
    head = mx.sym.SoftmaxOutput(mx.sym.var("data"), name="softmax")

    # symbolic body + symbolic loss
    seq = mx.mod.SequentialModule()
    seq.add(mx.mod.Module(body, label_names=None))
    seq.add(mx.mod.Module(head), take_labels=True, auto_wiring=True)
    it = mx.io.NDArrayIter(x, y, batch_size=20)
    mx.random.seed(2)
    seq.fit(it, num_epoch=8, initializer=mx.init.Xavier(),
            optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
    assert dict(seq.score(it, "acc"))["accuracy"] > 0.85
    assert sorted(seq.get_params()[0]) == ["fc1_bias", "fc1_weight", "fc2_bias", "fc2_weight"]
    assert seq.output_shapes == [("softmax_output", (20, 4))]

    # symbolic body + a loss written in Python: softmax cross-entropy's gradient
    def grad_func(scores, labels):
        s = scores.asnumpy()
        e = np.exp(s - s.max(axis=1, keepdims=True))
        p = e / e.sum(axis=1, keepdims=True)
        return p - np.eye(4)[labels.asnumpy().astype(int)]

    seq2 = mx.mod.SequentialModule()
    seq2.add(mx.mod.Module(body, label_names=None))
    seq2.add(mx.mod.PythonLossModule(grad_func=grad_func), take_labels=True, auto_wiring=True)
    mx.random.seed(2)
    seq2.fit(it, num_epoch=8, initializer=mx.init.Xavier(),
             optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
    # the Python loss outputs raw scores: accuracy still works on their argmax
    assert dict(seq2.score(it, "acc"))["accuracy"] > 0.85
    with pytest.raises(ValueError):
        seq2.add(mx.mod.Module(head), take_lables=True)
