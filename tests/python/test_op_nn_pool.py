"""Pooling beyond the table: bad inputs. Its table rows (every pool_type, pooling_convention,
count_include_pad, global_pool, 1-D to 3-D, channel-last) live in op_rows/nn.py and run in
test_op_harness.py."""

import pytest

import mxnet as mx
from op_testing import check_error, plain_path_rerun

from op_rows.nn import pool_ref  # noqa: F401 (rows: op_rows/nn.py; importers use it)


def _pool(xs, **kw):
    return lambda: mx.nd.Pooling(mx.nd.ones(xs), **kw)


@pytest.mark.parametrize("call,needles", [
    (_pool((1, 1, 2, 2), kernel=(3, 3)), ("Pooling", "kernel")),
    (_pool((1, 1, 4, 4), kernel=(2, 2), pad=(-1, 0)), ("Pooling", "pad")),
    (_pool((1, 1, 4, 4), kernel=(2, 2), stride=(0, 1)), ("Pooling", "stride")),
    (_pool((1, 1, 4, 4), kernel=(2, 2), pool_type="lp", p_value=4), ("Pooling", "p_value")),
    (_pool((1, 4, 4), kernel=(2, 2)), ("Pooling",)),
    (_pool((4, 4), kernel=(2,)), ("Pooling", "rank")),
    (_pool((1, 1, 6), kernel=(2,), pad=(1,), pooling_convention="same"), ("Pooling", "pad")),
])
def test_bad_inputs_raise_mxnet_error_naming_op(call, needles):
    check_error(call, *needles)


test_plain_path = plain_path_rerun(__file__)
