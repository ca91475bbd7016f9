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


@pytest.mark.parametrize("mode,batches,label0", [("pad", 8, 124), ("discard", 7, 100), ("roll_over", 7, 100)])
def test_last_batch_modes_on_1000_samples(mode, batches, label0):
    x = np.repeat((np.arange(1000) // 100).astype(np.float32)[:, None], 2, axis=1)
    y = (np.arange(1000) // 100).astype(np.float32)
    it = mx.io.NDArrayIter(x, y, batch_size=128, last_batch_handle=mode)
    got = list(it)
    assert len(got) == batches
    labels = np.concatenate([b.label[0].asnumpy() for b in got])
    for b in got:
        np.testing.assert_array_equal(b.data[0].asnumpy()[:, 0], b.label[0].asnumpy())
    assert int((labels == 0).sum()) == label0
    if mode == "roll_over":
        it.reset()
        first = next(iter(it))
        # the 104 samples left over start the next epoch, completed from its start
        np.testing.assert_array_equal(first.label[0].asnumpy()[:104], y[896:])
        np.testing.assert_array_equal(first.label[0].asnumpy()[104:], y[:24])


def test_data_desc_helpers_and_batch_str():
    assert mx.io.DataDesc.get_batch_axis("NCHW") == 0
    assert mx.io.DataDesc.get_batch_axis("TNC") == 1
    assert mx.io.DataDesc.get_batch_axis(None) == 0
    descs = mx.io.DataDesc.get_list([("data", (2, 3)), ("x", (4,))], [("data", np.int32), ("x", np.float16)])
    assert [(d.name, d.shape, d.dtype) for d in descs] == [("data", (2, 3), np.int32), ("x", (4,), np.float16)]
    assert [d.dtype for d in mx.io.DataDesc.get_list([("a", (1,))], None)] == [np.float32]
    d = mx.io.DataDesc("data", (4, 3), layout="NC")
    assert d == ("data", (4, 3)) and d.layout == "NC"
    batch = mx.io.DataBatch([mx.nd.zeros((2, 3))], [mx.nd.zeros((2,))], pad=1)
    assert str(batch) == "DataBatch: data shapes: [(2, 3)] label shapes: [(2,)]"
    assert str(mx.io.DataBatch([mx.nd.zeros((2, 3))])) == "DataBatch: data shapes: [(2, 3)] label shapes: None"
    with pytest.raises(TypeError):
        mx.io.DataBatch(mx.nd.zeros((2, 3)))


def test_layout_reaches_the_descriptions():
    x, y = _data()
    it = mx.io.NDArrayIter(x, y, batch_size=4, layout="NC")
    assert it.provide_data[0].layout == "NC" and it.provide_label[0].layout == "NC"
    with pytest.raises(ValueError):
        mx.io.NDArrayIter(x, y, batch_size=4, layout="TNC")
