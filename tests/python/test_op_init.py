"""Creation ops (_zeros, _ones, _full, _empty, _arange, _linspace, _eye) and the mx.nd helpers
built on them: values vs numpy for each dtype, shapes, out=, bad parameters."""
import numpy as np
import pytest

import mxnet as mx
from op_testing import op, to_np

DTYPES = ["float32", "float64", "float16", "bfloat16", "uint8", "int8", "int32", "int64", "bool"]


def _np_dtype(dtype):
    return np.float32 if dtype == "bfloat16" else np.dtype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_constant_fills(dtype):
    for shape in [(3,), (2, 3), (2, 0, 4), 5]:
        expect_shape = (shape,) if isinstance(shape, int) else shape
        z = op("_zeros")(shape=shape, dtype=dtype)
        o = op("_ones")(shape=shape, dtype=dtype)
        f = op("_full")(shape=shape, dtype=dtype, value=7)
        e = op("_empty")(shape=shape, dtype=dtype)
        for a in (z, o, f, e):
            assert a.shape == expect_shape
            if dtype == "bfloat16":
                assert "bfloat16" in str(a.dtype)
            else:
                assert np.dtype(a.dtype) == np.dtype(dtype)
        np.testing.assert_array_equal(to_np(z), np.zeros(expect_shape, _np_dtype(dtype)))
        np.testing.assert_array_equal(to_np(o), np.ones(expect_shape, _np_dtype(dtype)))
        np.testing.assert_array_equal(to_np(f), np.full(expect_shape, 7, _np_dtype(dtype)))


def test_full_fractional_value_and_context():
    x = op("_full")(shape=(2, 2), value=-2.5, dtype="float64", ctx="cpu(0)")
    np.testing.assert_array_equal(x.asnumpy(), np.full((2, 2), -2.5))
    assert x.context == mx.cpu(0)


def test_helpers_match_numpy():
    np.testing.assert_array_equal(mx.nd.zeros((2, 3)).asnumpy(), np.zeros((2, 3), np.float32))
    np.testing.assert_array_equal(mx.nd.ones(4, dtype="int64").asnumpy(), np.ones(4, np.int64))
    assert mx.nd.zeros((2,)).dtype == np.float32 and mx.nd.ones((2,), dtype=np.float64).dtype == np.float64
    np.testing.assert_array_equal(mx.nd.full((2, 2), 3).asnumpy(), np.full((2, 2), 3, np.float32))
    out = mx.nd.empty((3,), dtype="int32")
    assert mx.nd.full((3,), 5, out=out) is out
    np.testing.assert_array_equal(out.asnumpy(), [5, 5, 5])
    np.testing.assert_allclose(mx.nd.arange(2, 10, 3, repeat=2).asnumpy(), [2, 2, 5, 5, 8, 8])
    np.testing.assert_allclose(mx.nd.arange(4).asnumpy(), np.arange(4))
    np.testing.assert_allclose(mx.nd.linspace(0, 1, 11).asnumpy(), np.linspace(0, 1, 11), rtol=1e-6)
    np.testing.assert_array_equal(mx.nd.eye(3, 4, 1).asnumpy(), np.eye(3, 4, 1))
    assert mx.nd.zeros((2,), ctx=mx.cpu()).context == mx.cpu()
    with pytest.raises(ValueError):
        mx.nd.zeros((2,), stype="row_sparse")


def test_zeros_into_given_output():
    out = mx.nd.array(np.arange(6).reshape(2, 3))
    op("_zeros")(out=out)
    np.testing.assert_array_equal(out.asnumpy(), np.zeros((2, 3)))
    op("_ones")(out=out)
    np.testing.assert_array_equal(out.asnumpy(), np.ones((2, 3)))


ARANGE = [
    dict(start=0, stop=10, step=1, repeat=1),
    dict(start=2, stop=11, step=3, repeat=1),
    dict(start=5, stop=-5, step=-1.5, repeat=1),
    dict(start=0.5, stop=3, step=0.25, repeat=3),
    dict(start=1, stop=2, step=0.3, repeat=2),
]


@pytest.mark.parametrize("case", ARANGE)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_arange(case, dtype):
    out = op("_arange")(dtype=dtype, **case)
    expect = np.repeat(np.arange(case["start"], case["stop"], case["step"], dtype=np.float64), case["repeat"])
    assert out.shape == expect.shape
    np.testing.assert_allclose(out.asnumpy(), expect.astype(dtype), rtol=1e-6)


def test_arange_integer_and_no_stop():
    np.testing.assert_array_equal(op("_arange")(start=7, dtype="int32").asnumpy(), np.arange(7, dtype=np.int32))
    np.testing.assert_array_equal(op("_arange")(start=-3, stop=3, step=2, dtype="int64").asnumpy(), [-3, -1, 1])


@pytest.mark.parametrize("num", [0, 1, 2, 7, 50])
@pytest.mark.parametrize("endpoint", [True, False])
def test_linspace(num, endpoint):
    for dtype in ("float32", "float64"):
        out = op("_linspace")(start=-2, stop=3.5, num=num, endpoint=endpoint, dtype=dtype)
        expect = np.linspace(-2, 3.5, num, endpoint=endpoint)
        assert out.shape == (num,)
        np.testing.assert_allclose(out.asnumpy(), expect, rtol=1e-6, atol=1e-6)
    out = op("_linspace")(start=0, stop=10, num=6, dtype="int32")
    np.testing.assert_array_equal(out.asnumpy(), [0, 2, 4, 6, 8, 10])


@pytest.mark.parametrize("N,M,k", [(3, 0, 0), (4, 2, 0), (2, 5, 1), (5, 3, -2), (3, 3, 5), (0, 0, 0)])
def test_eye(N, M, k):
    for dtype in ("float32", "float64", "int32"):
        out = op("_eye")(N=N, M=M, k=k, dtype=dtype)
        np.testing.assert_array_equal(out.asnumpy(), np.eye(N, M or N, k, dtype=dtype))


BAD = [
    ("_zeros", {}, "_zeros"),
    ("_zeros", dict(shape=(2, 3), dtype="complex64"), "_zeros"),
    ("_ones", dict(shape=(2, -1)), "_ones"),
    ("_full", dict(shape=(2,)), "_full.*value"),
    ("_arange", dict(start=0, stop=5, step=0), "_arange.*step"),
    ("_arange", dict(start=5, stop=0, step=1), "_arange.*invalid range"),
    ("_arange", dict(start=0, stop=5, repeat=0), "_arange"),
    ("_linspace", dict(start=0, stop=1, num=-1), "_linspace"),
    ("_linspace", dict(start=0, stop=float("inf"), num=3), "_linspace"),
    ("_eye", dict(N=-1), "_eye"),
    ("_eye", dict(N=2, M=-3), "_eye"),
    ("_empty", dict(shape=(2,), ctx="tpu(0)"), "_empty.*ctx"),
]


@pytest.mark.parametrize("name,params,match", BAD)
def test_bad_parameters(name, params, match):
    with pytest.raises(mx.base.MXNetError, match=match):
        op(name)(**params).asnumpy()
    # The process goes on: a good call still works.
    assert op("_zeros")(shape=(1,)).asnumpy()[0] == 0
