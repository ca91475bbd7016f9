"""1.x's samplers with scalar parameters draw one value, shape (1,), when given neither a shape
nor an out (as 1.x's own docstrings show); with a shape or an out they follow it."""
import numpy as np
import pytest

import mxnet as mx
from mxnet import nd


@pytest.mark.parametrize("draw", [lambda: nd.random.uniform(0, 1), lambda: nd.random.normal(),
                                  lambda: nd.random.randint(0, 5), lambda: nd.random.exponential(),
                                  lambda: nd.random.gamma(), lambda: nd.random.poisson()])
def test_scalar_samplers_default_to_one_value(draw):
    assert draw().shape == (1,)


def test_shape_and_out_still_decide():
    assert nd.random.uniform(0, 1, shape=(2, 3)).shape == (2, 3)
    out = nd.zeros((4,))
    nd.random.uniform(2, 3, out=out)
    v = out.asnumpy()
    assert ((v >= 2) & (v < 3)).all()
    # NDArray parameters draw one value per element
    assert nd.random.uniform(nd.zeros((3,)), nd.ones((3,))).shape == (3,)


def test_rint_rounds_a_half_down_like_1x():
    x = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 1.4, -1.6], dtype=np.float32)
    expected = np.where(x - np.floor(x) <= 0.5, np.floor(x), np.floor(x) + 1)
    np.testing.assert_array_equal(nd.rint(nd.array(x)).asnumpy(), expected)
    np.testing.assert_array_equal(expected[:6], [-3, -2, -1, 0, 1, 2])
