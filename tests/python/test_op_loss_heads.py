"""Loss heads of symbolic training (regression outputs, MakeLoss) against numpy: the forward
and the gradient that ignores the head gradient, through the executor and through autograd."""
import numpy as np
import pytest

import mxnet as mx


def run(sym, **arrays):
    ex = sym.simple_bind(mx.cpu(), **{k: v.shape for k, v in arrays.items()})
    ex.forward(is_train=True, **arrays)
    ex.backward(mx.nd.array(np.random.uniform(5, 6, ex.outputs[0].shape)))  # ignored by a loss head
    return ex.outputs[0].asnumpy(), {k: ex.grad_dict[k].asnumpy() for k in arrays}


@pytest.mark.parametrize("op", ["LinearRegressionOutput", "MAERegressionOutput", "LogisticRegressionOutput"])
@pytest.mark.parametrize("shape", [(4, 3), (5, 1)])
def test_regression_outputs(op, shape):
    rng = np.random.RandomState(0)
    x = rng.randn(*shape).astype("float32")
    label = rng.randn(*shape).astype("float32")
    out, grads = run(getattr(mx.sym, op)(mx.sym.var("x"), mx.sym.var("label"), grad_scale=2.0), x=x, label=label)
    x64 = x.astype("float64")
    expect = 1 / (1 + np.exp(-x64)) if op.startswith("Logistic") else x64
    np.testing.assert_allclose(out, expect, rtol=1e-6, atol=1e-7)
    diff = expect - label
    g = np.sign(diff) if op.startswith("MAE") else diff
    np.testing.assert_allclose(grads["x"], g * 2.0 / shape[1], rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(grads["label"], np.zeros(shape))


def test_regression_output_takes_flat_labels_for_one_column():
    s = mx.sym.LinearRegressionOutput(mx.sym.var("x"), mx.sym.var("label"))
    args, outs, _ = s.infer_shape(x=(5, 1))
    assert args == [(5, 1), (5,)] and outs == [(5, 1)]
    with pytest.raises(mx.MXNetError, match="label shape"):
        s.infer_shape(x=(5, 2), label=(7,))


@pytest.mark.parametrize("normalization,norm", [("null", 1.0), ("batch", 4.0), ("valid", None)])
def test_make_loss(normalization, norm):
    x = np.array([[0.5, -1.0, 2.0], [0.0, 3.0, -2.0], [1.0, 1.0, 1.0], [-1.0, 0.2, 0.0]], "float32")
    sym = mx.sym.MakeLoss(mx.sym.var("x"), grad_scale=3.0, normalization=normalization)
    out, grads = run(sym, x=x)
    np.testing.assert_array_equal(out, x)
    if norm is None:
        norm = float((x > 0).sum())
    np.testing.assert_allclose(grads["x"], np.full(x.shape, 3.0 / norm), rtol=1e-6)
    assert mx.sym.make_loss is not None and mx.nd.MakeLoss is not None


def test_make_loss_in_autograd_ignores_the_head_gradient():
    x = mx.nd.array([1.0, 2.0, 3.0])
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.make_loss(x * x, grad_scale=0.5)
    y.backward(mx.nd.array([10.0, 10.0, 10.0]))
    np.testing.assert_allclose(x.grad.asnumpy(), 0.5 * 2 * np.array([1.0, 2.0, 3.0]), rtol=1e-6)
