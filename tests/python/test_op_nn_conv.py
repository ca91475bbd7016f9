"""Convolution, Deconvolution and FullyConnected: one row per parameter combination,
forward vs numpy and gradients vs finite differences of the numpy reference, on the
oneDNN path (float32) and the plain kernels (float64, and everything in the rerun)."""
import itertools

import numpy as np
import pytest

import mxnet as mx
from mxnet.test_utils import environment
from nn_op_table import HALF, Case, with_dtypes, check_error, check_forward, check_grad, fwd_params, grad_params, plain_path_rerun

R = np.random.RandomState(11)


def _tup(v, n, d):
    return tuple(v) if v else (d,) * n


def conv_ref(x, w, b=None, kernel=(), stride=(), dilate=(), pad=(), num_filter=1, num_group=1, no_bias=False,
             layout=None, **_):
    nsp = len(kernel)
    cl = layout in ("NWC", "NHWC", "NDHWC")
    if cl:  # to channel-first; weight (F, k..., C/G) -> (F, C/G, k...)
        x = np.moveaxis(x, -1, 1)
        w = np.moveaxis(w, -1, 1)
    s, d, p = _tup(stride, nsp, 1), _tup(dilate, nsp, 1), _tup(pad, nsp, 0)
    xp = np.pad(x, [(0, 0), (0, 0)] + [(q, q) for q in p])
    n, c = x.shape[:2]
    out_sp = [(xp.shape[2 + i] - (d[i] * (kernel[i] - 1) + 1)) // s[i] + 1 for i in range(nsp)]
    cg, fg = c // num_group, num_filter // num_group
    y = np.zeros((n, num_filter) + tuple(out_sp))
    for off in itertools.product(*[range(k) for k in kernel]):
        sl = tuple(slice(off[i] * d[i], off[i] * d[i] + s[i] * (out_sp[i] - 1) + 1, s[i]) for i in range(nsp))
        patch = xp[(slice(None), slice(None)) + sl]
        for g in range(num_group):
            wk = w[(slice(g * fg, (g + 1) * fg), slice(None)) + off]  # (fg, cg)
            y[:, g * fg:(g + 1) * fg] += np.einsum("nc...,fc->nf...", patch[:, g * cg:(g + 1) * cg], wk)
    if not no_bias and b is not None:
        y += b.reshape((1, -1) + (1,) * nsp)
    return np.moveaxis(y, 1, -1) if cl else y


def deconv_ref(x, w, b=None, kernel=(), stride=(), dilate=(), pad=(), adj=(), target_shape=(), num_filter=1,
               num_group=1, no_bias=True, **_):
    nsp = len(kernel)
    s, d, p, a = _tup(stride, nsp, 1), _tup(dilate, nsp, 1), list(_tup(pad, nsp, 0)), list(_tup(adj, nsp, 0))
    n, c = x.shape[:2]
    full = [s[i] * (x.shape[2 + i] - 1) + d[i] * (kernel[i] - 1) + 1 for i in range(nsp)]
    if target_shape:
        for i in range(nsp):
            tot = full[i] - target_shape[i]
            a[i], p[i] = tot % 2, (tot + 1) // 2
    cg, fg = c // num_group, num_filter // num_group
    buf = np.zeros((n, num_filter) + tuple(f + ai for f, ai in zip(full, a)))
    for off in itertools.product(*[range(k) for k in kernel]):
        sl = tuple(slice(off[i] * d[i], off[i] * d[i] + s[i] * (x.shape[2 + i] - 1) + 1, s[i]) for i in range(nsp))
        for g in range(num_group):
            wk = w[(slice(g * cg, (g + 1) * cg), slice(None)) + off]  # (cg, fg)
            buf[(slice(None), slice(g * fg, (g + 1) * fg)) + sl] += np.einsum(
                "nc...,cf->nf...", x[:, g * cg:(g + 1) * cg], wk)
    out = [full[i] - 2 * p[i] + a[i] for i in range(nsp)]
    y = buf[(slice(None), slice(None)) + tuple(slice(p[i], p[i] + out[i]) for i in range(nsp))]
    if not no_bias and b is not None:
        y = y + b.reshape((1, -1) + (1,) * nsp)
    return y


def fc_ref(x, w, b=None, num_hidden=1, no_bias=False, flatten=True):
    x2 = x.reshape(x.shape[0], -1) if flatten else x
    y = x2 @ w.T
    return y if no_bias else y + b


def conv_case(name, xs, f, kernel, grad=(0, 1, 2), **kw):
    nsp = len(kernel)
    g = kw.get("num_group", 1)
    cl = kw.get("layout") in ("NWC", "NHWC", "NDHWC")
    c = xs[-1] if cl else xs[1]
    ws = (f,) + tuple(kernel) + (c // g,) if cl else (f, c // g) + tuple(kernel)
    inputs = [R.randn(*xs), R.randn(*ws) * 0.5]
    if not kw.get("no_bias"):
        inputs.append(R.randn(f))
    else:
        grad = tuple(i for i in grad if i < 2)
    params = dict(kernel=kernel, num_filter=f, **kw)
    return Case("Convolution", name, inputs, params, conv_ref, grad=grad)


def deconv_case(name, xs, f, kernel, grad=(0, 1), **kw):
    g = kw.get("num_group", 1)
    inputs = [R.randn(*xs), R.randn(xs[1], f // g, *kernel) * 0.5]
    if kw.get("no_bias") is False:
        inputs.append(R.randn(f))
        grad = grad + (2,)
    return Case("Deconvolution", name, inputs, dict(kernel=kernel, num_filter=f, **kw), deconv_ref, grad=grad)


CONV = [
    conv_case("2d_basic", (2, 3, 5, 5), 4, (3, 3)),
    conv_case("2d_stride", (1, 2, 7, 6), 3, (3, 3), stride=(2, 2)),
    conv_case("2d_pad", (1, 2, 5, 5), 3, (3, 3), pad=(1, 2)),
    conv_case("2d_dilate", (1, 2, 7, 7), 2, (3, 3), dilate=(2, 2), pad=(1, 1)),
    conv_case("2d_group", (1, 4, 5, 5), 6, (3, 3), num_group=2),
    conv_case("2d_depthwise", (1, 3, 5, 5), 3, (3, 3), num_group=3, pad=(1, 1)),
    conv_case("2d_no_bias", (2, 2, 4, 4), 3, (1, 1), no_bias=True),
    conv_case("2d_asym_kernel", (1, 2, 6, 5), 2, (3, 1), stride=(1, 2)),
    conv_case("1d", (2, 3, 9), 4, (3,), stride=(2,), pad=(1,)),
    conv_case("1d_dilate_group", (1, 4, 10), 2, (3,), dilate=(2,), num_group=2),
    conv_case("3d", (1, 2, 4, 4, 4), 2, (2, 3, 3), pad=(0, 1, 1)),
    conv_case("3d_stride", (1, 2, 5, 5, 5), 2, (3, 3, 3), stride=(2, 2, 2)),
    conv_case("2d_nhwc", (1, 5, 5, 2), 3, (3, 3), pad=(1, 1), layout="NHWC"),
    conv_case("1d_nwc", (1, 7, 2), 3, (3,), stride=(2,), layout="NWC"),
    conv_case("3d_ndhwc", (1, 3, 4, 4, 2), 2, (2, 2, 2), layout="NDHWC"),
    conv_case("2d_explicit_nchw", (1, 2, 4, 4), 2, (2, 2), layout="NCHW"),
    # 8+ input channels, not a multiple of 16: oneDNN training runs on channel-last activations.
    conv_case("2d_20_channels", (2, 20, 6, 6), 24, (3, 3), pad=(1, 1)),
    # Under 8 input channels, float32 weight gradients run FewChannelWeightGrad: output channels
    # spanning two and three blocks of 8, kernels wider than its 4-column groups.
    conv_case("2d_1_channel_5x5", (3, 1, 9, 8), 9, (5, 5), stride=(2, 1), pad=(2, 1)),
    conv_case("2d_3_channels_7x7", (2, 3, 9, 9), 17, (7, 7), stride=(2, 2), pad=(3, 3), dilate=(1, 1)),
    # AlexNet's first-layer geometry: where oneDNN picks its gemm kernel for the forward,
    # FewChannelConvForward runs it.
    conv_case("2d_3_channels_11x11_stride4", (2, 3, 23, 23), 10, (11, 11), stride=(4, 4), pad=(2, 2)),
]

DECONV = [
    deconv_case("2d_basic", (1, 3, 4, 4), 2, (3, 3)),
    deconv_case("2d_stride_pad", (1, 2, 4, 3), 3, (3, 3), stride=(2, 2), pad=(1, 1)),
    deconv_case("2d_adj", (1, 2, 3, 3), 2, (3, 3), stride=(2, 2), pad=(1, 1), adj=(1, 1)),
    deconv_case("2d_target_shape", (1, 2, 3, 3), 2, (3, 3), stride=(2, 2), target_shape=(6, 6)),
    deconv_case("2d_dilate", (1, 2, 4, 4), 2, (2, 2), dilate=(2, 2)),
    deconv_case("2d_group_bias", (1, 4, 3, 3), 4, (2, 2), num_group=2, no_bias=False),
    deconv_case("1d", (2, 2, 5), 3, (3,), stride=(2,)),
    deconv_case("3d", (1, 2, 3, 3, 3), 2, (2, 2, 2), stride=(2, 1, 1)),
]

FC = [
    Case("FullyConnected", "flatten", [R.randn(3, 2, 2, 2), R.randn(4, 8), R.randn(4)], dict(num_hidden=4),
         fc_ref, grad=(0, 1, 2)),
    Case("FullyConnected", "no_bias", [R.randn(5, 6), R.randn(3, 6)], dict(num_hidden=3, no_bias=True),
         fc_ref, grad=(0, 1)),
    Case("FullyConnected", "no_flatten", [R.randn(2, 3, 5), R.randn(4, 5), R.randn(4)],
         dict(num_hidden=4, flatten=False), fc_ref, grad=(0, 1, 2)),
    Case("FullyConnected", "no_flatten_no_bias", [R.randn(2, 2, 2, 3), R.randn(2, 3)],
         dict(num_hidden=2, flatten=False, no_bias=True), fc_ref, grad=(0, 1)),
    # One and two rows take the matrix-vector kernel (fc_gemv.h); K and H off its block sizes.
    Case("FullyConnected", "one_row", [R.randn(1, 37), R.randn(7, 37), R.randn(7)], dict(num_hidden=7),
         fc_ref, grad=(0, 1, 2)),
    Case("FullyConnected", "two_rows_no_bias", [R.randn(2, 3, 5, 5), R.randn(9, 75)],
         dict(num_hidden=9, no_bias=True), fc_ref, grad=(0, 1)),
]

# float16 / bfloat16: bfloat16 runs oneDNN's native kernels, float16 (and the plain-path
# rerun) widens to float32; either way a supported dtype, never a type error.
HALF_ROWS = with_dtypes([CONV[0], CONV[4], CONV[8], CONV[10], CONV[12], DECONV[0], DECONV[5], FC[0], FC[2]], HALF)
ROWS = CONV + DECONV + FC + HALF_ROWS


@pytest.mark.parametrize("case,dtype", fwd_params(ROWS))
def test_forward_matches_numpy(case, dtype):
    check_forward(case, dtype)


@pytest.mark.parametrize("case,dtype", grad_params(ROWS))
def test_gradients_match_finite_differences(case, dtype):
    check_grad(case, dtype)


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
