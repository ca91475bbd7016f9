"""Parameters and blocks: naming, collection, deferred init, save/load, sharing, hooks."""
import os

import numpy as np
import pytest

import mxnet as mx
from mxnet import autograd, gluon, nd
from mxnet.gluon import nn


def _mlp(prefix=None):
    net = nn.HybridSequential(prefix=prefix)
    with net.name_scope():
        net.add(nn.Dense(4, activation="relu"), nn.Dense(2))
    return net


def test_prefixes_follow_mxnet_naming():
    net = _mlp()
    prefix = net.prefix
    assert prefix.startswith("hybridsequential") and prefix.endswith("_")
    names = list(net.collect_params().keys())
    assert names == [prefix + "dense0_weight", prefix + "dense0_bias",
                     prefix + "dense1_weight", prefix + "dense1_bias"]
    # the activation inside Dense is named after its type under the Dense prefix
    assert net[0].act.prefix == prefix + "dense0_relu_"


def test_top_level_counters_per_class():
    a, b = nn.Dense(3), nn.Dense(3)
    na, nb = int(a.prefix[len("dense"):-1]), int(b.prefix[len("dense"):-1])
    assert nb == na + 1
    conv = nn.Conv2D(2, 3)
    pool = nn.MaxPool2D()
    assert conv.prefix.startswith("conv") and pool.prefix.startswith("pool")
    assert nn.Dense(2, prefix="mine_").collect_params().keys() == {"mine_weight", "mine_bias"}


def test_collect_params_select():
    net = _mlp()
    weights = net.collect_params(".*weight")
    assert len(weights) == 2 and all(k.endswith("weight") for k in weights.keys())
    assert len(net.collect_params("dense0|dense1")) == 0  # match() anchors at the start
    assert len(net.collect_params(".*dense1.*")) == 2


def test_deferred_initialization_at_first_forward():
    net = _mlp()
    net.initialize()
    w = net[0].weight
    assert w.shape == (4, 0)
    with pytest.raises(gluon.DeferredInitializationError):
        w.data()
    out = net(nd.ones((5, 7)))
    assert out.shape == (5, 2)
    assert w.shape == (4, 7) and w.data().shape == (4, 7)
    assert net[1].weight.shape == (2, 4)


def test_uninitialized_parameter_error_and_invalid_shape():
    d = nn.Dense(3, in_units=2)
    with pytest.raises(RuntimeError, match="has not been initialized"):
        d.weight.data()
    p = gluon.Parameter("p", shape=(2, 0))
    with pytest.raises(ValueError, match="invalid shape"):
        p.initialize()


def test_initializers_used_by_layers():
    d = nn.Dense(3, in_units=4, bias_initializer="ones")
    d.initialize(mx.init.Constant(0.5))
    np.testing.assert_allclose(d.weight.data().asnumpy(), np.full((3, 4), 0.5))
    np.testing.assert_allclose(d.bias.data().asnumpy(), np.ones(3))


def _trained_like(net, shape):
    net.initialize(mx.init.Xavier())
    net(nd.ones(shape))
    return {k: v.data().asnumpy() for k, v in net._collect_params_with_prefix().items()}


def test_save_load_structural_keys(tmp_path):
    net = _mlp()
    values = _trained_like(net, (2, 3))
    fname = str(tmp_path / "net.params")
    net.save_parameters(fname)
    assert sorted(nd.load(fname).keys()) == ["0.bias", "0.weight", "1.bias", "1.weight"]
    fresh = _mlp()
    fresh.load_parameters(fname)
    for k, v in fresh._collect_params_with_prefix().items():
        np.testing.assert_array_equal(v.data().asnumpy(), values[k])
    x = nd.array(np.random.RandomState(0).randn(2, 3))
    np.testing.assert_allclose(net(x).asnumpy(), fresh(x).asnumpy(), rtol=1e-6)


def test_load_prefixed_and_arg_aux_keys(tmp_path):
    net = _mlp()
    values = _trained_like(net, (2, 3))
    # keys as ParameterDict.save writes them (prefix stripped) and full names with arg:
    stripped = str(tmp_path / "stripped.params")
    net.collect_params().save(stripped, strip_prefix=net.prefix)
    assert "dense0_weight" in nd.load(stripped)
    fresh = _mlp()
    fresh.load_parameters(stripped)
    np.testing.assert_array_equal(fresh[0].weight.data().asnumpy(), values["0.weight"])

    exported = str(tmp_path / "export.params")
    nd.save(exported, {"arg:" + p.name: p.data() for p in net.collect_params().values()})
    fresh2 = _mlp(prefix=net.prefix)  # full names match when the prefix is the same
    fresh2.load_parameters(exported)
    np.testing.assert_array_equal(fresh2[1].bias.data().asnumpy(), values["1.bias"])


def test_load_batchnorm_aux_from_export_file(tmp_path):
    bn = nn.BatchNorm(in_channels=3)
    bn.initialize()
    rm = np.array([0.1, 0.2, 0.3], dtype=np.float32)
    fname = str(tmp_path / "bn.params")
    nd.save(fname, {"arg:" + bn.gamma.name: nd.ones(3), "arg:" + bn.beta.name: nd.zeros(3),
                    "aux:" + bn.running_mean.name: nd.array(rm),
                    "aux:" + bn.running_var.name: nd.ones(3)})
    bn2 = nn.BatchNorm(in_channels=3, prefix=bn.prefix)
    bn2.load_parameters(fname)
    np.testing.assert_allclose(bn2.running_mean.data().asnumpy(), rm)


def test_allow_missing_and_ignore_extra(tmp_path):
    net = _mlp()
    _trained_like(net, (2, 3))
    fname = str(tmp_path / "partial.params")
    nd.save(fname, {"0.weight": net[0].weight.data(), "9.weight": nd.ones((1,))})
    fresh = _mlp()
    with pytest.raises(ValueError, match="is missing"):
        fresh.load_parameters(fname, ignore_extra=True)
    with pytest.raises(ValueError, match="not present"):
        fresh.load_parameters(fname, allow_missing=True)
    fresh.initialize()
    fresh.load_parameters(fname, allow_missing=True, ignore_extra=True)
    np.testing.assert_array_equal(fresh[0].weight.data().asnumpy(), net[0].weight.data().asnumpy())


def test_load_shape_mismatch_is_an_error(tmp_path):
    fname = str(tmp_path / "bad.params")
    nd.save(fname, {"weight": nd.ones((2, 2)), "bias": nd.ones((2,))})
    d = nn.Dense(3, in_units=2)
    with pytest.raises(ValueError, match="shape incompatible"):
        d.load_parameters(fname)


def test_cast_and_dtype_checked_loading(tmp_path):
    d = nn.Dense(2, in_units=3)
    d.initialize()
    d.cast("float64")
    assert d.weight.data().dtype == np.float64
    out = d(nd.ones((1, 3), dtype="float64"))
    assert out.dtype == np.float64
    fname = str(tmp_path / "d.params")
    d.save_parameters(fname)
    d32 = nn.Dense(2, in_units=3)
    with pytest.raises(ValueError, match="dtype"):
        d32.load_parameters(fname)
    d32.load_parameters(fname, cast_dtype=True)
    assert d32.weight.data().dtype == np.float32


def test_grad_req_setter_zero_grad_and_constant():
    d = nn.Dense(2, in_units=3)
    d.initialize()
    x = nd.ones((4, 3))
    with autograd.record():
        y = d(x).sum()
    y.backward()
    np.testing.assert_allclose(d.weight.grad().asnumpy(), np.full((2, 3), 4.0))
    d.zero_grad()
    assert d.weight.grad().asnumpy().sum() == 0
    d.weight.grad_req = "null"
    with pytest.raises(RuntimeError, match="grad_req"):
        d.weight.grad()
    with pytest.raises(ValueError):
        d.bias.grad_req = "sometimes"
    c = gluon.Constant("c", nd.array([1.0, 2.0]))
    assert c.grad_req == "null"
    c.initialize()
    np.testing.assert_array_equal(c.data().asnumpy(), [1.0, 2.0])


def test_parameter_sharing_by_params_and_share_parameters():
    a = nn.Dense(3, in_units=2)
    b = nn.Dense(3, in_units=2, params=a.collect_params())
    a.initialize()
    assert b.weight is a.weight
    x = nd.ones((1, 2))
    np.testing.assert_array_equal(a(x).asnumpy(), b(x).asnumpy())
    c = _mlp()
    d = _mlp()
    c.initialize()
    c(nd.ones((1, 3)))
    d.share_parameters(c._collect_params_with_prefix())
    assert d[0].weight is c[0].weight
    np.testing.assert_array_equal(c(nd.ones((2, 3))).asnumpy(), d(nd.ones((2, 3))).asnumpy())


def test_hooks_and_apply():
    net = _mlp()
    net.initialize()
    seen = []
    h1 = net.register_forward_pre_hook(lambda blk, inp: seen.append(("pre", inp[0].shape)))
    h2 = net.register_forward_hook(lambda blk, inp, out: seen.append(("post", out.shape)))
    net(nd.ones((3, 5)))
    assert seen == [("pre", (3, 5)), ("post", (3, 2))]
    h1.detach()
    h2.detach()
    net(nd.ones((3, 5)))
    assert len(seen) == 2
    kinds = []
    net.apply(lambda blk: kinds.append(type(blk).__name__))
    assert kinds[-1] == "HybridSequential" and kinds.count("Dense") == 2


def test_summary_prints_layers(capsys):
    net = _mlp()
    net.initialize()
    net.summary(nd.ones((2, 3)))
    text = capsys.readouterr().out
    # hooks fire as blocks finish: the Dense's inner activation comes first
    assert "Activation-1" in text and "Dense-2" in text and "Dense-3" in text
    assert "Total params: 26" in text  # 3*4+4 + 4*2+2


def test_hybridize_records_flags_and_still_runs():
    net = _mlp()
    net.initialize()
    net.hybridize(static_alloc=True, static_shape=True)
    assert net._active and ("static_alloc", True) in net._flags and net[0]._active
    assert net(nd.ones((2, 3))).shape == (2, 2)


def test_hybrid_block_rejects_plain_block_child():
    seq = nn.HybridSequential()
    with pytest.raises(ValueError, match="HybridSequential"):
        seq.add(nn.Sequential())


def test_reset_ctx_keeps_values():
    # cpu(1) is a distinct device to the runtime: arrays report it and lookups by cpu(0) miss.
    d = nn.Dense(2, in_units=3)
    d.initialize(mx.init.Uniform(1.0), ctx=mx.cpu(0))
    weight = d.weight.data().asnumpy().astype(np.float64)
    bias = np.array([0.5, -0.25])
    d.bias.set_data(nd.array(bias))
    d.reset_ctx(mx.cpu(1))
    for param, before in ((d.weight, weight), (d.bias, bias)):
        assert param.list_ctx() == [mx.cpu(1)]
        moved = param.data(mx.cpu(1))
        assert moved.context == mx.cpu(1)
        np.testing.assert_array_equal(moved.asnumpy(), before)
        with pytest.raises(RuntimeError, match=r"not initialized on context cpu\(0\)"):
            param.data(mx.cpu(0))
    x = np.arange(6, dtype=np.float64).reshape(2, 3)
    out = d(nd.array(x, ctx=mx.cpu(1)))
    assert out.context == mx.cpu(1)
    np.testing.assert_allclose(out.asnumpy(), x @ weight.T + bias, rtol=1e-5, atol=1e-6)
