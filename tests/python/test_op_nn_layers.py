"""NN operators through mx.nd and autograd: numpy references, gradients by finite differences,
the oneDNN and the plain path (MXNET_ONEDNN_ENABLED is fixed at load, so a subprocess runs
the plain one), moving statistics, runtime info and errors naming the op."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import mxnet as mx


def conv2d_ref(x, w, b, stride, pad):
    n, c, h, wd = x.shape
    f, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = (h + 2 * pad - kh) // stride + 1, (wd + 2 * pad - kw) // stride + 1
    y = np.zeros((n, f, oh, ow))
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
            y[:, :, i, j] = np.tensordot(patch, w, axes=([1, 2, 3], [1, 2, 3]))
    return y + b.reshape(1, -1, 1, 1)


def test_convolution_matches_numpy_and_gradient_matches_finite_differences():
    rng = np.random.RandomState(0)
    x, w, b = rng.randn(2, 3, 7, 6), rng.randn(4, 3, 3, 3), rng.randn(4)
    y = mx.nd.Convolution(mx.nd.array(x), mx.nd.array(w), mx.nd.array(b), kernel=(3, 3), stride=(2, 2),
                          pad=(1, 1), num_filter=4)
    np.testing.assert_allclose(y.asnumpy(), conv2d_ref(x, w, b, 2, 1), rtol=1e-4, atol=1e-4)
    # float64 runs the plain kernels: compare autograd with central differences of sum(y * head)
    xd, wd, bd = (mx.nd.array(a, dtype='float64') for a in (x, w, b))
    wd.attach_grad()
    head = rng.randn(2, 4, 4, 3)
    with mx.autograd.record():
        out = mx.nd.Convolution(xd, wd, bd, kernel=(3, 3), stride=(2, 2), pad=(1, 1), num_filter=4)
    out.backward(mx.nd.array(head, dtype='float64'))
    eps, num = 1e-6, np.zeros_like(w)
    for idx in np.ndindex(*w.shape):
        wp, wm = w.copy(), w.copy()
        wp[idx] += eps
        wm[idx] -= eps
        num[idx] = ((conv2d_ref(x, wp, b, 2, 1) - conv2d_ref(x, wm, b, 2, 1)) * head).sum() / (2 * eps)
    np.testing.assert_allclose(wd.grad.asnumpy(), num, rtol=1e-5, atol=1e-6)


def test_lenet_style_block_trains_through_autograd():
    rng = np.random.RandomState(1)
    x = mx.nd.array(rng.rand(4, 1, 28, 28))
    w1, w2 = mx.nd.array(rng.randn(20, 1, 5, 5) * 0.1), mx.nd.array(rng.randn(10, 2880) * 0.01)
    label = mx.nd.array([1, 2, 3, 4])
    for p in (w1, w2):
        p.attach_grad()
    with mx.autograd.record():
        h = mx.nd.Convolution(x, w1, kernel=(5, 5), num_filter=20, no_bias=True)
        h = mx.nd.Pooling(mx.nd.Activation(h, act_type='tanh'), kernel=(2, 2), stride=(2, 2), pool_type='max')
        h = mx.nd.Dropout(h, p=0.5)
        out = mx.nd.SoftmaxOutput(mx.nd.FullyConnected(h, w2, num_hidden=10, no_bias=True), label)
    out.backward()
    probs = out.asnumpy()
    np.testing.assert_allclose(probs.sum(axis=1), 1, rtol=1e-5)
    assert np.abs(w1.grad.asnumpy()).sum() > 0 and np.abs(w2.grad.asnumpy()).sum() > 0


def test_batchnorm_updates_moving_stats_in_training_backward():
    rng = np.random.RandomState(2)
    x = rng.randn(8, 3, 4, 4) * 2 + 1
    mm, mv = mx.nd.zeros((3,)), mx.nd.ones((3,))
    args = [mx.nd.array(x), mx.nd.ones((3,)), mx.nd.zeros((3,)), mm, mv]
    args[0].attach_grad()
    with mx.autograd.record(train_mode=True):
        y = mx.nd.BatchNorm(*args, fix_gamma=False, momentum=0.9, eps=1e-5)
    np.testing.assert_array_equal(mm.asnumpy(), np.zeros(3))  # as in MXNet 1.x: the backward updates
    y.backward()
    mean, var = x.mean(axis=(0, 2, 3)), x.var(axis=(0, 2, 3))
    np.testing.assert_allclose(mm.asnumpy(), 0.1 * mean, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(mv.asnumpy(), 0.9 + 0.1 * var, rtol=1e-4, atol=1e-5)
    ref = (x - mean.reshape(1, 3, 1, 1)) / np.sqrt(var.reshape(1, 3, 1, 1) + 1e-5)
    np.testing.assert_allclose(y.asnumpy(), ref, rtol=1e-3, atol=1e-3)
    before = mm.asnumpy().copy()
    mx.nd.BatchNorm(*args, fix_gamma=False).wait_to_read()  # inference: stats untouched
    np.testing.assert_array_equal(mm.asnumpy(), before)


def test_softmax_family_matches_numpy():
    x = np.random.RandomState(3).randn(3, 5)
    e = np.exp(x / 2.0)
    sm = e / e.sum(axis=-1, keepdims=True)
    np.testing.assert_allclose(mx.nd.softmax(mx.nd.array(x), temperature=2.0).asnumpy(), sm, rtol=1e-5)
    np.testing.assert_allclose(mx.nd.log_softmax(mx.nd.array(x), axis=0).asnumpy(),
                               x - np.log(np.exp(x).sum(axis=0, keepdims=True)), rtol=1e-5, atol=1e-6)
    em = np.exp(-x)
    np.testing.assert_allclose(mx.nd.softmin(mx.nd.array(x)).asnumpy(), em / em.sum(-1, keepdims=True), rtol=1e-5)


@pytest.mark.parametrize('call,needle', [
    (lambda: mx.nd.Convolution(mx.nd.ones((1, 2, 2, 2)), mx.nd.ones((4, 2, 3, 3)), mx.nd.ones((4,)),
                               kernel=(3, 3), num_filter=4), 'kernel'),
    (lambda: mx.nd.Convolution(mx.nd.ones((1, 2, 5, 5)), mx.nd.ones((4, 3, 3, 3)), mx.nd.ones((4,)),
                               kernel=(3, 3), num_filter=4), 'weight'),
    (lambda: mx.nd.Convolution(mx.nd.ones((1, 4, 5, 5)), mx.nd.ones((4, 1, 3, 3)), mx.nd.ones((4,)),
                               kernel=(3, 3), num_filter=4, num_group=3), 'num_group'),
    (lambda: mx.nd.Convolution(mx.nd.ones((1, 2, 5, 5)), mx.nd.ones((4, 2, 3, 3)), mx.nd.ones((4,)),
                               kernel=(3, 3), num_filter=4, pad=(-1, 0)), 'pad'),
])
def test_bad_inputs_raise_mxnet_error_naming_op_and_parameter(call, needle):
    with pytest.raises(mx.base.MXNetError) as e:
        call().wait_to_read()
    assert 'Convolution' in str(e.value) and needle in str(e.value)


def test_runtime_info_reports_openblas_threading():
    info = dict(mx.runtime.info())
    assert info.get('openblas_threading') == 'openmp'


_SCRIPT = r'''
import json, numpy as np, mxnet as mx
rng = np.random.RandomState(4)
x, w = mx.nd.array(rng.randn(2, 8, 9, 9)), mx.nd.array(rng.randn(6, 8, 3, 3))
g, b, m, v = mx.nd.array(rng.rand(6) + .5), mx.nd.array(rng.randn(6)), mx.nd.zeros(6), mx.nd.ones(6)
fw = mx.nd.array(rng.randn(5, 6 * 5 * 5))
for a in (w, g, fw):
    a.attach_grad()
with mx.autograd.record():
    h = mx.nd.Convolution(x, w, kernel=(3, 3), num_filter=6, no_bias=True, stride=(2, 2))
    h = mx.nd.BatchNorm(h, g, b, m, v, fix_gamma=False)
    h = mx.nd.Activation(h, act_type='relu')
    h = mx.nd.Pooling(h, kernel=(2, 2), pool_type='avg', pad=(1, 1))
    h = mx.nd.LRN(h, nsize=3)
    out = mx.nd.log_softmax(mx.nd.FullyConnected(h, fw, num_hidden=5, no_bias=True))
out.backward()
print(json.dumps([a.asnumpy().ravel().tolist() for a in (out, w.grad, g.grad, fw.grad, m)]))
'''


def _run(enabled):
    env = dict(os.environ, MXNET_ONEDNN_ENABLED=enabled)
    res = subprocess.run([sys.executable, '-c', _SCRIPT], env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    return [np.array(a) for a in json.loads(res.stdout.strip().splitlines()[-1])]


def test_onednn_and_plain_paths_agree_forward_and_backward():
    dnn, plain = _run('1'), _run('0')
    for a, b in zip(dnn, plain):
        np.testing.assert_allclose(a, b, rtol=1e-3, atol=1e-4)
