"""Rows that reach the specialised convolution and pooling kernels (Winograd, few channels,
channel-last gradients, max-pool lanes, GEMV), the fused CPU subgraph ops, and the schedules
of the CUDA kernels that small rows miss (row softmax by warp or block, two-pass reductions,
atomic scatter of embedding gradients)."""
import numpy as np

from op_testing import HALF, Case, with_dtypes

from op_rows.nn import (_bcast, act_ref, bn_ref, bn_relu_ref, conv_ref, deconv_ref, distinct, emb_case, fc_ref,
                        leaky_ref, pool_case)
from op_rows.nn_losses import _smo_case

# --------------------------------------------------------------------------------------------
# Rows that reach the specialised convolution and pooling kernels, and the fused subgraph ops.

R_EXTRA = np.random.RandomState(20)

# Winograd F(4x4, 3x3): 3x3 stride 1, channels in whole blocks, >= 384 output pixels.
KERNEL_PATH_ROWS = [
    Case("Convolution", "2d_winograd_16to16_8x8", [R_EXTRA.randn(6, 16, 8, 8), R_EXTRA.randn(16, 16, 3, 3) * 0.5,
                                                   R_EXTRA.randn(16)],
         dict(kernel=(3, 3), pad=(1, 1), num_filter=16), conv_ref, grad=(0, 1, 2), accum=16 * 9,
         fwd_tol={"float32": (2e-4, 2e-4)}),
    Case("Convolution", "2d_winograd_16to32_no_pad", [R_EXTRA.randn(2, 16, 16, 16), R_EXTRA.randn(32, 16, 3, 3) * 0.5],
         dict(kernel=(3, 3), num_filter=32, no_bias=True), conv_ref, grad=(0, 1), accum=16 * 9,
         fwd_tol={"float32": (2e-4, 2e-4)}),
    # Few input channels (C < 8): 3 -> 16 with a 7x7 kernel, stride 2 (ResNet's stem).
    Case("Convolution", "2d_few_channel_3to16_7x7_s2", [R_EXTRA.randn(2, 3, 32, 32), R_EXTRA.randn(16, 3, 7, 7) * 0.5,
                                                        R_EXTRA.randn(16)],
         dict(kernel=(7, 7), stride=(2, 2), pad=(3, 3), num_filter=16), conv_ref, grad=(0, 1, 2), accum=3 * 49),
    # Channel-last data gradient: channels not a multiple of 8.
    Case("Convolution", "2d_nhwc_12_channels", [R_EXTRA.randn(2, 8, 8, 12), R_EXTRA.randn(16, 3, 3, 12) * 0.5,
                                                R_EXTRA.randn(16)],
         dict(kernel=(3, 3), pad=(1, 1), num_filter=16, layout="NHWC"), conv_ref, grad=(0, 1, 2), accum=12 * 9),
    Case("Convolution", "2d_12_channels_stride2", [R_EXTRA.randn(2, 12, 9, 9), R_EXTRA.randn(8, 12, 3, 3) * 0.5],
         dict(kernel=(3, 3), stride=(2, 2), num_filter=8, no_bias=True), conv_ref, grad=(0, 1), accum=12 * 9),
    Case("FullyConnected", "gemv_batch1_no_bias", [R_EXTRA.randn(1, 64), R_EXTRA.randn(10, 64)],
         dict(num_hidden=10, no_bias=True), fc_ref, grad=(0, 1), accum=64),
    Case("FullyConnected", "batch8_k100", [R_EXTRA.randn(8, 100), R_EXTRA.randn(12, 100), R_EXTRA.randn(12)],
         dict(num_hidden=12), fc_ref, grad=(0, 1, 2), accum=100),
    # Max pooling 3x3 stride 2 over channels in blocks of 8 (the channel-lane kernel).
    # (values up to ~370 apart by 1/7: a wider difference step keeps float64 cancellation small)
    pool_case("max_3x3_s2_16_channels", distinct(2, 16, 9, 9), kernel=(3, 3), stride=(2, 2), eps=1e-3),
    pool_case("max_3x3_s2_pad_8_channels", distinct(1, 8, 10, 10), kernel=(3, 3), stride=(2, 2), pad=(1, 1),
              eps=1e-3),
    pool_case("max_3x3_s2_16_channels_full", distinct(1, 16, 8, 8), kernel=(3, 3), stride=(2, 2),
              pooling_convention="full", eps=1e-3),
]


def sg_conv_ref(*xs, no_bias=False, with_bn=False, with_sum=False, sum_first=False, act_type=None, with_act=None,
                eps=1e-3, fix_gamma=True, **conv):
    xs = list(xs)
    s = xs.pop(0) if with_sum and sum_first else None
    x, w = xs.pop(0), xs.pop(0)
    b = None if no_bias else xs.pop(0)
    y = conv_ref(x, w, b, no_bias=no_bias, **conv)
    if with_bn:
        gamma, beta, mm, mv = xs[:4]
        xs = xs[4:]
        g = np.ones_like(gamma) if fix_gamma else gamma
        y = (y - _bcast(mm, y.ndim, 1)) / np.sqrt(_bcast(mv, y.ndim, 1) + eps) * _bcast(g, y.ndim, 1) + \
            _bcast(beta, y.ndim, 1)
    if with_sum and not sum_first:
        s = xs.pop(0)
    if s is not None:
        y = y + s
    if act_type is not None and with_act is not False:
        y = act_ref(y, act_type)
    return y


def sg_conv_case(name, xs, f, kernel, no_bias=False, with_bn=False, with_sum=False, sum_first=False, fwd_tol=None,
                 **params):
    c = xs[1]
    x, w = R_EXTRA.randn(*xs), R_EXTRA.randn(f, c, *kernel) * 0.5
    inputs = [x, w] + ([] if no_bias else [R_EXTRA.randn(f)])
    if with_bn:
        inputs += [R_EXTRA.rand(f) + 0.5, R_EXTRA.randn(f), R_EXTRA.randn(f) * 0.1, R_EXTRA.rand(f) + 0.5]
    params = dict(kernel=kernel, num_filter=f, no_bias=no_bias, with_bn=with_bn, with_sum=with_sum,
                  sum_first=sum_first, **params)
    if with_sum:
        out_shape = conv_ref(x, w, None, no_bias=True, kernel=kernel, num_filter=f,
                             **{k: v for k, v in params.items() if k in ("stride", "pad", "dilate")}).shape
        s = R_EXTRA.randn(*out_shape)
        inputs = [s] + inputs if sum_first else inputs + [s]
    return Case("_sg_onednn_conv", name, inputs, params, sg_conv_ref, grad=(), accum=c * int(np.prod(kernel)),
                fwd_tol=fwd_tol)


def sg_fc_ref(x, w, b=None, num_hidden=1, no_bias=False, flatten=True, act_type="relu"):
    return act_ref(fc_ref(x, w, b, num_hidden=num_hidden, no_bias=no_bias, flatten=flatten), act_type)


SG_ROWS = [
    sg_conv_case("identity_act_pad", (2, 3, 6, 6), 4, (3, 3), pad=(1, 1), act_type="relu"),
    sg_conv_case("relu", (2, 8, 6, 6), 8, (3, 3), act_type="relu"),
    sg_conv_case("bn_relu", (2, 4, 5, 5), 6, (3, 3), with_bn=True, act_type="relu", fix_gamma=False),
    sg_conv_case("bn_fix_gamma_no_bias", (1, 4, 5, 5), 4, (1, 1), no_bias=True, with_bn=True),
    sg_conv_case("sum_relu", (2, 4, 5, 5), 4, (3, 3), pad=(1, 1), with_sum=True, act_type="relu"),
    sg_conv_case("sum_first_sigmoid", (1, 3, 5, 5), 2, (3, 3), with_sum=True, sum_first=True, act_type="sigmoid"),
    sg_conv_case("bn_sum_tanh_stride", (2, 4, 7, 7), 4, (3, 3), stride=(2, 2), with_bn=True, with_sum=True,
                 act_type="tanh", fix_gamma=False),
    sg_conv_case("softrelu", (1, 2, 5, 5), 3, (3, 3), act_type="softrelu"),
    sg_conv_case("softsign_1d", (2, 3, 8), 4, (3,), act_type="softsign"),
    # the Winograd and few-channel kernels with a fused ReLU (shapes as Convolution's rows above)
    sg_conv_case("winograd_relu_16to16_8x8", (6, 16, 8, 8), 16, (3, 3), pad=(1, 1), act_type="relu",
                 fwd_tol={"float32": (2e-4, 2e-4)}),
    sg_conv_case("few_channel_relu_3to16_7x7_s2", (2, 3, 32, 32), 16, (7, 7), stride=(2, 2), pad=(3, 3),
                 act_type="relu"),
]
for _act in ("relu", "sigmoid", "tanh", "softrelu", "softsign"):
    SG_ROWS.append(Case("_sg_onednn_fully_connected", _act, [R_EXTRA.randn(3, 10), R_EXTRA.randn(5, 10),
                                                            R_EXTRA.randn(5)],
                        dict(num_hidden=5, act_type=_act), sg_fc_ref, grad=(), accum=10))
SG_ROWS += [
    Case("_sg_onednn_fully_connected", "no_bias_no_flatten", [R_EXTRA.randn(2, 3, 6), R_EXTRA.randn(4, 6)],
         dict(num_hidden=4, no_bias=True, flatten=False, act_type="relu"), sg_fc_ref, grad=(), accum=6),
    Case("_sg_onednn_fully_connected", "batch1_flatten", [R_EXTRA.randn(1, 2, 3, 4), R_EXTRA.randn(7, 24),
                                                          R_EXTRA.randn(7)],
         dict(num_hidden=7, act_type="tanh"), sg_fc_ref, grad=(), accum=24),
]


# --------------------------------------------------------------------------------------------
# CUDA kernel schedules (compared with the CPU by test_gpu_consistency.py; also checked here
# against numpy on every device).

R_GPU = np.random.RandomState(22)


def _off_zero(*shape):
    r = R_GPU.randn(*shape)
    return np.sign(r) * (0.2 + np.abs(r))


GPU_PATH_ROWS = [
    # SoftmaxOutput: a warp per row (17..1024 classes) and a block per row (more), the valid-label
    # count of normalization 'valid' with ignored labels summed on the device.
    _smo_case("warp_rows_40_classes", (6, 40), (6,), {}),
    _smo_case("warp_rows_valid_ignore", (9, 40), (9,), dict(normalization="valid", use_ignore=True, ignore_label=3)),
    _smo_case("block_rows_1500_classes", (3, 1500), (3,), dict(grad_scale=0.5)),
    # prelu's gamma gradient over more than one 16384-element chunk per channel (two passes).
    Case("LeakyReLU", "prelu_shared_large", [_off_zero(4, 8, 32, 20), R_GPU.rand(1) * 0.5], dict(act_type="prelu"),
         leaky_ref, grad=(0, 1)),
    Case("LeakyReLU", "prelu_channel_large", [_off_zero(8, 3, 32, 24), R_GPU.rand(3) * 0.5], dict(act_type="prelu"),
         leaky_ref, grad=(0, 1)),
    # FullyConnected on GEMMs of several tiles, flattened and not.
    Case("FullyConnected", "gemm_33x70_to_45", [R_GPU.randn(33, 70), R_GPU.randn(45, 70), R_GPU.randn(45)],
         dict(num_hidden=45), fc_ref, grad=(0, 1, 2), accum=70, dtypes=("float32", "float64") + HALF),
    Case("FullyConnected", "no_flatten_3d_gemm", [R_GPU.randn(3, 11, 40), R_GPU.randn(36, 40), R_GPU.randn(36)],
         dict(num_hidden=36, flatten=False), fc_ref, grad=(0, 1, 2), accum=40, dtypes=("float32", "float64") + HALF),
]
# Embedding gradients: many repeats of few rows (atomic adds into one row), in every float dtype.
_EMB_REPEATS = emb_case("many_repeats", R_GPU.randint(0, 10, size=(8, 8)), 10, 33)
GPU_PATH_ROWS += [_EMB_REPEATS] + with_dtypes([_EMB_REPEATS], HALF)


# Convolution, Deconvolution and BatchNorm paths of the CUDA kernels (cuda/conv_gemm.cuh,
# cuda/batch_norm.cu) the rows in nn.py miss: im2col batches bounded by `workspace` (1 MB:
# float32 runs 5 samples as 2 + 2 + 1, float64 one at a time), a pointwise weight gradient
# one sample at a time (workspace 0), 3-D groups with dilation, channel-last groups and a
# channel-last Deconvolution, and per-channel sums split into chunks (long channels, channel
# axis last). Own generator: the rows above keep their data.
R_CONV_GPU = np.random.RandomState(23)


def _conv_row(name, xs, f, kernel, no_bias=False, dtypes=("float32", "float64") + HALF, **kw):
    g = kw.get("num_group", 1)
    cl = kw.get("layout") in ("NWC", "NHWC", "NDHWC")
    c = xs[-1] if cl else xs[1]
    ws = (f,) + tuple(kernel) + (c // g,) if cl else (f, c // g) + tuple(kernel)
    inputs = [R_CONV_GPU.randn(*xs), R_CONV_GPU.randn(*ws) * 0.5] + ([] if no_bias else [R_CONV_GPU.randn(f)])
    return Case("Convolution", name, inputs, dict(kernel=kernel, num_filter=f, no_bias=no_bias, **kw), conv_ref,
                grad=(0, 1) if no_bias else (0, 1, 2), accum=c // g * int(np.prod(kernel)), dtypes=dtypes)


def deconv_cl_ref(x, w, b=None, layout=None, **kw):
    """Deconvolution on channel-last data and (in, k..., out/G) weights, through deconv_ref."""
    y = deconv_ref(np.moveaxis(x, -1, 1), np.moveaxis(w, -1, 1), b, **kw)
    return np.moveaxis(y, 1, -1)


def _deconv_row(name, xs, f, kernel, no_bias=True, dtypes=("float32", "float64") + HALF, **kw):
    g = kw.get("num_group", 1)
    cl = kw.get("layout") in ("NWC", "NHWC", "NDHWC")
    c = xs[-1] if cl else xs[1]
    ws = (c,) + tuple(kernel) + (f // g,) if cl else (c, f // g) + tuple(kernel)
    inputs = [R_CONV_GPU.randn(*xs), R_CONV_GPU.randn(*ws) * 0.5] + ([] if no_bias else [R_CONV_GPU.randn(f)])
    return Case("Deconvolution", name, inputs, dict(kernel=kernel, num_filter=f, no_bias=no_bias, **kw),
                deconv_cl_ref if cl else deconv_ref, grad=(0, 1) if no_bias else (0, 1, 2),
                accum=c // g * int(np.prod(kernel)), dtypes=dtypes)


def _bn_row(name, shape, relu=False, **params):
    c = shape[params.get("axis", 1) % len(shape)]
    inputs = [R_CONV_GPU.randn(*shape) * 2 + 0.5, R_CONV_GPU.rand(c) + 0.5, R_CONV_GPU.randn(c),
              R_CONV_GPU.randn(c) * 0.1, R_CONV_GPU.rand(c) + 0.5]
    op, ref = ("BatchNormWithReLU", bn_relu_ref(True)) if relu else ("BatchNorm", bn_ref(True))
    return Case(op, name, inputs, params, ref, grad=(0, 1, 2), train=True, eps=1e-5,
                grad_tol={"float32": (5e-3, 5e-4)}, f32_inputs=(1, 2, 3, 4), dtypes=("float32", "float64") + HALF)


CONV_GPU_ROWS = [
    _conv_row("2d_workspace_batches", (5, 12, 32, 32), 4, (3, 3), pad=(1, 1), workspace=1),
    _conv_row("2d_pointwise_workspace_0", (3, 5, 4, 4), 6, (1, 1), workspace=0),
    _conv_row("3d_group_dilate_stride", (2, 4, 5, 6, 6), 4, (2, 3, 2), stride=(1, 2, 1), dilate=(2, 1, 2),
              pad=(1, 1, 0), num_group=2),
    _conv_row("2d_nhwc_group_stride", (2, 6, 5, 4), 4, (3, 2), stride=(2, 1), pad=(1, 0), num_group=2,
              layout="NHWC"),
    _deconv_row("2d_workspace_batches", (5, 8, 16, 16), 16, (4, 4), stride=(2, 2), pad=(1, 1), no_bias=False,
                workspace=1),
    _deconv_row("3d_group_dilate_bias", (1, 4, 3, 3, 2), 4, (2, 2, 3), stride=(2, 1, 1), dilate=(1, 2, 1),
                pad=(0, 1, 1), num_group=2, no_bias=False),
    _deconv_row("2d_nhwc_bias", (2, 3, 4, 2), 3, (3, 3), stride=(2, 1), pad=(1, 0), no_bias=False, layout="NHWC"),
    _bn_row("train_chunked_channel_sums", (8, 3, 32, 32), fix_gamma=False),
    _bn_row("train_axis_last_chunked", (2, 16, 16, 8), fix_gamma=False, axis=-1),
    _bn_row("relu_train_chunked", (4, 2, 48, 48), relu=True, fix_gamma=False),
]

CASES = KERNEL_PATH_ROWS + SG_ROWS + GPU_PATH_ROWS + CONV_GPU_ROWS
