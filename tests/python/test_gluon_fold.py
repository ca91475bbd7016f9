"""Hybridized inference folds BatchNorm into the preceding convolution (and fuses a following
activation): outputs against NumPy and against the unfused layers, refolding after every kind of
parameter change, training untouched, the MXNET_GLUON_FOLD_BN switch, the `_sg_onednn_conv` op."""
import ctypes
import itertools
import os

import numpy as np
import pytest

import mxnet as mx
from mxnet import autograd, gluon, nd
from mxnet.base import _LIB, NDArrayHandle, check_call
from mxnet.gluon import nn
from mxnet.gluon.model_zoo import vision
from mxnet.test_utils import environment
from nn_op_table import plain_path_rerun
from op_testing import run_onednn_verbose

RS = np.random.RandomState(11)


def _np_conv(x, w, b, stride, pad, groups, dilate=None):
    """N-D grouped convolution, channel-first, by summing one kernel offset at a time."""
    nsp = x.ndim - 2
    dilate = dilate or (1,) * nsp
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in pad])
    f, cg = w.shape[:2]
    out_sp = [(xp.shape[2 + i] - dilate[i] * (w.shape[2 + i] - 1) - 1) // stride[i] + 1
              for i in range(nsp)]
    out = np.zeros((x.shape[0], f) + tuple(out_sp))
    fg = f // groups
    for offset in itertools.product(*[range(k) for k in w.shape[2:]]):
        window = tuple(slice(o * d, o * d + s * (n - 1) + 1, s)
                       for o, d, s, n in zip(offset, dilate, stride, out_sp))
        xs = xp[(slice(None), slice(None)) + window]
        for g in range(groups):
            wk = w[(slice(g * fg, (g + 1) * fg), slice(None)) + offset]
            out[:, g * fg:(g + 1) * fg] += np.einsum("nc...,fc->nf...", xs[:, g * cg:(g + 1) * cg], wk)
    if b is not None:
        out += b.reshape((1, -1) + (1,) * nsp)
    return out


def _np_bn(y, gamma, beta, mean, var, eps, fix_gamma):
    shape = (1, -1) + (1,) * (y.ndim - 2)
    g = np.ones_like(gamma) if fix_gamma else gamma
    return (y - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps) * g.reshape(shape) + \
        beta.reshape(shape)


def _randomise(net):
    """Non-trivial values for every parameter, running statistics included."""
    for p in net.collect_params().values():
        shape = p.data().shape
        if p.name.endswith("running_var"):
            p.set_data(nd.array(RS.uniform(0.5, 2.0, shape)))
        else:
            p.set_data(nd.array(RS.uniform(-1, 1, shape)))


class _Counter(object):
    """Counts calls of a layer class's hybrid_forward (folded layers are not called)."""

    def __init__(self, monkeypatch, cls):
        self.calls = 0
        original = cls.hybrid_forward

        def counting(block, *args, **kwargs):
            self.calls += 1
            return original(block, *args, **kwargs)
        monkeypatch.setattr(cls, "hybrid_forward", counting)


@pytest.fixture
def bn_calls(monkeypatch):
    return _Counter(monkeypatch, nn.BatchNorm)


@pytest.fixture
def act_calls(monkeypatch):
    return _Counter(monkeypatch, nn.Activation)


def _conv_layer(nsp, channels, kernel, groups=1, use_bias=True, activation=None, pad=1, stride=1):
    cls = {1: nn.Conv1D, 2: nn.Conv2D, 3: nn.Conv3D}[nsp]
    return cls(channels, kernel, strides=stride, padding=pad, groups=groups, use_bias=use_bias,
               activation=activation)


# (name, spatial dims, conv kwargs, BatchNorm kwargs or None, follow with Activation('relu'))
CASES = [
    ("conv_bn", 2, {}, {}, False),
    ("conv_bn_relu", 2, {}, {}, True),
    ("conv_act_relu", 2, {"activation": "relu"}, None, False),
    ("conv_relu_child", 2, {}, None, True),
    ("grouped", 2, {"groups": 2}, {}, True),
    ("depthwise", 2, {"groups": 4}, {}, False),
    ("no_bias", 2, {"use_bias": False}, {}, True),
    ("bn_scale_false", 2, {}, {"scale": False}, True),
    ("bn_eps", 2, {"stride": 2}, {"epsilon": 0.1}, False),
    ("conv1d", 1, {}, {}, True),
    ("conv3d", 3, {}, {}, True),
    ("conv_act_sigmoid", 2, {"activation": "sigmoid"}, None, False),
]


def _build(nsp, conv_kw, bn_kw, relu):
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(_conv_layer(nsp, 4, 3, **conv_kw))
        if bn_kw is not None:
            net.add(nn.BatchNorm(**bn_kw))
        if relu:
            net.add(nn.Activation("relu"))
    return net


def _reference(net, x, nsp, conv_kw, bn_kw, relu):
    conv = net[0]
    w = conv.weight.data().asnumpy()
    b = conv.bias.data().asnumpy() if conv.bias is not None else None
    stride = (conv_kw.get("stride", 1),) * nsp
    y = _np_conv(x, w, b, stride, (1,) * nsp, conv_kw.get("groups", 1))
    if conv_kw.get("activation") == "relu":
        y = np.maximum(y, 0)
    elif conv_kw.get("activation") == "sigmoid":
        y = 1 / (1 + np.exp(-y))
    if bn_kw is not None:
        bn = net[1]
        y = _np_bn(y, *[p.data().asnumpy() for p in (bn.gamma, bn.beta, bn.running_mean,
                                                      bn.running_var)],
                   eps=bn_kw.get("epsilon", 1e-5), fix_gamma=not bn_kw.get("scale", True))
    if relu:
        y = np.maximum(y, 0)
    return y


@pytest.mark.parametrize("name,nsp,conv_kw,bn_kw,relu", CASES, ids=[c[0] for c in CASES])
def test_hybridized_inference_folds_and_matches_numpy(bn_calls, act_calls, name, nsp, conv_kw, bn_kw,
                                                     relu):
    net = _build(nsp, conv_kw, bn_kw, relu)
    net.initialize()
    x = RS.uniform(-1, 1, (2, 4) + (6,) * nsp)
    net(nd.array(x))  # completes deferred initialisation
    _randomise(net)
    unfused = net(nd.array(x)).asnumpy()
    calls_unfused = (bn_calls.calls, act_calls.calls)
    net.hybridize()
    fused = net(nd.array(x)).asnumpy()
    expected = _reference(net, x, nsp, conv_kw, bn_kw, relu)
    np.testing.assert_allclose(unfused, expected, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(fused, expected, rtol=1e-4, atol=1e-4)
    # The fused run called neither BatchNorm nor Activation.
    assert (bn_calls.calls, act_calls.calls) == calls_unfused
    assert calls_unfused != (0, 0)


def _small_net():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Conv2D(6, 3, padding=1), nn.BatchNorm(), nn.Activation("relu"),
                nn.Conv2D(4, 1, use_bias=False), nn.BatchNorm(scale=False), nn.MaxPool2D(2),
                nn.Flatten(), nn.Dense(3))
    net.initialize()
    x = nd.array(RS.uniform(-1, 1, (2, 3, 8, 8)))
    net(x)
    _randomise(net)
    return net, x


def _unfused(net, x):
    with environment("MXNET_GLUON_FOLD_BN", "0"):
        return net(x).asnumpy()


def test_switch_off_runs_every_layer(bn_calls):
    net, x = _small_net()
    net.hybridize()
    start = bn_calls.calls
    with environment("MXNET_GLUON_FOLD_BN", "0"):
        off = net(x).asnumpy()
    assert bn_calls.calls == start + 2
    on = net(x).asnumpy()
    assert bn_calls.calls == start + 2
    np.testing.assert_allclose(on, off, rtol=1e-4, atol=1e-4)


def test_switch_off_runs_batchnorm_and_relu_as_layers_in_training(bn_calls, act_calls):
    net, x = _small_net()
    net.hybridize()
    start_bn, start_act = bn_calls.calls, act_calls.calls
    with autograd.record():
        fused = net(x)
    assert (bn_calls.calls, act_calls.calls) == (start_bn + 1, start_act)
    with environment("MXNET_GLUON_FOLD_BN", "0"):
        with autograd.record():
            layers = net(x)
    assert (bn_calls.calls, act_calls.calls) == (start_bn + 3, start_act + 1)
    np.testing.assert_allclose(fused.asnumpy(), layers.asnumpy(), rtol=1e-5, atol=1e-5)


def test_set_data_refolds():
    net, x = _small_net()
    net.hybridize()
    net(x).wait_to_read()
    for param in ("gamma", "beta", "running_mean", "running_var"):
        bn = net[1]
        getattr(bn, param).set_data(nd.array(RS.uniform(0.5, 1.5, (6,))))
        np.testing.assert_allclose(net(x).asnumpy(), _unfused(net, x), rtol=1e-4, atol=1e-4)
    net[0].weight.set_data(nd.array(RS.uniform(-1, 1, (6, 3, 3, 3))))
    net[0].bias.data()[:] = 0.5  # an in-place write, not a new array
    np.testing.assert_allclose(net(x).asnumpy(), _unfused(net, x), rtol=1e-4, atol=1e-4)


def test_load_parameters_refolds(tmp_path):
    net, x = _small_net()
    other, _ = _small_net()
    net.hybridize()
    before = net(x).asnumpy()
    path = str(tmp_path / "other.params")
    other.save_parameters(path)
    net.load_parameters(path)
    after = net(x).asnumpy()
    np.testing.assert_allclose(after, other(x).asnumpy(), rtol=1e-4, atol=1e-4)
    assert not np.allclose(before, after)


def test_training_step_refolds_weights_and_running_statistics():
    net, x = _small_net()
    net.hybridize()
    folded = net(x).asnumpy()
    # A recorded forward in training mode moves only the running statistics.
    with autograd.record():
        net(x).wait_to_read()
    moved = net(x).asnumpy()
    np.testing.assert_allclose(moved, _unfused(net, x), rtol=1e-4, atol=1e-4)
    assert not np.allclose(moved, folded)
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.5})
    with autograd.record():
        loss = net(x).sum()
    loss.backward()
    trainer.step(2)
    # Training-mode BatchNorm moved its running statistics and the step moved the weights.
    np.testing.assert_allclose(net(x).asnumpy(), _unfused(net, x), rtol=1e-4, atol=1e-4)


def test_cast_refolds():
    net, x = _small_net()
    net.hybridize()
    net(x).wait_to_read()
    net.cast("float64")
    x64 = x.astype("float64")
    out = net(x64)
    assert out.dtype == np.float64
    np.testing.assert_allclose(out.asnumpy(), _unfused(net, x64), rtol=1e-10, atol=1e-10)


def test_recording_and_training_mode_fold_nothing(bn_calls):
    # Batch statistics: no BatchNorm folds into its convolution. The first BatchNorm, followed
    # by a ReLU, runs as BatchNormWithReLU in the hybridized net; the second runs as a layer.
    ref, x = _small_net()
    net, _ = _small_net()
    for p_ref, p in zip(ref.collect_params().values(), net.collect_params().values()):
        p.set_data(p_ref.data())
    net.hybridize()
    start = bn_calls.calls
    grads = []
    for block in (ref, net):
        with autograd.record():
            out = block(x)
        out.backward(nd.ones_like(out))
        grads.append([p.grad().asnumpy() for p in block.collect_params().values()
                      if p.grad_req != "null"])
    assert bn_calls.calls == start + 2 + 1
    for g_ref, g in zip(*grads):
        np.testing.assert_allclose(g, g_ref, rtol=1e-5, atol=1e-6)
    # Training mode without recording uses batch statistics: nothing is folded either.
    with autograd.train_mode():
        np.testing.assert_allclose(net(x).asnumpy(), ref(x).asnumpy(), rtol=1e-5, atol=1e-5)
    assert bn_calls.calls == start + 6


def test_non_hybridized_and_hooked_blocks_run_every_layer(bn_calls):
    net, x = _small_net()
    start = bn_calls.calls
    net(x).wait_to_read()
    assert bn_calls.calls == start + 2
    net.hybridize()
    seen = []
    handle = net[1].register_forward_hook(lambda block, inputs, out: seen.append(out.shape))
    net(x).wait_to_read()
    # Only the hooked unit runs layer by layer; the second conv + BatchNorm stays folded.
    assert bn_calls.calls == start + 3 and seen == [(2, 6, 8, 8)]
    handle.detach()
    net(x).wait_to_read()
    assert bn_calls.calls == start + 3


def test_deferred_initialisation_then_fused(bn_calls):
    net = nn.HybridSequential()
    net.add(nn.Conv2D(3, 3), nn.BatchNorm(), nn.Activation("relu"))
    net.initialize()
    net.hybridize()
    x = nd.array(RS.uniform(-1, 1, (1, 2, 5, 5)))
    first = net(x).asnumpy()  # shapes inferred by the layers themselves
    assert bn_calls.calls == 1
    np.testing.assert_allclose(net(x).asnumpy(), first, rtol=1e-5, atol=1e-5)
    assert bn_calls.calls == 1


def test_without_the_fused_op_the_activation_runs_after_the_folded_conv(monkeypatch):
    # What a GPU context gets: the fused op is a CPU kernel.
    from mxnet.gluon.nn import conv_fold
    net, x = _small_net()
    net.hybridize()
    invoked = []
    original = conv_fold.imperative_invoke
    monkeypatch.setattr(conv_fold, "_fused_op_runs_on", lambda ctx: False)
    monkeypatch.setattr(conv_fold, "imperative_invoke",
                        lambda handle, *rest: invoked.append(handle.value) or original(handle, *rest))
    np.testing.assert_allclose(net(x).asnumpy(), _unfused(net, x), rtol=1e-4, atol=1e-4)
    assert invoked and set(invoked) == {conv_fold._op_handle("Convolution").value}


def test_other_contexts_fold_separately():
    net, x = _small_net()
    net.hybridize()
    expected = net(x).asnumpy()
    net.reset_ctx(mx.cpu(1))
    out = net(x.as_in_context(mx.cpu(1)))
    assert out.context == mx.cpu(1)
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-5, atol=1e-5)


def _zoo_net(model="resnet18_v1"):
    net = getattr(vision, model)(classes=10)
    net.initialize(mx.init.Xavier())
    x = nd.array(RS.uniform(-1, 1, (2, 3, 32, 32)))
    net(x)
    for name, p in net.collect_params().items():
        if name.endswith("running_var"):
            p.set_data(nd.array(RS.uniform(0.5, 2.0, p.shape)))
        elif name.endswith(("running_mean", "gamma", "beta")):
            p.set_data(nd.array(RS.uniform(-0.5, 0.5, p.shape) + (1 if "gamma" in name else 0)))
    return net, x


def test_model_zoo_resnet18_v1(bn_calls):
    net, x = _zoo_net()
    calls = bn_calls.calls
    imperative = net(x).asnumpy()
    per_run = bn_calls.calls - calls
    assert per_run == 20
    net.hybridize()
    hybrid = net(x).asnumpy()
    assert bn_calls.calls == calls + per_run
    np.testing.assert_allclose(hybrid, imperative, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("model", ["resnet18_v1", "resnet50_v1"])
def test_model_zoo_resnet_v1_fuses_the_residual_sum_and_relu(monkeypatch, model):
    net, x = _zoo_net(model)
    imperative = net(x).asnumpy()
    activations = []
    original = nd.Activation
    monkeypatch.setattr(nd, "Activation", lambda *a, **k: activations.append(k) or original(*a, **k))
    net.hybridize()
    hybrid = net(x).asnumpy()
    # Every block's sum + ReLU ran inside its last convolution.
    assert activations == []
    np.testing.assert_allclose(hybrid, imperative, rtol=1e-3, atol=1e-3)
    with environment("MXNET_GLUON_FOLD_BN", "0"):
        np.testing.assert_allclose(net(x).asnumpy(), imperative, rtol=1e-5, atol=1e-5)
    unfused = len(activations)  # each block's ReLU and those inside its body
    blocks = {"resnet18_v1": 8, "resnet50_v1": 16}[model]
    assert unfused > blocks
    with autograd.record():
        net(x)
    # Training mode: each block's sum and ReLU run as written; the BatchNorm + ReLU pairs in
    # the bodies and the stem run as BatchNormWithReLU.
    assert len(activations) == unfused + blocks


_VERBOSE = r'''
import mxnet as mx
from mxnet.gluon import nn
net = nn.HybridSequential()
net.add(nn.Conv2D(8, 3, padding=1), nn.BatchNorm(), nn.Activation("relu"))
net.initialize()
x = mx.nd.ones((1, 3, 8, 8))
net(x).wait_to_read()
net.hybridize()
print("FUSED-RUN", flush=True)
net(x).wait_to_read()
'''


@pytest.mark.skipif(os.environ.get("MXNET_ONEDNN_ENABLED") == "0", reason="needs the oneDNN path")
def test_onednn_runs_one_convolution_with_the_relu_post_op():
    before, after = run_onednn_verbose(_VERBOSE).split("FUSED-RUN")
    kinds = lambda text: [line.split(",")[3] for line in text.splitlines()
                          if line.startswith("onednn_verbose,exec")]
    assert {"convolution", "batch_normalization", "eltwise"} <= set(kinds(before)), kinds(before)
    fused = [line for line in after.splitlines() if line.startswith("onednn_verbose,exec")]
    assert [line.split(",")[3] for line in fused if ",reorder," not in line] == ["convolution"], fused
    assert "eltwise_relu" in [line for line in fused if ",convolution," in line][0]


# ---- the fused op itself -------------------------------------------------------------------

ACTS = {"relu": lambda y: np.maximum(y, 0), "sigmoid": lambda y: 1 / (1 + np.exp(-y)),
        "tanh": np.tanh, "softrelu": lambda y: np.log1p(np.exp(y)), "softsign": lambda y: y / (1 + np.abs(y))}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("act", sorted(ACTS))
def test_sg_onednn_conv_op_matches_numpy(act, dtype):
    x = RS.uniform(-1, 1, (2, 4, 7, 7))
    w = RS.uniform(-0.5, 0.5, (6, 2, 3, 3))
    b = RS.uniform(-0.5, 0.5, (6,))
    out = nd._internal._sg_onednn_conv(nd.array(x, dtype=dtype), nd.array(w, dtype=dtype),
                                       nd.array(b, dtype=dtype), kernel=(3, 3), stride=(2, 2),
                                       pad=(1, 1), num_filter=6, num_group=2, act_type=act)
    expected = ACTS[act](_np_conv(x, w, b, (2, 2), (1, 1), 2))
    tol = 1e-4 if dtype == "float32" else 1e-10
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=tol, atol=tol)
    no_bias = nd._internal._sg_onednn_conv(nd.array(x, dtype=dtype), nd.array(w, dtype=dtype),
                                           kernel=(3, 3), num_filter=6, num_group=2, no_bias=True,
                                           act_type=act)
    np.testing.assert_allclose(no_bias.asnumpy(), ACTS[act](_np_conv(x, w, None, (1, 1), (0, 0), 2)),
                               rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("act", ["relu", "sigmoid", "softsign"])
def test_sg_onednn_conv_with_sum_adds_the_residual_before_the_activation(act, dtype):
    # float32 runs oneDNN's sum post-op, float64 the plain kernels accumulating onto the sum.
    x = RS.uniform(-1, 1, (2, 4, 7, 7))
    w = RS.uniform(-0.5, 0.5, (6, 4, 3, 3))
    b = RS.uniform(-0.5, 0.5, (6,))
    r = RS.uniform(-1, 1, (2, 6, 7, 7))
    residual = nd.array(r, dtype=dtype)
    out = nd._internal._sg_onednn_conv(nd.array(x, dtype=dtype), nd.array(w, dtype=dtype),
                                       nd.array(b, dtype=dtype), residual, kernel=(3, 3),
                                       pad=(1, 1), num_filter=6, act_type=act, with_sum=True)
    tol = 1e-4 if dtype == "float32" else 1e-10
    np.testing.assert_allclose(out.asnumpy(), ACTS[act](_np_conv(x, w, b, (1, 1), (1, 1), 1) + r),
                               rtol=tol, atol=tol)
    np.testing.assert_array_equal(residual.asnumpy(), r.astype(dtype))  # the sum input is only read


def test_sg_onednn_conv_with_sum_reads_a_blocked_residual():
    # The residual comes straight from another convolution, in oneDNN's layout when it keeps one.
    x = RS.uniform(-1, 1, (1, 16, 6, 6)).astype(np.float32)
    w1 = RS.uniform(-0.3, 0.3, (16, 16, 1, 1)).astype(np.float32)
    w2 = RS.uniform(-0.3, 0.3, (16, 16, 3, 3)).astype(np.float32)
    residual = nd._internal._sg_onednn_conv(nd.array(x), nd.array(w1), kernel=(1, 1), num_filter=16,
                                            no_bias=True, act_type="relu")
    out = nd._internal._sg_onednn_conv(nd.array(x), nd.array(w2), residual, kernel=(3, 3), pad=(1, 1),
                                       num_filter=16, no_bias=True, act_type="relu", with_sum=True)
    r = np.maximum(_np_conv(x, w1, None, (1, 1), (0, 0), 1), 0)
    np.testing.assert_allclose(out.asnumpy(), np.maximum(_np_conv(x, w2, None, (1, 1), (1, 1), 1) + r, 0),
                               rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(residual.asnumpy(), r, rtol=1e-5, atol=1e-5)


def test_sg_onednn_conv_with_sum_rejects_a_residual_of_another_shape():
    x, w = nd.ones((1, 2, 4, 4)), nd.ones((3, 2, 3, 3))
    with pytest.raises(mx.MXNetError, match="_sg_onednn_conv.*input 2"):
        nd._internal._sg_onednn_conv(x, w, nd.ones((1, 3, 4, 4)), kernel=(3, 3), num_filter=3,
                                     no_bias=True, act_type="relu", with_sum=True)


def test_sg_onednn_conv_op_errors_name_the_op():
    x, w = nd.ones((1, 2, 4, 4)), nd.ones((3, 2, 3, 3))
    with pytest.raises(mx.MXNetError, match="_sg_onednn_conv.*act_type"):
        nd._internal._sg_onednn_conv(x, w, kernel=(3, 3), num_filter=3, no_bias=True, act_type="gelu")
    with pytest.raises(mx.MXNetError, match="_sg_onednn_conv.*act_type"):
        nd._internal._sg_onednn_conv(x, w, kernel=(3, 3), num_filter=3, no_bias=True)
    with pytest.raises(mx.MXNetError, match="_sg_onednn_conv.*num_filter"):
        nd._internal._sg_onednn_conv(x, w, kernel=(3, 3), no_bias=True, act_type="relu")


# ---- write counts -----------------------------------------------------------------------

def _version(arr):
    out = ctypes.c_uint64()
    check_call(_LIB.MXNDArrayGetVersion(arr.handle, ctypes.byref(out)))
    return out.value


def test_version_counts_every_kind_of_write():
    a = nd.zeros((3,))
    v = [_version(a)]
    a[:] = 1                                   # indexed assignment
    v.append(_version(a))
    nd.ones((3,)).copyto(a)                    # copy into
    v.append(_version(a))
    nd.elemwise_add(a, a, out=a)               # op output
    v.append(_version(a))
    view = a[1:2]
    view[:] = 5                                # through a view of the same memory
    v.append(_version(a))
    assert all(later > earlier for earlier, later in zip(v, v[1:])), v
    a.asnumpy()                                # a read leaves it alone
    assert _version(a) == v[-1]


def test_version_counts_batchnorm_statistics_update():
    data = nd.array(RS.uniform(size=(4, 3, 2, 2)))
    gamma, beta, mean, var = nd.ones((3,)), nd.zeros((3,)), nd.zeros((3,)), nd.ones((3,))
    before = (_version(mean), _version(var))
    with autograd.train_mode():
        nd.BatchNorm(data, gamma, beta, mean, var, fix_gamma=False).wait_to_read()
    assert _version(mean) > before[0] and _version(var) > before[1]


def test_versions_of_a_group_match_one_by_one():
    arrays = [nd.zeros((2,)), nd.ones((3,)), nd.zeros((1,))]
    arrays[1][:] = 3
    arrays[2][:] = 4
    arrays[2][:] = 5
    handles = (NDArrayHandle * 3)(*[a.handle for a in arrays])
    out = (ctypes.c_uint64 * 3)()
    check_call(_LIB.MXNDArrayGetVersions(3, handles, out))
    assert list(out) == [_version(a) for a in arrays]
    assert out[2] == out[0] + 2
    check_call(_LIB.MXNDArrayGetVersions(0, None, None))
    with pytest.raises(mx.MXNetError, match="out_versions is NULL"):
        check_call(_LIB.MXNDArrayGetVersions(3, handles, None))


def test_version_rejects_bad_handles():
    with pytest.raises(mx.MXNetError, match="NULL"):
        check_call(_LIB.MXNDArrayGetVersion(None, ctypes.byref(ctypes.c_uint64())))
    with pytest.raises(mx.MXNetError, match="out_version is NULL"):
        check_call(_LIB.MXNDArrayGetVersion(nd.ones((1,)).handle, None))


test_plain_path = plain_path_rerun(__file__)
