"""Blocked oneDNN layouts kept between consecutive oneDNN ops (conv -> relu -> pool -> conv):
same results as when every op reads plain data, plain data for every reader outside oneDNN
(asnumpy, slices, in-place element-wise ops, saving), and the propagation really happens
(oneDNN's verbose log shows the blocked formats flowing without reorders in between)."""
import os

import numpy as np
import pytest

import mxnet as mx
from test_op_nn_conv import conv_ref
from test_op_nn_pool import pool_ref
from op_testing import plain_path_rerun
from op_testing import onednn_execs, run_onednn_verbose

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
    here = os.path.dirname(os.path.abspath(__file__))
    # The chain's first conv (3x3, 18 output tiles of 4x4) would run Winograd, which logs no primitive.
    execs = onednn_execs(run_onednn_verbose(_VERBOSE % here, MXNET_CPU_WINOGRAD_CONV="0"))
    kinds = [e[3] for e in execs]
    conv = [i for i, k in enumerate(kinds) if k == "convolution"]
    assert len(conv) == 2, kinds
    between = execs[conv[0] + 1:conv[1]]
    # relu and pooling run on the conv's blocked format; no reorder of activations in between.
    # Max pooling of blocked float32 runs the lane kernel, which is no oneDNN primitive.
    assert [e[3] for e in between if e[3] != "reorder"] == ["eltwise"], kinds
    act_shapes = ("2x32x10x10", "2x32x5x5")  # conv1/relu output, pool output (the weights reorder is fine)
    assert not [e for e in between if e[3] == "reorder" and any(a in e for a in act_shapes)], between
    for e in between:
        if e[3] in ("eltwise", "pooling_v2"):
            src = [f for f in e[6].split() if f.startswith(("data_", "src_"))][0]
            assert "abcd" not in src and "blocked" in src, e[6]
    # the second conv reads the pooled blocked tensor directly: its src is not plain
    assert "src_f32::blocked:abcd" not in execs[conv[1]][6], execs[conv[1]][6]


# ---- element-wise ops, concat and identities on blocked arrays ----

XR = R.randn(2, 16, 6, 6).astype(np.float32)


def conv_weights(c_out, seed):
    return (np.random.RandomState(seed).randn(c_out, 16, 3, 3) * 0.2).astype(np.float32)


def conv_nd(w):
    """A 3x3 same-size conv of XR: a oneDNN output left in the primitive's blocked format."""
    return mx.nd.Convolution(mx.nd.array(XR), mx.nd.array(w), kernel=(3, 3), pad=(1, 1), num_filter=w.shape[0],
                             no_bias=True)


def conv_np(w):
    return conv_ref(XR.astype(np.float64), w.astype(np.float64), kernel=(3, 3), pad=(1, 1), num_filter=w.shape[0],
                    no_bias=True)


BINARY = [
    ("a + b", lambda a, b: a + b, np.add),
    ("a - b", lambda a, b: a - b, np.subtract),
    ("a * b", lambda a, b: a * b, np.multiply),
    ("broadcast_add", mx.nd.broadcast_add, np.add),
    ("elemwise_add", mx.nd.elemwise_add, np.add),
    ("_plus", mx.nd._internal._plus, np.add),
    ("_Plus", mx.nd._internal._Plus, np.add),
    ("elemwise_sub", mx.nd.elemwise_sub, np.subtract),
    ("elemwise_mul", mx.nd.elemwise_mul, np.multiply),
    ("maximum", mx.nd.maximum, np.maximum),
]


@pytest.mark.parametrize("channels", [32, 3, 20])
@pytest.mark.parametrize("name,fn,ref", BINARY, ids=[b[0] for b in BINARY])
def test_binary_op_of_two_blocked_arrays_matches_numpy(name, fn, ref, channels):
    # 3 and 20 channels: formats that pad the channels (nChw16c) must take the plain path
    wa, wb = conv_weights(channels, 1), conv_weights(channels, 2)
    got = fn(conv_nd(wa), conv_nd(wb))
    np.testing.assert_allclose(got.asnumpy(), ref(conv_np(wa), conv_np(wb)), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("blocked_side", [0, 1])
def test_binary_op_of_blocked_and_plain_arrays_matches_numpy(blocked_side):
    w = conv_weights(32, 3)
    other = R.randn(2, 32, 6, 6).astype(np.float32)
    h = conv_nd(w)
    args = (h, mx.nd.array(other)) if blocked_side == 0 else (mx.nd.array(other), h)
    want = conv_np(w) + other
    np.testing.assert_allclose(mx.nd.broadcast_add(*args).asnumpy(), want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(mx.nd.elemwise_mul(*args).asnumpy(),
                               conv_np(w) * other, rtol=1e-4, atol=1e-4)


def test_broadcasting_a_blocked_array_against_a_smaller_one_matches_numpy():
    w = conv_weights(32, 4)
    bias = R.randn(1, 32, 1, 1).astype(np.float32)
    got = conv_nd(w) + mx.nd.array(bias)
    np.testing.assert_allclose(got.asnumpy(), conv_np(w) + bias, rtol=1e-4, atol=1e-4)


def test_in_place_add_of_blocked_arrays_matches_numpy():
    wa, wb = conv_weights(32, 5), conv_weights(32, 6)
    a, b = conv_nd(wa), conv_nd(wb)
    a_view = a  # the same array object: `+=` writes it in place
    a += b
    assert a is a_view
    want = conv_np(wa) + conv_np(wb)
    r = mx.nd.Activation(a, act_type="relu")  # reads the in-place sum
    np.testing.assert_allclose(r.asnumpy(), np.maximum(want, 0), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(a.asnumpy(), want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(b.asnumpy(), conv_np(wb), rtol=1e-4, atol=1e-4)  # the other input is untouched
    c = conv_nd(wa)
    c *= 2.0  # in-place scalar op on a blocked array
    np.testing.assert_allclose(c.asnumpy(), conv_np(wa) * 2, rtol=1e-4, atol=1e-4)
    d = conv_nd(wa)
    d += d  # both inputs and the output are one array
    np.testing.assert_allclose(d.asnumpy(), conv_np(wa) * 2, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("channels", [32, 20])
def test_scalar_ops_clip_leaky_relu_and_dropout_on_blocked_arrays_match_numpy(channels):
    w = conv_weights(channels, 7)
    h = conv_np(w)
    cases = [
        (lambda a: a + 0.5, h + 0.5),
        (lambda a: 2.0 * a, 2 * h),
        (lambda a: 1.0 - a, 1 - h),
        (lambda a: a / 4.0, h / 4),
        (lambda a: mx.nd.clip(a, 0.1, 0.5), np.clip(h, 0.1, 0.5)),
        (lambda a: mx.nd.LeakyReLU(a, act_type="leaky", slope=0.1), np.where(h > 0, h, 0.1 * h)),
        (lambda a: mx.nd.LeakyReLU(a, act_type="elu", slope=0.5), np.where(h > 0, h, 0.5 * np.expm1(h))),
        (lambda a: mx.nd.Dropout(a, p=0.5), h),  # not training: the identity
    ]
    for fn, want in cases:
        np.testing.assert_allclose(fn(conv_nd(w)).asnumpy(), want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("widths", [(32, 16, 48), (32, 20, 3)])
def test_concat_of_blocked_and_mixed_inputs_matches_numpy(widths):
    ws = [conv_weights(c, 10 + i) for i, c in enumerate(widths)]
    plain = R.randn(2, 8, 6, 6).astype(np.float32)
    want = np.concatenate([conv_np(w) for w in ws], axis=1)
    got = mx.nd.concat(*[conv_nd(w) for w in ws], dim=1)
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-4, atol=1e-4)
    mixed = mx.nd.concat(conv_nd(ws[0]), mx.nd.array(plain), conv_nd(ws[1]), dim=1)
    want_mixed = np.concatenate([conv_np(ws[0]), plain, conv_np(ws[1])], axis=1)
    np.testing.assert_allclose(mixed.asnumpy(), want_mixed, rtol=1e-4, atol=1e-4)
    # along another axis, and a concat result read by the next oneDNN op
    along_batch = mx.nd.concat(conv_nd(ws[0]), conv_nd(ws[0]), dim=0)
    np.testing.assert_allclose(along_batch.asnumpy(), np.concatenate([conv_np(ws[0])] * 2, axis=0), rtol=1e-4,
                               atol=1e-4)
    pooled = mx.nd.Pooling(mx.nd.concat(*[conv_nd(w) for w in ws], dim=1), kernel=(2, 2), stride=(2, 2),
                           pool_type="avg")
    np.testing.assert_allclose(pooled.asnumpy(), pool_ref(want, kernel=(2, 2), stride=(2, 2), pool_type="avg"),
                               rtol=1e-4, atol=1e-4)


def test_gradients_through_blocked_add_concat_and_scalar_ops_match_numpy():
    wa, wb = conv_weights(16, 20), conv_weights(16, 21)
    x = mx.nd.array(XR)
    wa_nd, wb_nd = mx.nd.array(wa), mx.nd.array(wb)
    wa_nd.attach_grad()
    wb_nd.attach_grad()
    conv = lambda w: mx.nd.Convolution(x, w, kernel=(3, 3), pad=(1, 1), num_filter=16, no_bias=True)
    with mx.autograd.record():
        a, b = conv(wa_nd), conv(wb_nd)
        s = mx.nd.relu(a + b) * 3.0
        y = mx.nd.concat(s, a * b, dim=1)
    y.backward()
    # d sum(y) / da = 3 * [a + b > 0] + b, and symmetrically for b
    ha, hb = conv_np(wa), conv_np(wb)
    ga = 3.0 * (ha + hb > 0) + hb
    gb = 3.0 * (ha + hb > 0) + ha
    xp = np.pad(XR.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))

    def wgrad(g):
        out = np.zeros((16, 16, 3, 3))
        for i in range(3):
            for j in range(3):
                out[:, :, i, j] = np.einsum("nfhw,nchw->fc", g, xp[:, :, i:i + 6, j:j + 6])
        return out
    np.testing.assert_allclose(wa_nd.grad.asnumpy(), wgrad(ga), rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(wb_nd.grad.asnumpy(), wgrad(gb), rtol=1e-3, atol=1e-3)


def residual_chain():
    """conv_a + conv_b -> relu -> conv -> concat with conv_a: ResNet's residual and Inception's join."""
    wa, wb, wc = conv_weights(32, 30), conv_weights(32, 31), (R.randn(16, 32, 1, 1) * 0.2).astype(np.float32)
    a, b = conv_nd(wa), conv_nd(wb)
    r = mx.nd.Activation(a + b, act_type="relu")
    c = mx.nd.Convolution(r, mx.nd.array(wc), kernel=(1, 1), num_filter=16, no_bias=True)
    y = mx.nd.concat(c, a, dim=1)
    want_r = np.maximum(conv_np(wa) + conv_np(wb), 0)
    want_c = conv_ref(want_r, wc.astype(np.float64), kernel=(1, 1), num_filter=16, no_bias=True)
    return y, np.concatenate([want_c, conv_np(wa)], axis=1)


def test_residual_chain_matches_numpy():
    y, want = residual_chain()
    np.testing.assert_allclose(y.asnumpy(), want, rtol=1e-4, atol=1e-4)


_VERBOSE_RESIDUAL = r'''
import sys
sys.path.insert(0, %r)
import test_op_nn_blocked_layout as t
y, want = t.residual_chain()
import numpy as np
np.testing.assert_allclose(y.asnumpy(), want, rtol=1e-4, atol=1e-4)
'''


@pytest.mark.skipif(os.environ.get("MXNET_ONEDNN_ENABLED") == "0", reason="needs the oneDNN path")
def test_residual_add_and_concat_keep_the_blocked_format():
    here = os.path.dirname(os.path.abspath(__file__))
    execs = onednn_execs(run_onednn_verbose(_VERBOSE_RESIDUAL % here))
    kinds = [e[3] for e in execs]
    conv = [i for i, k in enumerate(kinds) if k == "convolution"]
    assert len(conv) == 3, kinds
    conv_dst = [f for f in execs[conv[0]][6].split() if f.startswith("dst_")][0].split(":")[-2]
    if conv_dst == "abcd":
        pytest.skip("oneDNN picked the plain format for this conv on this CPU: nothing to keep")
    # the add runs on the blocked buffers: relu reads the conv format, and nothing converts the
    # 2x32x6x6 activations to plain between the first two convs and the last one
    relu = [e for e in execs if e[3] == "eltwise"]
    assert len(relu) == 1 and ":%s:" % conv_dst in relu[0][6], relu
    assert not [e for e in execs[conv[1] + 1:] if e[3] == "reorder" and "2x32x6x6" in e], execs[conv[1] + 1:]
    assert "src_f32::blocked:abcd" not in execs[conv[2]][6], execs[conv[2]][6]
    # concat joins both inputs in the conv format and leaves its output in it: whole channel
    # blocks (16 and 32 channels) are joined by our row copy, so oneDNN runs no concat, and the
    # only conversion after the last conv is the 2x48x6x6 result's, read by asnumpy
    after = execs[conv[2] + 1:]
    assert "concat" not in kinds, kinds
    assert len(after) == 1 and after[0][3] == "reorder" and "2x48x6x6" in after[0], after
    assert "src_f32::blocked:%s" % conv_dst in after[0][6], after[0][6]


test_plain_path = plain_path_rerun(__file__)


# ---- pooling a plain input that oneDNN pools slowly in plain layout ----

_PLAIN_POOL = """
import numpy as np, mxnet as mx
x = np.random.RandomState(3).rand(2, 16, 23, 23).astype('f')
y = mx.nd.Pooling(mx.nd.array(x), kernel=(3, 3), stride=(2, 2), pool_type='max')
ref = np.full((2, 16, 11, 11), -np.inf, 'f')
for i in range(3):
    for j in range(3):
        ref = np.maximum(ref, x[:, :, i:i + 21:2, j:j + 21:2])
print('MAXDIFF', float(np.abs(y.asnumpy() - ref).max()))
"""


@pytest.mark.skipif(os.environ.get("MXNET_ONEDNN_ENABLED") == "0", reason="needs the oneDNN path")
def test_max_pool_of_a_plain_input_runs_on_channel_blocks_when_plain_is_slow():
    out = run_onednn_verbose(_PLAIN_POOL)
    assert "MAXDIFF 0.0" in out, out[-2000:]
    execs = onednn_execs(out)
    pools = [e for e in execs if e[3] == "pooling_v2"]
    # never oneDNN's non-JIT plain kernels: either a JIT kernel takes the plain tensor, or the
    # input is copied into channel blocks, pooled there (by the lane kernel, which runs no
    # oneDNN primitive) and the output stays there until read
    assert not [p for p in pools if p[4].startswith(("simple", "ref"))], pools
    if not pools:
        to_blocks = [e for e in execs if e[3] == "reorder" and "2x16x23x23" in e[-2]]
        assert len(to_blocks) == 1 and ("aBcd8b" in to_blocks[0][6] or "aBcd16b" in to_blocks[0][6]), execs
    else:
        assert len(pools) == 1 and "abcd" in pools[0][6], pools
