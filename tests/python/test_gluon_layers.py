"""Gluon layers against NumPy implementations of what they compute."""
import numpy as np
import pytest

import mxnet as mx
from mxnet import autograd, nd
from mxnet.gluon import nn
from mxnet.gluon.contrib.nn import HybridConcurrent, Identity

RS = np.random.RandomState(7)


def _run(layer, *arrays, init=None):
    layer.initialize(init or mx.init.Normal(0.5))
    return layer(*[nd.array(a) for a in arrays]).asnumpy()


def _close(a, b, tol=1e-4):
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def _conv2d_ref(x, w, b, stride=1, pad=0, groups=1):
    n, c, h, wd = x.shape
    f, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh = (h + 2 * pad - kh) // stride + 1
    ow = (wd + 2 * pad - kw) // stride + 1
    out = np.zeros((n, f, oh, ow))
    fpg = f // groups
    for o in range(f):
        g = o // fpg
        for i in range(oh):
            for j in range(ow):
                patch = xp[:, g * cg:(g + 1) * cg, i * stride:i * stride + kh, j * stride:j * stride + kw]
                out[:, o, i, j] = (patch * w[o]).sum(axis=(1, 2, 3))
    return out + (b.reshape(1, -1, 1, 1) if b is not None else 0)


def test_dense_flatten_and_activation():
    x = RS.randn(3, 2, 4)
    d = nn.Dense(5, activation="tanh")
    out = _run(d, x)
    w, b = d.weight.data().asnumpy(), d.bias.data().asnumpy()
    _close(out, np.tanh(x.reshape(3, -1) @ w.T + b))
    d2 = nn.Dense(5, flatten=False, use_bias=False)
    out2 = _run(d2, x)
    _close(out2, x @ d2.weight.data().asnumpy().T)
    assert d2.bias is None


@pytest.mark.parametrize("stride,pad,groups", [(1, 0, 1), (2, 1, 1), (1, 1, 2)])
def test_conv2d(stride, pad, groups):
    x = RS.randn(2, 4, 7, 6)
    conv = nn.Conv2D(6, 3, strides=stride, padding=pad, groups=groups)
    out = _run(conv, x)
    ref = _conv2d_ref(x, conv.weight.data().asnumpy(), conv.bias.data().asnumpy(), stride, pad, groups)
    assert conv.weight.shape == (6, 4 // groups, 3, 3)
    _close(out, ref)


def test_conv1d_and_conv3d_shapes_and_values():
    x = RS.randn(2, 3, 9)
    c1 = nn.Conv1D(4, 3, use_bias=False)
    out = _run(c1, x)
    w = c1.weight.data().asnumpy()
    ref = np.stack([sum(x[:, :, k:k + 7] * w[o, :, k:k + 1] for k in range(3)).sum(axis=1)
                    for o in range(4)], axis=1)
    _close(out, ref)
    c3 = nn.Conv3D(2, (1, 2, 2))
    assert _run(c3, RS.randn(1, 3, 4, 5, 5)).shape == (1, 2, 4, 4, 4)


def test_conv2d_transpose():
    x = RS.randn(1, 2, 3, 3)
    deconv = nn.Conv2DTranspose(3, 2, strides=2, use_bias=False)
    out = _run(deconv, x)
    w = deconv.weight.data().asnumpy()  # (in, out, kh, kw)
    assert w.shape == (2, 3, 2, 2)
    ref = np.zeros((1, 3, 6, 6))
    for i in range(3):
        for j in range(3):
            ref[0, :, 2 * i:2 * i + 2, 2 * j:2 * j + 2] += np.einsum("c,cokl->okl", x[0, :, i, j], w)
    _close(out, ref)


def test_pooling_layers():
    x = RS.randn(2, 3, 6, 6)
    out = _run(nn.MaxPool2D(), x)
    _close(out, x.reshape(2, 3, 3, 2, 3, 2).max(axis=(3, 5)))
    out = _run(nn.AvgPool2D(pool_size=3, strides=3), x)
    _close(out, x.reshape(2, 3, 2, 3, 2, 3).mean(axis=(3, 5)))
    _close(_run(nn.GlobalAvgPool2D(), x), x.mean(axis=(2, 3), keepdims=True))
    _close(_run(nn.GlobalMaxPool2D(), x), x.max(axis=(2, 3), keepdims=True))
    assert _run(nn.MaxPool2D(pool_size=3, strides=2, ceil_mode=True), RS.randn(1, 1, 6, 6)).shape == (1, 1, 3, 3)
    assert _run(nn.MaxPool2D(pool_size=3, strides=2), RS.randn(1, 1, 6, 6)).shape == (1, 1, 2, 2)
    x1 = RS.randn(2, 3, 8)
    _close(_run(nn.MaxPool1D(), x1), x1.reshape(2, 3, 4, 2).max(axis=3))


def test_flatten_and_activations():
    x = RS.randn(2, 3, 4)
    _close(_run(nn.Flatten(), x), x.reshape(2, 12))
    _close(_run(nn.Activation("relu"), x), np.maximum(x, 0))
    _close(_run(nn.Activation("sigmoid"), x), 1 / (1 + np.exp(-x)))
    _close(_run(nn.Activation("softrelu"), x), np.log1p(np.exp(x)))
    _close(_run(nn.LeakyReLU(0.1), x), np.where(x > 0, x, 0.1 * x))
    _close(_run(nn.ELU(0.5), x), np.where(x > 0, x, 0.5 * (np.exp(x) - 1)))
    lam, alpha = 1.0507009873554804934193349852946, 1.6732632423543772848170429916717
    _close(_run(nn.SELU(), x), lam * np.where(x > 0, x, alpha * (np.exp(x) - 1)))
    _close(_run(nn.Swish(), x), x / (1 + np.exp(-x)))
    from math import erf
    gelu = 0.5 * x * (1 + np.vectorize(erf)(x / np.sqrt(2)))
    _close(_run(nn.GELU(), x), gelu, tol=2e-3)
    p = nn.PReLU(in_channels=3)
    xp = RS.randn(2, 3, 4)
    _close(_run(p, xp, init=mx.init.Zero()), np.where(xp > 0, xp, 0.25 * xp))


def test_batchnorm_training_and_inference():
    x = RS.randn(4, 3, 2, 2)
    bn = nn.BatchNorm()
    bn.initialize()
    with autograd.record():
        y = bn(nd.array(x))
    y.backward()  # as in MXNet 1.x, the running statistics move in the backward pass
    out = y.asnumpy()
    mean = x.mean(axis=(0, 2, 3))
    var = x.var(axis=(0, 2, 3))
    ref = (x - mean.reshape(1, 3, 1, 1)) / np.sqrt(var.reshape(1, 3, 1, 1) + 1e-5)
    _close(out, ref, tol=1e-3)
    _close(bn.running_mean.data().asnumpy(), 0.1 * mean, tol=1e-4)
    _close(bn.running_var.data().asnumpy(), 0.9 + 0.1 * var, tol=1e-3)
    # inference uses the running statistics
    rm, rv = bn.running_mean.data().asnumpy(), bn.running_var.data().asnumpy()
    out = bn(nd.array(x)).asnumpy()
    _close(out, (x - rm.reshape(1, 3, 1, 1)) / np.sqrt(rv.reshape(1, 3, 1, 1) + 1e-5), tol=1e-3)


def test_batchnorm_relu_training_and_inference():
    x = RS.randn(4, 3, 2, 2)
    bn = nn.BatchNormReLU(in_channels=3)
    bn.initialize()
    bn.beta.set_data(nd.array([0.5, -0.5, 0.0]))
    with autograd.record():
        y = bn(nd.array(x))
    y.backward()  # the running statistics move in the backward pass
    out = y.asnumpy()
    mean, var = x.mean(axis=(0, 2, 3)), x.var(axis=(0, 2, 3))
    beta = np.array([0.5, -0.5, 0.0]).reshape(1, 3, 1, 1)
    ref = (x - mean.reshape(1, 3, 1, 1)) / np.sqrt(var.reshape(1, 3, 1, 1) + 1e-5) + beta
    _close(out, np.maximum(ref, 0), tol=1e-3)
    _close(bn.running_mean.data().asnumpy(), 0.1 * mean, tol=1e-4)
    rm, rv = bn.running_mean.data().asnumpy(), bn.running_var.data().asnumpy()
    out = bn(nd.array(x)).asnumpy()
    ref = (x - rm.reshape(1, 3, 1, 1)) / np.sqrt(rv.reshape(1, 3, 1, 1) + 1e-5) + beta
    _close(out, np.maximum(ref, 0), tol=1e-3)


def test_layernorm_instancenorm_groupnorm():
    x = RS.randn(2, 4, 3)
    ln = nn.LayerNorm()
    out = _run(ln, x, init=mx.init.One())
    ref = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)
    _close(out, ref, tol=1e-3)  # explicit gamma 'ones' / beta 'zeros' win over the global init

    xi = RS.randn(2, 3, 4, 4)
    inorm = nn.InstanceNorm(in_channels=3)
    inorm.initialize()
    out = inorm(nd.array(xi)).asnumpy()
    ref = (xi - xi.mean(axis=(2, 3), keepdims=True)) / np.sqrt(xi.var(axis=(2, 3), keepdims=True) + 1e-5)
    _close(out, ref, tol=1e-3)

    gn = nn.GroupNorm(num_groups=2)
    gn.initialize()
    xg = RS.randn(2, 4, 3, 3)
    out = gn(nd.array(xg)).asnumpy()
    grouped = xg.reshape(2, 2, -1)
    ref = ((grouped - grouped.mean(-1, keepdims=True)) /
           np.sqrt(grouped.var(-1, keepdims=True) + 1e-5)).reshape(xg.shape)
    _close(out, ref, tol=1e-3)


def test_dropout_train_and_predict():
    x = np.ones((100, 100))
    d = nn.Dropout(0.5)
    d.initialize()
    _close(d(nd.array(x)).asnumpy(), x)  # not training: identity
    with autograd.record():
        y = d(nd.array(x)).asnumpy()
    kept = y != 0
    assert 0.4 < kept.mean() < 0.6
    _close(y[kept], np.full(kept.sum(), 2.0))


def test_embedding():
    emb = nn.Embedding(10, 4)
    idx = np.array([[1, 3], [9, 0]])
    out = _run(emb, idx)
    _close(out, emb.weight.data().asnumpy()[idx])


def test_lambda_and_hybrid_lambda_and_concurrent():
    x = RS.randn(2, 3)
    _close(_run(nn.Lambda("tanh"), x), np.tanh(x))
    _close(_run(nn.HybridLambda(lambda F, a: F.relu(a) * 2), x), np.maximum(x, 0) * 2)
    cat = HybridConcurrent(axis=1)
    cat.add(Identity(), nn.HybridLambda("negative"))
    _close(_run(cat, x), np.concatenate([x, -x], axis=1))


def test_sequential_indexing_and_repr():
    net = nn.HybridSequential()
    net.add(nn.Dense(3), nn.Dense(2), nn.Dense(1))
    assert len(net) == 3 and isinstance(net[1], nn.Dense)
    sub = net[:2]
    assert len(sub) == 2
    assert "Dense" in repr(net)
