"""Activation, LeakyReLU, the softmax family and SoftmaxOutput beyond the table: the softmax dtype
parameter, rrelu's random training slopes, SoftmaxOutput's gradient against numpy, bad inputs.
Their table rows (forward vs numpy, gradients) live in op_rows/nn.py and run in
test_op_harness.py."""

import numpy as np
import pytest

import mxnet as mx
from op_testing import check_error, plain_path_rerun

from op_rows.nn import away_from_zero, softmax_ref  # noqa: F401 (rows: op_rows/nn.py)
from op_rows.nn_losses import softmax_output_expect  # noqa: F401 (rows: op_rows/nn_losses.py)

R = np.random.RandomState(14)


@pytest.mark.parametrize("kind", ["softmax", "log_softmax", "softmin"])
def test_softmax_dtype_parameter_sets_output_type(kind):
    x = R.randn(2, 3)
    y = getattr(mx.nd, kind)(mx.nd.array(x, dtype="float32"), dtype="float64")
    assert y.dtype == np.float64
    np.testing.assert_allclose(y.asnumpy(), softmax_ref(kind)(x.astype(np.float32).astype(np.float64)), rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rrelu_training_draws_slopes_in_bounds_and_backward_uses_them(dtype):
    x = away_from_zero(40, 50)
    xd = mx.nd.array(x, dtype=dtype)
    xd.attach_grad()
    with mx.autograd.record(train_mode=True):
        y = mx.nd.LeakyReLU(xd, act_type="rrelu", lower_bound=0.1, upper_bound=0.3)
    y.backward()
    yn, g = y.asnumpy(), xd.grad.asnumpy()
    neg = x < 0
    np.testing.assert_allclose(yn[~neg], x[~neg], rtol=1e-6)
    slopes = yn[neg] / x[neg]
    assert slopes.min() >= 0.1 - 1e-6 and slopes.max() <= 0.3 + 1e-6 and slopes.std() > 0.03
    np.testing.assert_allclose(g[neg], slopes, rtol=1e-5)
    np.testing.assert_array_equal(g[~neg], 1)


SMO = [
    ("default", (4, 5), (4,), {}),
    ("grad_scale", (3, 4), (3,), dict(grad_scale=0.5)),
    ("use_ignore", (4, 3), (4,), dict(use_ignore=True, ignore_label=1)),
    ("normalization_batch", (4, 3), (4,), dict(normalization="batch")),
    ("normalization_valid", (5, 3), (5,), dict(normalization="valid", use_ignore=True, ignore_label=2)),
    ("multi_output", (2, 3, 4), (2, 4), dict(multi_output=True)),
    ("multi_output_ignore_valid", (2, 4, 3), (2, 3), dict(multi_output=True, use_ignore=True, ignore_label=0,
                                                           normalization="valid")),
    ("preserve_shape", (2, 3, 4), (2, 3), dict(preserve_shape=True)),
    ("flatten_4d", (2, 2, 1, 3), (2,), {}),
    ("smooth_alpha", (3, 4), (3,), dict(smooth_alpha=0.25)),
    ("out_grad", (3, 4), (3,), dict(out_grad=True)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,xs,ls,params", SMO, ids=[r[0] for r in SMO])
def test_softmax_output_forward_and_mxnet_gradient(name, xs, ls, params, dtype):
    rng = np.random.RandomState(15)
    x = rng.randn(*xs)
    ncls = xs[1] if params.get("multi_output") else (xs[-1] if params.get("preserve_shape") else
                                                    int(np.prod(xs[1:])))
    label = rng.randint(0, ncls, size=ls).astype(np.float64)
    label.reshape(-1)[0] = params.get("ignore_label", -1) if params.get("use_ignore") else label.reshape(-1)[0]
    xd = mx.nd.array(x, dtype=dtype)
    xd.attach_grad()
    head = rng.uniform(0.5, 1.5, xs)
    with mx.autograd.record():
        y = mx.nd.SoftmaxOutput(xd, mx.nd.array(label, dtype=dtype), **params)
    y.backward(mx.nd.array(head, dtype=dtype))
    kw = {k: v for k, v in params.items() if k != "out_grad"}
    p, g = softmax_output_expect(x, label, head=head if params.get("out_grad") else None, **kw)
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(y.asnumpy(), p, rtol=tol, atol=tol)
    np.testing.assert_allclose(xd.grad.asnumpy(), g, rtol=tol, atol=tol)


@pytest.mark.parametrize("call,needles", [
    (lambda: mx.nd.Activation(mx.nd.ones(3), act_type="bogus"), ("Activation", "bogus")),
    (lambda: mx.nd.LeakyReLU(mx.nd.ones((2, 3)), mx.nd.ones(2), act_type="prelu"), ("LeakyReLU", "gamma")),
    (lambda: mx.nd.softmax(mx.nd.ones((2, 3)), axis=2), ("softmax", "axis")),
    (lambda: mx.nd.log_softmax(mx.nd.ones((2, 3)), mx.nd.ones((3,)), use_length=True), ("log_softmax",)),
    (lambda: mx.nd.SoftmaxOutput(mx.nd.ones((2, 3)), mx.nd.ones((3,))), ("SoftmaxOutput", "label")),
])
def test_bad_inputs_raise_mxnet_error_naming_op(call, needles):
    check_error(call, *needles)


test_plain_path = plain_path_rerun(__file__)
