"""mx.nd.NDArray basics against numpy."""
import pickle

import numpy as np
import pytest

import mxnet as mx
from mxnet.test_utils import assert_almost_equal

DTYPES = [np.float32, np.float64, np.float16, np.uint8, np.int8, np.int32, np.int64, np.bool_]


@pytest.mark.parametrize("dtype", DTYPES)
def test_array_roundtrip_dtypes(dtype):
    src = (np.arange(24).reshape(2, 3, 4) % 7).astype(dtype)
    a = mx.nd.array(src, dtype=dtype)
    assert a.shape == (2, 3, 4)
    assert a.dtype == np.dtype(dtype).type
    assert a.size == 24 and a.ndim == 3
    np.testing.assert_array_equal(a.asnumpy(), src)


def test_bfloat16_roundtrip():
    src = np.array([1.0, -2.5, 3.140625, 65280.0], dtype=np.float32)
    a = mx.nd.array(src, dtype="bfloat16")
    np.testing.assert_array_equal(a.asnumpy(), src)  # all exactly representable in bf16


def test_default_dtype_is_float32():
    assert mx.nd.array(np.arange(3, dtype=np.float64)).dtype == np.float32
    assert mx.nd.zeros((2, 2)).dtype == np.float32


def test_creation():
    np.testing.assert_array_equal(mx.nd.zeros((2, 3)).asnumpy(), np.zeros((2, 3)))
    np.testing.assert_array_equal(mx.nd.ones((4,), dtype="int32").asnumpy(), np.ones(4, dtype=np.int32))
    np.testing.assert_array_equal(mx.nd.full((2, 2), 7).asnumpy(), np.full((2, 2), 7, dtype=np.float32))
    np.testing.assert_array_equal(mx.nd.arange(2, 8, 2).asnumpy(), np.array([2, 4, 6], dtype=np.float32))
    assert mx.nd.empty((3, 0)).shape == (3, 0)


def test_repr_and_scalar():
    a = mx.nd.array([[1, 2], [3, 4]])
    assert repr(a).endswith("<NDArray 2x2 @cpu(0)>")
    assert mx.nd.array([5]).asscalar() == 5
    with pytest.raises(ValueError):
        a.asscalar()


def test_reshape_views_share_memory():
    a = mx.nd.array(np.arange(24).reshape(2, 3, 4))
    b = a.reshape((4, 0, 2)) if False else a.reshape((6, 4))
    b[:] = 1
    np.testing.assert_array_equal(a.asnumpy(), np.ones((2, 3, 4)))


@pytest.mark.parametrize("shape,target,reverse,expect", [
    ((2, 3, 4), (4, 0, 2), False, (4, 3, 2)),
    ((2, 3, 4), (-3, 4), False, (6, 4)),
    ((2, 3, 4), (-4, 1, 2, -2), False, (1, 2, 3, 4)),
    ((2, 3, 4), (6, 1, -1), False, (6, 1, 4)),
    ((10, 5, 4), (-1, 0), False, (40, 5)),
    ((10, 5, 4), (-1, 0), True, (50, 4)),
    ((2, 3, 4), (-2,), False, (2, 3, 4)),
])
def test_reshape_special_codes(shape, target, reverse, expect):
    a = mx.nd.zeros(shape)
    assert a.reshape(target, reverse=reverse).shape == expect


def test_reshape_bad_size_raises():
    with pytest.raises(mx.MXNetError, match="Reshape"):
        mx.nd.zeros((2, 3)).reshape((4, 2))


def test_slice_and_at_views():
    src = np.arange(12, dtype=np.float32).reshape(4, 3)
    a = mx.nd.array(src)
    np.testing.assert_array_equal(a[1:3].asnumpy(), src[1:3])
    np.testing.assert_array_equal(a[2].asnumpy(), src[2])
    np.testing.assert_array_equal(a[-1].asnumpy(), src[-1])
    a[1:3] = 0
    src[1:3] = 0
    np.testing.assert_array_equal(a.asnumpy(), src)
    a[0] = mx.nd.array([7, 8, 9])
    src[0] = [7, 8, 9]
    np.testing.assert_array_equal(a.asnumpy(), src)
    with pytest.raises(IndexError):
        a[4]


def test_setitem_general_and_broadcast():
    src = np.zeros((3, 4), dtype=np.float32)
    a = mx.nd.array(src)
    a[:, 1] = 5
    src[:, 1] = 5
    a[[0, 2]] = 2
    src[[0, 2]] = 2
    np.testing.assert_array_equal(a.asnumpy(), src)
    a[:] = 3
    np.testing.assert_array_equal(a.asnumpy(), np.full((3, 4), 3))


def test_elemwise_add_and_inplace():
    x = np.random.uniform(-1, 1, (5, 6)).astype(np.float32)
    y = np.random.uniform(-1, 1, (5, 6)).astype(np.float32)
    a, b = mx.nd.array(x), mx.nd.array(y)
    assert_almost_equal(mx.nd.elemwise_add(a, b), x + y)
    mx.nd.elemwise_add(a, b, out=a)
    assert_almost_equal(a, x + y)
    c = mx.nd.elemwise_add(a, a)  # aliasing inputs
    assert_almost_equal(c, 2 * (x + y))


def test_elemwise_add_bad_shapes_names_op():
    with pytest.raises(mx.MXNetError, match="elemwise_add"):
        mx.nd.elemwise_add(mx.nd.zeros((2, 3)), mx.nd.zeros((3, 2)))
    with pytest.raises(mx.MXNetError, match="elemwise_add"):
        mx.nd.elemwise_add(mx.nd.zeros((2, 3)), mx.nd.zeros((2, 3), dtype="int32"))
    # The process goes on after an error.
    assert mx.nd.elemwise_add(mx.nd.ones((1,)), mx.nd.ones((1,))).asscalar() == 2


def test_copy_ops():
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    a = mx.nd.array(x, dtype=np.int32)
    np.testing.assert_array_equal(mx.nd.identity(a).asnumpy(), x)
    np.testing.assert_array_equal(mx.nd._internal._copy(a).asnumpy(), x)
    np.testing.assert_array_equal(mx.nd.zeros_like(a).asnumpy(), np.zeros_like(x))
    np.testing.assert_array_equal(mx.nd.ones_like(a).asnumpy(), np.ones_like(x))
    b = a.copy()
    b[:] = 0
    np.testing.assert_array_equal(a.asnumpy(), x)
    assert a.as_in_context(mx.cpu()) is a
    c = mx.nd.zeros((2, 3), dtype=np.int32)
    a.copyto(c)
    np.testing.assert_array_equal(c.asnumpy(), x)


def test_pickle_roundtrip():
    a = mx.nd.array(np.random.uniform(size=(3, 4)), dtype=np.float64)
    b = pickle.loads(pickle.dumps(a))
    assert b.dtype == np.float64
    np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


def test_generated_op_docs_and_namespaces():
    assert "Adds arguments element-wise" in mx.nd.elemwise_add.__doc__
    assert "lhs" in mx.nd.elemwise_add.__doc__
    assert hasattr(mx.nd.op, "elemwise_add")
    assert hasattr(mx.nd._internal, "_copy")
    assert not hasattr(mx.nd, "_copy")


def test_unknown_param_error_names_op():
    with pytest.raises(mx.MXNetError):
        mx.nd.elemwise_add(mx.nd.zeros((1,)))  # missing input


def test_waitall_and_wait_to_read():
    a = mx.nd.ones((100,))
    b = mx.nd.elemwise_add(a, a)
    b.wait_to_read()
    mx.nd.waitall()
    assert b.asnumpy().sum() == 200


def test_numpy_namespaces_unsupported():
    with pytest.raises(NotImplementedError, match="mx.nd"):
        mx.np.zeros((2,))
    with pytest.raises(NotImplementedError, match="not supported"):
        mx.npx.set_np()
