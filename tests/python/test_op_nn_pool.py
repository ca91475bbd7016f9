"""Pooling: every pool_type, pooling_convention, count_include_pad, global_pool, 1-D to
3-D and channel-last layouts; forward vs numpy, gradients vs finite differences of the
numpy reference, oneDNN (float32) and plain kernels (float64 and the rerun)."""
import itertools

import numpy as np
import pytest

import mxnet as mx
from nn_op_table import HALF, Case, with_dtypes, check_error, check_forward, check_grad, fwd_params, grad_params, plain_path_rerun

R = np.random.RandomState(12)


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
    v = R.permutation(int(np.prod(shape))).astype(np.float64) / 7.0 - 3.0
    return v.reshape(shape)


def case(name, x, grad=(0,), eps=1e-6, **params):
    return Case("Pooling", name, [x], params, pool_ref, grad=grad, eps=eps)


POOL = [
    case("max_2d", distinct(2, 2, 5, 5), kernel=(2, 2), stride=(2, 2)),
    case("max_2d_pad", distinct(1, 2, 5, 5), kernel=(3, 3), stride=(2, 2), pad=(1, 1)),
    case("max_2d_overlap", distinct(1, 2, 6, 6), kernel=(3, 3), stride=(1, 1)),
    case("max_full", distinct(1, 2, 6, 6), kernel=(3, 3), stride=(2, 2), pooling_convention="full"),
    case("max_same_1d", distinct(1, 2, 7), kernel=(3,), stride=(2,), pooling_convention="same"),
    case("max_1d", distinct(2, 3, 8), kernel=(3,), stride=(2,), pad=(1,)),
    case("max_3d", distinct(1, 2, 4, 4, 4), kernel=(2, 2, 2), stride=(2, 2, 2)),
    case("max_global", distinct(2, 3, 4, 5), kernel=(1, 1), global_pool=True),
    case("max_nhwc", distinct(1, 5, 5, 3), kernel=(2, 2), stride=(2, 2), layout="NHWC"),
    case("avg_2d", R.randn(2, 2, 6, 6), kernel=(2, 2), stride=(2, 2), pool_type="avg"),
    case("avg_pad_include", R.randn(1, 2, 5, 5), kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="avg"),
    case("avg_pad_exclude", R.randn(1, 2, 5, 5), kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="avg",
         count_include_pad=False),
    case("avg_full_include", R.randn(1, 2, 6, 6), kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="avg",
         pooling_convention="full"),
    case("avg_full_exclude", R.randn(1, 2, 6, 6), kernel=(3, 3), stride=(2, 2), pool_type="avg",
         pooling_convention="full", count_include_pad=False),
    case("avg_same_1d", R.randn(1, 2, 7), kernel=(3,), stride=(2,), pool_type="avg", pooling_convention="same"),
    case("avg_3d", R.randn(1, 2, 4, 4, 4), kernel=(2, 2, 2), pool_type="avg", pad=(1, 0, 1)),
    case("avg_global", R.randn(2, 3, 3, 4), kernel=(1, 1), pool_type="avg", global_pool=True),
    case("avg_nwc", R.randn(1, 6, 3), kernel=(2,), stride=(2,), pool_type="avg", layout="NWC"),
    case("avg_ndhwc", R.randn(1, 4, 4, 4, 2), kernel=(2, 2, 2), stride=(2, 2, 2), pool_type="avg",
         layout="NDHWC"),
    case("sum_2d", R.randn(1, 2, 5, 5), kernel=(2, 3), stride=(1, 2), pool_type="sum"),
    case("sum_pad", R.randn(1, 2, 4, 4), kernel=(3, 3), pad=(1, 1), pool_type="sum"),
    case("sum_global", R.randn(2, 2, 3, 3), kernel=(1, 1), pool_type="sum", global_pool=True),
    case("lp1", R.rand(1, 2, 4, 4) + 0.5, kernel=(2, 2), stride=(2, 2), pool_type="lp", p_value=1),
    case("lp2", R.rand(1, 2, 4, 4) + 0.5, kernel=(2, 2), stride=(2, 2), pool_type="lp", p_value=2),
    case("lp3", R.rand(1, 2, 5, 5) + 0.5, kernel=(3, 3), stride=(2, 2), pool_type="lp", p_value=3),
    case("lp2_global", R.rand(1, 2, 3, 3) + 0.5, kernel=(1, 1), pool_type="lp", p_value=2, global_pool=True),
]


HALF_ROWS = with_dtypes([c for c in POOL if c.name in ("max_2d", "max_2d_pad", "avg_pad_include", "avg_pad_exclude",
                                                         "sum_2d", "max_global", "avg_nwc", "lp2")], HALF)
POOL = POOL + HALF_ROWS


@pytest.mark.parametrize("case,dtype", fwd_params(POOL))
def test_forward_matches_numpy(case, dtype):
    check_forward(case, dtype)


@pytest.mark.parametrize("case,dtype", grad_params(POOL))
def test_gradients_match_finite_differences(case, dtype):
    check_grad(case, dtype)


def _pool(xs, **kw):
    return lambda: mx.nd.Pooling(mx.nd.ones(xs), **kw)


@pytest.mark.parametrize("call,needles", [
    (_pool((1, 1, 2, 2), kernel=(3, 3)), ("Pooling", "kernel")),
    (_pool((1, 1, 4, 4), kernel=(2, 2), pad=(-1, 0)), ("Pooling", "pad")),
    (_pool((1, 1, 4, 4), kernel=(2, 2), stride=(0, 1)), ("Pooling", "stride")),
    (_pool((1, 1, 4, 4), kernel=(2, 2), pool_type="lp", p_value=4), ("Pooling", "p_value")),
    (_pool((1, 4, 4), kernel=(2, 2)), ("Pooling",)),
    (_pool((4, 4), kernel=(2,)), ("Pooling", "rank")),
    (_pool((1, 1, 6), kernel=(2,), pad=(1,), pooling_convention="same"), ("Pooling", "pad")),
])
def test_bad_inputs_raise_mxnet_error_naming_op(call, needles):
    check_error(call, *needles)


test_plain_path = plain_path_rerun(__file__)
