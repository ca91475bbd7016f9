"""Signs of zeros, which the harness's value comparisons cannot see (-0.0 == 0.0)."""
import numpy as np

import mxnet as mx


def test_abs_of_negative_zero_is_positive_zero():
    for dtype in ("float32", "float64", "float16"):
        got = mx.nd.abs(mx.nd.array([-0.0, 0.0, -1.5], dtype=dtype)).asnumpy()
        np.testing.assert_array_equal(np.signbit(got), [False, False, False], err_msg=dtype)
        np.testing.assert_array_equal(got, [0.0, 0.0, 1.5])


def test_relu_of_negative_zero_is_zero_and_nan_stays_nan():
    got = mx.nd.relu(mx.nd.array([-0.0, np.nan, -2.0, 3.0])).asnumpy()
    assert got[0] == 0.0 and np.isnan(got[1]) and got[2] == 0.0 and got[3] == 3.0
