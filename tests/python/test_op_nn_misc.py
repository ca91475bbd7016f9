"""Dropout, Embedding, UpSampling and BilinearResize2D beyond the table: Embedding's dtype
parameter, Dropout's mask (scaling, shared axes, the gradient using the same mask, mode),
bad inputs. Their table rows live in op_rows/nn.py and run in test_op_harness.py."""
import numpy as np
import pytest

import mxnet as mx
from op_testing import check_error, plain_path_rerun

R = np.random.RandomState(16)

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
