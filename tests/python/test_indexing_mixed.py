"""Subscripts mixing advanced indices (integer arrays, lists, ints beside them) with slices,
read and assigned with numpy's result layout, and slice assignment that broadcasts the value;
expected values from numpy, gradients from np.add.at."""
import numpy as np
import pytest

import mxnet as mx
from mxnet import autograd, nd

X3 = np.arange(60, dtype=np.float32).reshape(3, 4, 5)

KEYS = [
    (slice(None), [0, 3]),
    ([0, 2], slice(1, 3)),
    (slice(1, None), [0, 3]),
    ([2, 0], slice(None), [1, 4]),            # advanced apart: broadcast dims go first
    (slice(None), [1, 2], [0, 4]),            # advanced adjacent after a slice: stay in place
    (1, slice(None), [0, 2, 4]),              # an int beside an array counts as advanced
    ([[0], [2]], slice(0, 4, 2), [1, 3]),     # 2-D broadcast of the advanced indices
    (slice(None, None, -1), [3, 0]),          # negative step
    (Ellipsis, [0, 4]),
]


@pytest.mark.parametrize("key", KEYS, ids=[str(k) for k in KEYS])
def test_mixed_read_matches_numpy(key):
    np.testing.assert_array_equal(nd.array(X3)[key].asnumpy(), X3[key])


@pytest.mark.parametrize("key", KEYS[:6], ids=[str(k) for k in KEYS[:6]])
def test_mixed_read_gradient_matches_numpy(key):
    x = nd.array(X3)
    x.attach_grad()
    with autograd.record():
        y = (x * 2)[key]
    head = np.random.RandomState(0).uniform(size=X3[key].shape).astype(np.float32)
    y.backward(nd.array(head))
    expected = np.zeros_like(X3)
    np.add.at(expected, key, 2 * head)
    np.testing.assert_allclose(x.grad.asnumpy(), expected, rtol=1e-6)


@pytest.mark.parametrize("key", KEYS[:6], ids=[str(k) for k in KEYS[:6]])
def test_mixed_assignment_matches_numpy(key):
    value = np.full(X3[key].shape, -1, np.float32)
    y = nd.array(X3)
    y[key] = nd.array(value)
    expected = X3.copy()
    expected[key] = value
    np.testing.assert_array_equal(y.asnumpy(), expected)


@pytest.mark.parametrize("value", [np.array([1, 2, 3, 4, 5], np.float32), 7.0, np.array([[9], [8], [7], [6]], np.float32)])
def test_slice_assignment_broadcasts_the_value(value):
    expected = X3.copy()
    expected[:] = value
    y = nd.array(X3)
    y[:] = nd.array(value) if isinstance(value, np.ndarray) else value
    np.testing.assert_array_equal(y.asnumpy(), expected)
    z = nd.array(X3)
    z[:] = value  # numpy value
    np.testing.assert_array_equal(z.asnumpy(), expected)
    m = X3[0].copy()
    col = np.array([10, 20, 30], np.float32)
    w = nd.array(m)
    w[1:, 2] = nd.array(col[:3])
    m[1:, 2] = col[:3]
    np.testing.assert_array_equal(w.asnumpy(), m)
