"""mx.io.NDArrayIter: batches, padding, discarding, rolling over, shuffling, descriptions."""
import numpy as np
import pytest

import mxnet as mx


def _data(n=10):
    return np.arange(n * 2, dtype=np.float32).reshape(n, 2), np.arange(n, dtype=np.float32)


def test_pad_mode_fills_from_the_start():
    x, y = _data()
    it = mx.io.NDArrayIter(x, y, batch_size=4)
    batches = list(it)
    assert len(batches) == 3
    assert [b.pad for b in batches] == [0, 0, 2]
    np.testing.assert_array_equal(batches[2].label[0].asnumpy(), [8, 9, 0, 1])
    assert it.provide_data[0].name == "data" and it.provide_data[0].shape == (4, 2)
    assert it.provide_label[0].name == "softmax_label"
    it.reset()
    assert len(list(it)) == 3


def test_discard_and_roll_over():
    x, y = _data()
    it = mx.io.NDArrayIter(x, y, batch_size=4, last_batch_handle="discard")
    assert len(list(it)) == 2
    it = mx.io.NDArrayIter(x, y, batch_size=4, last_batch_handle="roll_over")
    first = list(it)
    assert len(first) == 2
    it.reset()
    second = list(it)
    np.testing.assert_array_equal(second[0].label[0].asnumpy(), [8, 9, 0, 1])
    assert second[0].pad == 2


def test_shuffle_keeps_pairs_and_dict_inputs():
    x, y = _data(8)
    np.random.seed(0)
    it = mx.io.NDArrayIter({"img": x}, {"lab": y}, batch_size=8, shuffle=True)
    b = next(iter(it))
    xs, ys = b.data[0].asnumpy(), b.label[0].asnumpy()
    np.testing.assert_array_equal(xs[:, 0] / 2, ys)
    assert sorted(ys.tolist()) == list(range(8)) and ys.tolist() != list(range(8))
    assert [d.name for d in it.provide_data] == ["img"]


def test_errors():
    x, y = _data()
    with pytest.raises(ValueError):
        mx.io.NDArrayIter(x, y[:3])
    with pytest.raises(ValueError):
        mx.io.NDArrayIter(x, last_batch_handle="wrap")
