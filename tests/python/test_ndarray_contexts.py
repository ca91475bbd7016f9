"""Arrays on different CPU contexts (cpu(0), cpu(1), ...), as multi-device Trainer code uses
them: they are all host memory, so 1.x lets them meet in one op (which runs on the first
input's context), be copied into each other, and be assigned to each other; copies between
contexts are recorded by autograd. A GPU array still needs arrays on its own device."""
import numpy as np
import pytest

import mxnet as mx
from mxnet import autograd, gluon, nd


def test_arithmetic_between_cpu_contexts_runs_on_the_first_inputs():
    a = nd.array(np.arange(6).reshape(2, 3), ctx=mx.cpu(0))
    b = nd.array(np.full((2, 3), 2.0), ctx=mx.cpu(1))
    c = a + b
    assert c.context == mx.cpu(0)
    np.testing.assert_array_equal(c.asnumpy(), np.arange(6).reshape(2, 3) + 2.0)
    d = b * a
    assert d.context == mx.cpu(1)
    np.testing.assert_array_equal(d.asnumpy(), np.arange(6).reshape(2, 3) * 2.0)


def test_copyto_and_assignment_across_cpu_contexts():
    a = nd.array(np.arange(6).reshape(2, 3), ctx=mx.cpu(0))
    out = nd.zeros((2, 3), ctx=mx.cpu(1))
    a.copyto(out)
    np.testing.assert_array_equal(out.asnumpy(), a.asnumpy())
    b = nd.zeros((2, 3), ctx=mx.cpu(2))
    b[:] = a
    assert b.context == mx.cpu(2)
    np.testing.assert_array_equal(b.asnumpy(), a.asnumpy())
    b[1] = nd.array([7, 8, 9], ctx=mx.cpu(0))
    np.testing.assert_array_equal(b.asnumpy(), [[0, 1, 2], [7, 8, 9]])
    moved = a.as_in_context(mx.cpu(3))
    assert moved.context == mx.cpu(3)
    np.testing.assert_array_equal(moved.asnumpy(), a.asnumpy())


def test_copy_to_another_context_is_recorded_by_autograd():
    x = nd.array([1.0, 2.0], ctx=mx.cpu(0))
    x.attach_grad()
    with autograd.record():
        y = x.copyto(mx.cpu(1)) * 3
    y.backward()
    assert y.context == mx.cpu(1) and x.grad.context == mx.cpu(0)
    np.testing.assert_array_equal(x.grad.asnumpy(), [3.0, 3.0])


def test_parameter_set_data_on_several_contexts():
    p = gluon.Parameter("w", shape=(2, 2))
    p.initialize(ctx=[mx.cpu(0), mx.cpu(1)])
    p.set_data(nd.array([[1, 2], [3, 4]], ctx=mx.cpu(0)))
    for ctx in (mx.cpu(0), mx.cpu(1)):
        assert p.data(ctx).context == ctx
        np.testing.assert_array_equal(p.data(ctx).asnumpy(), [[1, 2], [3, 4]])


@pytest.mark.skipif(mx.context.num_gpus() > 0, reason="checks the refusal on a machine without GPUs")
def test_a_gpu_context_is_still_refused_clearly():
    with pytest.raises(mx.base.MXNetError):
        nd.zeros((2,), ctx=mx.gpu(0)).asnumpy()
