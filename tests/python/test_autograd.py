"""mx.autograd semantics with the registry's own ops (elemwise_add, _copy)."""
import numpy as np
import pytest

import mxnet as mx
from mxnet import autograd
from mxnet.test_utils import assert_almost_equal, check_numeric_gradient


def test_flags():
    assert not autograd.is_recording()
    with autograd.record():
        assert autograd.is_recording() and autograd.is_training()
        with autograd.pause():
            assert not autograd.is_recording() and not autograd.is_training()
        with autograd.predict_mode():
            assert not autograd.is_training()
    assert not autograd.is_recording()
    assert autograd.set_recording(True) is False
    assert autograd.set_recording(False) is True
    with autograd.train_mode():
        assert autograd.is_training()


def _f(x):
    y = mx.nd.elemwise_add(x, x)
    return mx.nd.elemwise_add(y, x)  # 3x


def test_backward_write_and_add():
    x = mx.nd.array([1.0, 2.0, 3.0])
    x.attach_grad()
    for _ in range(2):
        with autograd.record():
            z = _f(x)
        z.backward()
    assert_almost_equal(x.grad, np.full(3, 3.0))  # write overwrites
    x.attach_grad(grad_req="add")
    for _ in range(2):
        with autograd.record():
            z = _f(x)
        z.backward()
    assert_almost_equal(x.grad, np.full(3, 6.0))  # add accumulates


def test_grad_req_null():
    x = mx.nd.array([1.0, 2.0])
    w = mx.nd.array([1.0, 1.0])
    x.attach_grad(grad_req="null")
    w.attach_grad()
    with autograd.record():
        z = mx.nd.elemwise_add(x, w)
    z.backward()
    assert_almost_equal(x.grad, np.zeros(2))
    assert_almost_equal(w.grad, np.ones(2))


def test_head_grads():
    x = mx.nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        z = _f(x)
    z.backward(mx.nd.array([0.5, 2.0]))
    assert_almost_equal(x.grad, np.array([1.5, 6.0]))


def test_retain_graph():
    x = mx.nd.array([1.0])
    x.attach_grad()
    with autograd.record():
        z = _f(x)
    z.backward(retain_graph=True)
    z.backward()
    assert_almost_equal(x.grad, np.array([3.0]))
    with pytest.raises(mx.MXNetError, match="retain_graph"):
        z.backward()


def test_backward_outside_graph_raises():
    with pytest.raises(mx.MXNetError, match="not in a computational graph"):
        mx.nd.ones((2,)).backward()


def test_grad_returns_new_arrays():
    x = mx.nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        z = _f(x)
    g = autograd.grad(z, [x])[0]
    assert_almost_equal(g, np.full(2, 3.0))
    assert_almost_equal(x.grad, np.zeros(2))  # untouched


def test_grad_create_graph_records_gradient():
    x = mx.nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        z = _f(x)
        g = autograd.grad(z, [x], create_graph=True)[0]
        h = mx.nd.elemwise_add(g, x)
    h.backward()
    # d/dx (3 + x) = 1: the gradient's own graph (constant) contributes nothing
    assert_almost_equal(x.grad, np.ones(2))


def test_identity_gradient_and_numeric():
    check_numeric_gradient(lambda a, b: mx.nd.elemwise_add(mx.nd.identity(a), b),
                           [np.random.uniform(size=(2, 3)), np.random.uniform(size=(2, 3))])


def test_mark_variables():
    x = mx.nd.array([1.0, 2.0])
    gx = mx.nd.zeros((2,))
    autograd.mark_variables([x], [gx])
    with autograd.record():
        z = _f(x)
    autograd.backward([z])
    assert_almost_equal(gx, np.full(2, 3.0))
    with pytest.raises(ValueError):
        autograd.mark_variables([x], [gx], grad_reqs="bogus")


def test_fresh_grad_flag():
    x = mx.nd.array([1.0])
    x.attach_grad()
    assert not x._fresh_grad
    with autograd.record():
        z = _f(x)
    z.backward()
    assert x._fresh_grad
    x._fresh_grad = False
    assert not x._fresh_grad


class _Scale(autograd.Function):
    """y = 2x with a deliberately different backward (dx = 10 dy) to see it is used."""

    def forward(self, x):
        return mx.nd.elemwise_add(x, x)

    def backward(self, dy):
        out = dy
        for _ in range(9):
            out = mx.nd.elemwise_add(out, dy)
        return out


def test_custom_function():
    x = mx.nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        y = _Scale()(x)
        z = mx.nd.elemwise_add(y, x)
    assert_almost_equal(y, np.array([2.0, 4.0]))
    z.backward()
    assert_almost_equal(x.grad, np.full(2, 11.0))


def test_views_made_while_recording_carry_gradients():
    x = mx.nd.array(np.arange(12, dtype=np.float32).reshape(3, 4))
    x.attach_grad()
    with mx.autograd.record():
        y = x.reshape((2, 6)) * 3          # view through MXNDArrayReshape64
        z = x[1:3] * x[1:3]                # rows 1..2: a view through MXNDArraySlice64
        loss = y.sum() + z.sum()
    loss.backward()
    expected = np.full((3, 4), 3.0, np.float32)
    expected[1:3] += 2 * np.arange(12, dtype=np.float32).reshape(3, 4)[1:3]
    np.testing.assert_allclose(x.grad.asnumpy(), expected)


def test_views_made_outside_recording_stay_off_the_tape():
    x = mx.nd.ones((2, 3))
    v = x.reshape((3, 2))
    assert v.shape == (3, 2)
    v[:] = 5
    assert x.asnumpy().sum() == 30  # still a view sharing memory


_CHAIN_MEMORY = r"""
import numpy as np, mxnet as mx
from mxnet import autograd
n, depth = 1 << 20, 16  # 4 MB per activation and per gradient
x = mx.nd.array(np.linspace(-1, 1, n, dtype=np.float32))
x.attach_grad()
with autograd.record():
    h = x
    for _ in range(depth):
        h = mx.nd.sin(h)
    loss = h.sum()
mx.nd.waitall()
before = mx.runtime.storage_stats()["bytes_in_use"]
loss.backward()
mx.nd.waitall()
print("EXTRA_MB", (mx.runtime.storage_stats()["peak_bytes_in_use"] - before) / 2.0 ** 20)
want, a = np.ones(n), np.linspace(-1, 1, n, dtype=np.float32).astype(np.float64)
for _ in range(depth):
    want, a = want * np.cos(a), np.sin(a)
print("MAXERR", float(np.abs(x.grad.asnumpy() - want).max()))
"""


def test_backward_releases_gradients_and_saved_outputs_as_it_goes(run_python):
    # A chain of 16 recorded ops: each intermediate gradient is read once, and each saved output
    # only by the gradients of its own op and its user. Kept to the end, the 16 gradients alone
    # would add 64 MB over the recorded state; released as the walk passes, a few buffers do.
    res = run_python(_CHAIN_MEMORY)
    assert res.returncode == 0, res.stderr[-2000:]
    extra = float(res.stdout.split("EXTRA_MB")[1].split()[0])
    assert extra <= 6 * 4, res.stdout
    assert float(res.stdout.split("MAXERR")[1].split()[0]) < 1e-5, res.stdout
