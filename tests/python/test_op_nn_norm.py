"""BatchNorm (eps, momentum, fix_gamma, use_global_stats, output_mean_var, axis; moving
statistics updated by the training forward), BatchNormWithReLU, LayerNorm, InstanceNorm, GroupNorm,
L2Normalization and LRN: forward vs numpy, gradients vs finite differences of the numpy
reference, oneDNN (float32) and plain kernels (float64 and the rerun)."""
import numpy as np
import pytest

import mxnet as mx
from nn_op_table import HALF, Case, with_dtypes, check_error, check_forward, check_grad, fwd_params, grad_params, plain_path_rerun

R = np.random.RandomState(13)


def _bcast(v, ndim, axis):
    shape = [1] * ndim
    shape[axis] = -1
    return v.reshape(shape)


def bn_ref(train):
    def ref(x, gamma, beta, mm, mv, eps=1e-3, momentum=0.9, fix_gamma=True, use_global_stats=False,
            output_mean_var=False, axis=1):
        ax = axis % x.ndim
        red = tuple(i for i in range(x.ndim) if i != ax)
        if train and not use_global_stats:
            mean, var = x.mean(axis=red), x.var(axis=red)
        else:
            mean, var = mm, mv
        g = np.ones_like(gamma) if fix_gamma else gamma
        y = (x - _bcast(mean, x.ndim, ax)) / np.sqrt(_bcast(var, x.ndim, ax) + eps)
        y = y * _bcast(g, x.ndim, ax) + _bcast(beta, x.ndim, ax)
        return [y, mean, var] if output_mean_var else y
    return ref


def bn_relu_ref(train):
    bn = bn_ref(train)

    def ref(*args, **params):
        out = bn(*args, **params)
        if isinstance(out, list):
            return [np.maximum(out[0], 0)] + out[1:]
        return np.maximum(out, 0)
    return ref


def bn_case(name, shape, train=True, relu=False, **params):
    ax = params.get("axis", 1) % len(shape)
    c = shape[ax]
    inputs = [R.randn(*shape) * 2 + 0.5, R.rand(c) + 0.5, R.randn(c), R.randn(c) * 0.1, R.rand(c) + 0.5]
    outputs = 3 if params.get("output_mean_var") else 1
    op, ref = ("BatchNormWithReLU", bn_relu_ref(train)) if relu else ("BatchNorm", bn_ref(train))
    return Case(op, name, inputs, params, ref, grad=(0, 1, 2), train=train, outputs=outputs,
                eps=1e-5, grad_tol={"float32": (5e-3, 5e-4)}, f32_inputs=(1, 2, 3, 4))


def layer_norm_ref(x, gamma, beta, axis=-1, eps=1e-5, output_mean_var=False):
    ax = axis % x.ndim
    mean = x.mean(axis=ax, keepdims=True)
    std = np.sqrt(x.var(axis=ax, keepdims=True) + eps)
    y = (x - mean) / std * _bcast(gamma, x.ndim, ax) + _bcast(beta, x.ndim, ax)
    return [y, mean, std] if output_mean_var else y


def instance_norm_ref(x, gamma, beta, eps=1e-3):
    red = tuple(range(2, x.ndim))
    mean, var = x.mean(axis=red, keepdims=True), x.var(axis=red, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * _bcast(gamma, x.ndim, 1) + _bcast(beta, x.ndim, 1)


def group_norm_ref(x, gamma, beta, num_groups=1, eps=1e-5, output_mean_var=False):
    n, c = x.shape[:2]
    xg = x.reshape(n, num_groups, -1)
    mean, var = xg.mean(axis=2, keepdims=True), xg.var(axis=2, keepdims=True)
    y = ((xg - mean) / np.sqrt(var + eps)).reshape(n, num_groups, -1)
    y = (y * gamma.reshape(1, -1, 1) + beta.reshape(1, -1, 1)).reshape(x.shape)
    return [y, mean.reshape(n, num_groups), np.sqrt(var + eps).reshape(n, num_groups)] if output_mean_var else y


def l2_ref(x, eps=1e-10, mode="instance"):
    if mode == "instance":
        red = tuple(range(1, x.ndim))
    elif mode == "channel":
        red = (1,)
    else:
        red = tuple(range(2, x.ndim))
    return x / np.sqrt((x * x).sum(axis=red, keepdims=True) + eps)


def lrn_ref(x, nsize, alpha=1e-4, beta=0.75, knorm=2.0):
    c = x.shape[1]
    half = nsize // 2
    sq = x * x
    s = np.zeros_like(x)
    for ch in range(c):
        s[:, ch] = sq[:, max(0, ch - half):min(c, ch + half + 1)].sum(axis=1)
    return x * (knorm + alpha / nsize * s) ** (-beta)


NORM = [
    bn_case("train_default", (4, 3, 2, 2)),
    bn_case("train_free_gamma", (4, 3, 2, 2), fix_gamma=False),
    bn_case("train_eps", (3, 2, 3, 3), fix_gamma=False, eps=0.125),
    bn_case("train_momentum", (3, 2, 2, 2), fix_gamma=False, momentum=0.5),
    bn_case("train_2d", (6, 4), fix_gamma=False),
    bn_case("train_3d_data", (2, 3, 2, 2, 2), fix_gamma=False),
    bn_case("train_axis_last", (3, 2, 4), fix_gamma=False, axis=-1),
    bn_case("train_axis_2", (2, 3, 4, 2), fix_gamma=False, axis=2),
    bn_case("train_output_mean_var", (4, 3, 2, 2), fix_gamma=False, output_mean_var=True),
    bn_case("train_use_global_stats", (4, 3, 2, 2), fix_gamma=False, use_global_stats=True),
    bn_case("inference", (2, 3, 2, 2), train=False, fix_gamma=False),
    bn_case("inference_fix_gamma", (2, 3, 2, 2), train=False),
    bn_case("inference_axis_last", (2, 2, 3), train=False, fix_gamma=False, axis=-1),
    bn_case("relu_train", (4, 3, 2, 2), relu=True, fix_gamma=False),
    bn_case("relu_train_fix_gamma", (4, 3, 2, 2), relu=True),
    bn_case("relu_train_3d_data", (2, 3, 2, 2, 2), relu=True, fix_gamma=False),
    bn_case("relu_train_axis_last", (3, 2, 4), relu=True, fix_gamma=False, axis=-1),
    bn_case("relu_train_output_mean_var", (4, 3, 2, 2), relu=True, fix_gamma=False, output_mean_var=True),
    bn_case("relu_train_use_global_stats", (4, 3, 2, 2), relu=True, fix_gamma=False, use_global_stats=True),
    bn_case("relu_inference", (2, 3, 2, 2), train=False, relu=True, fix_gamma=False),
    Case("LayerNorm", "last_axis", [R.randn(3, 4, 5), R.rand(5) + 0.5, R.randn(5)], {}, layer_norm_ref,
         grad=(0, 1, 2)),
    Case("LayerNorm", "axis_1_eps", [R.randn(3, 4, 2), R.rand(4) + 0.5, R.randn(4)], dict(axis=1, eps=0.125),
         layer_norm_ref, grad=(0, 1, 2)),
    Case("LayerNorm", "2d", [R.randn(4, 6), R.rand(6) + 0.5, R.randn(6)], dict(axis=-1), layer_norm_ref,
         grad=(0, 1, 2)),
    Case("LayerNorm", "output_mean_var", [R.randn(2, 3, 4), R.rand(4) + 0.5, R.randn(4)],
         dict(output_mean_var=True), layer_norm_ref, outputs=3, grad=(0, 1, 2)),
    Case("InstanceNorm", "4d", [R.randn(2, 3, 3, 3), R.rand(3) + 0.5, R.randn(3)], {}, instance_norm_ref,
         grad=(0, 1, 2)),
    Case("InstanceNorm", "3d_eps", [R.randn(2, 2, 5), R.rand(2) + 0.5, R.randn(2)], dict(eps=0.015625),
         instance_norm_ref, grad=(0, 1, 2)),
    Case("GroupNorm", "groups_2", [R.randn(2, 4, 2, 2), R.rand(2) + 0.5, R.randn(2)], dict(num_groups=2),
         group_norm_ref, grad=(0, 1, 2)),
    Case("GroupNorm", "one_group_eps", [R.randn(2, 3, 4), R.rand(1) + 0.5, R.randn(1)], dict(eps=0.015625),
         group_norm_ref, grad=(0, 1, 2)),
    Case("GroupNorm", "output_mean_var", [R.randn(2, 4, 3), R.rand(4) + 0.5, R.randn(4)],
         dict(num_groups=4, output_mean_var=True), group_norm_ref, outputs=3, grad=(0, 1, 2)),
    Case("L2Normalization", "instance", [R.randn(3, 4, 2)], {}, l2_ref),
    Case("L2Normalization", "channel", [R.randn(2, 3, 2, 2)], dict(mode="channel"), l2_ref),
    Case("L2Normalization", "spatial_eps", [R.randn(2, 3, 2, 2)], dict(mode="spatial", eps=0.125), l2_ref),
    Case("LRN", "nsize3", [R.randn(2, 5, 3, 3)], dict(nsize=3), lrn_ref),
    Case("LRN", "params", [R.randn(1, 6, 2, 3)], dict(nsize=5, alpha=0.1, beta=0.5, knorm=1.5), lrn_ref),
    Case("LRN", "nsize1", [R.randn(1, 3, 2, 2)], dict(nsize=1, alpha=0.5), lrn_ref),
]


# Half-typed data with float32 gamma, beta and statistics (MXNet's BatchNorm contract).
NORM = NORM + with_dtypes([c for c in NORM if c.op.startswith("BatchNorm") and c.name in (
    "train_free_gamma", "train_axis_last", "inference", "train_output_mean_var", "relu_train")], HALF)


@pytest.mark.parametrize("case,dtype", fwd_params(NORM))
def test_forward_matches_numpy(case, dtype):
    check_forward(case, dtype)


@pytest.mark.parametrize("case,dtype", grad_params(NORM))
def test_gradients_match_finite_differences(case, dtype):
    check_grad(case, dtype)


@pytest.mark.parametrize("momentum,axis,dtype", [(0.9, 1, "float32"), (0.5, 1, "float32"), (0.9, -1, "float32"),
                                                 (0.9, 1, "float64"), (0.3, 2, "float64")])
def test_batchnorm_training_forward_updates_moving_stats(momentum, axis, dtype):
    x = R.randn(4, 3, 2, 5) * 2 + 1
    ax = axis % 4
    c = x.shape[ax]
    mm0, mv0 = R.randn(c), R.rand(c) + 0.5
    mm, mv = mx.nd.array(mm0, dtype=dtype), mx.nd.array(mv0, dtype=dtype)
    args = [mx.nd.array(x, dtype=dtype), mx.nd.ones(c, dtype=dtype), mx.nd.zeros(c, dtype=dtype), mm, mv]
    with mx.autograd.record(train_mode=True):
        mx.nd.BatchNorm(*args, momentum=momentum, axis=axis, fix_gamma=False).wait_to_read()
    red = tuple(i for i in range(4) if i != ax)
    np.testing.assert_allclose(mm.asnumpy(), momentum * mm0 + (1 - momentum) * x.mean(axis=red), rtol=1e-4,
                               atol=1e-5)
    np.testing.assert_allclose(mv.asnumpy(), momentum * mv0 + (1 - momentum) * x.var(axis=red), rtol=1e-4,
                               atol=1e-5)
    before = mm.asnumpy().copy()
    with mx.autograd.record(train_mode=True):  # use_global_stats: statistics stay
        mx.nd.BatchNorm(*args, momentum=momentum, axis=axis, use_global_stats=True).wait_to_read()
    mx.nd.BatchNorm(*args, momentum=momentum, axis=axis).wait_to_read()  # inference: statistics stay
    np.testing.assert_array_equal(mm.asnumpy(), before)


@pytest.mark.parametrize("call,needles", [
    (lambda: mx.nd.BatchNorm(mx.nd.ones((2, 3, 2)), mx.nd.ones(4), mx.nd.ones(3), mx.nd.ones(3), mx.nd.ones(3)),
     ("BatchNorm", "gamma")),
    (lambda: mx.nd.BatchNorm(mx.nd.ones((2, 3)), mx.nd.ones(3), mx.nd.ones(3), mx.nd.ones(3), mx.nd.ones(3),
                             axis=2), ("BatchNorm", "axis")),
    (lambda: mx.nd.LayerNorm(mx.nd.ones((2, 3)), mx.nd.ones(2), mx.nd.ones(2)), ("LayerNorm", "gamma")),
    (lambda: mx.nd.GroupNorm(mx.nd.ones((2, 3, 2)), mx.nd.ones(2), mx.nd.ones(2), num_groups=2),
     ("GroupNorm", "num_groups")),
    (lambda: mx.nd.InstanceNorm(mx.nd.ones((2, 3)), mx.nd.ones(3), mx.nd.ones(3)), ("InstanceNorm",)),
    (lambda: mx.nd.LRN(mx.nd.ones((2, 3, 2, 2)), nsize=0), ("LRN", "nsize")),
    (lambda: mx.nd.L2Normalization(mx.nd.ones((2, 3)), mode="bogus"), ("L2Normalization", "bogus")),
])
def test_bad_inputs_raise_mxnet_error_naming_op(call, needles):
    check_error(call, *needles)


test_plain_path = plain_path_rerun(__file__)


def _bn_relu_numpy(x, gamma, beta, dy, eps=1e-5):
    """Training BatchNorm + ReLU over axis 1 and its gradients, in float64."""
    red = (0,) + tuple(range(2, x.ndim))
    shape = (1, -1) + (1,) * (x.ndim - 2)
    mean, var = x.mean(axis=red), x.var(axis=red)
    xhat = (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps)
    y = np.maximum(xhat * gamma.reshape(shape) + beta.reshape(shape), 0)
    dpre = dy * (y > 0)
    dxhat = dpre * gamma.reshape(shape)
    dx = (dxhat - dxhat.mean(axis=red, keepdims=True) -
          xhat * (dxhat * xhat).mean(axis=red, keepdims=True)) / np.sqrt(var.reshape(shape) + eps)
    return y, dx, (dpre * xhat).sum(axis=red), dpre.sum(axis=red)


@pytest.mark.parametrize("channels", [16, 12])
def test_batchnorm_with_relu_after_a_convolution_matches_numpy(channels):
    # After a convolution the data arrive in oneDNN's blocked format (12 channels: a partial
    # block); the fused backward reads the ReLU mask the forward kept.
    x = R.randn(3, channels, 6, 5)
    w = R.randn(channels, channels, 1, 1) * 0.3
    gamma, beta = R.rand(channels) + 0.5, R.randn(channels) * 0.5
    dy = R.randn(3, channels, 6, 5)
    X, G, B = mx.nd.array(x), mx.nd.array(gamma), mx.nd.array(beta)
    for a in (X, G, B):
        a.attach_grad()
    mm, mv = mx.nd.zeros(channels), mx.nd.ones(channels)
    with mx.autograd.record():
        conv = mx.nd.Convolution(X, mx.nd.array(w), kernel=(1, 1), num_filter=channels, no_bias=True)
        y = mx.nd.contrib.BatchNormWithReLU(conv, G, B, mm, mv, fix_gamma=False, eps=1e-5)
    y.backward(mx.nd.array(dy))
    c = np.einsum("nchw,fc->nfhw", x, w[:, :, 0, 0])
    want_y, want_dc, want_dg, want_db = _bn_relu_numpy(c, gamma, beta, dy)
    np.testing.assert_allclose(y.asnumpy(), want_y, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(X.grad.asnumpy(), np.einsum("nfhw,fc->nchw", want_dc, w[:, :, 0, 0]),
                               rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(G.grad.asnumpy(), want_dg, rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(B.grad.asnumpy(), want_db, rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(mm.asnumpy(), 0.1 * c.mean(axis=(0, 2, 3)), rtol=1e-4, atol=1e-6)


_FUSED_VERBOSE = r"""
import mxnet as mx
x = mx.nd.random.uniform(-1, 1, shape=(2, 8, 4, 4))
x.attach_grad()
g, b = mx.nd.ones(8), mx.nd.zeros(8)
with mx.autograd.record():
    y = mx.nd.contrib.BatchNormWithReLU(mx.nd.Convolution(x, mx.nd.ones((8, 8, 1, 1)), kernel=(1, 1),
        num_filter=8, no_bias=True), g, b, mx.nd.zeros(8), mx.nd.ones(8), fix_gamma=False)
y.backward()
mx.nd.waitall()
"""


def test_batchnorm_with_relu_runs_one_onednn_primitive_each_way():
    from op_testing import onednn_execs, run_onednn_verbose
    execs = onednn_execs(run_onednn_verbose(_FUSED_VERBOSE))
    bnorm = [e for e in execs if e[3] == "batch_normalization"]
    assert [e[5] for e in bnorm] == ["forward_training", "backward"], bnorm
    assert all("flags:CHR" in e for e in bnorm), bnorm
    assert not [e for e in execs if e[3] == "eltwise"]


@pytest.mark.parametrize("train_mode", [True, False])
def test_batchnorm_with_relu_backward_after_a_blocked_convolution(train_mode):
    # The conv's output reaches BatchNormWithReLU in oneDNN's blocked layout; recorded in
    # predict mode its forward keeps no mask and the backward takes the plain path.
    rs = np.random.RandomState(5)
    x = mx.nd.array(rs.uniform(-1, 1, (2, 3, 8, 8)))
    w = mx.nd.array(rs.uniform(-1, 1, (6, 3, 3, 3)))
    stats = [mx.nd.array(rs.uniform(0.5, 1.5, 6)) for _ in range(4)]
    head = mx.nd.array(rs.uniform(-1, 1, (2, 6, 8, 8)))
    grads = []
    for fused in (True, False):
        xi = x.copy()
        xi.attach_grad()
        with mx.autograd.record(train_mode=train_mode):
            c = mx.nd.Convolution(xi, w, kernel=(3, 3), pad=(1, 1), num_filter=6, no_bias=True)
            args = [c] + [s.copy() for s in stats]
            y = (mx.nd.contrib.BatchNormWithReLU(*args, fix_gamma=False) if fused
                 else mx.nd.relu(mx.nd.BatchNorm(*args, fix_gamma=False)))
        y.backward(head)
        grads.append(xi.grad.asnumpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-4, atol=1e-5)
