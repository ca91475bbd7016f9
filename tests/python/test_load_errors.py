"""Exception types scripts catch as 1.x raised them: loading parameters that do not fit a block
raises an error that is both a ValueError and an AssertionError (1.x's type), and the autograd
error keeps 1.x's hint about record() and retain_graph."""
import pytest

import mxnet as mx
from mxnet import autograd, gluon, nd


def _saved_dense(tmp_path):
    net = gluon.nn.Dense(3, in_units=2)
    net.initialize()
    path = str(tmp_path / "dense.params")
    net.save_parameters(path)
    return path


def test_shape_mismatch_is_an_assertion_error(tmp_path):
    path = _saved_dense(tmp_path)
    other = gluon.nn.Dense(4, in_units=2)
    with pytest.raises(AssertionError) as info:
        other.load_parameters(path)
    assert isinstance(info.value, ValueError)
    assert "shape incompatible" in str(info.value)


def test_missing_and_extra_parameters_are_assertion_errors(tmp_path):
    path = _saved_dense(tmp_path)
    bigger = gluon.nn.HybridSequential()
    bigger.add(gluon.nn.Dense(3, in_units=2), gluon.nn.Dense(3, in_units=3))
    with pytest.raises(AssertionError):
        bigger.load_parameters(path)
    params = gluon.nn.Dense(3, in_units=2).collect_params()
    with pytest.raises(AssertionError):
        params.load(path, restore_prefix="nothing_")


def test_backward_outside_record_keeps_the_1x_hint():
    x = nd.ones((2,))
    x.attach_grad()
    y = x * 2
    with pytest.raises(mx.base.MXNetError) as info:
        y.backward()
    msg = str(info.value)
    assert "autograd.record()" in msg and "retain_graph=True" in msg
