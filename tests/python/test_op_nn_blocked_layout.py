"""Blocked oneDNN layouts kept between consecutive oneDNN ops (conv -> relu -> pool -> conv):
same results as when every op reads plain data, plain data for every reader outside oneDNN
(asnumpy, slices, in-place element-wise ops, saving), and the propagation really happens
(oneDNN's verbose log shows the blocked formats flowing without reorders in between)."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import mxnet as mx
from test_op_nn_conv import conv_ref
from test_op_nn_pool import pool_ref

R = np.random.RandomState(21)
X = R.randn(2, 16, 10, 10).astype(np.float32)
W1 = (R.randn(32, 16, 3, 3) * 0.2).astype(np.float32)
W2 = (R.randn(16, 32, 1, 1) * 0.2).astype(np.float32)


def chain(read_each=False):
    """conv -> relu -> pool -> conv; read_each reads every intermediate right away (so each op
    gets plain input) instead of leaving them to the next oneDNN op."""
    outs = []
    h = mx.nd.array(X)
    for f in (lambda a: mx.nd.Convolution(a, mx.nd.array(W1), kernel=(3, 3), pad=(1, 1), num_filter=32, no_bias=True),
              lambda a: mx.nd.Activation(a, act_type="relu"),
              lambda a: mx.nd.Pooling(a, kernel=(2, 2), stride=(2, 2), pool_type="max"),
              lambda a: mx.nd.Convolution(a, mx.nd.array(W2), kernel=(1, 1), num_filter=16, no_bias=True)):
        h = f(h)
        if read_each:
            h.asnumpy()
        outs.append(h)
    return outs


def reference():
    h1 = conv_ref(X.astype(np.float64), W1.astype(np.float64), kernel=(3, 3), pad=(1, 1), num_filter=32,
                  no_bias=True)
    h2 = np.maximum(h1, 0)
    h3 = pool_ref(h2, kernel=(2, 2), stride=(2, 2), pool_type="max")
    h4 = conv_ref(h3, W2.astype(np.float64), kernel=(1, 1), num_filter=16, no_bias=True)
    return [h1, h2, h3, h4]


def test_chain_matches_the_chain_that_reads_every_intermediate_and_numpy():
    kept = chain()
    final = kept[-1].asnumpy()  # read the end first: the intermediates are still unread
    plain = chain(read_each=True)
    np.testing.assert_allclose(final, plain[-1].asnumpy(), rtol=1e-6, atol=1e-6)
    for got, want in zip(kept, reference()):
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-4, atol=1e-4)


def test_intermediates_read_from_python_are_plain_in_every_access():
    h1, h2, h3, h4 = chain()
    want = reference()
    h4.wait_to_read()
    np.testing.assert_allclose(h2[1].asnumpy(), want[1][1], rtol=1e-4, atol=1e-4)  # a slice view
    np.testing.assert_allclose(h3.reshape((2, -1)).asnumpy(), want[2].reshape(2, -1), rtol=1e-4, atol=1e-4)
    h1 += 1.0  # an in-place non-oneDNN op reads and writes the blocked array
    np.testing.assert_allclose(h1.asnumpy(), want[0] + 1, rtol=1e-4, atol=1e-4)


def test_saving_an_array_held_in_blocked_layout_writes_plain_data(tmp_path):
    h1, h2, h3, h4 = chain()
    fname = str(tmp_path / "blocked.params")
    mx.nd.save(fname, {"conv": h1, "pool": h3})  # never read before: still blocked when saved
    loaded = mx.nd.load(fname)
    want = reference()
    np.testing.assert_allclose(loaded["conv"].asnumpy(), want[0], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(loaded["pool"].asnumpy(), want[2], rtol=1e-4, atol=1e-4)


def test_gradients_through_blocked_outputs_match_numpy_chain():
    x, w1 = mx.nd.array(X[:1, :, :6, :6]), mx.nd.array(W1)
    w1.attach_grad()
    with mx.autograd.record():
        h = mx.nd.Convolution(x, w1, kernel=(3, 3), pad=(1, 1), num_filter=32, no_bias=True)
        y = mx.nd.Pooling(mx.nd.Activation(h, act_type="relu"), kernel=(2, 2), stride=(2, 2), pool_type="avg")
    y.backward()
    # d sum(avgpool(relu(conv))) / dw: each output position of relu gets 1/4 where conv > 0
    hc = conv_ref(X[:1, :, :6, :6].astype(np.float64), W1.astype(np.float64), kernel=(3, 3), pad=(1, 1),
                  num_filter=32, no_bias=True)
    g = (hc > 0) * 0.25
    xp = np.pad(X[:1, :, :6, :6].astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    want = np.zeros(W1.shape)
    for i in range(3):
        for j in range(3):
            want[:, :, i, j] = np.einsum("nfhw,nchw->fc", g, xp[:, :, i:i + 6, j:j + 6])
    np.testing.assert_allclose(w1.grad.asnumpy(), want, rtol=1e-4, atol=1e-4)


_VERBOSE = r'''
import numpy as np, mxnet as mx, sys
sys.path.insert(0, %r)
import test_op_nn_blocked_layout as t
print("RESULT", t.chain()[-1].asnumpy().ravel()[:8].tolist())
'''


@pytest.mark.skipif(os.environ.get("MXNET_ONEDNN_ENABLED") == "0", reason="needs the oneDNN path")
def test_blocked_formats_flow_between_onednn_ops_without_reorders():
    env = dict(os.environ, ONEDNN_VERBOSE="1", MXNET_ONEDNN_ENABLED="1")
    here = os.path.dirname(os.path.abspath(__file__))
    env["PYTHONPATH"] = os.pathsep.join([here, os.path.join(here, "..", "..", "python"), env.get("PYTHONPATH", "")])
    res = subprocess.run([sys.executable, "-c", _VERBOSE % here], env=env, capture_output=True, text=True,
                         timeout=120, cwd=here)
    assert res.returncode == 0, res.stderr
    execs = [line.split(",") for line in res.stdout.splitlines() if line.startswith("onednn_verbose,exec")]
    kinds = [e[3] for e in execs]
    conv = [i for i, k in enumerate(kinds) if k == "convolution"]
    assert len(conv) == 2, kinds
    between = execs[conv[0] + 1:conv[1]]
    # relu and pooling run on the conv's blocked format; no reorder of activations in between
    assert [e[3] for e in between if e[3] != "reorder"] == ["eltwise", "pooling_v2"], kinds
    act_shapes = ("2x32x10x10", "2x32x5x5")  # conv1/relu output, pool output (the weights reorder is fine)
    assert not [e for e in between if e[3] == "reorder" and any(a in e for a in act_shapes)], between
    for e in between:
        if e[3] in ("eltwise", "pooling_v2"):
            src = [f for f in e[6].split() if f.startswith(("data_", "src_"))][0]
            assert "abcd" not in src and "blocked" in src, e[6]
    # the second conv reads the pooled blocked tensor directly: its src is not plain
    assert "src_f32::blocked:abcd" not in execs[conv[1]][6], execs[conv[1]][6]
