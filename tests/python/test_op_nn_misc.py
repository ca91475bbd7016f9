"""Dropout (p, mode, axes; identity when predicting), Embedding (input_dim, output_dim, dtype,
index clipping), UpSampling (nearest; scale, several inputs concatenated or summed) and
BilinearResize2D (sizes, scales, every mode, align_corners): forward vs numpy, gradients vs
finite differences of the numpy reference, plain and oneDNN builds of the process alike."""
import numpy as np
import pytest

import mxnet as mx
from nn_op_table import ROW_DTYPE, Case, check_error, check_forward, check_grad, fwd_params, grad_params, plain_path_rerun

R = np.random.RandomState(16)


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
    return Case("Embedding", name, [np.asarray(idx, np.float64), R.randn(input_dim, output_dim)],
                dict(input_dim=input_dim, output_dim=output_dim, dtype=ROW_DTYPE, **kw), embedding_ref, grad=(1,), const=(0,))


ROWS = [
    emb_case("1d_indices", [0, 3, 1, 3], 5, 3),
    emb_case("2d_indices_repeated", [[1, 1], [0, 4]], 5, 2),
    emb_case("clipped_indices", [-2, 7, 2], 4, 3),
    Case("UpSampling", "scale2", [R.randn(1, 2, 2, 3)], dict(scale=2, sample_type="nearest"), upsampling_ref),
    Case("UpSampling", "scale3", [R.randn(2, 1, 2, 2)], dict(scale=3, sample_type="nearest"), upsampling_ref),
    Case("UpSampling", "concat_two", [R.randn(1, 2, 2, 2), R.randn(1, 1, 4, 4)],
         dict(scale=2, sample_type="nearest", num_args=2), upsampling_ref, grad=(0, 1)),
    Case("UpSampling", "sum_two", [R.randn(1, 2, 2, 2), R.randn(1, 2, 1, 1)],
         dict(scale=2, sample_type="nearest", num_args=2, multi_input_mode="sum"), upsampling_ref, grad=(0, 1)),
    Case("BilinearResize2D", "size_align", [R.randn(1, 2, 3, 4)], dict(height=5, width=7), resize_ref),
    Case("BilinearResize2D", "size_no_align", [R.randn(1, 2, 3, 4)], dict(height=5, width=6, align_corners=False),
         resize_ref),
    Case("BilinearResize2D", "downscale", [R.randn(2, 1, 6, 5)], dict(height=3, width=2), resize_ref),
    Case("BilinearResize2D", "scale", [R.randn(1, 1, 3, 4)], dict(scale_height=2.0, scale_width=1.5), resize_ref),
    Case("BilinearResize2D", "odd_scale", [R.randn(1, 1, 3, 5)], dict(scale_height=2.0, scale_width=2.0,
                                                                     mode="odd_scale"), resize_ref),
    Case("BilinearResize2D", "like", [R.randn(1, 2, 3, 3), R.randn(1, 1, 5, 4)], dict(mode="like"), resize_ref),
    Case("BilinearResize2D", "to_even_down", [R.randn(1, 1, 5, 4)], dict(mode="to_even_down"), resize_ref),
    Case("BilinearResize2D", "to_even_up", [R.randn(1, 1, 5, 4)], dict(mode="to_even_up"), resize_ref),
    Case("BilinearResize2D", "to_odd_down", [R.randn(1, 1, 5, 4)], dict(mode="to_odd_down"), resize_ref),
    Case("BilinearResize2D", "to_odd_up", [R.randn(1, 1, 5, 4)], dict(mode="to_odd_up", align_corners=False),
         resize_ref),
]


@pytest.mark.parametrize("case,dtype", fwd_params(ROWS))
def test_forward_matches_numpy(case, dtype):
    check_forward(case, dtype)


@pytest.mark.parametrize("case,dtype", grad_params(ROWS))
def test_gradients_match_finite_differences(case, dtype):
    check_grad(case, dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_embedding_dtype_parameter_sets_weight_type(dtype):
    w = np.arange(12).reshape(4, 3)
    y = mx.nd.Embedding(mx.nd.array([2, 0]), mx.nd.array(w, dtype=dtype), input_dim=4, output_dim=3, dtype=dtype)
    assert y.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(y.asnumpy(), w[[2, 0]])


# ---- Dropout: random, so checked by its invariants ----

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("p", [0.0, 0.25, 0.5, 0.9])
def test_dropout_training_scales_kept_values_and_gradient_uses_the_same_mask(p, dtype):
    x = R.rand(50, 40) + 0.5
    xd = mx.nd.array(x, dtype=dtype)
    xd.attach_grad()
    head = R.rand(50, 40)
    with mx.autograd.record(train_mode=True):
        y = mx.nd.Dropout(xd, p=p)
    y.backward(mx.nd.array(head, dtype=dtype))
    yn = y.asnumpy()
    kept = yn != 0
    np.testing.assert_allclose(yn[kept], x[kept] / (1 - p), rtol=1e-6)
    assert abs(kept.mean() - (1 - p)) < 0.05
    np.testing.assert_allclose(xd.grad.asnumpy(), np.where(kept, head / (1 - p), 0), rtol=1e-6)


@pytest.mark.parametrize("axes", [(0,), (1,), (0, 2), (2, 3)])
def test_dropout_axes_share_one_mask_along_the_given_axes(axes):
    x = np.ones((6, 5, 4, 3))
    with mx.autograd.record(train_mode=True):
        y = mx.nd.Dropout(mx.nd.array(x), p=0.5, axes=axes).asnumpy()
    for a in axes:  # constant along every shared axis
        np.testing.assert_array_equal(y, np.take(y, [0], axis=a).repeat(x.shape[a], axis=a))
    assert 0 < (y == 0).mean() < 1


def test_dropout_is_identity_when_predicting_and_mode_always_drops_anyway():
    x = R.rand(30, 30) + 0.5
    np.testing.assert_array_equal(mx.nd.Dropout(mx.nd.array(x), p=0.5).asnumpy(), x.astype(np.float32))
    with mx.autograd.record(train_mode=False):
        np.testing.assert_array_equal(mx.nd.Dropout(mx.nd.array(x), p=0.5).asnumpy(), x.astype(np.float32))
    y = mx.nd.Dropout(mx.nd.array(x), p=0.5, mode="always").asnumpy()
    assert 0.3 < (y == 0).mean() < 0.7


@pytest.mark.parametrize("call,needles", [
    (lambda: mx.nd.Dropout(mx.nd.ones(3), p=1.5), ("Dropout", "p")),
    (lambda: mx.nd.Dropout(mx.nd.ones(3), mode="bogus"), ("Dropout", "bogus")),
    (lambda: mx.nd.Embedding(mx.nd.ones(3), mx.nd.ones((4, 2)), input_dim=5, output_dim=2), ("Embedding", "weight")),
    (lambda: mx.nd.UpSampling(mx.nd.ones((1, 1, 2, 2)), scale=0, sample_type="nearest"), ("UpSampling", "scale")),
    (lambda: mx.nd.UpSampling(mx.nd.ones((1, 2, 2)), scale=2, sample_type="nearest"), ("UpSampling",)),
    (lambda: mx.nd.BilinearResize2D(mx.nd.ones((1, 1, 2, 2)), mode="like"), ("BilinearResize2D", "inputs")),
    (lambda: mx.nd.BilinearResize2D(mx.nd.ones((1, 1, 2, 2)), height=0, width=2), ("BilinearResize2D", "height")),
])
def test_bad_inputs_raise_mxnet_error_naming_op(call, needles):
    check_error(call, *needles)


test_plain_path = plain_path_rerun(__file__)
