"""Initializers: distributions and scales, name-based defaults, registry, Mixed."""
import numpy as np
import pytest

import mxnet as mx
from mxnet import nd


def _fill(init, shape, name="fc_weight"):
    arr = nd.zeros(shape)
    init(mx.init.InitDesc(name), arr)
    return arr.asnumpy()


def test_uniform_normal_constant():
    mx.random.seed(0)
    u = _fill(mx.init.Uniform(0.5), (200, 100))
    assert u.min() >= -0.5 and u.max() <= 0.5 and abs(u.mean()) < 0.02
    n = _fill(mx.init.Normal(2.0), (200, 100))
    assert abs(n.std() - 2.0) < 0.05
    np.testing.assert_array_equal(_fill(mx.init.Constant(3), (2, 2)), np.full((2, 2), 3))
    np.testing.assert_array_equal(_fill(mx.init.One(), (2,)), np.ones(2))


def test_xavier_and_msra_scales():
    shape = (64, 32, 3, 3)
    fan_in, fan_out = 32 * 9, 64 * 9
    mx.random.seed(1)
    x = _fill(mx.init.Xavier(magnitude=3), shape)
    bound = np.sqrt(3.0 / ((fan_in + fan_out) / 2))
    assert x.max() <= bound and x.min() >= -bound and x.max() > 0.9 * bound
    g = _fill(mx.init.Xavier(rnd_type="gaussian", factor_type="in", magnitude=2), shape)
    assert abs(g.std() - np.sqrt(2.0 / fan_in)) < 0.05 * np.sqrt(2.0 / fan_in)
    m = _fill(mx.init.MSRAPrelu(factor_type="in", slope=0.0), shape)
    assert abs(m.std() - np.sqrt(2.0 / fan_in)) < 0.05 * np.sqrt(2.0 / fan_in)
    with pytest.raises(ValueError, match="2D"):
        _fill(mx.init.Xavier(), (5,))


def test_orthogonal():
    q = _fill(mx.init.Orthogonal(scale=1.0), (6, 6))
    np.testing.assert_allclose(q @ q.T, np.eye(6), atol=1e-5)


def test_name_based_defaults_and_explicit_init():
    init = mx.init.Uniform(0.1)
    np.testing.assert_array_equal(_fill(init, (3,), "fc_bias"), np.zeros(3))
    np.testing.assert_array_equal(_fill(init, (3,), "bn_gamma"), np.ones(3))
    np.testing.assert_array_equal(_fill(init, (3,), "bn_moving_var"), np.ones(3))
    arr = nd.zeros((2,))
    init(mx.init.InitDesc("fc_bias", {"__init__": "ones"}), arr)
    np.testing.assert_array_equal(arr.asnumpy(), np.ones(2))
    with pytest.raises(ValueError, match="Unknown initialization pattern"):
        _fill(init, (2,), "mystery")


def test_registry_dumps_and_mixed():
    assert isinstance(mx.init.create("xavier"), mx.init.Xavier)
    assert isinstance(mx.init.create("zeros"), mx.init.Zero)
    x = mx.init.Xavier(rnd_type="gaussian", magnitude=2)
    assert mx.init.create(x.dumps()) == x
    with pytest.raises(ValueError, match="Unknown initializer"):
        mx.init.create("bogus")
    mixed = mx.init.Mixed([".*conv.*", ".*"], [mx.init.Constant(2), mx.init.One()])
    arr = nd.zeros((2,))
    mixed("conv0_weight", arr)
    np.testing.assert_array_equal(arr.asnumpy(), [2, 2])
    mixed("fc_weight", arr)
    np.testing.assert_array_equal(arr.asnumpy(), [1, 1])
