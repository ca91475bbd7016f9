"""Activation (every act_type), LeakyReLU (leaky, prelu, elu, selu, gelu, rrelu),
softmax / log_softmax / softmin (axis, temperature, length masking, dtype) and
SoftmaxOutput (MXNet's gradient: ignore_label, use_ignore, normalization, multi_output,
preserve_shape, grad_scale, smooth_alpha, out_grad): forward vs numpy, gradients vs finite
differences of the numpy reference, oneDNN (float32) and plain kernels (float64, rerun)."""
import math

import numpy as np
import pytest

import mxnet as mx
from nn_op_table import HALF, Case, with_dtypes, check_error, check_forward, check_grad, fwd_params, grad_params, plain_path_rerun

R = np.random.RandomState(14)
erf = np.vectorize(math.erf)
SELU_A, SELU_L = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def away_from_zero(*shape):
    """Values at least 0.2 from the kink at 0 (finite differences stay on one side)."""
    r = R.randn(*shape)
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
    Case("LeakyReLU", "prelu_channel", [away_from_zero(2, 3, 2, 2), R.rand(3) * 0.5], dict(act_type="prelu"),
         leaky_ref, grad=(0, 1)),
    Case("LeakyReLU", "prelu_shared", [away_from_zero(2, 4), R.rand(1) * 0.5], dict(act_type="prelu"), leaky_ref,
         grad=(0, 1)),
    Case("LeakyReLU", "elu", [away_from_zero(3, 5)], dict(act_type="elu"), leaky_ref),
    Case("LeakyReLU", "elu_slope", [away_from_zero(3, 5)], dict(act_type="elu", slope=1.5), leaky_ref),
    Case("LeakyReLU", "selu", [away_from_zero(2, 6)], dict(act_type="selu"), leaky_ref),
    Case("LeakyReLU", "gelu", [R.randn(2, 7)], dict(act_type="gelu"), leaky_ref),
    Case("LeakyReLU", "rrelu_inference", [away_from_zero(3, 4)],
         dict(act_type="rrelu", lower_bound=0.25, upper_bound=0.5), leaky_ref),
]
SOFTMAX = []
for kind in ("softmax", "log_softmax", "softmin"):
    SOFTMAX += [
        Case(kind, "last_axis", [R.randn(3, 5)], {}, softmax_ref(kind)),
        Case(kind, "axis0", [R.randn(4, 3)], dict(axis=0), softmax_ref(kind)),
        Case(kind, "axis1_3d", [R.randn(2, 4, 3)], dict(axis=1), softmax_ref(kind)),
        Case(kind, "temperature", [R.randn(3, 6)], dict(temperature=2.5), softmax_ref(kind)),
        Case(kind, "temperature_small", [R.randn(2, 3, 4)], dict(temperature=0.5, axis=-2), softmax_ref(kind)),
        Case(kind, "length", [R.randn(3, 5), np.array([5, 2, 1], np.int32)], dict(use_length=True),
             softmax_ref(kind)),
        Case(kind, "length_axis0_temperature", [R.randn(4, 2), np.array([3, 4], np.int32)],
             dict(use_length=True, axis=0, temperature=2.0), softmax_ref(kind)),
    ]
HALF_ROWS = with_dtypes(ACT + [c for c in LEAKY if c.name in ("leaky_slope", "elu", "selu", "gelu", "prelu_channel")],
                        HALF)
ROWS = ACT + LEAKY + SOFTMAX + HALF_ROWS


@pytest.mark.parametrize("case,dtype", fwd_params(ROWS))
def test_forward_matches_numpy(case, dtype):
    check_forward(case, dtype)


@pytest.mark.parametrize("case,dtype", grad_params(ROWS))
def test_gradients_match_finite_differences(case, dtype):
    check_grad(case, dtype)


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


# ---- SoftmaxOutput: forward = softmax, gradient (p - target) * grad_scale / norm, head ignored ----

def softmax_output_expect(x, label, grad_scale=1.0, ignore_label=-1.0, multi_output=False, use_ignore=False,
                          preserve_shape=False, normalization="null", smooth_alpha=0.0, head=None):
    if multi_output:  # (N, C, rest...) with softmax over axis 1
        n, c = x.shape[:2]
        z = np.moveaxis(x.reshape(n, c, -1), 1, -1).reshape(-1, c)
        lab = label.reshape(-1)
    elif preserve_shape:
        c = x.shape[-1]
        z, lab = x.reshape(-1, c), label.reshape(-1)
    else:
        n = x.shape[0]
        z, lab = x.reshape(n, -1), label.reshape(-1)
        c = z.shape[1]
    e = np.exp(z - z.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    target = np.full_like(p, smooth_alpha / (c - 1) if smooth_alpha else 0.0)
    target[np.arange(len(lab)), lab.astype(int)] = 1.0 - smooth_alpha
    g = p - target
    ignored = lab == ignore_label
    if use_ignore:
        g[ignored] = 0
    norm = {"null": 1.0, "batch": float(x.shape[0]), "valid": float(max(1, (~ignored).sum()))}[normalization]
    g = g * grad_scale / norm

    def back(a):
        if multi_output:
            return np.moveaxis(a.reshape(n, -1, c), -1, 1).reshape(x.shape)
        return a.reshape(x.shape)
    g = back(g)
    if head is not None:
        g = g * head
    return back(p), g


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
