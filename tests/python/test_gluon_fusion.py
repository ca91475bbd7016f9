"""Hybridized inference runs the CPU subgraph backend's fusions: Convolution + BatchNorm
(+ residual add) (+ activation) as one `_sg_onednn_conv`, BatchNorm + relu as one op. Outputs
against NumPy and the unhybridized blocks, the folded weights following every kind of parameter
change, recording and training untouched, the switches, the fused op itself, write counts."""
import ctypes
import itertools
import json
import os

import numpy as np
import pytest

import mxnet as mx
from mxnet import autograd, gluon, nd
from mxnet.base import _LIB, NDArrayHandle, check_call
from mxnet.gluon import nn
from mxnet.gluon.model_zoo import vision
from mxnet.test_utils import environment
from op_testing import plain_path_rerun
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


def _fused(net):
    """Fused ops the backend made in the plan that ran the block's latest call."""
    return net._cached_op.info()[1]


# (name, spatial dims, conv kwargs, BatchNorm kwargs or None, follow with Activation('relu'),
#  fused nodes: one `_sg_onednn_conv` for a 2-D convolution with anything after it, one
#  BatchNorm + relu for the other convolutions)
CASES = [
    ("conv_bn", 2, {}, {}, False, 1), ("conv_bn_relu", 2, {}, {}, True, 1),
    ("conv_act_relu", 2, {"activation": "relu"}, None, False, 1), ("conv_relu_child", 2, {}, None, True, 1),
    ("grouped", 2, {"groups": 2}, {}, True, 1), ("depthwise", 2, {"groups": 4}, {}, False, 1),
    ("no_bias", 2, {"use_bias": False}, {}, True, 1), ("bn_scale_false", 2, {}, {"scale": False}, True, 1),
    ("bn_eps", 2, {"strides": 2}, {"epsilon": 0.1}, False, 1),
    ("conv_act_sigmoid", 2, {"activation": "sigmoid"}, None, False, 1),
    ("conv1d", 1, {}, {}, True, 1), ("conv1d_bn", 1, {}, {}, False, 0),
    ("conv3d", 3, {}, {}, True, 1), ("conv3d_bn", 3, {"use_bias": False}, {"scale": False}, False, 0),
]


def _build(nsp, conv_kw, bn_kw, relu):
    net = nn.HybridSequential()
    with net.name_scope():
        net.add({1: nn.Conv1D, 2: nn.Conv2D, 3: nn.Conv3D}[nsp](4, 3, padding=1, **conv_kw))
        if bn_kw is not None:
            net.add(nn.BatchNorm(**bn_kw))
        if relu:
            net.add(nn.Activation("relu"))
    return net


def _reference(net, x, nsp, conv_kw, bn_kw, relu):
    conv = net[0]
    w = conv.weight.data().asnumpy()
    b = conv.bias.data().asnumpy() if conv.bias is not None else None
    stride = (conv_kw.get("strides", 1),) * nsp
    y = _np_conv(x, w, b, stride, (1,) * nsp, conv_kw.get("groups", 1))
    if conv_kw.get("activation") == "relu":
        y = np.maximum(y, 0)
    elif conv_kw.get("activation") == "sigmoid":
        y = 1 / (1 + np.exp(-y))
    if bn_kw is not None:
        bn = net[1]
        y = _np_bn(y, *[p.data().asnumpy() for p in (bn.gamma, bn.beta, bn.running_mean, bn.running_var)],
                   eps=bn_kw.get("epsilon", 1e-5), fix_gamma=not bn_kw.get("scale", True))
    if relu:
        y = np.maximum(y, 0)
    return y


@pytest.mark.parametrize("name,nsp,conv_kw,bn_kw,relu,fused", CASES, ids=[c[0] for c in CASES])
def test_hybridized_inference_fuses_and_matches_numpy(name, nsp, conv_kw, bn_kw, relu, fused):
    net = _build(nsp, conv_kw, bn_kw, relu)
    net.initialize()
    x = RS.uniform(-1, 1, (2, 4) + (6,) * nsp)
    net(nd.array(x))  # completes deferred initialisation
    _randomise(net)
    unfused = net(nd.array(x)).asnumpy()
    expected = _reference(net, x, nsp, conv_kw, bn_kw, relu)
    np.testing.assert_allclose(unfused, expected, rtol=1e-4, atol=1e-4)
    net.hybridize()
    np.testing.assert_allclose(net(nd.array(x)).asnumpy(), expected, rtol=1e-4, atol=1e-4)
    assert _fused(net) == fused
    for kwargs, env in (({"backend": "NONE"}, None), ({}, "NONE")):
        with environment("MXNET_SUBGRAPH_BACKEND", env):
            net.hybridize(**kwargs)
            np.testing.assert_allclose(net(nd.array(x)).asnumpy(), expected, rtol=1e-4, atol=1e-4)
            assert _fused(net) == 0


def _small_layers():
    net = nn.HybridSequential()
    net.add(nn.Conv2D(6, 3, padding=1), nn.BatchNorm(), nn.Activation("relu"),
            nn.Conv2D(4, 1, use_bias=False), nn.BatchNorm(scale=False), nn.MaxPool2D(2),
            nn.Flatten(), nn.Dense(3))
    return net


SMALL_FUSED = 2  # conv + BatchNorm + relu, conv + BatchNorm


def _small_net():
    net = _small_layers()
    net.initialize()
    x = nd.array(RS.uniform(-1, 1, (2, 3, 8, 8)))
    net(x)
    _randomise(net)
    return net, x


def _copy_of(net, x, make=_small_layers):
    """A fresh unhybridized block built by `make`, holding copies of net's parameters."""
    twin = make()
    twin.initialize()
    twin(x.astype("float32"))
    twin.cast(x.dtype)
    for dst, src in zip(twin.collect_params().values(), net.collect_params().values()):
        dst.set_data(src.data().copy())
    return twin


def _unhybridized(net, x, make=_small_layers):
    return _copy_of(net, x, make)(x).asnumpy()


def _check_against_unhybridized(net, x, tol=1e-4):
    np.testing.assert_allclose(net(x).asnumpy(), _unhybridized(net, x), rtol=tol, atol=tol)
    assert _fused(net) == SMALL_FUSED


@pytest.mark.parametrize("static_alloc", [False, True])
def test_set_data_refolds(static_alloc):
    net, x = _small_net()
    net.hybridize(static_alloc=static_alloc, static_shape=static_alloc)
    _check_against_unhybridized(net, x)
    plans = net._cached_op.info()[0]
    for param in ("gamma", "beta", "running_mean", "running_var"):
        getattr(net[1], param).set_data(nd.array(RS.uniform(0.5, 1.5, (6,))))
        _check_against_unhybridized(net, x)
    net[0].weight.set_data(nd.array(RS.uniform(-1, 1, (6, 3, 3, 3))))
    _check_against_unhybridized(net, x)
    net[0].bias.data()[:] = 0.5  # an in-place write on the array itself
    _check_against_unhybridized(net, x)
    net[3].weight.data()[:] *= -1
    nd.elemwise_add(net[4].running_mean.data(), nd.ones((4,)), out=net[4].running_mean.data())
    _check_against_unhybridized(net, x)
    # The same plan served every call: the fused ops refolded on their own.
    assert net._cached_op.info()[0] == plans


def test_load_parameters_refolds(tmp_path):
    net, x = _small_net()
    other, _ = _small_net()
    net.hybridize()
    before = net(x).asnumpy()
    path = str(tmp_path / "other.params")
    other.save_parameters(path)
    net.load_parameters(path)
    np.testing.assert_allclose(net(x).asnumpy(), other(x).asnumpy(), rtol=1e-4, atol=1e-4)
    assert not np.allclose(before, other(x).asnumpy()) and _fused(net) == SMALL_FUSED


def test_training_step_refolds_weights_and_running_statistics():
    net, x = _small_net()
    net.hybridize()
    folded = net(x).asnumpy()
    # A recorded training step without an optimizer step moves only the running statistics
    # (in the backward pass, as in MXNet 1.x).
    with autograd.record():
        y = net(x)
    y.backward()
    moved = net(x).asnumpy()
    np.testing.assert_allclose(moved, _unhybridized(net, x), rtol=1e-4, atol=1e-4)
    assert not np.allclose(moved, folded)
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.5})
    for _ in range(2):
        with autograd.record():
            loss = net(x).sum()
        loss.backward()
        trainer.step(2)
        # Training-mode BatchNorm moved its running statistics and the step the weights.
        _check_against_unhybridized(net, x)


def test_cast_refolds():
    net, x = _small_net()
    net.hybridize()
    net(x).wait_to_read()
    net.cast("float64")
    x64 = x.astype("float64")
    assert net(x64).dtype == np.float64
    _check_against_unhybridized(net, x64, tol=1e-10)
    net[1].gamma.data()[:] = 2.0
    _check_against_unhybridized(net, x64, tol=1e-10)


@pytest.mark.parametrize("record,train_mode", [(True, True), (True, False), (False, True)])
def test_recording_and_training_mode_fuse_nothing(record, train_mode):
    # Recorded calls need gradients, which the fused ops lack; in training mode BatchNorm uses
    # batch statistics. Recorded in predict mode, BatchNorm reads its running statistics.
    ref, x = _small_net()
    net = _copy_of(ref, x)
    net.hybridize()
    net(x).wait_to_read()
    assert _fused(net) == SMALL_FUSED
    results = []
    for block in (ref, net):
        with autograd.record(train_mode) if record else autograd.train_mode():
            out = block(x)
        if record:
            out.backward(nd.ones_like(out))
        results.append([out.asnumpy()] + [p.grad().asnumpy() for p in block.collect_params().values()
                                          if record and p.grad_req != "null"])
    assert _fused(net) == 0
    assert len(results[1]) == (9 if record else 1)
    for got, want in zip(*results):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    # Both blocks moved (or kept) their running statistics alike.
    for p_ref, p in zip(ref.collect_params().values(), net.collect_params().values()):
        np.testing.assert_allclose(p.data().asnumpy(), p_ref.data().asnumpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(net(x).asnumpy(), ref(x).asnumpy(), rtol=1e-4, atol=1e-4)
    assert _fused(net) == SMALL_FUSED


def test_deferred_initialisation_then_fused():
    net = nn.HybridSequential()
    net.add(nn.Conv2D(3, 3), nn.BatchNorm(), nn.Activation("relu"))
    net.initialize()
    net.hybridize()
    x = RS.uniform(-1, 1, (1, 2, 5, 5))
    out = net(nd.array(x)).asnumpy()  # shapes inferred on the graph
    assert _fused(net) == 1 and net[0].weight.shape == (3, 2, 3, 3)
    conv, bn = net[0], net[1]
    y = _np_conv(x, conv.weight.data().asnumpy(), conv.bias.data().asnumpy(), (1, 1), (0, 0), 1)
    bn_args = [p.data().asnumpy() for p in (bn.gamma, bn.beta, bn.running_mean, bn.running_var)]
    np.testing.assert_allclose(out, np.maximum(_np_bn(y, *bn_args, eps=1e-5, fix_gamma=False), 0),
                               rtol=1e-4, atol=1e-4)
    net[1].gamma.set_data(nd.array([0.5, -2.0, 3.0]))
    np.testing.assert_allclose(net(nd.array(x)).asnumpy(), np.maximum(
        _np_bn(y, np.array([0.5, -2.0, 3.0]), *bn_args[1:], eps=1e-5, fix_gamma=False), 0), rtol=1e-4, atol=1e-4)


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


def _partitioned_ops(block, *xs):
    """(op, attrs) of each node of the block's graph as an inference executor on CPU runs it,
    after the same backend's rewrites."""
    shapes = {"data": xs[0].shape} if len(xs) == 1 else {"data%d" % i: x.shape for i, x in enumerate(xs)}
    exe = block._cached_graph[1].simple_bind(mx.cpu(), grad_req="null", **shapes)
    nodes = json.loads(exe.get_optimized_symbol().tojson())["nodes"]
    return [(n["op"], n.get("attrs", {})) for n in nodes if n["op"] != "null"]


def test_model_zoo_resnet18_v1():
    net, x = _zoo_net()
    imperative = net(x).asnumpy()
    net.hybridize()
    np.testing.assert_allclose(net(x).asnumpy(), imperative, rtol=1e-4, atol=1e-4)
    # Every convolution is followed by a BatchNorm: 17 in the stem and the bodies, 3 projections.
    assert _fused(net) == 20
    ops = _partitioned_ops(net, x)
    assert [op for op, _ in ops].count("_sg_onednn_conv") == 20
    assert {op for op, _ in ops} <= {"_sg_onednn_conv", "Pooling", "Flatten", "FullyConnected"}, ops
    assert len([a for op, a in ops if a.get("with_sum") == "True" and a.get("act_type") == "relu"]) == 8
    with environment("MXNET_SUBGRAPH_BACKEND", "NONE"):
        net.hybridize()
        np.testing.assert_allclose(net(x).asnumpy(), imperative, rtol=1e-5, atol=1e-5)
        assert _fused(net) == 0


@pytest.mark.parametrize("downsample", [False, True])
def test_resnet_v1_block_fuses_the_residual_sum_and_relu(downsample):
    block = vision.BasicBlockV1(8, 2 if downsample else 1, downsample, in_channels=4 if downsample else 8)
    block.initialize(mx.init.Xavier())
    x = nd.array(RS.uniform(-1, 1, (2, 4 if downsample else 8, 6, 6)))
    block(x)
    _randomise(block)
    imperative = block(x).asnumpy()
    block.hybridize()
    np.testing.assert_allclose(block(x).asnumpy(), imperative, rtol=1e-4, atol=1e-4)
    assert _fused(block) == (3 if downsample else 2)
    ops = _partitioned_ops(block, x)
    assert [op for op, _ in ops] == ["_sg_onednn_conv"] * (3 if downsample else 2), ops
    summed = [a for _, a in ops if a.get("with_sum") == "True"]
    assert len(summed) == 1 and summed[0].get("act_type") == "relu", ops
    assert all(a.get("with_bn") == "True" for _, a in ops), ops


class _BroadcastResidual(gluon.HybridBlock):
    """relu(bn(conv(x)) + residual), with bn(conv(x)) also returned when `both`."""

    def __init__(self, both=False):
        super(_BroadcastResidual, self).__init__()
        self._both = both
        with self.name_scope():
            self.conv, self.bn = nn.Conv2D(4, 3, padding=1), nn.BatchNorm()

    def hybrid_forward(self, F, x, residual):
        y = self.bn(self.conv(x))
        out = F.relu(F.broadcast_add(y, residual))
        return (y, out) if self._both else out


@pytest.mark.parametrize("r_shape,both", [((1, 4, 1, 1), False), ((3, 4, 5, 5), False), ((1, 4, 5, 5), True)],
                         ids=["smaller", "larger", "graph_output"])
def test_residual_of_another_shape_and_a_graph_output(r_shape, both):
    net = _BroadcastResidual(both)
    net.initialize()
    x, r = nd.array(RS.uniform(-1, 1, (1, 3, 5, 5))), nd.array(RS.uniform(-1, 1, r_shape))
    net(x, r)
    _randomise(net)
    imperative = net(x, r)
    net.hybridize()
    for out, ref in zip(*[o if both else [o] for o in (net(x, r), imperative)]):
        np.testing.assert_allclose(out.asnumpy(), ref.asnumpy(), rtol=1e-4, atol=1e-4)
    assert _fused(net) == 1
    # A returned BatchNorm output ends the chain there: conv + BatchNorm only.
    ops = _partitioned_ops(net, x, r)
    assert [op for op, _ in ops] == (["_sg_onednn_conv", "broadcast_add", "relu"] if both else ["_sg_onednn_conv"]), ops


_VERBOSE = r'''
import mxnet as mx
from mxnet.gluon import nn
net = nn.HybridSequential()
net.add(nn.Conv2D(8, 3, padding=1), nn.BatchNorm(), nn.Activation("relu"))
net.initialize()
x = mx.nd.ones((1, 3, 8, 8))
net(x).wait_to_read()
net.hybridize()
net(x).wait_to_read()
print("FUSED-RUN", flush=True)
net(x).wait_to_read()
'''


def _kinds(text):
    return [line.split(",")[3] for line in text.splitlines() if line.startswith("onednn_verbose,exec")]


@pytest.mark.skipif(os.environ.get("MXNET_ONEDNN_ENABLED") == "0", reason="needs the oneDNN path")
def test_onednn_runs_one_convolution_with_the_relu_post_op():
    before, after = run_onednn_verbose(_VERBOSE).split("FUSED-RUN")
    assert {"convolution", "batch_normalization", "eltwise"} <= set(_kinds(before)), _kinds(before)
    fused = [line for line in after.splitlines() if line.startswith("onednn_verbose,exec")]
    assert [k for k in _kinds(after) if k != "reorder"] == ["convolution"], fused
    assert "eltwise_relu" in [line for line in fused if ",convolution," in line][0]
    _, off = run_onednn_verbose(_VERBOSE, MXNET_SUBGRAPH_BACKEND="NONE").split("FUSED-RUN")
    assert {"convolution", "batch_normalization"} <= set(_kinds(off)), _kinds(off)


def test_gluon_fold_bn_is_a_deprecated_switch_of_the_fusion(capfd):
    # Its 0 turns inference fusion off unless MXNET_SUBGRAPH_BACKEND is set, which then decides.
    net, x = _small_net()
    expected = _unhybridized(net, x)
    capfd.readouterr()
    for env, fused in [({"MXNET_GLUON_FOLD_BN": "0"}, 0), ({"MXNET_GLUON_FOLD_BN": "1"}, SMALL_FUSED),
                       ({"MXNET_GLUON_FOLD_BN": "0", "MXNET_SUBGRAPH_BACKEND": "ONEDNN"}, SMALL_FUSED),
                       ({"MXNET_GLUON_FOLD_BN": "1", "MXNET_SUBGRAPH_BACKEND": "NONE"}, 0)]:
        with environment(env):
            net.hybridize()
            np.testing.assert_allclose(net(x).asnumpy(), expected, rtol=1e-4, atol=1e-4)
            assert _fused(net) == fused, env
    net.hybridize()
    net(x).wait_to_read()
    assert _fused(net) == SMALL_FUSED
    # Warned once per process (nothing else here sets it).
    assert capfd.readouterr().err.count("MXNET_GLUON_FOLD_BN is deprecated") == 1
    assert mx.runtime.env_vars()["MXNET_GLUON_FOLD_BN"].doc.startswith("Deprecated")


# ---- the fused op itself -------------------------------------------------------------------

ACTS = {"relu": lambda y: np.maximum(y, 0), "sigmoid": lambda y: 1 / (1 + np.exp(-y)),
        "tanh": np.tanh, "softrelu": lambda y: np.log1p(np.exp(y)), "softsign": lambda y: y / (1 + np.abs(y)),
        None: lambda y: y}
_conv = nd._internal._sg_onednn_conv


def _tol(dtype):
    return 1e-4 if dtype == "float32" else 1e-10


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("act", sorted(a for a in ACTS if a))
def test_sg_onednn_conv_op_matches_numpy(act, dtype):
    x = RS.uniform(-1, 1, (2, 4, 7, 7))
    w = RS.uniform(-0.5, 0.5, (6, 2, 3, 3))
    b = RS.uniform(-0.5, 0.5, (6,))
    out = _conv(nd.array(x, dtype=dtype), nd.array(w, dtype=dtype), nd.array(b, dtype=dtype), kernel=(3, 3),
                stride=(2, 2), pad=(1, 1), num_filter=6, num_group=2, act_type=act)
    expected = ACTS[act](_np_conv(x, w, b, (2, 2), (1, 1), 2))
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=_tol(dtype), atol=_tol(dtype))
    no_bias = _conv(nd.array(x, dtype=dtype), nd.array(w, dtype=dtype), kernel=(3, 3), num_filter=6, num_group=2,
                    no_bias=True, act_type=act)
    np.testing.assert_allclose(no_bias.asnumpy(), ACTS[act](_np_conv(x, w, None, (1, 1), (0, 0), 2)),
                               rtol=_tol(dtype), atol=_tol(dtype))


def _bn_arrays(c):
    return [RS.uniform(0.5, 1.5, c), RS.uniform(-0.5, 0.5, c), RS.uniform(-0.5, 0.5, c), RS.uniform(0.5, 2, c)]


# (with_bn, act_type, residual shape or None, sum_first, no_bias, fix_gamma, batch of the data);
# the residual broadcasts against the convolution's output, also to a larger output
VARIANTS = [(True, None, None, False, False, False, 2), (True, "relu", None, False, True, False, 2),
            (True, "sigmoid", (2, 6, 6, 6), False, False, True, 2), (True, "relu", (2, 6, 6, 6), True, True, False, 2),
            (True, None, (2, 6, 6, 6), False, False, False, 2), (True, "softsign", (2, 6, 6, 6), True, False, False, 2),
            (False, "tanh", (1, 6, 1, 1), False, False, False, 2), (True, "tanh", (2, 1, 6, 6), True, False, False, 2),
            (False, "tanh", (2, 6, 6, 6), False, False, False, 1), (True, None, (3, 6, 6, 6), True, True, False, 1)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("with_bn,act,r_shape,sum_first,no_bias,fix_gamma,batch", VARIANTS)
def test_sg_onednn_conv_variants_match_numpy(with_bn, act, r_shape, sum_first, no_bias, fix_gamma, batch, dtype):
    # act(bn(conv(x) + b) + sum), inputs: [sum] data weight [bias] [gamma beta mean var] [sum]
    x = RS.uniform(-1, 1, (batch, 4, 6, 6))
    w = RS.uniform(-0.5, 0.5, (6, 4, 3, 3))
    b = None if no_bias else RS.uniform(-0.5, 0.5, (6,))
    bn = _bn_arrays(6) if with_bn else []
    r = RS.uniform(-1, 1, r_shape) if r_shape else None
    args = [x, w] + ([] if no_bias else [b]) + bn
    if r_shape:
        args = [r] + args if sum_first else args + [r]
    kw = {"act_type": act} if act else {}
    out = _conv(*[nd.array(a, dtype=dtype) for a in args], kernel=(3, 3), pad=(1, 1), num_filter=6, no_bias=no_bias,
                with_bn=with_bn, eps=0.01, fix_gamma=fix_gamma, with_sum=bool(r_shape), sum_first=sum_first, **kw)
    y = _np_conv(x, w, b, (1, 1), (1, 1), 1)
    y = _np_bn(y, *bn, eps=0.01, fix_gamma=fix_gamma) if with_bn else y
    expected = ACTS[act](y if r is None else y + r)
    assert out.shape == expected.shape
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=_tol(dtype), atol=_tol(dtype))


def test_sg_onednn_conv_with_bn_refolds_after_writes():
    x = nd.array(RS.uniform(-1, 1, (1, 4, 5, 5)))
    arrays = [nd.array(a) for a in [RS.uniform(-0.5, 0.5, (6, 4, 3, 3)), RS.uniform(-0.5, 0.5, (6,))] + _bn_arrays(6)]

    def check():
        out = _conv(x, *arrays, kernel=(3, 3), num_filter=6, with_bn=True, fix_gamma=False, act_type="relu")
        a = [v.asnumpy() for v in arrays]
        expected = np.maximum(_np_bn(_np_conv(x.asnumpy(), a[0], a[1], (1, 1), (0, 0), 1), *a[2:], eps=1e-3,
                                     fix_gamma=False), 0)
        np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-4, atol=1e-4)
    check()
    for i, arr in enumerate(arrays):
        arr[:] = arr * 0.5 + (1.0 if i == 5 else 0.1)  # no wait before the next call
        check()
    nd.ones((6,)).copyto(arrays[2])
    check()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("act", ["relu", "sigmoid", "softsign"])
def test_sg_onednn_conv_with_sum_adds_the_residual_before_the_activation(act, dtype):
    # float32 runs oneDNN's sum post-op, float64 the plain kernels accumulating onto the sum.
    x = RS.uniform(-1, 1, (2, 4, 7, 7))
    w = RS.uniform(-0.5, 0.5, (6, 4, 3, 3))
    b = RS.uniform(-0.5, 0.5, (6,))
    r = RS.uniform(-1, 1, (2, 6, 7, 7))
    residual = nd.array(r, dtype=dtype)
    out = _conv(nd.array(x, dtype=dtype), nd.array(w, dtype=dtype), nd.array(b, dtype=dtype), residual,
                kernel=(3, 3), pad=(1, 1), num_filter=6, act_type=act, with_sum=True)
    np.testing.assert_allclose(out.asnumpy(), ACTS[act](_np_conv(x, w, b, (1, 1), (1, 1), 1) + r),
                               rtol=_tol(dtype), atol=_tol(dtype))
    np.testing.assert_array_equal(residual.asnumpy(), r.astype(dtype))  # the sum input is only read


def test_sg_onednn_conv_with_sum_reads_a_blocked_residual():
    # The residual comes straight from another convolution, in oneDNN's layout when it keeps one.
    x = RS.uniform(-1, 1, (1, 16, 6, 6)).astype(np.float32)
    w1 = RS.uniform(-0.3, 0.3, (16, 16, 1, 1)).astype(np.float32)
    w2 = RS.uniform(-0.3, 0.3, (16, 16, 3, 3)).astype(np.float32)
    residual = _conv(nd.array(x), nd.array(w1), kernel=(1, 1), num_filter=16, no_bias=True, act_type="relu")
    out = _conv(nd.array(x), nd.array(w2), residual, kernel=(3, 3), pad=(1, 1), num_filter=16, no_bias=True,
                act_type="relu", with_sum=True)
    r = np.maximum(_np_conv(x, w1, None, (1, 1), (0, 0), 1), 0)
    np.testing.assert_allclose(out.asnumpy(), np.maximum(_np_conv(x, w2, None, (1, 1), (1, 1), 1) + r, 0),
                               rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(residual.asnumpy(), r, rtol=1e-5, atol=1e-5)


def test_sg_onednn_conv_with_sum_rejects_a_residual_of_another_shape():
    x, w = nd.ones((1, 2, 4, 4)), nd.ones((3, 2, 3, 3))
    with pytest.raises(mx.MXNetError, match="_sg_onednn_conv.*input 2"):
        _conv(x, w, nd.ones((1, 3, 4, 4)), kernel=(3, 3), num_filter=3, no_bias=True, act_type="relu",
              with_sum=True)


def test_sg_onednn_conv_op_errors_name_the_op():
    x, w = nd.ones((1, 2, 4, 4)), nd.ones((3, 2, 3, 3))
    kw = {"kernel": (3, 3), "num_filter": 3, "no_bias": True}
    with pytest.raises(mx.MXNetError, match="_sg_onednn_conv.*act_type"):
        _conv(x, w, act_type="gelu", **kw)
    with pytest.raises(mx.MXNetError, match="_sg_onednn_conv.*nothing to fuse"):
        _conv(x, w, **kw)
    with pytest.raises(mx.MXNetError, match="_sg_onednn_conv.*with_act"):
        _conv(x, w, with_act=True, **kw)
    with pytest.raises(mx.MXNetError, match="_sg_onednn_conv.*sum_first"):
        _conv(x, w, act_type="relu", sum_first=True, **kw)
    with pytest.raises(mx.MXNetError, match="_sg_onednn_conv.*num_filter"):
        _conv(x, w, kernel=(3, 3), no_bias=True, act_type="relu")


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
