"""BatchNorm, BatchNormWithReLU, LayerNorm, InstanceNorm, GroupNorm, L2Normalization and LRN
beyond the table: moving statistics updated by the training backward (as in MXNet 1.x), BatchNormWithReLU after
convolutions (and its oneDNN primitives), bad inputs. Their table rows (forward vs numpy,
gradients vs finite differences) live in op_rows/nn.py and run in test_op_harness.py."""
import numpy as np
import pytest

import mxnet as mx
from op_testing import check_error, plain_path_rerun

R = np.random.RandomState(13)

@pytest.mark.parametrize("momentum,axis,dtype", [(0.9, 1, "float32"), (0.5, 1, "float32"), (0.9, -1, "float32"),
                                                 (0.9, 1, "float64"), (0.3, 2, "float64")])
def test_batchnorm_training_backward_updates_moving_stats(momentum, axis, dtype):
    x = R.randn(4, 3, 2, 5) * 2 + 1
    ax = axis % 4
    c = x.shape[ax]
    mm0, mv0 = R.randn(c), R.rand(c) + 0.5
    mm, mv = mx.nd.array(mm0, dtype=dtype), mx.nd.array(mv0, dtype=dtype)
    args = [mx.nd.array(x, dtype=dtype), mx.nd.ones(c, dtype=dtype), mx.nd.zeros(c, dtype=dtype), mm, mv]
    with mx.autograd.record(train_mode=True):
        y = mx.nd.BatchNorm(*args, momentum=momentum, axis=axis, fix_gamma=False)
    y.wait_to_read()
    np.testing.assert_array_equal(mm.asnumpy(), mm0.astype(dtype))  # the forward alone changes nothing
    args[0].attach_grad()
    with mx.autograd.record(train_mode=True):
        y = mx.nd.BatchNorm(*args, momentum=momentum, axis=axis, fix_gamma=False)
    y.backward()
    red = tuple(i for i in range(4) if i != ax)
    np.testing.assert_allclose(mm.asnumpy(), momentum * mm0 + (1 - momentum) * x.mean(axis=red), rtol=1e-4,
                               atol=1e-5)
    np.testing.assert_allclose(mv.asnumpy(), momentum * mv0 + (1 - momentum) * x.var(axis=red), rtol=1e-4,
                               atol=1e-5)
    before = mm.asnumpy().copy()
    with mx.autograd.record(train_mode=True):  # use_global_stats: statistics stay
        y = mx.nd.BatchNorm(*args, momentum=momentum, axis=axis, use_global_stats=True)
    y.backward()
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
