"""Reductions, shape ops and dot/batch_dot: forward vs numpy, gradients vs finite
differences, bad inputs."""
import numpy as np
import pytest

import mxnet as mx
from op_testing import FWD_TOL, check_grad, rounded, to_nd, to_np

REDUCE = {
    "sum": np.sum, "mean": np.mean, "prod": np.prod, "max": np.max, "min": np.min,
    "nansum": np.nansum, "nanprod": np.nanprod,
}
AXES = [None, 0, 1, (0, 2), -1]


def _ref_reduce(name, x, axis, keepdims, exclude=False):
    if exclude and axis is not None:
        ax = (axis,) if isinstance(axis, int) else axis
        ax = tuple(a % x.ndim for a in ax)
        axis = tuple(i for i in range(x.ndim) if i not in ax)
    r = REDUCE[name](x, axis=axis, keepdims=keepdims)
    r = np.asarray(r)
    return r.reshape((1,)) if r.ndim == 0 else r


def _reduce_tol(dtype):
    """Up to 24 terms: float32/float64 accumulate rounding per term; half types accumulate in
    float32 and round the result once, so they keep the table's (one output rounding)."""
    rtol, atol = FWD_TOL[dtype]
    return (rtol * 8, atol * 8) if dtype in ("float32", "float64") else (rtol, atol)


@pytest.mark.parametrize("name", sorted(REDUCE))
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_reduce_forward(name, dtype):
    x = np.random.RandomState(0).uniform(0.5, 1.5, (2, 3, 4))
    xr = rounded(x, dtype)
    for axis in AXES:
        for keepdims in (False, True):
            kw = {} if axis is None else {"axis": axis}
            out = getattr(mx.nd, name)(to_nd(x, dtype), keepdims=keepdims, **kw)
            expect = _ref_reduce(name, xr, axis, keepdims)
            assert out.shape == expect.shape, (axis, keepdims)
            rtol, atol = _reduce_tol(dtype)
            np.testing.assert_allclose(to_np(out).astype(np.float64), expect, rtol=rtol, atol=atol)
    out = getattr(mx.nd, name)(to_nd(x, dtype), axis=1, exclude=True)
    rtol, atol = _reduce_tol(dtype)
    np.testing.assert_allclose(to_np(out).astype(np.float64), _ref_reduce(name, xr, 1, False, True),
                               rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", sorted(REDUCE))
@pytest.mark.parametrize("axis", [None, 1, (0, 2)])
def test_reduce_gradient(name, axis):
    x = np.random.RandomState(1).uniform(0.5, 1.5, (2, 3, 4))
    kw = {} if axis is None else {"axis": axis}
    check_grad(lambda a: getattr(mx.nd, name)(a, **kw), [x], rtol=1e-5, atol=1e-7)


def test_reduce_integer_and_nan():
    x = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    np.testing.assert_array_equal(mx.nd.sum(mx.nd.array(x, dtype="int32"), axis=1).asnumpy(), x.sum(axis=1))
    np.testing.assert_array_equal(mx.nd.max(mx.nd.array(x, dtype="int64"), axis=2).asnumpy(), x.max(axis=2))
    y = np.array([[1.0, np.nan, 2.0], [3.0, 4.0, np.nan]])
    np.testing.assert_allclose(mx.nd.nansum(mx.nd.array(y), axis=1).asnumpy(), [3, 7])
    np.testing.assert_allclose(mx.nd.nanprod(mx.nd.array(y), axis=1).asnumpy(), [2, 12])


def test_safe_accumulation_fp16(run_python):
    # The mean of 70000 fp16 ones: an fp16 accumulator overflows (fp16's max is 65504) in any
    # summation order (the sums run in 32 lanes, pairwise), a float32 one does not.
    code = ("import mxnet as mx, numpy as np\n"
            "x = mx.nd.ones((70000,), dtype='float16')\n"
            "print(float(mx.nd.mean(x).astype('float32').asnumpy()[0]))\n")
    on = run_python(code, MXNET_SAFE_ACCUMULATION="1")
    off = run_python(code, MXNET_SAFE_ACCUMULATION="0")
    assert on.returncode == 0 and off.returncode == 0, on.stderr + off.stderr
    assert float(on.stdout.split()[-1]) == 1.0
    assert not np.isfinite(float(off.stdout.split()[-1]))  # inf / fp16(70000) = inf / inf


def test_reduce_large_parallel_deterministic():
    x = np.random.RandomState(2).rand(1 << 20).astype(np.float32)
    a = mx.nd.sum(mx.nd.array(x)).asnumpy()
    b = mx.nd.sum(mx.nd.array(x)).asnumpy()
    assert a[0] == b[0]
    np.testing.assert_allclose(a[0], x.astype(np.float64).sum(), rtol=1e-6)


def test_norm_argmax_argmin():
    x = np.random.RandomState(3).uniform(-1, 1, (3, 4))
    np.testing.assert_allclose(mx.nd.norm(mx.nd.array(x)).asnumpy(), [np.sqrt((x.astype(np.float32) ** 2).sum())],
                               rtol=1e-5)
    np.testing.assert_allclose(mx.nd.norm(mx.nd.array(x), ord=1, axis=1).asnumpy(), np.abs(x).sum(axis=1), rtol=1e-5)
    check_grad(lambda a: mx.nd.norm(a, axis=1), [x])
    check_grad(lambda a: mx.nd.norm(a, ord=1, axis=0), [x])
    for dtype in ("float32", "float64", "int32"):
        xi = np.array([[1, 5, 5, 0], [7, 2, 7, 1]], dtype=dtype)
        np.testing.assert_array_equal(mx.nd.argmax(mx.nd.array(xi, dtype=dtype), axis=1).asnumpy(), [1, 0])
        np.testing.assert_array_equal(mx.nd.argmin(mx.nd.array(xi, dtype=dtype), axis=0).asnumpy(), [0, 1, 0, 0])
    assert mx.nd.argmax(mx.nd.array(x)).asnumpy()[0] == np.argmax(x.astype(np.float32))
    assert mx.nd.argmax(mx.nd.array(x), axis=1, keepdims=True).shape == (3, 1)


def test_reduce_bad_axis():
    with pytest.raises(mx.base.MXNetError, match="sum.*axis 3"):
        mx.nd.sum(mx.nd.ones((2, 3)), axis=3)
    with pytest.raises(mx.base.MXNetError, match="mean.*duplicate"):
        mx.nd.mean(mx.nd.ones((2, 3)), axis=(1, -1))
    with pytest.raises(mx.base.MXNetError, match="argmax"):
        mx.nd.argmax(mx.nd.ones((2, 3)), axis=2)
    assert mx.nd.sum(mx.nd.ones((2, 3))).asnumpy()[0] == 6


RESHAPES = [((2, 3, 4), (4, 0, 2), False, (4, 3, 2)), ((2, 3, 4), (-3, 4), False, (6, 4)),
            ((2, 3, 4), (-4, 1, 2, -2), False, (1, 2, 3, 4)), ((2, 3, 4), (6, 1, -1), False, (6, 1, 4)),
            ((10, 5, 4), (-1, 0), False, (40, 5)), ((10, 5, 4), (-1, 0), True, (50, 4)),
            ((2, 3, 4), (-2,), False, (2, 3, 4)), ((2, 3, 4), (0, -4, -1, 3, 4), False, (2, 1, 3, 4))]


@pytest.mark.parametrize("src,shape,reverse,expect", RESHAPES)
def test_reshape_codes(src, shape, reverse, expect):
    x = np.arange(np.prod(src), dtype=np.float64).reshape(src)
    out = mx.nd.Reshape(mx.nd.array(x, dtype="float64"), shape=shape, reverse=reverse)
    assert out.shape == expect
    np.testing.assert_array_equal(out.asnumpy(), x.reshape(expect))


def test_reshape_family_and_errors():
    x = np.random.rand(2, 3, 4)
    check_grad(lambda a: mx.nd.Reshape(a, shape=(-1, 2)), [x])
    np.testing.assert_array_equal(mx.nd.Flatten(mx.nd.array(x)).asnumpy(), x.reshape(2, 12).astype(np.float32))
    assert mx.nd.expand_dims(mx.nd.array(x), axis=-1).shape == (2, 3, 4, 1)
    assert mx.nd.squeeze(mx.nd.ones((1, 3, 1))).shape == (3,)
    assert mx.nd.squeeze(mx.nd.ones((1, 3, 1)), axis=0).shape == (3, 1)
    assert mx.nd.reshape_like(mx.nd.ones((6,)), mx.nd.ones((2, 3))).shape == (2, 3)
    check_grad(lambda a: mx.nd.expand_dims(mx.nd.Flatten(a), axis=1), [x])
    with pytest.raises(mx.base.MXNetError, match=r"Reshape.*\(2, 3, 4\)"):
        mx.nd.Reshape(mx.nd.ones((2, 3, 4)), shape=(5, -1))
    with pytest.raises(mx.base.MXNetError, match="squeeze"):
        mx.nd.squeeze(mx.nd.ones((2, 3)), axis=0)
    with pytest.raises(mx.base.MXNetError, match="expand_dims"):
        mx.nd.expand_dims(mx.nd.ones((2, 3)), axis=4)


@pytest.mark.parametrize("call,match", [
    (lambda: mx.nd.Reshape(mx.nd.ones((2, 3)), shape=(-1, -1)), r"Reshape.*into shape \(-1, -1\).*more than one -1"),
    (lambda: mx.nd.tile(mx.nd.ones((2,)), reps=(-1,)), r"tile.*reps \(-1,\) must be non-negative"),
    (lambda: mx.nd.random.uniform(shape=(-1, 2)), r"_random_uniform.*shape \(-1, 2\) has a negative dimension"),
    (lambda: mx.nd.zeros((2, -3)), r"shape \(2, -3\) has a negative dimension"),
])
def test_shape_parameter_errors_quote_the_given_values(call, match):
    with pytest.raises(mx.base.MXNetError, match=match):
        call().asnumpy()


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int32", "uint8"])
def test_transpose_swap_flip(dtype):
    x = np.arange(24).reshape(2, 3, 4).astype(dtype)
    nx = mx.nd.array(x, dtype=dtype)
    np.testing.assert_array_equal(mx.nd.transpose(nx).asnumpy(), x.transpose())
    np.testing.assert_array_equal(mx.nd.transpose(nx, axes=(1, 0, 2)).asnumpy(), x.transpose(1, 0, 2))
    np.testing.assert_array_equal(mx.nd.swapaxes(nx, dim1=0, dim2=2).asnumpy(), np.swapaxes(x, 0, 2))
    np.testing.assert_array_equal(mx.nd.flip(nx, axis=1).asnumpy(), x[:, ::-1])
    np.testing.assert_array_equal(mx.nd.reverse(nx, axis=(0, 2)).asnumpy(), x[::-1, :, ::-1])


def test_move_gradients_and_errors():
    x = np.random.rand(2, 3, 4)
    check_grad(lambda a: mx.nd.transpose(a, axes=(2, 0, 1)), [x])
    check_grad(lambda a: mx.nd.swapaxes(a, dim1=1, dim2=2), [x])
    check_grad(lambda a: mx.nd.flip(a, axis=0), [x])
    with pytest.raises(mx.base.MXNetError, match="transpose"):
        mx.nd.transpose(mx.nd.ones((2, 3)), axes=(0, 0))
    with pytest.raises(mx.base.MXNetError, match="SwapAxis"):
        mx.nd.swapaxes(mx.nd.ones((2, 3)), dim1=0, dim2=5)


def test_depth_space():
    b = 2
    x = np.random.rand(1, 8, 2, 3)
    n, c, h, w = x.shape
    ref = x.reshape(n, b, b, c // 4, h, w).transpose(0, 3, 4, 1, 5, 2).reshape(n, c // 4, h * b, w * b)
    out = mx.nd.depth_to_space(mx.nd.array(x, dtype="float64"), block_size=2)
    np.testing.assert_array_equal(out.asnumpy(), ref)
    back = mx.nd.space_to_depth(out, block_size=2)
    np.testing.assert_array_equal(back.asnumpy(), x)
    check_grad(lambda a: mx.nd.depth_to_space(a, block_size=2), [x])
    with pytest.raises(mx.base.MXNetError, match="depth_to_space"):
        mx.nd.depth_to_space(mx.nd.ones((1, 3, 2, 2)), block_size=2)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int32"])
@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
def test_dot(dtype, ta, tb):
    rs = np.random.RandomState(0)
    a = rs.randint(-3, 4, (4, 3) if ta else (3, 4)).astype(np.float64)
    b = rs.randint(-3, 4, (5, 4) if tb else (4, 5)).astype(np.float64)
    ref = (a.T if ta else a) @ (b.T if tb else b)
    out = mx.nd.dot(mx.nd.array(a, dtype=dtype), mx.nd.array(b, dtype=dtype), transpose_a=ta, transpose_b=tb)
    np.testing.assert_allclose(out.asnumpy().astype(np.float64), ref, rtol=1e-3)
    check_grad(lambda x, y: mx.nd.dot(x, y, transpose_a=ta, transpose_b=tb), [a + 0.1, b - 0.2])
    A = rs.randint(-3, 4, (2, 3, 4, 3) if ta else (2, 3, 3, 4)).astype(np.float64)
    B = rs.randint(-3, 4, (2, 3, 5, 4) if tb else (2, 3, 4, 5)).astype(np.float64)
    ref = np.matmul(np.swapaxes(A, -1, -2) if ta else A, np.swapaxes(B, -1, -2) if tb else B)
    out = mx.nd.batch_dot(mx.nd.array(A, dtype=dtype), mx.nd.array(B, dtype=dtype), transpose_a=ta, transpose_b=tb)
    np.testing.assert_allclose(out.asnumpy().astype(np.float64), ref, rtol=1e-3)
    check_grad(lambda x, y: mx.nd.batch_dot(x, y, transpose_a=ta, transpose_b=tb), [A, B])


def test_dot_nd_and_errors():
    a, b = np.random.rand(2, 3, 4), np.random.rand(4, 5)
    np.testing.assert_allclose(mx.nd.dot(mx.nd.array(a), mx.nd.array(b)).asnumpy(), a @ b, rtol=1e-5)
    check_grad(lambda x, y: mx.nd.dot(x, y), [a, b])
    v = np.random.rand(4)
    np.testing.assert_allclose(mx.nd.dot(mx.nd.array(v), mx.nd.array(v)).asnumpy(), [v @ v], rtol=1e-5)
    with pytest.raises(mx.base.MXNetError, match=r"dot.*\(2, 3\).*\(4, 5\)"):
        mx.nd.dot(mx.nd.ones((2, 3)), mx.nd.ones((4, 5)))
    with pytest.raises(mx.base.MXNetError, match="batch_dot"):
        mx.nd.batch_dot(mx.nd.ones((2, 3, 4)), mx.nd.ones((3, 4, 5)))
