"""Rows of the neural-network operators: convolution, deconvolution, fully connected, pooling,
normalization layers, activations, softmax family, loss heads, dropout, embedding, resizing,
concatenation (loss heads and the rows aimed at specialised kernels and fused ops are in
nn_losses.py and nn_kernel_paths.py). Each row's reference is numpy (float64)."""
import itertools
import math

import numpy as np

from op_testing import HALF, ROW_DTYPE, BadCase, Case, with_dtypes

# --------------------------------------------------------------------------------------------
# Activation, LeakyReLU, softmax / log_softmax / softmin (from test_op_nn_act_softmax.py)

R_ACT = np.random.RandomState(14)
erf = np.vectorize(math.erf)
SELU_A, SELU_L = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def away_from_zero(*shape):
    """Values at least 0.2 from the kink at 0 (finite differences stay on one side)."""
    r = R_ACT.randn(*shape)
    return np.sign(r) * (0.2 + np.abs(r))


def act_ref(x, act_type):
    return {"relu": lambda: np.maximum(x, 0), "sigmoid": lambda: 1 / (1 + np.exp(-x)), "tanh": lambda: np.tanh(x),
            "softrelu": lambda: np.log1p(np.exp(x)), "softsign": lambda: x / (1 + np.abs(x))}[act_type]()


def leaky_ref(x, gamma=None, act_type="leaky", slope=0.25, lower_bound=0.125, upper_bound=0.334):
    if act_type == "prelu":
        g = gamma.reshape((1, -1) + (1,) * (x.ndim - 2)) if gamma.size > 1 else gamma.reshape(())
        return np.where(x > 0, x, g * x)
    if act_type == "rrelu":  # inference: the mean slope
        return np.where(x > 0, x, (lower_bound + upper_bound) / 2 * x)
    if act_type == "elu":
        return np.where(x > 0, x, slope * np.expm1(x))
    if act_type == "selu":
        return SELU_L * np.where(x > 0, x, SELU_A * np.expm1(x))
    if act_type == "gelu":
        return 0.5 * x * (1 + erf(x / np.sqrt(2)))
    return np.where(x > 0, x, slope * x)


def softmax_ref(kind):
    def ref(x, length=None, axis=-1, temperature=None, dtype=None, use_length=False):
        t = temperature or 1.0
        z = (-x if kind == "softmin" else x) / t
        ax = axis % x.ndim
        mask = np.ones_like(x, dtype=bool)
        if use_length:
            idx = np.arange(x.shape[ax]).reshape([-1 if i == ax else 1 for i in range(x.ndim)])
            mask = idx < np.expand_dims(length, ax)
        z = np.where(mask, z, -np.inf)
        m = z.max(axis=ax, keepdims=True)
        lse = m + np.log(np.exp(z - m).sum(axis=ax, keepdims=True))
        if kind == "log_softmax":
            return np.where(mask, z - lse, 0.0)
        return np.where(mask, np.exp(z - lse), 0.0)
    return ref


ACT = [Case("Activation", t, [away_from_zero(2, 3, 4)], dict(act_type=t), act_ref)
       for t in ("relu", "sigmoid", "tanh", "softrelu", "softsign")]
LEAKY = [
    Case("LeakyReLU", "leaky_default", [away_from_zero(3, 4)], {}, leaky_ref),
    Case("LeakyReLU", "leaky_slope", [away_from_zero(2, 3, 3)], dict(act_type="leaky", slope=0.125), leaky_ref),
    Case("LeakyReLU", "prelu_channel", [away_from_zero(2, 3, 2, 2), R_ACT.rand(3) * 0.5], dict(act_type="prelu"),
         leaky_ref, grad=(0, 1)),
    Case("LeakyReLU", "prelu_shared", [away_from_zero(2, 4), R_ACT.rand(1) * 0.5], dict(act_type="prelu"), leaky_ref,
         grad=(0, 1)),
    Case("LeakyReLU", "elu", [away_from_zero(3, 5)], dict(act_type="elu"), leaky_ref),
    Case("LeakyReLU", "elu_slope", [away_from_zero(3, 5)], dict(act_type="elu", slope=1.5), leaky_ref),
    Case("LeakyReLU", "selu", [away_from_zero(2, 6)], dict(act_type="selu"), leaky_ref),
    Case("LeakyReLU", "gelu", [R_ACT.randn(2, 7)], dict(act_type="gelu"), leaky_ref),
    Case("LeakyReLU", "rrelu_inference", [away_from_zero(3, 4)],
         dict(act_type="rrelu", lower_bound=0.25, upper_bound=0.5), leaky_ref),
]
SOFTMAX = []
for kind in ("softmax", "log_softmax", "softmin"):
    SOFTMAX += [
        Case(kind, "last_axis", [R_ACT.randn(3, 5)], {}, softmax_ref(kind)),
        Case(kind, "axis0", [R_ACT.randn(4, 3)], dict(axis=0), softmax_ref(kind)),
        Case(kind, "axis1_3d", [R_ACT.randn(2, 4, 3)], dict(axis=1), softmax_ref(kind)),
        Case(kind, "temperature", [R_ACT.randn(3, 6)], dict(temperature=2.5), softmax_ref(kind)),
        Case(kind, "temperature_small", [R_ACT.randn(2, 3, 4)], dict(temperature=0.5, axis=-2), softmax_ref(kind)),
        Case(kind, "length", [R_ACT.randn(3, 5), np.array([5, 2, 1], np.int32)], dict(use_length=True),
             softmax_ref(kind)),
        Case(kind, "length_axis0_temperature", [R_ACT.randn(4, 2), np.array([3, 4], np.int32)],
             dict(use_length=True, axis=0, temperature=2.0), softmax_ref(kind)),
    ]
# long rows (a block of lanes per row on a GPU) and a long strided axis
_R_SOFTMAX = np.random.RandomState(15)
_SOFTMAX_LONG = _R_SOFTMAX.randn(2, 300)
_SOFTMAX_STRIDED = _R_SOFTMAX.randn(3, 40, 5)
for kind in ("softmax", "log_softmax", "softmin"):
    SOFTMAX += [
        Case(kind, "long_rows", [_SOFTMAX_LONG], dict(temperature=1.5), softmax_ref(kind)),
        Case(kind, "long_strided_axis", [_SOFTMAX_STRIDED], dict(axis=1), softmax_ref(kind)),
        Case(kind, "long_rows_length", [_SOFTMAX_LONG, np.array([300, 77], np.int64)], dict(use_length=True),
             softmax_ref(kind)),
    ]
ACT_HALF_ROWS = with_dtypes(ACT + [c for c in LEAKY if c.name in ("leaky_slope", "elu", "selu", "gelu", "prelu_channel")],
                        HALF)
ACT_SOFTMAX_ROWS = ACT + LEAKY + SOFTMAX + ACT_HALF_ROWS


# --------------------------------------------------------------------------------------------
# Convolution, Deconvolution, FullyConnected (from test_op_nn_conv.py)

R_CONV = np.random.RandomState(11)


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
    g = kw.get("num_group", 1)
    cl = kw.get("layout") in ("NWC", "NHWC", "NDHWC")
    c = xs[-1] if cl else xs[1]
    ws = (f,) + tuple(kernel) + (c // g,) if cl else (f, c // g) + tuple(kernel)
    inputs = [R_CONV.randn(*xs), R_CONV.randn(*ws) * 0.5]
    if not kw.get("no_bias"):
        inputs.append(R_CONV.randn(f))
    else:
        grad = tuple(i for i in grad if i < 2)
    params = dict(kernel=kernel, num_filter=f, **kw)
    return Case("Convolution", name, inputs, params, conv_ref, grad=grad, accum=c // g * int(np.prod(kernel)))


def deconv_case(name, xs, f, kernel, grad=(0, 1), **kw):
    g = kw.get("num_group", 1)
    inputs = [R_CONV.randn(*xs), R_CONV.randn(xs[1], f // g, *kernel) * 0.5]
    if kw.get("no_bias") is False:
        inputs.append(R_CONV.randn(f))
        grad = grad + (2,)
    return Case("Deconvolution", name, inputs, dict(kernel=kernel, num_filter=f, **kw), deconv_ref, grad=grad,
                accum=xs[1] // g * int(np.prod(kernel)))


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
    Case("FullyConnected", "flatten", [R_CONV.randn(3, 2, 2, 2), R_CONV.randn(4, 8), R_CONV.randn(4)], dict(num_hidden=4),
         fc_ref, grad=(0, 1, 2)),
    Case("FullyConnected", "no_bias", [R_CONV.randn(5, 6), R_CONV.randn(3, 6)], dict(num_hidden=3, no_bias=True),
         fc_ref, grad=(0, 1)),
    Case("FullyConnected", "no_flatten", [R_CONV.randn(2, 3, 5), R_CONV.randn(4, 5), R_CONV.randn(4)],
         dict(num_hidden=4, flatten=False), fc_ref, grad=(0, 1, 2)),
    Case("FullyConnected", "no_flatten_no_bias", [R_CONV.randn(2, 2, 2, 3), R_CONV.randn(2, 3)],
         dict(num_hidden=2, flatten=False, no_bias=True), fc_ref, grad=(0, 1)),
    # One and two rows take the matrix-vector kernel (fc_gemv.h); K and H off its block sizes.
    Case("FullyConnected", "one_row", [R_CONV.randn(1, 37), R_CONV.randn(7, 37), R_CONV.randn(7)], dict(num_hidden=7),
         fc_ref, grad=(0, 1, 2)),
    Case("FullyConnected", "two_rows_no_bias", [R_CONV.randn(2, 3, 5, 5), R_CONV.randn(9, 75)],
         dict(num_hidden=9, no_bias=True), fc_ref, grad=(0, 1)),
]
# One row with about half its inputs zero (a ReLU's output): in inference the sparse-input
# GEMV reads only the weight rows of the nonzero inputs (own generator: the rows above keep their data).
R_FC_SPARSE = np.random.RandomState(21)
FC.append(Case("FullyConnected", "one_row_half_zeros",
               [np.maximum(R_FC_SPARSE.randn(1, 48), 0), R_FC_SPARSE.randn(13, 48), R_FC_SPARSE.randn(13)],
               dict(num_hidden=13), fc_ref, grad=(0, 1, 2)))

# float16 / bfloat16: bfloat16 runs oneDNN's native kernels, float16 (and the plain-path
# rerun) widens to float32; either way a supported dtype, never a type error.
CONV_HALF_ROWS = with_dtypes([CONV[0], CONV[4], CONV[8], CONV[10], CONV[12], DECONV[0], DECONV[5], FC[0], FC[2]], HALF)
CONV_ROWS = CONV + DECONV + FC + CONV_HALF_ROWS


# --------------------------------------------------------------------------------------------
# Embedding, UpSampling, BilinearResize2D (from test_op_nn_misc.py)

R_MISC = np.random.RandomState(16)


def embedding_ref(idx, w, input_dim, output_dim, dtype="float32", sparse_grad=False):
    return w[np.clip(idx.astype(np.int64), 0, input_dim - 1)]


def upsampling_ref(*xs, scale, sample_type="nearest", num_args=1, multi_input_mode="concat", **_):
    oh = xs[0].shape[2] * scale
    ups = [np.repeat(np.repeat(x, oh // x.shape[2], axis=2), oh // x.shape[2], axis=3) for x in xs]
    return sum(ups) if multi_input_mode == "sum" else np.concatenate(ups, axis=1)


def _resize_size(h, w, like, height=1, width=1, scale_height=None, scale_width=None, mode="size", **_):
    if mode == "size":
        return (int(h * scale_height) if scale_height else height), (int(w * scale_width) if scale_width else width)
    if mode == "odd_scale":
        return int((h - 1) * (scale_height or 1)) + 1, int((w - 1) * (scale_width or 1)) + 1
    if mode == "like":
        return like.shape[2], like.shape[3]
    adjust = {"to_even_down": lambda v: v - v % 2, "to_even_up": lambda v: v + v % 2,
              "to_odd_down": lambda v: v - (1 - v % 2), "to_odd_up": lambda v: v + (1 - v % 2)}[mode]
    return adjust(h), adjust(w)


def _interp_matrix(n_out, n_in, align):
    """(n_out, n_in) linear-interpolation weights along one axis."""
    m = np.zeros((n_out, n_in))
    for o in range(n_out):
        if align:
            src = o * (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
        else:
            src = max(0.0, (o + 0.5) * n_in / n_out - 0.5)
        i0 = min(int(np.floor(src)), n_in - 1)
        i1 = min(i0 + 1, n_in - 1)
        frac = src - i0
        m[o, i0] += 1 - frac
        m[o, i1] += frac
    return m


def resize_ref(x, like=None, align_corners=True, **params):
    oh, ow = _resize_size(x.shape[2], x.shape[3], like, **params)
    mh, mw = _interp_matrix(oh, x.shape[2], align_corners), _interp_matrix(ow, x.shape[3], align_corners)
    return np.einsum("oh,nchw,pw->ncop", mh, x, mw)


def emb_case(name, idx, input_dim, output_dim, **kw):
    return Case("Embedding", name, [np.asarray(idx, np.float64), R_MISC.randn(input_dim, output_dim)],
                dict(input_dim=input_dim, output_dim=output_dim, dtype=ROW_DTYPE, **kw), embedding_ref, grad=(1,), const=(0,))


MISC_ROWS = [
    emb_case("1d_indices", [0, 3, 1, 3], 5, 3),
    emb_case("2d_indices_repeated", [[1, 1], [0, 4]], 5, 2),
    emb_case("clipped_indices", [-2, 7, 2], 4, 3),
    Case("UpSampling", "scale2", [R_MISC.randn(1, 2, 2, 3)], dict(scale=2, sample_type="nearest"), upsampling_ref),
    Case("UpSampling", "scale3", [R_MISC.randn(2, 1, 2, 2)], dict(scale=3, sample_type="nearest"), upsampling_ref),
    Case("UpSampling", "concat_two", [R_MISC.randn(1, 2, 2, 2), R_MISC.randn(1, 1, 4, 4)],
         dict(scale=2, sample_type="nearest", num_args=2), upsampling_ref, grad=(0, 1)),
    Case("UpSampling", "sum_two", [R_MISC.randn(1, 2, 2, 2), R_MISC.randn(1, 2, 1, 1)],
         dict(scale=2, sample_type="nearest", num_args=2, multi_input_mode="sum"), upsampling_ref, grad=(0, 1)),
    Case("BilinearResize2D", "size_align", [R_MISC.randn(1, 2, 3, 4)], dict(height=5, width=7), resize_ref),
    Case("BilinearResize2D", "size_no_align", [R_MISC.randn(1, 2, 3, 4)], dict(height=5, width=6, align_corners=False),
         resize_ref),
    Case("BilinearResize2D", "downscale", [R_MISC.randn(2, 1, 6, 5)], dict(height=3, width=2), resize_ref),
    Case("BilinearResize2D", "scale", [R_MISC.randn(1, 1, 3, 4)], dict(scale_height=2.0, scale_width=1.5), resize_ref),
    Case("BilinearResize2D", "odd_scale", [R_MISC.randn(1, 1, 3, 5)], dict(scale_height=2.0, scale_width=2.0,
                                                                     mode="odd_scale"), resize_ref),
    Case("BilinearResize2D", "like", [R_MISC.randn(1, 2, 3, 3), R_MISC.randn(1, 1, 5, 4)], dict(mode="like"), resize_ref),
    Case("BilinearResize2D", "to_even_down", [R_MISC.randn(1, 1, 5, 4)], dict(mode="to_even_down"), resize_ref),
    Case("BilinearResize2D", "to_even_up", [R_MISC.randn(1, 1, 5, 4)], dict(mode="to_even_up"), resize_ref),
    Case("BilinearResize2D", "to_odd_down", [R_MISC.randn(1, 1, 5, 4)], dict(mode="to_odd_down"), resize_ref),
    Case("BilinearResize2D", "to_odd_up", [R_MISC.randn(1, 1, 5, 4)], dict(mode="to_odd_up", align_corners=False),
         resize_ref),
]


# --------------------------------------------------------------------------------------------
# BatchNorm, BatchNormWithReLU, LayerNorm, InstanceNorm, GroupNorm, L2Normalization, LRN (from test_op_nn_norm.py)

R_NORM = np.random.RandomState(13)


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
    inputs = [R_NORM.randn(*shape) * 2 + 0.5, R_NORM.rand(c) + 0.5, R_NORM.randn(c), R_NORM.randn(c) * 0.1, R_NORM.rand(c) + 0.5]
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
    Case("LayerNorm", "last_axis", [R_NORM.randn(3, 4, 5), R_NORM.rand(5) + 0.5, R_NORM.randn(5)], {}, layer_norm_ref,
         grad=(0, 1, 2)),
    Case("LayerNorm", "axis_1_eps", [R_NORM.randn(3, 4, 2), R_NORM.rand(4) + 0.5, R_NORM.randn(4)], dict(axis=1, eps=0.125),
         layer_norm_ref, grad=(0, 1, 2)),
    Case("LayerNorm", "2d", [R_NORM.randn(4, 6), R_NORM.rand(6) + 0.5, R_NORM.randn(6)], dict(axis=-1), layer_norm_ref,
         grad=(0, 1, 2)),
    Case("LayerNorm", "output_mean_var", [R_NORM.randn(2, 3, 4), R_NORM.rand(4) + 0.5, R_NORM.randn(4)],
         dict(output_mean_var=True), layer_norm_ref, outputs=3, grad=(0, 1, 2)),
    Case("InstanceNorm", "4d", [R_NORM.randn(2, 3, 3, 3), R_NORM.rand(3) + 0.5, R_NORM.randn(3)], {}, instance_norm_ref,
         grad=(0, 1, 2)),
    Case("InstanceNorm", "3d_eps", [R_NORM.randn(2, 2, 5), R_NORM.rand(2) + 0.5, R_NORM.randn(2)], dict(eps=0.015625),
         instance_norm_ref, grad=(0, 1, 2)),
    Case("GroupNorm", "groups_2", [R_NORM.randn(2, 4, 2, 2), R_NORM.rand(2) + 0.5, R_NORM.randn(2)], dict(num_groups=2),
         group_norm_ref, grad=(0, 1, 2)),
    Case("GroupNorm", "one_group_eps", [R_NORM.randn(2, 3, 4), R_NORM.rand(1) + 0.5, R_NORM.randn(1)], dict(eps=0.015625),
         group_norm_ref, grad=(0, 1, 2)),
    Case("GroupNorm", "output_mean_var", [R_NORM.randn(2, 4, 3), R_NORM.rand(4) + 0.5, R_NORM.randn(4)],
         dict(num_groups=4, output_mean_var=True), group_norm_ref, outputs=3, grad=(0, 1, 2)),
    Case("L2Normalization", "instance", [R_NORM.randn(3, 4, 2)], {}, l2_ref),
    Case("L2Normalization", "channel", [R_NORM.randn(2, 3, 2, 2)], dict(mode="channel"), l2_ref),
    Case("L2Normalization", "spatial_eps", [R_NORM.randn(2, 3, 2, 2)], dict(mode="spatial", eps=0.125), l2_ref),
    Case("LRN", "nsize3", [R_NORM.randn(2, 5, 3, 3)], dict(nsize=3), lrn_ref),
    Case("LRN", "params", [R_NORM.randn(1, 6, 2, 3)], dict(nsize=5, alpha=0.1, beta=0.5, knorm=1.5), lrn_ref),
    Case("LRN", "nsize1", [R_NORM.randn(1, 3, 2, 2)], dict(nsize=1, alpha=0.5), lrn_ref),
    # Rows long enough for the CUDA kernels' other schedules (cuda/norm_rows.cuh): a block of
    # several warps per row, lanes across rows (axis not last), and few rows of >= 4096
    # elements, whose sums are split over the GPU.
    Case("LayerNorm", "long_row", [R_NORM.randn(4, 1000), R_NORM.rand(1000) + 0.5, R_NORM.randn(1000)], {},
         layer_norm_ref, grad=(0, 1, 2)),
    Case("LayerNorm", "axis_1_long", [R_NORM.randn(2, 64, 3), R_NORM.rand(64) + 0.5, R_NORM.randn(64)],
         dict(axis=1, output_mean_var=True), layer_norm_ref, outputs=3, grad=(0, 1, 2)),
    Case("LayerNorm", "split_axis_0", [R_NORM.randn(4096, 3), R_NORM.rand(4096) + 0.5, R_NORM.randn(4096)],
         dict(axis=0, output_mean_var=True), layer_norm_ref, outputs=3, grad=(0, 1, 2)),
    Case("InstanceNorm", "long_rows", [R_NORM.randn(2, 3, 16, 16), R_NORM.rand(3) + 0.5, R_NORM.randn(3)], {},
         instance_norm_ref, grad=(0, 1, 2)),
    Case("GroupNorm", "long_rows", [R_NORM.randn(2, 4, 16, 16), R_NORM.rand(2) + 0.5, R_NORM.randn(2)],
         dict(num_groups=2), group_norm_ref, grad=(0, 1, 2)),
    Case("GroupNorm", "split_one_group", [R_NORM.randn(2, 4, 32, 32), R_NORM.rand(1) + 0.5, R_NORM.randn(1)],
         dict(output_mean_var=True), group_norm_ref, outputs=3, grad=(0, 1, 2)),
    Case("L2Normalization", "instance_split", [R_NORM.randn(2, 8, 512)], {}, l2_ref),
    Case("L2Normalization", "channel_long", [R_NORM.randn(2, 32, 5)], dict(mode="channel"), l2_ref),
    Case("L2Normalization", "channel_split", [R_NORM.randn(1, 4096, 2)], dict(mode="channel"), l2_ref),
    Case("L2Normalization", "spatial_long", [R_NORM.randn(2, 3, 16, 16)], dict(mode="spatial"), l2_ref),
]


# Half-typed data with float32 gamma, beta and statistics (MXNet's BatchNorm contract).
NORM = NORM + with_dtypes([c for c in NORM if c.op.startswith("BatchNorm") and c.name in (
    "train_free_gamma", "train_axis_last", "inference", "train_output_mean_var", "relu_train")], HALF)
# Half-typed LayerNorm, InstanceNorm, GroupNorm, L2Normalization and LRN (sums in double, outputs through float32).
NORM = NORM + with_dtypes([c for c in NORM if (c.op, c.name) in (
    ("LayerNorm", "last_axis"), ("LayerNorm", "axis_1_long"), ("InstanceNorm", "4d"), ("GroupNorm", "output_mean_var"),
    ("GroupNorm", "split_one_group"), ("L2Normalization", "channel"), ("L2Normalization", "instance_split"),
    ("LRN", "nsize3"))], HALF)


# --------------------------------------------------------------------------------------------
# Pooling (from test_op_nn_pool.py)

R_POOL = np.random.RandomState(12)


def pool_ref(x, kernel=(), pool_type="max", global_pool=False, pooling_convention="valid", stride=(), pad=(),
             p_value=None, count_include_pad=None, layout=None, **_):
    cl = layout in ("NWC", "NHWC", "NDHWC")
    if cl:
        x = np.moveaxis(x, -1, 1)
    nsp = x.ndim - 2
    ins = x.shape[2:]
    if global_pool:
        kernel, stride, pad = ins, (1,) * nsp, (0,) * nsp
    s = tuple(stride) if stride else (1,) * nsp
    p = tuple(pad) if pad else (0,) * nsp
    if pooling_convention == "valid":
        out = [(ins[i] + 2 * p[i] - kernel[i]) // s[i] + 1 for i in range(nsp)]
    elif pooling_convention == "full":
        out = [-(-(ins[i] + 2 * p[i] - kernel[i]) // s[i]) + 1 for i in range(nsp)]
    else:  # same
        out = [-(-ins[i] // s[i]) for i in range(nsp)]
    # Pad left by p and right far enough for every window; track which cells are input,
    # which are the (symmetric) padding and which lie beyond it.
    right = [max(p[i], (out[i] - 1) * s[i] + kernel[i] - p[i] - ins[i]) for i in range(nsp)]
    widths = [(0, 0), (0, 0)] + [(p[i], right[i]) for i in range(nsp)]
    fill = -np.inf if pool_type == "max" else 0.0
    xv = x if pool_type != "lp" else x ** (p_value or 2)
    xp = np.pad(xv, widths, constant_values=fill)
    inside = np.pad(np.ones(ins), [w for w in widths[2:]])
    padded = np.pad(np.ones([ins[i] + 2 * p[i] for i in range(nsp)]), [(0, right[i] - p[i]) for i in range(nsp)])
    acc = np.full(x.shape[:2] + tuple(out), fill)
    cnt_in, cnt_pad = np.zeros(out), np.zeros(out)
    for off in itertools.product(*[range(k) for k in kernel]):
        sl = tuple(slice(off[i], off[i] + s[i] * (out[i] - 1) + 1, s[i]) for i in range(nsp))
        win = xp[(slice(None), slice(None)) + sl]
        acc = np.maximum(acc, win) if pool_type == "max" else acc + win
        cnt_in += inside[sl]
        cnt_pad += padded[sl]
    if pool_type == "avg":
        include = True if count_include_pad is None else count_include_pad
        acc = acc / (cnt_pad if include else cnt_in)
    elif pool_type == "lp":
        acc = acc ** (1.0 / (p_value or 2))
    return np.moveaxis(acc, 1, -1) if cl else acc


def distinct(*shape):
    """Values with no ties (so max pooling's arg-max is unique and differentiable)."""
    v = R_POOL.permutation(int(np.prod(shape))).astype(np.float64) / 7.0 - 3.0
    return v.reshape(shape)


def pool_case(name, x, grad=(0,), eps=1e-6, **params):
    return Case("Pooling", name, [x], params, pool_ref, grad=grad, eps=eps)


POOL = [
    pool_case("max_2d", distinct(2, 2, 5, 5), kernel=(2, 2), stride=(2, 2)),
    pool_case("max_2d_pad", distinct(1, 2, 5, 5), kernel=(3, 3), stride=(2, 2), pad=(1, 1)),
    pool_case("max_2d_overlap", distinct(1, 2, 6, 6), kernel=(3, 3), stride=(1, 1)),
    pool_case("max_full", distinct(1, 2, 6, 6), kernel=(3, 3), stride=(2, 2), pooling_convention="full"),
    pool_case("max_same_1d", distinct(1, 2, 7), kernel=(3,), stride=(2,), pooling_convention="same"),
    pool_case("max_1d", distinct(2, 3, 8), kernel=(3,), stride=(2,), pad=(1,)),
    pool_case("max_3d", distinct(1, 2, 4, 4, 4), kernel=(2, 2, 2), stride=(2, 2, 2)),
    pool_case("max_global", distinct(2, 3, 4, 5), kernel=(1, 1), global_pool=True),
    pool_case("max_nhwc", distinct(1, 5, 5, 3), kernel=(2, 2), stride=(2, 2), layout="NHWC"),
    pool_case("avg_2d", R_POOL.randn(2, 2, 6, 6), kernel=(2, 2), stride=(2, 2), pool_type="avg"),
    pool_case("avg_pad_include", R_POOL.randn(1, 2, 5, 5), kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="avg"),
    pool_case("avg_pad_exclude", R_POOL.randn(1, 2, 5, 5), kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="avg",
         count_include_pad=False),
    pool_case("avg_full_include", R_POOL.randn(1, 2, 6, 6), kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="avg",
         pooling_convention="full"),
    pool_case("avg_full_exclude", R_POOL.randn(1, 2, 6, 6), kernel=(3, 3), stride=(2, 2), pool_type="avg",
         pooling_convention="full", count_include_pad=False),
    pool_case("avg_same_1d", R_POOL.randn(1, 2, 7), kernel=(3,), stride=(2,), pool_type="avg", pooling_convention="same"),
    pool_case("avg_3d", R_POOL.randn(1, 2, 4, 4, 4), kernel=(2, 2, 2), pool_type="avg", pad=(1, 0, 1)),
    pool_case("avg_global", R_POOL.randn(2, 3, 3, 4), kernel=(1, 1), pool_type="avg", global_pool=True),
    pool_case("avg_nwc", R_POOL.randn(1, 6, 3), kernel=(2,), stride=(2,), pool_type="avg", layout="NWC"),
    pool_case("avg_ndhwc", R_POOL.randn(1, 4, 4, 4, 2), kernel=(2, 2, 2), stride=(2, 2, 2), pool_type="avg",
         layout="NDHWC"),
    pool_case("sum_2d", R_POOL.randn(1, 2, 5, 5), kernel=(2, 3), stride=(1, 2), pool_type="sum"),
    pool_case("sum_pad", R_POOL.randn(1, 2, 4, 4), kernel=(3, 3), pad=(1, 1), pool_type="sum"),
    pool_case("sum_global", R_POOL.randn(2, 2, 3, 3), kernel=(1, 1), pool_type="sum", global_pool=True),
    pool_case("lp1", R_POOL.rand(1, 2, 4, 4) + 0.5, kernel=(2, 2), stride=(2, 2), pool_type="lp", p_value=1),
    pool_case("lp2", R_POOL.rand(1, 2, 4, 4) + 0.5, kernel=(2, 2), stride=(2, 2), pool_type="lp", p_value=2),
    pool_case("lp3", R_POOL.rand(1, 2, 5, 5) + 0.5, kernel=(3, 3), stride=(2, 2), pool_type="lp", p_value=3),
    pool_case("lp2_global", R_POOL.rand(1, 2, 3, 3) + 0.5, kernel=(1, 1), pool_type="lp", p_value=2, global_pool=True),
    # windows of more than 64 elements (a group of lanes per window in the CUDA kernels)
    pool_case("max_global_large", distinct(2, 3, 9, 10), kernel=(1, 1), global_pool=True),
    pool_case("avg_global_large_nhwc", R_POOL.randn(2, 9, 10, 3), kernel=(1, 1), pool_type="avg", global_pool=True,
              layout="NHWC"),
    pool_case("sum_global_large_3d", R_POOL.randn(1, 2, 4, 5, 5), kernel=(1, 1, 1), pool_type="sum", global_pool=True),
    pool_case("lp2_large_window", R_POOL.rand(1, 2, 10, 10) + 0.5, kernel=(9, 9), stride=(1, 1), pool_type="lp",
              p_value=2),
]


def max_pool_first_grad(base, head, kernel=(), stride=(), pad=(), global_pool=False, **_):
    """Max pooling's gradient (2-D, channel-first): each window's gradient goes to the first
    position (row-major) holding its maximum, as MXNet defines it on ties."""
    x = base[0]
    ins = x.shape[2:]
    if global_pool:
        kernel, stride, pad = ins, (1, 1), (0, 0)
    s, p = tuple(stride) or (1, 1), tuple(pad) or (0, 0)
    out = [(ins[i] + 2 * p[i] - kernel[i]) // s[i] + 1 for i in range(2)]
    dx = np.zeros_like(x)
    for n, c, oh, ow in itertools.product(range(x.shape[0]), range(x.shape[1]), range(out[0]), range(out[1])):
        h0, w0 = oh * s[0] - p[0], ow * s[1] - p[1]
        hb, wb = max(h0, 0), max(w0, 0)
        win = x[n, c, hb:min(h0 + kernel[0], ins[0]), wb:min(w0 + kernel[1], ins[1])]
        i, j = np.unravel_index(np.argmax(win), win.shape)  # argmax: the first maximum
        dx[n, c, hb + i, wb + j] += head[n, c, oh, ow]
    return [dx]


def tie_case(name, x, **params):
    return Case("Pooling", name, [x], params, pool_ref, grad_ref=max_pool_first_grad)


# Max pooling with tied maxima: the first one gets the gradient.
POOL_TIES = [
    tie_case("max_ties", np.round(R_POOL.randn(2, 2, 5, 5)), kernel=(3, 3), stride=(2, 2), pad=(1, 1)),
    tie_case("max_ties_global_large", np.round(R_POOL.rand(2, 3, 9, 10) * 2), kernel=(1, 1), global_pool=True),
]
POOL = POOL + POOL_TIES


POOL_HALF_ROWS = with_dtypes([c for c in POOL if c.name in ("max_2d", "max_2d_pad", "avg_pad_include", "avg_pad_exclude",
                                                         "sum_2d", "max_global", "avg_nwc", "lp2", "avg_global_large_nhwc",
                                                         "max_ties_global_large")], HALF)
POOL = POOL + POOL_HALF_ROWS


# --------------------------------------------------------------------------------------------
# Dropout: identity when predicting; in training a property check (each value dropped or scaled
# by 1/(1-p), the dropped fraction within 5 standard deviations of p).

R_DROP = np.random.RandomState(18)


def dropout_check(p, axes=()):
    def check(outs, ins, **params):
        y, x = outs[0], ins[0]
        kept = y != 0
        np.testing.assert_allclose(y[kept], (x / (1 - p))[kept], rtol=1e-5, atol=1e-6)
        mask = kept
        if axes:  # one draw per position of the other axes, shared along `axes`
            mask = kept.all(axis=tuple(axes))
            assert np.array_equal(mask, kept.any(axis=tuple(axes))), "mask not shared along axes"
        n = mask.size
        frac = 1.0 - mask.mean()
        assert abs(frac - p) <= 5 * math.sqrt(p * (1 - p) / n) + 1.0 / n, (frac, p, n)
    return check


DROPOUT_ROWS = [
    Case("Dropout", "predict_identity", [R_DROP.randn(4, 5)], dict(p=0.5), lambda x, **_: x,
         dtypes=("float32", "float64", "float16", "bfloat16")),
    Case("Dropout", "train_p0_identity", [R_DROP.randn(3, 4)], dict(p=0.0), lambda x, **_: x, train=True),
    Case("Dropout", "train_p0.5", [R_DROP.rand(64, 64) + 0.5], dict(p=0.5), check=dropout_check(0.5), train=True),
    Case("Dropout", "train_p0.2", [R_DROP.rand(50, 80) + 0.5], dict(p=0.2), check=dropout_check(0.2), train=True),
    Case("Dropout", "train_axes", [R_DROP.rand(40, 30, 6) + 0.5], dict(p=0.3, axes=(2,)),
         check=dropout_check(0.3, axes=(2,)), train=True),
    Case("Dropout", "predict_mode_always", [R_DROP.rand(64, 50) + 0.5], dict(p=0.4, mode="always"),
         check=dropout_check(0.4)),
]


# --------------------------------------------------------------------------------------------
# Concat

R_CAT = np.random.RandomState(19)


def concat_ref(*xs, dim=1, num_args=None):
    return np.concatenate(xs, axis=dim)


CONCAT_ROWS = [
    Case("Concat", "channel_axis", [R_CAT.randn(2, 3, 2, 2), R_CAT.randn(2, 5, 2, 2)], dict(dim=1, num_args=2),
         concat_ref, grad=(0, 1), dtypes=("float32", "float64", "float16", "bfloat16")),
    Case("Concat", "axis0_three", [R_CAT.randn(1, 3), R_CAT.randn(2, 3), R_CAT.randn(3, 3)], dict(dim=0, num_args=3),
         concat_ref, grad=(0, 1, 2)),
    Case("Concat", "last_axis", [R_CAT.randn(2, 3, 1), R_CAT.randn(2, 3, 4)], dict(dim=-1, num_args=2), concat_ref,
         grad=(0, 1)),
    Case("Concat", "one_input", [R_CAT.randn(2, 3)], dict(dim=1, num_args=1), concat_ref),
    # channel counts in blocks of 8 and not
    Case("Concat", "channels_16_8_3", [R_CAT.randn(1, 16, 3, 3), R_CAT.randn(1, 8, 3, 3), R_CAT.randn(1, 3, 3, 3)],
         dict(dim=1, num_args=3), concat_ref, grad=(0, 1, 2)),
]


# --------------------------------------------------------------------------------------------
# The table

CASES = ACT_SOFTMAX_ROWS + CONV_ROWS + MISC_ROWS + NORM + POOL + DROPOUT_ROWS + CONCAT_ROWS


# --------------------------------------------------------------------------------------------
# Bad inputs

BAD = [
    BadCase("_sg_onednn_conv", "nothing_to_fuse", [np.ones((1, 2, 4, 4), np.float32), np.ones((3, 2, 3, 3), np.float32),
                                                   np.ones(3, np.float32)], dict(kernel=(3, 3), num_filter=3),
            ("_sg_onednn_conv", "nothing to fuse")),
    BadCase("_sg_onednn_conv", "sum_first_without_sum", [np.ones((1, 2, 4, 4), np.float32),
                                                         np.ones((3, 2, 3, 3), np.float32), np.ones(3, np.float32)],
            dict(kernel=(3, 3), num_filter=3, act_type="relu", sum_first=True), ("_sg_onednn_conv", "sum_first")),
    BadCase("_sg_onednn_fully_connected", "bad_act_type", [np.ones((2, 3), np.float32), np.ones((4, 3), np.float32),
                                                           np.ones(4, np.float32)],
            dict(num_hidden=4, act_type="bogus"), ("_sg_onednn_fully_connected", "bogus", "relu")),
    BadCase("Concat", "mismatched_shapes", [np.ones((2, 3), np.float32), np.ones((3, 3), np.float32)],
            dict(dim=1, num_args=2), ("Concat",)),
    BadCase("Concat", "axis_out_of_range", [np.ones((2, 3), np.float32), np.ones((2, 3), np.float32)],
            dict(dim=2, num_args=2), ("Concat", "dim")),
    BadCase("Dropout", "p_out_of_range", [np.ones((2, 3), np.float32)], dict(p=1.5), ("Dropout", "p")),
    BadCase("Embedding", "weight_shape", [np.zeros(3, np.float32), np.ones((4, 2), np.float32)],
            dict(input_dim=5, output_dim=2), ("Embedding", "weight")),
    BadCase("LinearRegressionOutput", "label_shape", [np.ones((3, 2), np.float32), np.ones((4, 2), np.float32)], {},
            ("LinearRegressionOutput", "label")),
    BadCase("MakeLoss", "bad_normalization", [np.ones((2, 3), np.float32)], dict(normalization="bogus"),
            ("MakeLoss", "bogus", "valid")),
    BadCase("Activation", "bad_act_type", [np.ones(3, np.float32)], dict(act_type="bogus"), ("Activation", "bogus")),
    BadCase("LeakyReLU", "prelu_gamma_shape", [np.ones((2, 3), np.float32), np.ones(2, np.float32)],
            dict(act_type="prelu"), ("LeakyReLU", "gamma")),
    BadCase("softmax", "axis_out_of_range", [np.ones((2, 3), np.float32)], dict(axis=2), ("softmax", "axis")),
    BadCase("SoftmaxOutput", "label_shape", [np.ones((2, 3), np.float32), np.ones(3, np.float32)], {},
            ("SoftmaxOutput", "label")),
    BadCase("Convolution", "kernel_larger_than_input", [np.ones((1, 2, 2, 2), np.float32),
                                                        np.ones((4, 2, 3, 3), np.float32)],
            dict(kernel=(3, 3), num_filter=4, no_bias=True), ("Convolution", "kernel")),
    BadCase("Convolution", "num_group", [np.ones((1, 4, 5, 5), np.float32), np.ones((4, 1, 3, 3), np.float32)],
            dict(kernel=(3, 3), num_filter=4, num_group=3, no_bias=True), ("Convolution", "num_group")),
    BadCase("Deconvolution", "weight_shape", [np.ones((1, 2, 3, 3), np.float32), np.ones((3, 2, 3, 3), np.float32)],
            dict(kernel=(3, 3), num_filter=2), ("Deconvolution", "weight")),
    BadCase("FullyConnected", "bias_shape", [np.ones((2, 5), np.float32), np.ones((3, 5), np.float32),
                                             np.ones(4, np.float32)], dict(num_hidden=3), ("FullyConnected", "bias")),
    BadCase("Pooling", "lp_p_value", [np.ones((1, 1, 4, 4), np.float32)],
            dict(kernel=(2, 2), pool_type="lp", p_value=4), ("Pooling", "p_value")),
    BadCase("BatchNorm", "gamma_shape", [np.ones((2, 3, 2), np.float32), np.ones(2, np.float32), np.ones(3, np.float32),
                                         np.zeros(3, np.float32), np.ones(3, np.float32)], {}, ("BatchNorm", "gamma")),
    BadCase("LayerNorm", "gamma_shape", [np.ones((2, 3), np.float32), np.ones(2, np.float32), np.ones(3, np.float32)],
            {}, ("LayerNorm", "gamma")),
    BadCase("UpSampling", "nearest_scale", [np.ones((1, 1, 2, 2), np.float32)], dict(scale=0, sample_type="nearest"),
            ("UpSampling", "scale")),
    BadCase("BilinearResize2D", "like_without_input", [np.ones((1, 1, 2, 2), np.float32)], dict(mode="like"),
            ("BilinearResize2D",)),
]
