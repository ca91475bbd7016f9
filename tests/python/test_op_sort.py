"""topk, sort, argsort vs numpy (stable order for ties), gradients vs finite differences,
bad inputs; and dot gradients for 1-D and N-D operands."""
import numpy as np
import pytest

import mxnet as mx
from op_testing import check_grad, rounded, to_nd, to_np

DTYPES = ["float32", "float64", "float16", "bfloat16", "int32", "int64", "uint8", "int8"]


def _data(shape, dtype, seed=0):
    # Few distinct values, so ties are common and the tie order is exercised.
    x = np.random.RandomState(seed).randint(0, 9, shape).astype(np.float64)
    return rounded(x, dtype), to_nd(x, dtype)


def _order(x, axis, ascend):
    key = x if ascend else -x
    return np.argsort(key, axis=axis, kind="stable")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,axis", [((7,), -1), ((3, 5), 1), ((4, 3, 2), 0), ((2, 3, 4), -2)])
@pytest.mark.parametrize("ascend", [True, False])
def test_sort_argsort(dtype, shape, axis, ascend):
    x, nx = _data(shape, dtype)
    out = mx.nd.sort(nx, axis=axis, is_ascend=ascend)
    assert out.dtype == nx.dtype
    np.testing.assert_array_equal(to_np(out), np.take_along_axis(x, _order(x, axis, ascend), axis))
    idx = mx.nd.argsort(nx, axis=axis, is_ascend=ascend)
    assert idx.dtype == np.float32
    np.testing.assert_array_equal(idx.asnumpy(), _order(x, axis, ascend))
    idx = mx.nd.argsort(nx, axis=axis, is_ascend=ascend, dtype="int64")
    assert idx.dtype == np.int64


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("k", [1, 3])
@pytest.mark.parametrize("ascend", [True, False])
def test_topk(dtype, k, ascend):
    x, nx = _data((4, 5), dtype, seed=k)
    order = _order(x, 1, ascend)[:, :k]
    np.testing.assert_array_equal(mx.nd.topk(nx, k=k, is_ascend=ascend).asnumpy(), order)
    vals = mx.nd.topk(nx, k=k, is_ascend=ascend, ret_typ="value")
    np.testing.assert_array_equal(to_np(vals), np.take_along_axis(x, order, 1))
    v, i = mx.nd.topk(nx, k=k, is_ascend=ascend, ret_typ="both", dtype="int32")
    assert i.dtype == np.int32 and v.dtype == nx.dtype
    np.testing.assert_array_equal(i.asnumpy(), order)
    mask = mx.nd.topk(nx, k=k, is_ascend=ascend, ret_typ="mask")
    expect = np.zeros_like(x)
    np.put_along_axis(expect, order, 1, 1)
    assert mask.dtype == nx.dtype
    np.testing.assert_array_equal(to_np(mask), expect)


def test_topk_axes():
    x, nx = _data((3, 4, 5), "float32")
    order = _order(x, 0, False)[:2]
    np.testing.assert_array_equal(mx.nd.topk(nx, axis=0, k=2).asnumpy(), order)
    # axis=None (the flattened input) is passed as the string "None": the generated Python
    # functions drop None-valued keyword arguments.
    flat = _order(x.reshape(-1), 0, False)[:4]
    out = mx.nd.topk(nx, axis="None", k=4)
    assert out.shape == (4,)
    np.testing.assert_array_equal(out.asnumpy(), flat)
    np.testing.assert_array_equal(mx.nd.sort(nx, axis="None").asnumpy(), np.sort(x.reshape(-1)))
    full = mx.nd.topk(nx, k=0, ret_typ="value")  # k < 1: everything, sorted
    np.testing.assert_array_equal(full.asnumpy(), -np.sort(-x, axis=-1))


def test_large_sort_parallel():
    x = np.random.RandomState(1).rand(200, 500).astype(np.float32)
    np.testing.assert_array_equal(mx.nd.sort(mx.nd.array(x), axis=1).asnumpy(), np.sort(x, axis=1))
    np.testing.assert_array_equal(mx.nd.argsort(mx.nd.array(x), axis=0, dtype="int64").asnumpy(),
                                  np.argsort(x, axis=0, kind="stable"))


@pytest.mark.parametrize("fn", [
    lambda a: mx.nd.topk(a, k=2, ret_typ="value"),
    lambda a: mx.nd.topk(a, k=2, axis=0, ret_typ="both", is_ascend=True)[0],
    lambda a: mx.nd.sort(a, axis=0),
    lambda a: mx.nd.sort(a, axis=-1, is_ascend=False),
])
def test_sort_gradient(fn):
    x = np.random.RandomState(2).permutation(12).reshape(3, 4) + np.random.RandomState(3).uniform(0, 0.1, (3, 4))
    check_grad(fn, [x])


def test_index_outputs_have_zero_gradient():
    x = mx.nd.array(np.random.rand(3, 4), dtype="float64")
    x.attach_grad()
    with mx.autograd.record():
        y = (mx.nd.argsort(x, dtype="float64").sum() + mx.nd.topk(x, k=2, dtype="float64").sum()
             + mx.nd.topk(x, k=1, ret_typ="mask").sum())
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), np.zeros((3, 4)))


@pytest.mark.parametrize("name,fn", [
    ("topk", lambda: mx.nd.topk(mx.nd.ones((2, 3)), k=4)),
    ("topk", lambda: mx.nd.topk(mx.nd.ones((2, 3)), axis=2)),
    ("topk", lambda: mx.nd.topk(mx.nd.ones((2, 3)), ret_typ="values")),
    ("sort", lambda: mx.nd.sort(mx.nd.ones((2, 3)), axis=-3)),
    ("argsort", lambda: mx.nd.argsort(mx.nd.ones((2, 3)), axis=5)),
])
def test_bad_input(name, fn):
    with pytest.raises(mx.base.MXNetError, match=name):
        fn()


@pytest.mark.parametrize("sa,sb,ta,tb", [
    ((4,), (4,), False, False), ((2, 3, 4), (4,), False, False), ((3, 4), (4, 2, 3), False, False),
    ((4,), (4, 3), False, False), ((4, 2, 3), (5, 4), True, True), ((3, 4), (2, 5, 4), False, True),
    ((4, 3), (4, 2, 2), True, False),
])
def test_dot_gradient_shapes(sa, sb, ta, tb):
    rs = np.random.RandomState(4)
    a, b = rs.uniform(-1, 1, sa), rs.uniform(-1, 1, sb)
    ref = np.tensordot(np.moveaxis(a, 0, -1) if ta else a, np.moveaxis(b, -1, 0) if tb else b, axes=1)
    out = mx.nd.dot(mx.nd.array(a, dtype="float64"), mx.nd.array(b, dtype="float64"), transpose_a=ta, transpose_b=tb)
    np.testing.assert_allclose(out.asnumpy().reshape(ref.shape), ref, rtol=1e-12)
    check_grad(lambda x, y: mx.nd.dot(x, y, transpose_a=ta, transpose_b=tb), [a, b])
