"""Element-wise unary, binary, broadcast and scalar ops: forward vs numpy on several
shapes and dtypes, gradients vs finite differences, and bad inputs."""
import math

import numpy as np
import pytest

import mxnet as mx
from op_testing import FWD_TOL, check_grad, op, rounded, to_nd, to_np

SHAPES = [(5,), (3, 4), (2, 3, 4)]
FLOATS = ["float32", "float64", "float16", "bfloat16"]

_erf = np.vectorize(math.erf)
_gamma = np.vectorize(math.gamma)
_lgamma = np.vectorize(math.lgamma)


def _erfinv(y):
    # Bisection on math.erf: an independent reference for erfinv.
    lo, hi = np.full_like(y, -6.0), np.full_like(y, 6.0)
    for _ in range(200):
        mid = (lo + hi) / 2
        up = _erf(mid) < y
        lo, hi = np.where(up, mid, lo), np.where(up, hi, mid)
    return (lo + hi) / 2


# name: (numpy reference, input domain (low, high), differentiable)
UNARY = {
    "abs": (np.abs, (-2, 2), True),
    "sign": (np.sign, (-2, 2), False),
    "negative": (np.negative, (-2, 2), True),
    "reciprocal": (np.reciprocal, (0.5, 2), True),
    "square": (np.square, (-2, 2), True),
    "sqrt": (np.sqrt, (0.5, 2), True),
    "rsqrt": (lambda x: 1 / np.sqrt(x), (0.5, 2), True),
    "cbrt": (np.cbrt, (0.5, 2), True),
    "rcbrt": (lambda x: 1 / np.cbrt(x), (0.5, 2), True),
    "exp": (np.exp, (-2, 2), True),
    "expm1": (np.expm1, (-2, 2), True),
    "log": (np.log, (0.5, 2), True),
    "log1p": (np.log1p, (0.5, 2), True),
    "log2": (np.log2, (0.5, 2), True),
    "log10": (np.log10, (0.5, 2), True),
    "sin": (np.sin, (-2, 2), True),
    "cos": (np.cos, (-2, 2), True),
    "tan": (np.tan, (-1, 1), True),
    "arcsin": (np.arcsin, (-0.8, 0.8), True),
    "arccos": (np.arccos, (-0.8, 0.8), True),
    "arctan": (np.arctan, (-2, 2), True),
    "sinh": (np.sinh, (-2, 2), True),
    "cosh": (np.cosh, (-2, 2), True),
    "tanh": (np.tanh, (-2, 2), True),
    "arcsinh": (np.arcsinh, (-2, 2), True),
    "arccosh": (np.arccosh, (1.5, 3), True),
    "arctanh": (np.arctanh, (-0.8, 0.8), True),
    "degrees": (np.degrees, (-2, 2), True),
    "radians": (np.radians, (-2, 2), True),
    "sigmoid": (lambda x: 1 / (1 + np.exp(-x)), (-2, 2), True),
    "relu": (lambda x: np.maximum(x, 0), (-2, 2), True),
    "softsign": (lambda x: x / (1 + np.abs(x)), (-2, 2), True),
    "erf": (_erf, (-2, 2), True),
    "erfinv": (_erfinv, (-0.9, 0.9), True),
    "gamma": (_gamma, (0.5, 3), True),
    "gammaln": (_lgamma, (0.5, 3), True),
    "floor": (np.floor, (-3, 3), False),
    "ceil": (np.ceil, (-3, 3), False),
    "round": (lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5), (-3, 3), False),
    "rint": (lambda x: np.where(x - np.floor(x) <= 0.5, np.floor(x), np.floor(x) + 1), (-3, 3), False),
    "trunc": (np.trunc, (-3, 3), False),
    "fix": (np.fix, (-3, 3), False),
    "logical_not": (lambda x: (x == 0).astype(x.dtype), (-1, 1), False),
}


def _sample(shape, lo, hi, seed=0):
    x = np.random.RandomState(seed).uniform(lo, hi, shape)
    # keep away from kinks/jumps (abs, relu, rounding) so finite differences are smooth
    frac = x - np.floor(x)
    x = np.where(np.abs(frac - 0.5) < 0.05, x + 0.1, x)
    x = np.where(np.abs(x) < 0.05, x + 0.1, x)
    return np.clip(x, lo, hi)


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", FLOATS)
def test_unary_forward(name, dtype):
    ref, (lo, hi), _ = UNARY[name]
    if name == "logical_not":
        lo, hi = -1, 1
    for shape in SHAPES:
        x = _sample(shape, lo, hi)
        if name == "logical_not":
            x = np.round(x)
        xr = rounded(x, dtype)
        out = op(name)(to_nd(x, dtype))
        assert out.shape == shape
        rtol, atol = FWD_TOL[dtype]
        np.testing.assert_allclose(to_np(out).astype(np.float64), ref(xr), rtol=max(rtol, 1e-6),
                                   atol=max(atol, 1e-6) * (10 if name in ("gamma", "tan") else 1))


@pytest.mark.parametrize("name", sorted(n for n in UNARY if UNARY[n][2]))
def test_unary_gradient(name):
    _, (lo, hi), _ = UNARY[name]
    check_grad(getattr(mx.nd, name), [_sample((2, 3), lo, hi, seed=1)], rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("name", ["floor", "sign", "round", "logical_not"])
def test_unary_zero_gradient(name):
    x = mx.nd.array(_sample((3,), -2, 2), dtype="float64")
    x.attach_grad()
    with mx.autograd.record():
        y = op(name)(x)
    y.backward()
    assert np.all(x.grad.asnumpy() == 0)


@pytest.mark.parametrize("dtype", ["int32", "int64", "int8", "uint8"])
def test_unary_integer(dtype):
    x = np.array([0, 1, 4, 9, 7], dtype=dtype)
    np.testing.assert_array_equal(mx.nd.square(mx.nd.array(x, dtype=dtype)).asnumpy(), (x * x).astype(dtype))
    np.testing.assert_array_equal(mx.nd.sqrt(mx.nd.array(x, dtype=dtype)).asnumpy(),
                                  np.sqrt(x).astype(dtype))
    # 1/0 on integers must not trap
    mx.nd.reciprocal(mx.nd.array(x, dtype=dtype)).asnumpy()


def test_unary_bad_input():
    with pytest.raises(mx.base.MXNetError, match="sqrt"):
        mx.nd.sqrt(mx.nd.ones((2,)), out=mx.nd.ones((3,)))
    assert mx.nd.sqrt(mx.nd.ones((2,))).asnumpy().tolist() == [1, 1]


def _mod(a, b):
    return np.where(b == 0, 0, np.mod(a, np.where(b == 0, 1, b)))


# name: (numpy reference, lhs domain, rhs domain, differentiable)
BINARY = {
    "add": (np.add, (-2, 2), (-2, 2), True),
    "sub": (np.subtract, (-2, 2), (-2, 2), True),
    "mul": (np.multiply, (-2, 2), (-2, 2), True),
    "div": (np.divide, (-2, 2), (0.5, 2), True),
    "mod": (_mod, (-5, 5), (0.7, 2), True),
    "power": (np.power, (0.5, 2), (-2, 2), True),
    "maximum": (np.maximum, (-2, 2), (-2, 2), True),
    "minimum": (np.minimum, (-2, 2), (-2, 2), True),
    "hypot": (np.hypot, (0.5, 2), (0.5, 2), True),
    "equal": (lambda a, b: (a == b).astype(a.dtype), (-2, 2), (-2, 2), False),
    "not_equal": (lambda a, b: (a != b).astype(a.dtype), (-2, 2), (-2, 2), False),
    "greater": (lambda a, b: (a > b).astype(a.dtype), (-2, 2), (-2, 2), False),
    "greater_equal": (lambda a, b: (a >= b).astype(a.dtype), (-2, 2), (-2, 2), False),
    "lesser": (lambda a, b: (a < b).astype(a.dtype), (-2, 2), (-2, 2), False),
    "lesser_equal": (lambda a, b: (a <= b).astype(a.dtype), (-2, 2), (-2, 2), False),
    "logical_and": (lambda a, b: np.logical_and(a, b).astype(a.dtype), (-1, 1), (-1, 1), False),
    "logical_or": (lambda a, b: np.logical_or(a, b).astype(a.dtype), (-1, 1), (-1, 1), False),
    "logical_xor": (lambda a, b: np.logical_xor(a, b).astype(a.dtype), (-1, 1), (-1, 1), False),
}
ELEMWISE_NAME = {"add": "elemwise_add", "sub": "elemwise_sub", "mul": "elemwise_mul", "div": "elemwise_div"}
BCAST_SHAPES = [((3, 4), (3, 4)), ((3, 4), (1, 4)), ((2, 3, 4), (3, 1)), ((1, 5), (4, 1)), ((5,), (1,))]


def _pair(name, sa, sb, seed=0):
    _, da, db, _ = BINARY[name]
    rs = np.random.RandomState(seed)
    a, b = rs.uniform(*da, sa), rs.uniform(*db, sb)
    if name in ("logical_and", "logical_or", "logical_xor", "equal", "not_equal", "greater_equal", "lesser_equal"):
        a, b = np.round(a), np.round(b)
    return a, b


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("dtype", FLOATS)
def test_broadcast_forward(name, dtype):
    ref = BINARY[name][0]
    for sa, sb in BCAST_SHAPES:
        a, b = _pair(name, sa, sb)
        ar, br = rounded(a, dtype), rounded(b, dtype)
        out = getattr(mx.nd, "broadcast_" + name)(to_nd(a, dtype), to_nd(b, dtype))
        expect = ref(ar, br)
        assert out.shape == expect.shape
        rtol, atol = FWD_TOL[dtype]
        np.testing.assert_allclose(to_np(out).astype(np.float64), expect, rtol=rtol * 4, atol=atol * 4)


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_elemwise_forward(name, dtype):
    fn = op(ELEMWISE_NAME.get(name, "_" + name))
    ref = BINARY[name][0]
    a, b = _pair(name, (3, 4), (3, 4))
    out = fn(to_nd(a, dtype), to_nd(b, dtype))
    rtol, atol = FWD_TOL[dtype]
    np.testing.assert_allclose(to_np(out).astype(np.float64), ref(rounded(a, dtype), rounded(b, dtype)),
                               rtol=rtol * 4, atol=atol * 4)


@pytest.mark.parametrize("name", sorted(n for n in BINARY if BINARY[n][3]))
@pytest.mark.parametrize("shapes", [((2, 3), (2, 3)), ((2, 3), (1, 3)), ((2, 1, 3), (4, 1))])
def test_broadcast_gradient(name, shapes):
    a, b = _pair(name, *shapes, seed=3)
    check_grad(getattr(mx.nd, "broadcast_" + name), [a, b], rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("name", ["sub", "mul", "div", "power", "maximum", "hypot"])
def test_elemwise_gradient(name):
    a, b = _pair(name, (2, 3), (2, 3), seed=4)
    check_grad(op(ELEMWISE_NAME.get(name, "_" + name)), [a, b], rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("dtype", ["int32", "int64", "int8", "uint8"])
def test_binary_integer(dtype):
    a = np.array([[7, 8, 9], [1, 2, 3]], dtype=dtype)
    b = np.array([2, 3, 0], dtype=dtype)
    na, nb = mx.nd.array(a, dtype=dtype), mx.nd.array(b, dtype=dtype)
    np.testing.assert_array_equal(mx.nd.broadcast_add(na, nb).asnumpy(), a + b)
    np.testing.assert_array_equal(mx.nd.broadcast_mul(na, nb).asnumpy(), a * b)
    np.testing.assert_array_equal(mx.nd.broadcast_maximum(na, nb).asnumpy(), np.maximum(a, b))
    # integer division and modulo by zero give 0 rather than trapping
    np.testing.assert_array_equal(mx.nd.broadcast_div(na, nb).asnumpy(), [[3, 2, 0], [0, 0, 0]])
    np.testing.assert_array_equal(mx.nd.broadcast_mod(na, nb).asnumpy(), [[1, 2, 0], [1, 2, 0]])
    np.testing.assert_array_equal(mx.nd.broadcast_greater(na, nb).asnumpy(), (a > b).astype(dtype))


def test_int64_exact():
    big = np.array([2 ** 60 + 1], dtype=np.int64)
    out = mx.nd.broadcast_add(mx.nd.array(big, dtype="int64"), mx.nd.array([1], dtype="int64"))
    assert out.asnumpy()[0] == 2 ** 60 + 2


def test_broadcast_bad_shapes():
    with pytest.raises(mx.base.MXNetError, match=r"broadcast_add.*\(2, 3\).*\(4,\)"):
        mx.nd.broadcast_add(mx.nd.ones((2, 3)), mx.nd.ones((4,)))
    with pytest.raises(mx.base.MXNetError, match="elemwise_sub"):
        mx.nd.elemwise_sub(mx.nd.ones((2, 3)), mx.nd.ones((3, 2)))
    assert mx.nd.broadcast_add(mx.nd.ones((2, 3)), mx.nd.ones((3,))).shape == (2, 3)


# scalar op name: (numpy reference of (x, s), differentiable)
SCALAR = {
    "_plus_scalar": (lambda x, s: x + s, True),
    "_minus_scalar": (lambda x, s: x - s, True),
    "_rminus_scalar": (lambda x, s: s - x, True),
    "_mul_scalar": (lambda x, s: x * s, True),
    "_div_scalar": (lambda x, s: x / s, True),
    "_rdiv_scalar": (lambda x, s: s / x, True),
    "_mod_scalar": (lambda x, s: np.mod(x, s), True),
    "_rmod_scalar": (lambda x, s: np.mod(s, x), False),
    "_power_scalar": (lambda x, s: x ** s, True),
    "_rpower_scalar": (lambda x, s: s ** x, True),
    "_maximum_scalar": (np.maximum, True),
    "_minimum_scalar": (np.minimum, True),
    "_hypot_scalar": (np.hypot, True),
    "_equal_scalar": (lambda x, s: (x == s).astype(x.dtype), False),
    "_not_equal_scalar": (lambda x, s: (x != s).astype(x.dtype), False),
    "_greater_scalar": (lambda x, s: (x > s).astype(x.dtype), False),
    "_greater_equal_scalar": (lambda x, s: (x >= s).astype(x.dtype), False),
    "_lesser_scalar": (lambda x, s: (x < s).astype(x.dtype), False),
    "_lesser_equal_scalar": (lambda x, s: (x <= s).astype(x.dtype), False),
}


@pytest.mark.parametrize("name", sorted(SCALAR))
@pytest.mark.parametrize("dtype", FLOATS)
def test_scalar_forward(name, dtype):
    ref = SCALAR[name][0]
    x = np.random.RandomState(5).uniform(0.5, 3, (3, 4))
    x[0, 0] = 1.5
    s = 1.5
    out = op(name)(to_nd(x, dtype), scalar=s)
    rtol, atol = FWD_TOL[dtype]
    np.testing.assert_allclose(to_np(out).astype(np.float64), ref(rounded(x, dtype), s), rtol=rtol * 4,
                               atol=atol * 4)


@pytest.mark.parametrize("name", sorted(n for n in SCALAR if SCALAR[n][1]))
def test_scalar_gradient(name):
    x = np.random.RandomState(6).uniform(0.5, 3, (2, 3))
    check_grad(lambda a: op(name)(a, scalar=1.3), [x], rtol=1e-5, atol=1e-7)


def test_scalar_bad_param():
    with pytest.raises(mx.base.MXNetError, match="_plus_scalar"):
        op("_plus_scalar")(mx.nd.ones((2,)), scalar="abc")
    assert op("_plus_scalar")(mx.nd.ones((2,)), scalar=1).asnumpy().tolist() == [2, 2]


@pytest.mark.parametrize("src", ["float32", "float64", "float16", "bfloat16", "int32", "int64", "uint8", "int8"])
@pytest.mark.parametrize("dst", ["float32", "float64", "float16", "int32", "int64", "uint8", "bool"])
def test_cast(src, dst):
    x = np.array([[0, 1, 2], [3, 100, 7]], dtype=np.float64)
    out = to_nd(x, src).astype(dst)
    assert out.dtype == np.dtype(dst)
    np.testing.assert_array_equal(out.asnumpy(), x.astype(dst))


def test_cast_gradient_and_bad_dtype():
    check_grad(lambda a: mx.nd.Cast(mx.nd.Cast(a, dtype="float32") * 2, dtype="float64"), [np.ones((2, 2))],
               rtol=1e-4, atol=1e-4, eps=1e-3)
    with pytest.raises(mx.base.MXNetError, match="Cast"):
        mx.nd.Cast(mx.nd.ones((2,)), dtype="complex64")


@pytest.mark.parametrize("dtype", FLOATS)
def test_clip(dtype):
    x = np.linspace(-3, 3, 12).reshape(3, 4)
    out = mx.nd.clip(to_nd(x, dtype), a_min=-1, a_max=2)
    np.testing.assert_allclose(to_np(out), np.clip(rounded(x, dtype), -1, 2), rtol=FWD_TOL[dtype][0])
    check_grad(lambda a: mx.nd.clip(a, a_min=-1, a_max=2), [x + 0.05])
    with pytest.raises(mx.base.MXNetError, match="clip"):
        mx.nd.clip(mx.nd.ones((2,)), a_min=0)


def test_blockgrad_addn():
    a, b = mx.nd.array([1.0, 2.0]), mx.nd.array([3.0, 4.0])
    a.attach_grad()
    b.attach_grad()
    with mx.autograd.record():
        y = mx.nd.add_n(a, mx.nd.BlockGrad(b), a * 2)
    y.backward()
    np.testing.assert_array_equal(y.asnumpy(), [6, 10])
    np.testing.assert_array_equal(a.grad.asnumpy(), [3, 3])
    np.testing.assert_array_equal(b.grad.asnumpy(), [0, 0])
    np.testing.assert_array_equal(mx.nd.ElementWiseSum(a, b, a).asnumpy(), [5, 8])
    with pytest.raises(mx.base.MXNetError, match="add_n"):
        mx.nd.add_n(mx.nd.ones((2,)), mx.nd.ones((3,)))


def test_broadcast_to_like_axis():
    x = np.arange(3.0).reshape(3, 1)
    np.testing.assert_array_equal(mx.nd.broadcast_to(mx.nd.array(x), shape=(3, 4)).asnumpy(), np.tile(x, (1, 4)))
    np.testing.assert_array_equal(mx.nd.broadcast_to(mx.nd.array(x), shape=(0, 2)).asnumpy(), np.tile(x, (1, 2)))
    np.testing.assert_array_equal(mx.nd.broadcast_like(mx.nd.array(x), mx.nd.ones((3, 5))).asnumpy(),
                                  np.tile(x, (1, 5)))
    np.testing.assert_array_equal(mx.nd.broadcast_axis(mx.nd.array(x), axis=1, size=2).asnumpy(), np.tile(x, (1, 2)))
    check_grad(lambda a: mx.nd.broadcast_to(a, shape=(2, 3, 4)), [np.random.rand(1, 3, 1)])
    check_grad(lambda a: mx.nd.broadcast_axis(a, axis=(0, 2), size=(2, 4)), [np.random.rand(1, 3, 1)])
    with pytest.raises(mx.base.MXNetError, match="broadcast_to"):
        mx.nd.broadcast_to(mx.nd.ones((3, 2)), shape=(3, 4))
    with pytest.raises(mx.base.MXNetError, match="broadcast_axis"):
        mx.nd.broadcast_axis(mx.nd.ones((3, 2)), axis=1, size=4)
