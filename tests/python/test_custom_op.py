"""mx.operator: Python-defined operators through nd.Custom, forward and backward."""
import numpy as np
import pytest

import mxnet as mx
from mxnet import autograd, nd


class _Sigmoid(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        x = in_data[0]
        self.assign(out_data[0], req[0], 1.0 / (1.0 + nd.exp(-x)))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        y = out_data[0]
        self.assign(in_grad[0], req[0], out_grad[0] * y * (1.0 - y))


@mx.operator.register("test_sigmoid")
class _SigmoidProp(mx.operator.CustomOpProp):
    def __init__(self):
        super(_SigmoidProp, self).__init__(need_top_grad=True)

    def create_operator(self, ctx, in_shapes, in_dtypes):
        return _Sigmoid()


class _ScaleAdd(mx.operator.CustomOp):
    def __init__(self, scale):
        self.scale = scale

    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], in_data[0] * self.scale + in_data[1])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], out_grad[0] * self.scale)
        self.assign(in_grad[1], req[1], out_grad[0])


@mx.operator.register("test_scale_add")
class _ScaleAddProp(mx.operator.CustomOpProp):
    def __init__(self, scale):
        super(_ScaleAddProp, self).__init__()
        self.scale = float(scale)  # keyword values arrive as strings

    def list_arguments(self):
        return ["a", "b"]

    def create_operator(self, ctx, in_shapes, in_dtypes):
        return _ScaleAdd(self.scale)


def test_forward_and_backward_match_numpy():
    x = np.random.RandomState(0).randn(3, 4)
    a = nd.array(x)
    a.attach_grad()
    with autograd.record():
        y = nd.Custom(a, op_type="test_sigmoid")
        loss = (y * 2).sum()
    loss.backward()
    s = 1 / (1 + np.exp(-x))
    np.testing.assert_allclose(y.asnumpy(), s, rtol=1e-5)
    np.testing.assert_allclose(a.grad.asnumpy(), 2 * s * (1 - s), rtol=1e-4)


def test_two_inputs_and_string_kwargs():
    a, b = nd.ones((2, 2)), nd.ones((2, 2)) * 3
    a.attach_grad()
    b.attach_grad()
    with autograd.record():
        out = mx.nd.Custom(a, b, op_type="test_scale_add", scale=2.5)
    out.backward()
    np.testing.assert_allclose(out.asnumpy(), np.full((2, 2), 5.5))
    np.testing.assert_allclose(a.grad.asnumpy(), np.full((2, 2), 2.5))
    np.testing.assert_allclose(b.grad.asnumpy(), np.ones((2, 2)))
    assert "test_scale_add" in mx.operator.get_all_registered_operators()


def test_errors_name_the_operator():
    with pytest.raises(ValueError, match="Cannot find custom operator 'nope'"):
        nd.Custom(nd.ones((1,)), op_type="nope")
    with pytest.raises(ValueError, match="takes 2 inputs"):
        nd.Custom(nd.ones((1,)), op_type="test_scale_add", scale=1)
