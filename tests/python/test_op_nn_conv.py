"""Convolution, Deconvolution and FullyConnected: one row per parameter combination,
forward vs numpy and gradients vs finite differences of the numpy reference, on the
oneDNN path (float32) and the plain kernels (float64, and everything in the rerun)."""
import itertools

import numpy as np
import pytest

import mxnet as mx
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
