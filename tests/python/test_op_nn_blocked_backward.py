"""Backward through blocked oneDNN layouts and the training-step shortcuts: gradients of
conv -> relu -> max-pool / BatchNorm / residual-add chains (where the backward ops pass blocked
gradients to each other) against numpy written out independently, max-pool ties, padding and
ceil mode, and gradients whose request is null (not computed) or add (accumulated). The module
re-runs with MXNET_ONEDNN_ENABLED=0, so every expectation also holds on the plain kernels."""
import os

import numpy as np
import pytest

import mxnet as mx
from mxnet import autograd
from op_testing import plain_path_rerun
from op_testing import onednn_execs, run_onednn_verbose

R = np.random.RandomState(7)


# ---- numpy references (float64) ----

def conv_fwd(x, w, b=None):
    """Stride 1, no padding, (N, C, H, W) x (F, C, k, k)."""
    k = w.shape[2]
    oh, ow = x.shape[2] - k + 1, x.shape[3] - k + 1
    y = np.zeros((x.shape[0], w.shape[0], oh, ow))
    for i in range(k):
        for j in range(k):
            y += np.einsum("nchw,fc->nfhw", x[:, :, i:i + oh, j:j + ow], w[:, :, i, j])
    return y if b is None else y + b.reshape(1, -1, 1, 1)


def conv_bwd(x, w, dy):
    """(dx, dw, db) of conv_fwd."""
    k = w.shape[2]
    oh, ow = dy.shape[2], dy.shape[3]
    dx, dw = np.zeros(x.shape), np.zeros(w.shape)
    for i in range(k):
        for j in range(k):
            dx[:, :, i:i + oh, j:j + ow] += np.einsum("nfhw,fc->nchw", dy, w[:, :, i, j])
            dw[:, :, i, j] = np.einsum("nfhw,nchw->fc", dy, x[:, :, i:i + oh, j:j + ow])
    return dx, dw, dy.sum(axis=(0, 2, 3))


def pool_windows(h, w, kernel, stride, pad, full):
    """Per output position, the clipped input window (h0, h1, w0, w1); MXNet's valid/full sizes."""
    def size(n, k, s, p):
        return (-(-(n + 2 * p - k) // s) if full else (n + 2 * p - k) // s) + 1
    oh, ow = size(h, kernel[0], stride[0], pad[0]), size(w, kernel[1], stride[1], pad[1])
    wins = {}
    for a in range(oh):
        for b in range(ow):
            hs, ws = a * stride[0] - pad[0], b * stride[1] - pad[1]
            wins[a, b] = (max(hs, 0), min(hs + kernel[0], h), max(ws, 0), min(ws + kernel[1], w))
    return oh, ow, wins


def maxpool_fwd_bwd(x, dy_fn, kernel, stride=None, pad=(0, 0), full=False):
    """Max pooling and its gradient: each window's gradient goes to the first (row-major)
    position holding the window's maximum. dy_fn(y_shape) gives the output gradient."""
    stride = stride or kernel
    n, c, h, w = x.shape
    oh, ow, wins = pool_windows(h, w, kernel, stride, pad, full)
    y = np.zeros((n, c, oh, ow))
    dy = dy_fn(y.shape)
    dx = np.zeros(x.shape)
    for (a, b), (h0, h1, w0, w1) in wins.items():
        for i in range(n):
            for ch in range(c):
                win = x[i, ch, h0:h1, w0:w1]
                r, s = np.unravel_index(int(np.argmax(win)), win.shape)  # argmax: first maximum
                y[i, ch, a, b] = win[r, s]
                dx[i, ch, h0 + r, w0 + s] += dy[i, ch, a, b]
    return y, dy, dx


def bn_train_bwd(x, gamma, dy, eps):
    """(dx, dgamma, dbeta) of training BatchNorm over axis 1 with batch statistics."""
    axes = (0, 2, 3)
    mu = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    xhat = (x - mu) / np.sqrt(var + eps)
    dgamma = (dy * xhat).sum(axis=axes)
    dbeta = dy.sum(axis=axes)
    g = gamma.reshape(1, -1, 1, 1)
    dx = g / np.sqrt(var + eps) * (dy - dy.mean(axis=axes, keepdims=True) -
                                   xhat * (dy * xhat).mean(axis=axes, keepdims=True))
    return xhat * g, dx, dgamma, dbeta


def close(got, want, tol=2e-4):
    np.testing.assert_allclose(got.asnumpy() if hasattr(got, "asnumpy") else got, want, rtol=tol, atol=tol)


# ---- conv -> relu -> max-pool, the LeNet block ----

@pytest.mark.parametrize("channels,size,kernel,stride,pad,full", [
    (20, 10, (2, 2), None, (0, 0), False),    # LeNet: C padded to 32 in nChw16c, tiled windows
    (16, 11, (2, 2), None, (0, 0), False),    # odd size: the last row/column is in no window
    (20, 11, (2, 2), None, (0, 0), True),     # ceil mode: clipped windows on the right/bottom
    (8, 12, (3, 3), (2, 2), (1, 1), False),   # ResNet's stem pool: overlapping, padded windows
    (36, 9, (3, 3), (1, 1), (0, 0), False),   # stride 1: every input in several windows
])
@pytest.mark.parametrize("train_mode", [True, False])
def test_conv_relu_maxpool_gradients_match_numpy(channels, size, kernel, stride, pad, full, train_mode):
    x, w, b = (R.randn(2, 3, size, size).astype(np.float32), (R.randn(channels, 3, 3, 3) * 0.3).astype(np.float32),
               (R.randn(channels) * 0.1).astype(np.float32))
    stride = stride or kernel
    params = dict(kernel=kernel, stride=stride, pool_type="max", pad=pad, pooling_convention="full" if full else "valid")
    xs, ws, bs = mx.nd.array(x), mx.nd.array(w), mx.nd.array(b)
    for a in (xs, ws, bs):
        a.attach_grad()
    c = conv_fwd(x.astype(np.float64), w.astype(np.float64), b.astype(np.float64))
    r = np.maximum(c, 0)
    y, dy, dr = maxpool_fwd_bwd(r, lambda s: R.randn(*s), kernel, stride, pad, full)
    with autograd.record(train_mode=train_mode):
        out = mx.nd.Pooling(mx.nd.Activation(mx.nd.Convolution(xs, ws, bs, kernel=(3, 3), num_filter=channels),
                                             act_type="relu"), **params)
        loss = (out * mx.nd.array(dy)).sum()
    loss.backward()
    close(out, y)
    dx, dw, db = conv_bwd(x.astype(np.float64), w.astype(np.float64), dr * (c > 0))
    close(xs.grad, dx)
    close(ws.grad, dw)
    close(bs.grad, db)


def test_maxpool_ties_give_the_gradient_to_the_first_maximum():
    # plain input with ties in every window (values repeat), and windows of equal values
    x = np.array([[1, 3, 3, 0], [3, 2, 0, 0], [5, 5, 7, 7], [5, 5, 7, 7]], np.float32).reshape(1, 1, 4, 4)
    x = np.concatenate([x, np.zeros_like(x), -x], axis=1)
    xs = mx.nd.array(x)
    xs.attach_grad()
    dy = np.arange(1, 13, dtype=np.float32).reshape(1, 3, 2, 2)
    with autograd.record():
        loss = (mx.nd.Pooling(xs, kernel=(2, 2), stride=(2, 2), pool_type="max") * mx.nd.array(dy)).sum()
    loss.backward()
    want = np.zeros_like(x)
    # channel 0: maxima 3 at (0,1), 3 at (0,2), 5 at (2,0), 7 at (2,2) -- first of each tie
    want[0, 0, 0, 1], want[0, 0, 0, 2], want[0, 0, 2, 0], want[0, 0, 2, 2] = 1, 2, 3, 4
    # channel 1: all zeros, the window's first position
    want[0, 1, 0, 0], want[0, 1, 0, 2], want[0, 1, 2, 0], want[0, 1, 2, 2] = 5, 6, 7, 8
    # channel 2 (-x): maxima -1 at (0,0), 0 at (0,3)... first of each
    want[0, 2, 0, 0], want[0, 2, 0, 3], want[0, 2, 2, 0], want[0, 2, 2, 2] = 9, 10, 11, 12
    close(xs.grad, want, 0)


@pytest.mark.parametrize("train_mode", [True, False])
def test_maxpool_ties_on_a_blocked_input_go_to_the_first_maximum(train_mode):
    # zero weights and a positive bias: the conv output (blocked) is constant per channel, so
    # every window ties; the weight gradient sees which position took each window's gradient
    x = R.randn(2, 3, 9, 9).astype(np.float32)
    w = np.zeros((20, 3, 2, 2), np.float32)
    b = (0.5 + R.rand(20)).astype(np.float32)
    ws = mx.nd.array(w)
    ws.attach_grad()
    c = np.broadcast_to(b.reshape(1, -1, 1, 1), (2, 20, 8, 8)).astype(np.float64)
    _, dy, dr = maxpool_fwd_bwd(c, lambda s: R.randn(*s), (2, 2), (2, 2))
    with autograd.record(train_mode=train_mode):
        h = mx.nd.Activation(mx.nd.Convolution(mx.nd.array(x), ws, mx.nd.array(b), kernel=(2, 2), num_filter=20),
                             act_type="relu")
        loss = (mx.nd.Pooling(h, kernel=(2, 2), stride=(2, 2), pool_type="max") * mx.nd.array(dy)).sum()
    loss.backward()
    close(ws.grad, conv_bwd(x.astype(np.float64), w.astype(np.float64), dr)[1])


# ---- BatchNorm and the residual sum, the ResNet blocks ----

@pytest.mark.parametrize("channels", [16, 20])
def test_conv_batchnorm_relu_gradients_match_numpy(channels):
    x = R.randn(4, 3, 8, 8).astype(np.float32)
    w = (R.randn(channels, 3, 3, 3) * 0.3).astype(np.float32)
    gamma = (1 + 0.2 * R.randn(channels)).astype(np.float32)
    beta = (0.1 * R.randn(channels)).astype(np.float32)
    ws, gs, bs = mx.nd.array(w), mx.nd.array(gamma), mx.nd.array(beta)
    for a in (ws, gs, bs):
        a.attach_grad()
    eps = 1e-3
    c = conv_fwd(x.astype(np.float64), w.astype(np.float64))
    y, _, _, _ = bn_train_bwd(c, gamma.astype(np.float64), np.zeros_like(c), eps)
    y = y + beta.reshape(1, -1, 1, 1)
    dout = R.randn(*y.shape)
    with autograd.record():
        h = mx.nd.Convolution(mx.nd.array(x), ws, kernel=(3, 3), num_filter=channels, no_bias=True)
        bn = mx.nd.BatchNorm(h, gs, bs, mx.nd.zeros(channels), mx.nd.ones(channels), eps=eps, fix_gamma=False)
        loss = (mx.nd.Activation(bn, act_type="relu") * mx.nd.array(dout)).sum()
    loss.backward()
    dy = dout * (y > 0)
    _, dc, dgamma, dbeta = bn_train_bwd(c, gamma.astype(np.float64), dy, eps)
    close(gs.grad, dgamma, 1e-3)
    close(bs.grad, dbeta, 1e-3)
    close(ws.grad, conv_bwd(x.astype(np.float64), w.astype(np.float64), dc)[1], 1e-3)


@pytest.mark.parametrize("op", ["add", "sub"])
def test_residual_sum_gradient_through_a_blocked_conv_backward(op):
    a, b = R.randn(2, 16, 7, 7).astype(np.float32), R.randn(2, 16, 7, 7).astype(np.float32)
    w = (R.randn(16, 16, 3, 3) * 0.2).astype(np.float32)
    av, bv, wv = mx.nd.array(a), mx.nd.array(b), mx.nd.array(w)
    av.attach_grad()
    bv.attach_grad()
    s = a + b if op == "add" else a - b
    c = conv_fwd(s.astype(np.float64), w.astype(np.float64))
    dout = R.randn(*c.shape)
    with autograd.record():
        z = av + bv if op == "add" else av - bv
        conv = mx.nd.Convolution(z, wv, kernel=(3, 3), num_filter=16, no_bias=True)
        conv2 = mx.nd.Convolution(z, wv, kernel=(3, 3), num_filter=16, no_bias=True)  # z feeds two ops
        loss = (mx.nd.Activation(conv, act_type="relu") * mx.nd.array(dout)).sum() + conv2.sum()
    loss.backward()
    ds = conv_bwd(s.astype(np.float64), w.astype(np.float64), dout * (c > 0) + 1)[0]
    close(av.grad, ds)
    close(bv.grad, ds if op == "add" else -ds)


# ---- gradient requests: null (not computed) and add (accumulated) ----

def conv_bn_fc_net(x_grad, w_grad, gamma_grad, fc_grad, req):
    """conv -> BatchNorm -> relu -> FullyConnected with the chosen arrays given gradients."""
    x = R.randn(2, 3, 6, 6).astype(np.float32)
    w = (R.randn(8, 3, 3, 3) * 0.3).astype(np.float32)
    gamma = (1 + 0.1 * R.randn(8)).astype(np.float32)
    fw = (R.randn(5, 8 * 16) * 0.1).astype(np.float32)
    arrays = {k: mx.nd.array(v) for k, v in dict(x=x, w=w, gamma=gamma, fw=fw).items()}
    for k, want in dict(x=x_grad, w=w_grad, gamma=gamma_grad, fw=fc_grad).items():
        if want:
            arrays[k].attach_grad(grad_req=req)
    return arrays


def run_net(a):
    with autograd.record():
        h = mx.nd.Convolution(a["x"], a["w"], kernel=(3, 3), num_filter=8, no_bias=True)
        h = mx.nd.BatchNorm(h, a["gamma"], mx.nd.zeros(8), mx.nd.zeros(8), mx.nd.ones(8), fix_gamma=False)
        h = mx.nd.FullyConnected(mx.nd.Activation(h, act_type="relu"), a["fw"], num_hidden=5, no_bias=True)
        loss = (h * h).sum()
    loss.backward()


def numpy_net_grads(a):
    x, w, gamma, fw = (a[k].asnumpy().astype(np.float64) for k in ("x", "w", "gamma", "fw"))
    c = conv_fwd(x, w)
    bn, _, _, _ = bn_train_bwd(c, gamma, np.zeros_like(c), 1e-3)
    r = np.maximum(bn, 0)
    h = r.reshape(2, -1) @ fw.T
    dh = 2 * h
    dfw = dh.T @ r.reshape(2, -1)
    dr = (dh @ fw).reshape(r.shape) * (bn > 0)
    _, dc, dgamma, _ = bn_train_bwd(c, gamma, dr, 1e-3)
    dx, dw, _ = conv_bwd(x, w, dc)
    return dict(x=dx, w=dw, gamma=dgamma, fw=dfw)


@pytest.mark.parametrize("wanted", [("w",), ("x",), ("gamma",), ("fw",), ("x", "fw"), ("w", "gamma", "fw")])
def test_only_requested_gradients_are_written_and_they_are_right(wanted):
    a = conv_bn_fc_net(*(k in wanted for k in ("x", "w", "gamma", "fw")), req="write")
    run_net(a)
    want = numpy_net_grads(a)
    for k in ("x", "w", "gamma", "fw"):
        if k in wanted:
            close(a[k].grad, want[k], 1e-3)
        else:
            assert a[k].grad is None


def test_add_requests_accumulate_over_two_backward_passes():
    a = conv_bn_fc_net(True, True, True, True, req="add")
    run_net(a)
    run_net(a)
    want = numpy_net_grads(a)
    for k in ("x", "w", "gamma", "fw"):
        close(a[k].grad, 2 * want[k], 2e-3)


def test_data_gradient_skipped_as_unused_is_never_read_later():
    # x needs no gradient: conv's data gradient runs with a null request; the weight
    # gradient through the same backward node must still be exact, twice in a row
    x = R.randn(2, 1, 8, 8).astype(np.float32)
    w = (R.randn(4, 1, 3, 3) * 0.3).astype(np.float32)
    wv = mx.nd.array(w)
    wv.attach_grad()
    for _ in range(2):
        with autograd.record():
            loss = mx.nd.Convolution(mx.nd.array(x), wv, kernel=(3, 3), num_filter=4, no_bias=True).sum()
        loss.backward()
        close(wv.grad, conv_bwd(x.astype(np.float64), w.astype(np.float64), np.ones((2, 4, 6, 6)))[1])


def test_gradients_written_straight_into_buffers_overwrite_and_stay_the_same_arrays():
    # w is used once (its gradient op writes w.grad itself), v twice (summed, then copied),
    # h is itself a head; a second backward overwrites every 'write' buffer in place
    x = R.randn(3, 4).astype(np.float32)
    w, v = R.randn(2, 4).astype(np.float32), R.randn(2, 4).astype(np.float32)
    ws, vs, hs = mx.nd.array(w), mx.nd.array(v), mx.nd.array(R.randn(3, 2).astype(np.float32))
    for a in (ws, vs, hs):
        a.attach_grad()
    bufs = [a.grad for a in (ws, vs, hs)]
    for scale in (1.0, 3.0):
        with autograd.record():
            y = (mx.nd.FullyConnected(mx.nd.array(x), ws, num_hidden=2, no_bias=True) +
                 mx.nd.FullyConnected(mx.nd.array(x), vs, num_hidden=2, no_bias=True) * 2 +
                 mx.nd.FullyConnected(mx.nd.array(x * 0.5), vs, num_hidden=2, no_bias=True))
            loss = (y * hs).sum() * scale
        loss.backward()
        hv = hs.asnumpy().astype(np.float64)
        close(ws.grad, scale * hv.T @ x)
        close(vs.grad, scale * hv.T @ (2.5 * x))
        close(hs.grad, scale * (x @ w.T + 2.5 * (x @ v.T)))
        for a, buf in zip((ws, vs, hs), bufs):  # the buffers taken before backward hold the result
            np.testing.assert_array_equal(buf.asnumpy(), a.grad.asnumpy())


def test_autograd_grad_with_create_graph_still_returns_every_requested_gradient():
    x = mx.nd.array(R.randn(3, 4).astype(np.float32))
    w = mx.nd.array(R.randn(2, 4).astype(np.float32))
    x.attach_grad()
    w.attach_grad()
    with autograd.record():
        y = mx.nd.FullyConnected(x, w, num_hidden=2, no_bias=True)
        gx = autograd.grad(y.sum(), [x], create_graph=True)[0]
    close(gx, np.tile(w.asnumpy().sum(axis=0), (3, 1)))


# ---- what the oneDNN backward chain executes ----

def conv_data_grad_np(dy, w, in_hw, stride, pad):
    """dx of a convolution: every tap adds dy times its weight at the input pixel it read."""
    _, _, oh, ow = dy.shape
    h, wd = in_hw
    dxp = np.zeros((dy.shape[0], w.shape[1], h + 2 * pad[0], wd + 2 * pad[1]))
    for i in range(w.shape[2]):
        for j in range(w.shape[3]):
            dxp[:, :, i:i + stride[0] * oh:stride[0], j:j + stride[1] * ow:stride[1]] += np.einsum(
                "nfhw,fc->nchw", dy, w[:, :, i, j])
    return dxp[:, :, pad[0]:pad[0] + h, pad[1]:pad[1] + wd]


@pytest.mark.parametrize("channels,filters,size,stride,pad", [
    (20, 50, 12, (1, 1), (0, 0)),  # LeNet's second conv (5x5 below)
    (20, 24, 9, (2, 2), (1, 1)),
    (12, 10, 7, (1, 2), (2, 1)),
])
def test_channel_last_training_data_gradient_matches_numpy(channels, filters, size, stride, pad):
    # Training runs these convs channel-last (channels not a multiple of 16), and their data
    # gradient (channels not a multiple of 8) as one GEMM and a col2im.
    k = 5 if stride == (1, 1) else 3
    x = R.randn(3, channels, size, size).astype(np.float32)
    w = (R.randn(filters, channels, k, k) * 0.2).astype(np.float32)
    xs, ws = mx.nd.array(x), mx.nd.array(w)
    xs.attach_grad()
    with autograd.record():
        y = mx.nd.Convolution(xs, ws, kernel=(k, k), stride=stride, pad=pad, num_filter=filters, no_bias=True)
    dy = R.randn(*y.shape).astype(np.float32)
    y.backward(mx.nd.array(dy))
    close(xs.grad, conv_data_grad_np(dy.astype(np.float64), w.astype(np.float64), (size, size), stride, pad))


_LENET_STEP = r"""
import numpy as np, mxnet as mx
from mxnet import autograd
R = np.random.RandomState(0)
x = mx.nd.array(R.randn(4, 1, 16, 16))
w1, w2 = mx.nd.array(R.randn(20, 1, 5, 5) * 0.2), mx.nd.array(R.randn(50, 20, 5, 5) * 0.1)
for a in (w1, w2):
    a.attach_grad()
with autograd.record():
    h = mx.nd.Pooling(mx.nd.Activation(mx.nd.Convolution(x, w1, kernel=(5, 5), num_filter=20, no_bias=True),
                                       act_type="relu"), kernel=(2, 2), stride=(2, 2), pool_type="max")
    h = mx.nd.Pooling(mx.nd.Activation(mx.nd.Convolution(h, w2, kernel=(5, 5), num_filter=50, no_bias=True),
                                       act_type="relu"), kernel=(2, 2), stride=(2, 2), pool_type="max")
    loss = h.sum()
print("FORWARD-DONE", loss.asnumpy())
loss.backward()
mx.nd.waitall()
print("GRAD", float(w1.grad.sum().asnumpy()[0]))
"""


@pytest.mark.skipif(os.environ.get("MXNET_ONEDNN_ENABLED") == "0", reason="needs the oneDNN path")
def test_backward_chain_stays_blocked_and_skips_the_unused_data_gradient():
    lines = run_onednn_verbose(_LENET_STEP).splitlines()
    start = [i for i, line in enumerate(lines) if line.startswith("FORWARD-DONE")][0]
    execs = onednn_execs("\n".join(lines[start:]))
    kinds = [(e[3], e[5]) for e in execs]
    # max-pool backward is the one-pass kernel, not oneDNN's training forward + backward
    assert not [k for k in kinds if k[0] == "pooling_v2"], kinds
    # the first conv's data needs no gradient: only its weight gradient runs, and (20 output
    # channels, not a multiple of 16) it trains channel-last like the second conv, whose input
    # it produces
    first = [e for e in execs if e[3] == "convolution" and "ic1oc20" in e[-2]]
    assert [e[5] for e in first] == ["backward_weights"], kinds
    assert "src_f32::blocked:acdb" in first[0][6] and "dst_f32::blocked:acdb" in first[0][6], first
    # relu backward runs on the conv outputs' format, and no activation is reordered except the
    # plain head gradient entering the second pool (4x50x2x2): the 4x20x12x12 and 4x20x6x6
    # activations between the convs stay channel-last both ways
    # the second conv's data gradient (20 channels, not a multiple of 8) is our GEMM + col2im:
    # oneDNN runs only its weight gradient
    second = [e for e in execs if e[3] == "convolution" and "ic20oc50" in e[-2]]
    assert [e[5] for e in second] == ["backward_weights"], kinds
    relu = [e for e in execs if e[3] == "eltwise"]
    assert len(relu) == 2 and all("abcd" not in e[6] and "blocked:a:" not in e[6] for e in relu), relu
    acts = ("4x20x12x12", "4x20x6x6", "4x50x2x2")
    moved = [e[-2] for e in execs if e[3] == "reorder" and e[-2] in acts]
    assert moved in ([], ["4x50x2x2"]), moved
    assert moved.count("4x20x6x6") <= 2, moved


test_plain_path = plain_path_rerun(__file__)
