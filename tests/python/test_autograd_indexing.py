"""Integer and axis-0 slice indices inside autograd.record() are recorded (outside it they
stay zero-copy views), so gradients flow to the rows read, as in 1.x's crash course:
c = (a * 2)[0]; c.backward() gives a.grad = [2, 0]."""
import numpy as np

import mxnet as mx
from mxnet import autograd, nd


def test_integer_index_is_recorded():
    a = nd.array([1.0, 2.0])
    a.attach_grad()
    with autograd.record():
        c = (a * 2)[0]
    c.backward()
    assert c.shape == (1,)
    np.testing.assert_array_equal(a.grad.asnumpy(), [2.0, 0.0])


def test_row_and_slice_of_a_matrix_are_recorded():
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    b = nd.array(x)
    b.attach_grad()
    with autograd.record():
        row = (b * b)[2]
    row.backward()
    expected = np.zeros_like(x)
    expected[2] = 2 * x[2]  # d(x^2)/dx on the row read
    np.testing.assert_array_equal(b.grad.asnumpy(), expected)
    with autograd.record():
        part = (b * 3)[1:3]
    part.backward()
    expected = np.zeros_like(x)
    expected[1:3] = 3
    assert part.shape == (2, 2)
    np.testing.assert_array_equal(b.grad.asnumpy(), expected)


def test_negative_index_and_views_outside_recording():
    b = nd.array(np.arange(6, dtype=np.float32).reshape(3, 2))
    b.attach_grad()
    with autograd.record():
        last = (b + 1)[-1]
    last.backward()
    np.testing.assert_array_equal(b.grad.asnumpy(), [[0, 0], [0, 0], [1, 1]])
    view = b[1]
    view[:] = 9  # outside recording an int index is still a view of b
    np.testing.assert_array_equal(b.asnumpy()[1], [9, 9])


def test_grad_of_one_variable_is_a_list():
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        y = (x * x).sum()
    g = autograd.grad(y, x)
    assert isinstance(g, list) and len(g) == 1
    np.testing.assert_array_equal(g[0].asnumpy(), [2.0, 4.0])
