"""MXNet 1.x's symbolic test helpers in mx.test_utils, checked against numpy."""
import numpy as np
import pytest

import mxnet as mx
from mxnet import test_utils as tu


def _fc_tanh():
    data = mx.sym.var("data")
    fc = mx.sym.FullyConnected(data, num_hidden=3, name="fc")
    return mx.sym.tanh(fc, name="t")


def _inputs(rng):
    return {"data": rng.randn(4, 5), "fc_weight": rng.randn(3, 5) * 0.5,
            "fc_bias": rng.randn(3) * 0.1}


def test_check_symbolic_forward_list_and_dict():
    rng = np.random.RandomState(0)
    loc = _inputs(rng)
    expected = np.tanh(loc["data"].dot(loc["fc_weight"].T) + loc["fc_bias"])
    sym = _fc_tanh()
    outs = tu.check_symbolic_forward(sym, loc, [expected])
    assert outs[0].shape == (4, 3)
    tu.check_symbolic_forward(sym, [loc[n] for n in sym.list_arguments()],
                              {"t_output": expected})
    with pytest.raises(AssertionError):
        tu.check_symbolic_forward(sym, loc, [expected + 1])


def test_check_symbolic_backward_write_add_null():
    rng = np.random.RandomState(1)
    loc = _inputs(rng)
    sym = _fc_tanh()
    y = np.tanh(loc["data"].dot(loc["fc_weight"].T) + loc["fc_bias"])
    head = rng.randn(4, 3)
    dz = head * (1 - y ** 2)
    expected = {"data": dz.dot(loc["fc_weight"]), "fc_weight": dz.T.dot(loc["data"]),
                "fc_bias": dz.sum(axis=0)}
    for req in ("write", "add"):
        grads = tu.check_symbolic_backward(sym, loc, [head], expected, grad_req=req,
                                           rtol=1e-4, atol=1e-4)
        assert sorted(grads) == ["data", "fc_bias", "fc_weight"]
    tu.check_symbolic_backward(sym, loc, [head], {"fc_bias": expected["fc_bias"]},
                               rtol=1e-4, atol=1e-4)
    tu.check_symbolic_backward(sym, loc, [head], expected,
                               grad_req={"data": "null", "fc_weight": "write",
                                         "fc_bias": "write"}, rtol=1e-4, atol=1e-4)
    with pytest.raises(AssertionError):
        wrong = dict(expected, fc_bias=expected["fc_bias"] + 1)
        tu.check_symbolic_backward(sym, loc, [head], wrong)


def test_check_numeric_gradient_on_symbols():
    rng = np.random.RandomState(2)
    loc = _inputs(rng)
    tu.check_numeric_gradient(_fc_tanh(), loc)
    tu.check_numeric_gradient(_fc_tanh(), loc, grad_nodes=["fc_weight"], dtype=np.float32,
                              numeric_eps=1e-2, rtol=5e-2, atol=1e-2)
    a = mx.sym.var("a")
    b = mx.sym.var("b")
    tu.check_numeric_gradient(a * b + mx.sym.exp(a), [rng.rand(3, 2), rng.rand(3, 2)])


def test_check_numeric_gradient_function_form_kept():
    tu.check_numeric_gradient(lambda x: x * x, [np.array([1.0, 2.0, -3.0])])


def test_simple_forward_and_check_consistency():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    data = mx.sym.var("data")
    out = tu.simple_forward(data * 2 + 1, data=x)
    np.testing.assert_allclose(out, x * 2 + 1)
    sym = _fc_tanh()
    ctx_list = [{"ctx": mx.cpu(), "data": (4, 5), "type_dict": {"data": np.float64}},
                {"ctx": mx.cpu(), "data": (4, 5), "type_dict": {"data": np.float32}}]
    gt = tu.check_consistency(sym, ctx_list)
    assert gt["t_output"].dtype == np.float64 and "fc_weight_grad" in gt


def test_misc_helpers():
    tu.assert_exception(lambda: 1 / 0, ZeroDivisionError)
    with pytest.raises(AssertionError):
        tu.assert_exception(lambda: None, ValueError)
    arr = tu.rand_ndarray((3, 4))
    assert arr.shape == (3, 4) and arr.dtype == np.float32
    s = tu.rand_shape_2d(5, 6)
    assert 1 <= s[0] <= 5 and 1 <= s[1] <= 6
    assert len(tu.rand_shape_nd(4)) == 4 and len(tu.rand_shape_3d()) == 3
    assert tu.same(np.ones(3), mx.nd.ones((3,)))
    nan = np.array([1.0, np.nan])
    assert not tu.almost_equal(nan, nan)
    assert tu.almost_equal(nan, nan, equal_nan=True)
    tu.assert_almost_equal(nan, nan, equal_nan=True)
    tu.assert_almost_equal(np.ones((2, 2)), np.ones(1))  # a scalar side broadcasts
    assert tu.get_rtol(None, np.float32) == 1e-4 and tu.get_atol(None, np.float16) == 1e-1
    assert tu.get_rtol(0.5) == 0.5
    saved = tu.default_context()
    tu.set_default_context(mx.cpu(0))
    assert tu.default_context() == mx.cpu(0)
    tu.set_default_context(saved)
    assert tu.np_reduce(np.ones((2, 3, 4)), (0, 2), True, np.sum).shape == (1, 3, 1)
    assert tu.collapse_sum_like(np.ones((2, 3)), (1, 3)).tolist() == [[2, 2, 2]]
    tu.assert_almost_equal_ignore_nan(nan, np.array([1.0, 5.0]))
    assert tu.list_gpus() == list(range(mx.context.num_gpus()))
