"""Convolution, Deconvolution and FullyConnected beyond the table: bad inputs and the 3x3
Winograd kernel with and without MXNET_CPU_WINOGRAD_CONV. Their table rows (forward vs numpy,
gradients vs finite differences) live in op_rows/nn.py and run in test_op_harness.py."""

import numpy as np
import pytest

import mxnet as mx
from mxnet.test_utils import environment
from op_testing import check_error, plain_path_rerun

from op_rows.nn import conv_ref, deconv_ref, fc_ref  # noqa: F401 (rows: op_rows/nn.py; importers use these)



def _conv(xs, ws, **kw):
    return lambda: mx.nd.Convolution(mx.nd.ones(xs), mx.nd.ones(ws), no_bias=True, **kw)


@pytest.mark.parametrize("call,needles", [
    (_conv((1, 2, 2, 2), (4, 2, 3, 3), kernel=(3, 3), num_filter=4), ("Convolution", "kernel")),
    (_conv((1, 2, 5, 5), (4, 3, 3, 3), kernel=(3, 3), num_filter=4), ("Convolution", "weight")),
    (_conv((1, 4, 5, 5), (4, 1, 3, 3), kernel=(3, 3), num_filter=4, num_group=3), ("Convolution", "num_group")),
    (_conv((1, 2, 5, 5), (4, 2, 3, 3), kernel=(3, 3), num_filter=4, pad=(-1, 0)), ("Convolution", "pad")),
    (_conv((1, 2, 5, 5), (4, 2, 3, 3), kernel=(3, 3), num_filter=4, stride=(0, 1)), ("Convolution", "stride")),
    (_conv((1, 2, 5), (4, 2, 3, 3), kernel=(3, 3), num_filter=4), ("Convolution",)),
    (lambda: mx.nd.Deconvolution(mx.nd.ones((1, 2, 3, 3)), mx.nd.ones((3, 2, 3, 3)), kernel=(3, 3), num_filter=2),
     ("Deconvolution", "weight")),
    (lambda: mx.nd.Deconvolution(mx.nd.ones((1, 3, 3, 3)), mx.nd.ones((3, 1, 3, 3)), kernel=(3, 3), num_filter=2,
                                 num_group=2), ("Deconvolution", "num_group")),
    (lambda: mx.nd.FullyConnected(mx.nd.ones((2, 5)), mx.nd.ones((3, 4)), mx.nd.ones(3), num_hidden=3),
     ("FullyConnected", "weight")),
    (lambda: mx.nd.FullyConnected(mx.nd.ones((2, 5)), mx.nd.ones((3, 5)), mx.nd.ones(4), num_hidden=3),
     ("FullyConnected", "bias")),
])
def test_bad_inputs_raise_mxnet_error_naming_op(call, needles):
    check_error(call, *needles)


test_plain_path = plain_path_rerun(__file__)


# 3x3 stride-1 float32 convolutions with channels in whole blocks and >= 384 output pixels (over
# the batch) run Winograd F(4x4, 3x3) unless MXNET_CPU_WINOGRAD_CONV=0: x shape, num_filter, pad.
WINOGRAD_ROWS = [
    ((2, 16, 14, 14), 32, 1),  # whole tiles, 392 pixels
    ((2, 8, 17, 15), 16, 1),   # partial tiles on the bottom and right edges; 8 channels: direct dw
    ((6, 24, 10, 10), 16, 0),  # no padding: 384 pixels; the data gradient (16 -> 24 channels) stays direct
    ((4, 16, 9, 9), 48, 2),    # padding 2
]


def _conv3x3_grads_ref(x, w, dy, pad):
    """dx and dw of a 3x3 stride-1 convolution, from numpy."""
    n, c, h, wd = x.shape
    dx = deconv_ref(dy, w, kernel=(3, 3), pad=(pad, pad), num_filter=c)
    xp = np.pad(x, [(0, 0), (0, 0), (pad, pad), (pad, pad)])
    oh, ow = dy.shape[2:]
    dw = np.zeros(w.shape)
    for i in range(3):
        for j in range(3):
            dw[:, :, i, j] = np.einsum("nfhw,nchw->fc", dy, xp[:, :, i:i + oh, j:j + ow])
    return dx, dw


@pytest.mark.parametrize("winograd", ["1", "0"], ids=["winograd", "direct"])
@pytest.mark.parametrize("xs,f,pad", WINOGRAD_ROWS, ids=[str(r[0]) for r in WINOGRAD_ROWS])
def test_3x3_convolution_with_and_without_winograd_matches_numpy(xs, f, pad, winograd):
    r = np.random.RandomState(5)
    x = r.randn(*xs).astype(np.float32)
    w = (r.randn(f, xs[1], 3, 3) * 0.2).astype(np.float32)
    b = r.randn(f).astype(np.float32)
    kw = dict(kernel=(3, 3), pad=(pad, pad), num_filter=f)
    with environment("MXNET_CPU_WINOGRAD_CONV", winograd):
        xn, wn, bn = mx.nd.array(x), mx.nd.array(w), mx.nd.array(b)
        for a in (xn, wn, bn):
            a.attach_grad()
        with mx.autograd.record():
            y = mx.nd.Convolution(xn, wn, bn, **kw)
            z = mx.nd.relu(y)
        dz = r.randn(*y.shape).astype(np.float32)
        z.backward(mx.nd.array(dz))
        y_inf = mx.nd.Convolution(mx.nd.array(x), mx.nd.array(w), mx.nd.array(b), **kw).asnumpy()
        y_train, dx, dw, db = y.asnumpy(), xn.grad.asnumpy(), wn.grad.asnumpy(), bn.grad.asnumpy()
    want = conv_ref(x.astype(np.float64), w.astype(np.float64), b.astype(np.float64), **kw)
    dy = dz * (want > 0)
    dx_want, dw_want = _conv3x3_grads_ref(x.astype(np.float64), w.astype(np.float64), dy, pad)
    scale = np.abs(want).max()
    np.testing.assert_allclose(y_inf, want, rtol=1e-4, atol=1e-5 * scale)
    np.testing.assert_allclose(y_train, want, rtol=1e-4, atol=1e-5 * scale)
    np.testing.assert_allclose(dx, dx_want, rtol=1e-4, atol=1e-5 * np.abs(dx_want).max())
    np.testing.assert_allclose(dw, dw_want, rtol=1e-4, atol=1e-5 * np.abs(dw_want).max())
    np.testing.assert_allclose(db, dy.sum(axis=(0, 2, 3)), rtol=1e-4, atol=1e-4)


def test_winograd_replaces_the_direct_kernels_only_where_it_applies(run_python):
    """oneDNN's verbose log: with Winograd on, the 3x3 forward and both gradients of a convolution
    that fits run no oneDNN convolution, the other shapes still do; off, all do."""
    code = """
import mxnet as mx
from mxnet import autograd
def run(xs, f, k, s):
    x = mx.nd.ones(xs); w = mx.nd.ones((f, xs[1], k, k)) * 0.01
    x.attach_grad(); w.attach_grad()
    with autograd.record():
        y = mx.nd.Convolution(x, w, kernel=(k, k), stride=(s, s), pad=(k // 2, k // 2), num_filter=f, no_bias=True)
    y.backward()
    mx.nd.waitall()
run((2, 16, 16, 16), 32, 3, 1)   # fits: 512 output pixels
print("MARK", flush=True)
run((4, 16, 8, 8), 32, 3, 1)     # 256 pixels: the transformed weights cost more than they save
run((2, 16, 16, 16), 32, 3, 2)   # stride 2
run((2, 16, 16, 16), 32, 5, 1)   # 5x5
run((8, 1024, 8, 8), 1024, 3, 1) # 512 pixels, but 1M channel pairs: transformed weights too large
"""

    def kinds(text):
        out = []
        for line in text.splitlines():
            if line.startswith("onednn_verbose,exec") and ",convolution," in line:
                out.append(line.split(",")[5])
        return sorted(out)

    for switch, fitting in (("1", []),
                            ("0", ["backward_data", "backward_weights", "forward_training"])):
        res = run_python(code, ONEDNN_VERBOSE="1", MXNET_CPU_WINOGRAD_CONV=switch)
        assert res.returncode == 0, res.stderr
        first, rest = res.stdout.split("MARK")
        assert kinds(first) == fitting, (switch, kinds(first))
        assert kinds(rest) == sorted(["backward_data", "backward_weights", "forward_training"] * 4), (switch, kinds(rest))
