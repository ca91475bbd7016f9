"""The C iterators of mx.io (MNISTIter, CSVIter) through MXDataIter, the Python wrappers
PrefetchingIter and ResizeIter, and agreement with MXNet 1.9.1 on the same files when the peer
is installed (benchmark/.peers/mxnet191)."""
import struct
import subprocess
import textwrap

import numpy as np
import pytest

import mxnet as mx
from peer_oracle import PEER_PYTHON, needs_peer, peer_env


def _write_idx(prefix, images, labels):
    img, lab = prefix + "-images-idx3-ubyte", prefix + "-labels-idx1-ubyte"
    with open(img, "wb") as f:
        f.write(struct.pack(">iiii", 2051, images.shape[0], images.shape[1], images.shape[2]))
        f.write(images.astype(np.uint8).tobytes())
    with open(lab, "wb") as f:
        f.write(struct.pack(">ii", 2049, labels.shape[0]))
        f.write(labels.astype(np.uint8).tobytes())
    return img, lab


@pytest.fixture(scope="module")
def mnist(tmp_path_factory):
    """60000 synthetic 28x28 images and labels, as MNIST's training files."""
    rng = np.random.RandomState(7)
    images = rng.randint(0, 256, size=(60000, 28, 28)).astype(np.uint8)
    labels = rng.randint(0, 10, size=60000).astype(np.uint8)
    img, lab = _write_idx(str(tmp_path_factory.mktemp("mnist") / "train"), images, labels)
    return img, lab, images, labels


def _labels(it):
    return np.concatenate([b.label[0].asnumpy() for b in it])


# ---- MNISTIter ----

def test_mnist_600_batches_and_labels_repeat_after_reset(mnist):
    img, lab, _, labels = mnist
    it = mx.io.MNISTIter(image=img, label=lab, batch_size=100, shuffle=True, seed=3, silent=True)
    first = _labels(it)
    assert first.shape == (60000,)
    it.reset()
    second = _labels(it)
    np.testing.assert_array_equal(first, second)
    assert np.bincount(first.astype(np.int64), minlength=10).tolist() == np.bincount(labels, minlength=10).tolist()
    assert not np.array_equal(first, labels)  # shuffled
    it2 = mx.io.MNISTIter(image=img, label=lab, batch_size=100, shuffle=True, seed=3, silent=True)
    np.testing.assert_array_equal(_labels(it2), first)  # the seed fixes the order


def test_mnist_counts_batches_and_drops_the_partial_one(mnist):
    img, lab, _, _ = mnist
    assert sum(1 for _ in mx.io.MNISTIter(image=img, label=lab, batch_size=100, silent=True)) == 600
    assert sum(1 for _ in mx.io.MNISTIter(image=img, label=lab, batch_size=128, silent=True)) == 468


def test_mnist_values_are_pixels_over_256(mnist):
    img, lab, images, labels = mnist
    it = mx.io.MNISTIter(image=img, label=lab, batch_size=100, shuffle=False, flat=True, silent=True)
    assert it.provide_data[0].name == "data" and it.provide_data[0].shape == (100, 784)
    assert it.provide_label[0].name == "softmax_label" and it.provide_label[0].shape == (100,)
    for i, batch in enumerate(it):
        if i == 3:
            break
        rows = slice(100 * i, 100 * (i + 1))
        data = batch.data[0].asnumpy()
        assert data.dtype == np.float32 and data.shape == (100, 784)
        np.testing.assert_array_equal(data, images[rows].reshape(100, 784).astype(np.float32) / 256)
        np.testing.assert_array_equal(batch.label[0].asnumpy(), labels[rows])
        np.testing.assert_array_equal(batch.index, np.arange(100 * i, 100 * (i + 1), dtype=np.uint64))
        assert batch.index.dtype == np.uint64 and batch.pad == 0
    it = mx.io.MNISTIter(image=img, label=lab, batch_size=50, shuffle=False, silent=True)
    assert it.provide_data[0].shape == (50, 1, 28, 28)
    np.testing.assert_array_equal(it.next().data[0].asnumpy()[:, 0], images[:50] / np.float32(256))


def test_mnist_parts_are_contiguous_and_the_last_takes_the_remainder(tmp_path):
    images = np.zeros((250, 2, 2), np.uint8)
    labels = (np.arange(250) % 10).astype(np.uint8)
    img, lab = _write_idx(str(tmp_path / "small"), images, labels)
    firsts, counts = [], []
    for part in range(3):
        it = mx.io.MNISTIter(image=img, label=lab, batch_size=1, shuffle=False, silent=True,
                             num_parts=3, part_index=part)
        idx = np.concatenate([b.index for b in it])
        firsts.append(int(idx[0]))
        counts.append(len(idx))
    assert firsts == [0, 83, 166] and counts == [83, 83, 84]
    with pytest.raises(mx.MXNetError, match="part_index"):
        mx.io.MNISTIter(image=img, label=lab, num_parts=2, part_index=2, silent=True)
    with pytest.raises(mx.MXNetError, match="batch_size 300 is larger than the 250 images"):
        mx.io.MNISTIter(image=img, label=lab, batch_size=300, silent=True)


def test_mnist_bad_files_are_named(tmp_path):
    good_img, good_lab = _write_idx(str(tmp_path / "ok"), np.zeros((4, 2, 2)), np.zeros(4))
    with pytest.raises(mx.MXNetError, match="image file '.*ok-labels-idx1-ubyte' has magic number 2049"):
        mx.io.MNISTIter(image=good_lab, label=good_lab, silent=True)
    short = str(tmp_path / "short")
    with open(good_img, "rb") as f, open(short, "wb") as g:
        g.write(f.read()[:20])
    with pytest.raises(mx.MXNetError, match="image file '.*short' is truncated"):
        mx.io.MNISTIter(image=short, label=good_lab, silent=True)
    with pytest.raises(OSError, match="does not exist"):
        mx.io.MNISTIter(image=str(tmp_path / "missing"), label=good_lab, silent=True)


# ---- CSVIter ----

def _write_csv(path, rows, fmt="%g"):
    np.savetxt(path, np.asarray(rows).reshape(len(rows), -1), delimiter=",", fmt=fmt)
    return str(path)


@pytest.mark.parametrize("dtype,entry", [("int32", 200000001), ("int64", 2147483648), ("float32", 1)])
def test_csv_keeps_integer_dtypes(tmp_path, dtype, entry):
    data = str(tmp_path / "data.csv")
    with open(data, "w") as f:
        for _ in range(100):
            f.write(",".join([str(entry)] * 64) + "\n")
    label = _write_csv(tmp_path / "label.csv", np.zeros(100), fmt="%d")
    it = mx.io.CSVIter(data_csv=data, data_shape=(8, 8), label_csv=label, batch_size=20, dtype=dtype)
    assert it.provide_data[0].dtype == np.dtype(dtype).type
    n = 0
    for batch in it:
        got = batch.data[0].asnumpy()
        assert got.dtype == np.dtype(dtype) and got.shape == (20, 8, 8)
        assert (got == entry).all()
        assert batch.label[0].dtype == np.dtype(dtype).type
        n += 1
    assert n == 5


def test_csv_round_batch_pads_and_ignores_the_following_reset(tmp_path):
    data = _write_csv(tmp_path / "d.csv", np.arange(60).reshape(10, 6))
    label = _write_csv(tmp_path / "l.csv", np.arange(10))
    it = mx.io.CSVIter(data_csv=data, data_shape=(2, 3), label_csv=label, batch_size=4)
    assert it.provide_data[0].shape == (4, 2, 3) and it.provide_label[0].shape == (4,)
    epoch = [(b.label[0].asnumpy().tolist(), b.pad) for b in it]
    assert epoch == [([0, 1, 2, 3], 0), ([4, 5, 6, 7], 0), ([8, 9, 0, 1], 2)]
    it.reset()  # continues after the two wrapped rows
    assert [(b.label[0].asnumpy().tolist(), b.pad) for b in it] == [([2, 3, 4, 5], 0), ([6, 7, 8, 9], 0)]
    it.reset()  # no wrap this time: a real rewind
    batch = it.next()
    assert batch.label[0].asnumpy().tolist() == [0, 1, 2, 3]
    np.testing.assert_array_equal(batch.data[0].asnumpy(), np.arange(24).reshape(4, 2, 3))
    np.testing.assert_array_equal(batch.index, np.arange(4, dtype=np.uint64))


def test_csv_without_round_batch_reports_the_missing_rows(tmp_path):
    data = _write_csv(tmp_path / "d.csv", np.arange(60).reshape(10, 6))
    it = mx.io.CSVIter(data_csv=data, data_shape=(6,), batch_size=4, round_batch=False)
    batches = list(it)
    assert [b.pad for b in batches] == [0, 0, 2]
    last = batches[-1].data[0].asnumpy()
    np.testing.assert_array_equal(last[:2], np.arange(48, 60).reshape(2, 6))
    for b in batches:
        assert (b.label[0].asnumpy() == 0).all()  # label_csv='NULL'
    it.reset()
    assert [b.pad for b in it] == [0, 0, 2]


def test_csv_reads_a_directory_in_name_order(tmp_path):
    folder = tmp_path / "parts"
    folder.mkdir()
    _write_csv(folder / "b.csv", np.arange(6).reshape(2, 3) + 100)
    _write_csv(folder / "a.csv", np.arange(6).reshape(2, 3))
    it = mx.io.CSVIter(data_csv=str(folder), data_shape=(3,), batch_size=2)
    got = [b.data[0].asnumpy()[:, 0].tolist() for b in it]
    assert got == [[0, 3], [100, 103]]


def test_csv_errors_name_the_file_line_and_key(tmp_path):
    data = str(tmp_path / "bad.csv")
    with open(data, "w") as f:
        f.write("1,2,3\n4,5\n")
    with pytest.raises(mx.MXNetError, match=r"bad.csv:2 has 2 values, the shape needs 3"):
        mx.io.CSVIter(data_csv=data, data_shape=(3,), batch_size=2)
    with pytest.raises(ValueError, match="CSVIter: invalid value 'float16' for argument 'dtype'"):
        mx.io.CSVIter(data_csv=data, data_shape=(3,), batch_size=1, dtype="float16")
    with pytest.raises(ValueError, match="CSVIter: .*data_shape"):
        mx.io.CSVIter(data_csv=data, batch_size=1)


# ---- MXDataIter ----

def test_mxdataiter_errors(tmp_path):
    data = _write_csv(tmp_path / "d.csv", np.arange(12).reshape(4, 3))
    with pytest.raises(mx.MXNetError, match="CSVIter: unknown argument 'shufle'.*valid arguments: batch_size"):
        mx.io.CSVIter(data_csv=data, data_shape=(3,), batch_size=2, shufle=True)
    with pytest.raises(ValueError, match="unknown argument"):
        mx.io.CSVIter(data_csv=data, data_shape=(3,), batch_size=2, shufle=True)
    with pytest.raises(mx.MXNetError, match="data_csv '.*missing.csv' does not exist"):
        mx.io.CSVIter(data_csv=str(tmp_path / "missing.csv"), data_shape=(3,), batch_size=2)
    with pytest.raises(TypeError, match="keyword arguments only"):
        mx.io.CSVIter(data, (3,), 2)


def test_mxdataiter_protocol(tmp_path):
    data = _write_csv(tmp_path / "d.csv", np.arange(12).reshape(4, 3))
    it = mx.io.CSVIter(data_csv=data, data_shape=(3,), batch_size=2, data_name="x", label_name="y")
    assert isinstance(it, mx.io.MXDataIter)
    assert [d.name for d in it.provide_data] == ["x"] and [d.name for d in it.provide_label] == ["y"]
    assert it.batch_size == 2
    assert it.iter_next()  # the first batch, read by the constructor
    np.testing.assert_array_equal(it.getdata().asnumpy(), [[0, 1, 2], [3, 4, 5]])
    assert it.getpad() == 0 and it.getindex().tolist() == [0, 1]
    held = it.getdata()
    assert it.iter_next()
    np.testing.assert_array_equal(held.asnumpy(), [[0, 1, 2], [3, 4, 5]])  # batches keep their arrays
    assert not it.iter_next()
    it.reset()
    assert len(list(it)) == 2
    assert "CSVIter" in mx.io.CSVIter.__name__ and "data_csv : string, required" in mx.io.CSVIter.__doc__
    assert "prefetch_buffer" in mx.io.MNISTIter.__doc__


def test_mxdataiter_stops_cleanly_mid_epoch(tmp_path, run_python):
    """Dropping an iterator mid-epoch (prefetch thread busy) and exiting do not hang."""
    data = _write_csv(tmp_path / "d.csv", np.arange(3000).reshape(1000, 3))
    code = textwrap.dedent("""
        import mxnet as mx
        for _ in range(20):
            it = mx.io.CSVIter(data_csv=%r, data_shape=(3,), batch_size=2, prefetch_buffer=1)
            it.next(); it.next()
            del it
        keep = mx.io.CSVIter(data_csv=%r, data_shape=(3,), batch_size=2)
        keep.next()
        print("ok")
    """ % (data, data))
    res = run_python(code)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "ok"


# ---- PrefetchingIter and ResizeIter ----

def test_prefetching_iter_joins_two_iterators():
    x1 = np.arange(20, dtype=np.float32).reshape(10, 2)
    x2 = -np.arange(10, dtype=np.float32).reshape(10, 1)
    it1 = mx.io.NDArrayIter(x1, np.arange(10), batch_size=4)
    it2 = mx.io.NDArrayIter(x2, np.arange(10) * 2, batch_size=4)
    it = mx.io.PrefetchingIter([it1, it2], rename_data=[{"data": "a"}, {"data": "b"}])
    assert [d.name for d in it.provide_data] == ["a", "b"]
    assert [d.shape for d in it.provide_data] == [(4, 2), (4, 1)]
    assert len(it.provide_label) == 2 and it.batch_size == 4
    for epoch in range(2):
        batches = list(it)
        assert len(batches) == 3 and [b.pad for b in batches] == [0, 0, 2]
        for k, b in enumerate(batches):
            rows = [(4 * k + j) % 10 for j in range(4)]
            np.testing.assert_array_equal(b.data[0].asnumpy(), x1[rows])
            np.testing.assert_array_equal(b.data[1].asnumpy(), x2[rows])
            np.testing.assert_array_equal(b.label[1].asnumpy(), np.array(rows) * 2)
        it.reset()


def test_prefetching_iter_over_a_c_iterator_and_errors(tmp_path):
    data = _write_csv(tmp_path / "d.csv", np.arange(30).reshape(10, 3))
    it = mx.io.PrefetchingIter(mx.io.CSVIter(data_csv=data, data_shape=(3,), batch_size=5))
    assert [b.data[0].asnumpy()[0, 0] for b in it] == [0, 15]

    class Broken(mx.io.NDArrayIter):
        def next(self):
            raise IOError("disk gone")
    broken = Broken(np.zeros((4, 1)), batch_size=2)
    with pytest.raises(IOError, match="disk gone"):
        mx.io.PrefetchingIter(broken).next()


def test_prefetching_iter_dropped_while_a_read_is_in_flight_does_not_hang():
    import threading
    import time

    class Slow(mx.io.NDArrayIter):
        def next(self):
            time.sleep(0.02)
            return super(Slow, self).next()

    def rounds():
        for _ in range(20):
            it = mx.io.PrefetchingIter(Slow(np.zeros((40, 1)), batch_size=2))
            it.next()  # the worker is now reading the second batch
            it.__del__()  # what dropping the last reference does

    runner = threading.Thread(target=rounds, daemon=True)
    runner.start()
    runner.join(30)
    assert not runner.is_alive(), "PrefetchingIter teardown hung"


def test_resize_iter():
    base = mx.io.NDArrayIter(np.arange(10, dtype=np.float32).reshape(10, 1), np.arange(10), batch_size=4)
    it = mx.io.ResizeIter(base, 5)
    assert it.provide_data == base.provide_data and it.batch_size == 4
    firsts = [b.data[0].asnumpy()[0, 0] for b in it]
    assert firsts == [0, 4, 8, 0, 4]  # the inner iterator restarts when it runs out
    it.reset()
    assert [b.data[0].asnumpy()[0, 0] for b in it] == [0, 4, 8, 0, 4]
    it = mx.io.ResizeIter(mx.io.NDArrayIter(np.arange(10).reshape(10, 1), batch_size=4), 2,
                          reset_internal=False)
    assert len(list(it)) == 2
    it.reset()
    assert [b.data[0].asnumpy()[0, 0] for b in it] == [8, 0]


# ---- the same files through MXNet 1.9.1 ----

_PEER_SCRIPT = """
import sys, numpy as np, mxnet as mx
kind, out = sys.argv[1], sys.argv[2]
args = eval(sys.argv[3])
it = getattr(mx.io, kind)(**args)
arrays = {}
for epoch in range(2):
    for i, b in enumerate(it):
        arrays["e%d_b%d_data" % (epoch, i)] = b.data[0].asnumpy()
        arrays["e%d_b%d_label" % (epoch, i)] = b.label[0].asnumpy()
        arrays["e%d_b%d_pad" % (epoch, i)] = np.array(b.pad)
    it.reset()
np.savez(out, **arrays)
"""


def _peer_batches(tmp_path, kind, args):
    out = str(tmp_path / ("peer_%s.npz" % kind))
    env = peer_env(drop=("PYTHON", "OMP_"))
    res = subprocess.run([PEER_PYTHON, "-c", _PEER_SCRIPT, kind, out, repr(args)], env=env,
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    return dict(np.load(out))


def _our_batches(kind, args):
    it = getattr(mx.io, kind)(**args)
    arrays = {}
    for epoch in range(2):
        for i, b in enumerate(it):
            arrays["e%d_b%d_data" % (epoch, i)] = b.data[0].asnumpy()
            arrays["e%d_b%d_label" % (epoch, i)] = b.label[0].asnumpy()
            arrays["e%d_b%d_pad" % (epoch, i)] = np.array(b.pad)
        it.reset()
    return arrays


def _compare(ours, theirs, stale_pad=False):
    """Same batches; with stale_pad the padded rows are not compared (MXNet leaves the previous
    batch's rows there, we zero them)."""
    assert sorted(ours) == sorted(theirs)
    for k in sorted(theirs):
        a, b = ours[k], theirs[k]
        assert a.shape == b.shape and a.dtype == b.dtype, k
        if k.endswith("_pad"):
            assert int(a) == int(b), k
            continue
        n = a.shape[0] - int(theirs[k.rsplit("_", 1)[0] + "_pad"]) if stale_pad else a.shape[0]
        np.testing.assert_allclose(a[:n], b[:n], rtol=1e-6, err_msg=k)


@needs_peer
@pytest.mark.parametrize("round_batch", [True, False])
def test_csv_matches_mxnet191(tmp_path, round_batch):
    rng = np.random.RandomState(0)
    data = _write_csv(tmp_path / "d.csv", rng.uniform(-5, 5, size=(23, 6)), fmt="%.7g")
    label = _write_csv(tmp_path / "l.csv", rng.randint(0, 4, size=(23, 2)), fmt="%d")
    args = dict(data_csv=data, data_shape=(2, 3), label_csv=label, label_shape=(2,), batch_size=5,
                round_batch=round_batch)
    _compare(_our_batches("CSVIter", args), _peer_batches(tmp_path, "CSVIter", args),
             stale_pad=not round_batch)


@needs_peer
@pytest.mark.parametrize("flat", [False, True])
def test_mnist_matches_mxnet191(mnist, tmp_path, flat):
    img, lab, _, _ = mnist
    args = dict(image=img, label=lab, batch_size=1000, shuffle=False, flat=flat, silent=True)
    _compare(_our_batches("MNISTIter", args), _peer_batches(tmp_path, "MNISTIter", args))
