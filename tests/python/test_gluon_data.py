"""gluon.data: datasets, samplers, DataLoader (with workers), idx datasets, transforms."""
import gzip
import os
import struct

import numpy as np
import pytest

import mxnet as mx
from mxnet import gluon, nd
from mxnet.gluon.data import vision
from mxnet.gluon.data.vision import transforms


def test_samplers():
    assert list(gluon.data.SequentialSampler(4, start=2)) == [2, 3, 4, 5]
    np.random.seed(0)
    perm = list(gluon.data.RandomSampler(10))
    np.random.seed(0)
    ref = np.arange(10)
    np.random.shuffle(ref)
    assert perm == ref.tolist()
    assert list(gluon.data.IntervalSampler(7, 3)) == [0, 3, 6, 1, 4, 2, 5]
    assert list(gluon.data.IntervalSampler(7, 3, rollover=False)) == [0, 3, 6]


@pytest.mark.parametrize("mode,expected,length", [
    ("keep", [[0, 1, 2], [3, 4, 5], [6]], 3),
    ("discard", [[0, 1, 2], [3, 4, 5]], 2),
])
def test_batch_sampler_modes(mode, expected, length):
    bs = gluon.data.BatchSampler(gluon.data.SequentialSampler(7), 3, mode)
    assert list(bs) == expected and len(bs) == length


def test_batch_sampler_rollover():
    bs = gluon.data.BatchSampler(gluon.data.SequentialSampler(7), 3, "rollover")
    assert list(bs) == [[0, 1, 2], [3, 4, 5]]
    assert len(bs) == 2  # (1 carried + 7) // 3
    with pytest.raises(ValueError):
        gluon.data.BatchSampler(gluon.data.SequentialSampler(7), 3, "sometimes")


def test_batch_sampler_rollover_second_pass():
    bs = gluon.data.BatchSampler(gluon.data.SequentialSampler(7), 3, "rollover")
    first = list(bs)
    second = list(bs)
    assert first == [[0, 1, 2], [3, 4, 5]]
    assert second == [[6, 0, 1], [2, 3, 4]]  # 5, 6 roll over again


def test_array_and_simple_dataset_and_transforms():
    x = np.arange(12).reshape(6, 2)
    y = np.arange(6)
    ds = gluon.data.ArrayDataset(x, y)
    assert len(ds) == 6 and ds[2][1] == 2 and ds[2][0].tolist() == [4, 5]
    doubled = ds.transform_first(lambda a: a * 2)
    assert doubled[1][0].tolist() == [4, 6] and doubled[1][1] == 1
    assert len(ds.take(4)) == 4 and ds.shard(4, 1)[0][1] == 2
    evens = ds.filter(lambda item: item[1] % 2 == 0)
    assert [item[1] for item in evens] == [0, 2, 4]
    with pytest.raises(ValueError, match="same length"):
        gluon.data.ArrayDataset(x, y[:3])
    simple = gluon.data.SimpleDataset([1, 2, 3]).transform(lambda v: v + 1, lazy=False)
    assert [simple[i] for i in range(3)] == [2, 3, 4]


def _batches(loader):
    out = []
    for batch in loader:
        out.append([b.asnumpy() for b in batch] if isinstance(batch, list) else [batch.asnumpy()])
    return out


def test_dataloader_batches_and_last_batch_modes():
    x = np.arange(20, dtype=np.float32).reshape(10, 2)
    y = np.arange(10, dtype=np.int32)
    ds = gluon.data.ArrayDataset(x, y)
    keep = _batches(gluon.data.DataLoader(ds, batch_size=4))
    assert [b[0].shape[0] for b in keep] == [4, 4, 2]
    np.testing.assert_array_equal(keep[1][0], x[4:8])
    assert keep[0][1].dtype == np.int32
    discard = gluon.data.DataLoader(ds, batch_size=4, last_batch="discard")
    assert len(discard) == 2 and len(_batches(discard)) == 2
    roll = gluon.data.DataLoader(ds, batch_size=4, last_batch="rollover")
    assert len(_batches(roll)) == 2
    second = _batches(roll)
    np.testing.assert_array_equal(second[0][1], [8, 9, 0, 1])


def test_dataloader_shuffle_is_seeded():
    ds = gluon.data.ArrayDataset(np.arange(16, dtype=np.float32))
    np.random.seed(3)
    a = np.concatenate([b[0] for b in _batches(gluon.data.DataLoader(ds, 5, shuffle=True))])
    np.random.seed(3)
    b = np.concatenate([b[0] for b in _batches(gluon.data.DataLoader(ds, 5, shuffle=True))])
    np.testing.assert_array_equal(a, b)
    assert sorted(a.tolist()) == list(range(16)) and a.tolist() != list(range(16))
    with pytest.raises(ValueError):
        gluon.data.DataLoader(ds, 5, shuffle=True, sampler=gluon.data.SequentialSampler(16))
    with pytest.raises(ValueError):
        gluon.data.DataLoader(ds)


def test_dataloader_batchify_fn_and_nd_samples():
    ds = gluon.data.SimpleDataset([nd.ones((2,)) * i for i in range(5)])
    batches = _batches(gluon.data.DataLoader(ds, batch_size=2))
    np.testing.assert_array_equal(batches[0][0], [[0, 0], [1, 1]])
    summed = gluon.data.DataLoader(ds, batch_size=5, batchify_fn=lambda items: sum(i.sum() for i in items))
    assert float(next(iter(summed)).asscalar()) == 2 * (0 + 1 + 2 + 3 + 4)


@pytest.mark.parametrize("thread_pool", [False, True])
def test_workers_give_the_same_batches(thread_pool):
    rs = np.random.RandomState(0)
    x = rs.rand(37, 3, 4).astype(np.float32)
    y = rs.randint(0, 5, 37).astype(np.int32)
    ds = gluon.data.ArrayDataset(x, y).transform_first(lambda a: a * 2)
    ref = _batches(gluon.data.DataLoader(ds, batch_size=8))
    loader = gluon.data.DataLoader(ds, batch_size=8, num_workers=3, thread_pool=thread_pool)
    for _ in range(2):  # the pool is reused across epochs
        got = _batches(loader)
        assert len(got) == len(ref)
        for g, r in zip(got, ref):
            np.testing.assert_array_equal(g[0], r[0])
            np.testing.assert_array_equal(g[1], r[1])
            assert g[1].dtype == r[1].dtype


class _FailingDataset(gluon.data.Dataset):
    """Samples 0..n-1 as float arrays; index `bad` raises, index `slow` sleeps."""

    def __init__(self, n, bad=None, slow=None):
        self._n, self._bad, self._slow = n, bad, slow

    def __len__(self):
        return self._n

    def __getitem__(self, idx):
        if idx == self._bad:
            raise ValueError("bad sample %d" % idx)
        if idx == self._slow:
            import time
            time.sleep(1)
        return np.full((2,), idx, dtype=np.float32)


def test_worker_error_reaches_the_caller_with_its_type():
    loader = gluon.data.DataLoader(_FailingDataset(12, bad=9), batch_size=4, num_workers=2)
    it = iter(loader)
    np.testing.assert_array_equal(next(it)[:, 0].asnumpy(), [0, 1, 2, 3])
    np.testing.assert_array_equal(next(it)[:, 0].asnumpy(), [4, 5, 6, 7])
    with pytest.raises(ValueError, match="bad sample 9"):
        next(it)


def test_worker_timeout_is_an_error_and_the_loader_recovers():
    loader = gluon.data.DataLoader(_FailingDataset(8, slow=0), batch_size=4, num_workers=2,
                                   timeout=0.2)
    with pytest.raises(RuntimeError, match="timed out"):
        list(loader)
    # Given time, the next pass works; the late batch of the failed pass is dropped, not
    # handed to it.
    loader._timeout = 30
    got = [b[:, 0].asnumpy().tolist() for b in loader]
    assert got == [[0, 1, 2, 3], [4, 5, 6, 7]]


def test_workers_with_abandoned_and_interleaved_iterators():
    ds = gluon.data.SimpleDataset([np.full((3,), i, dtype=np.int32) for i in range(40)])
    loader = gluon.data.DataLoader(ds, batch_size=5, num_workers=2, prefetch=4)
    want = [list(range(i, i + 5)) for i in range(0, 40, 5)]
    it = iter(loader)
    next(it)
    del it  # stopped early: its batches in flight must not leak into later passes
    first, second = iter(loader), iter(loader)
    got_first, got_second = [], []
    for a, b in zip(first, second):
        got_first.append(a[:, 0].asnumpy().tolist())
        got_second.append(b[:, 0].asnumpy().tolist())
    assert got_first == want and got_second == want
    assert [b[:, 0].asnumpy().tolist() for b in loader] == want


def test_worker_processes_add_no_threads_here():
    import threading
    before = threading.active_count()
    ds = gluon.data.ArrayDataset(np.arange(32, dtype=np.float32).reshape(16, 2),
                                 np.arange(16, dtype=np.int32))
    loader = gluon.data.DataLoader(ds, batch_size=4, num_workers=2)
    batches = list(loader)
    assert threading.active_count() == before
    np.testing.assert_array_equal(batches[3][1].asnumpy(), [12, 13, 14, 15])
    assert batches[3][1].dtype == np.int32
    procs = list(loader._pool._procs)
    del loader, batches
    import gc
    gc.collect()
    assert not any(p.is_alive() for p in procs)


def test_unpicklable_batch_is_reported():
    loader = gluon.data.DataLoader(gluon.data.SimpleDataset(list(range(4))), batch_size=2,
                                   num_workers=1, batchify_fn=lambda items: (lambda: items))
    with pytest.raises(RuntimeError, match="DataLoader worker failed"):
        next(iter(loader))


def test_pin_memory_accepted():
    ds = gluon.data.ArrayDataset(np.ones((4, 2), dtype=np.float32))
    batch = next(iter(gluon.data.DataLoader(ds, batch_size=4, pin_memory=True)))
    assert batch.context == mx.cpu_pinned(0)
    np.testing.assert_array_equal(batch.asnumpy(), np.ones((4, 2)))


def _write_idx(path, array, code):
    header = struct.pack(">BBBB", 0, 0, code, array.ndim) + struct.pack(">" + "I" * array.ndim, *array.shape)
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "wb") as f:
        f.write(header + array.astype(array.dtype.newbyteorder(">")).tobytes())


def _fake_mnist(root, n=6):
    rs = np.random.RandomState(1)
    images = rs.randint(0, 256, (n, 28, 28)).astype(np.uint8)
    labels = rs.randint(0, 10, n).astype(np.uint8)
    _write_idx(os.path.join(root, "train-images-idx3-ubyte.gz"), images, 0x08)
    _write_idx(os.path.join(root, "train-labels-idx1-ubyte"), labels, 0x08)
    return images, labels


def test_read_idx_checks_sizes(tmp_path):
    arr = np.arange(12, dtype=np.int32).reshape(3, 4)
    p = str(tmp_path / "a.idx")
    _write_idx(p, arr, 0x0C)
    np.testing.assert_array_equal(vision.read_idx(p), arr)
    with open(p, "ab") as f:
        f.write(b"x")
    with pytest.raises(ValueError, match="holds"):
        vision.read_idx(p)
    bad = str(tmp_path / "bad.idx")
    with open(bad, "wb") as f:
        f.write(b"\x01\x02\x03\x04")
    with pytest.raises(ValueError, match="magic"):
        vision.read_idx(bad)


def test_mnist_reads_idx_files_and_transform(tmp_path):
    images, labels = _fake_mnist(str(tmp_path))
    ds = vision.MNIST(root=str(tmp_path), train=True)
    assert len(ds) == 6
    img, lab = ds[3]
    assert img.shape == (28, 28, 1) and img.dtype == np.uint8
    np.testing.assert_array_equal(img.asnumpy()[:, :, 0], images[3])
    assert lab == labels[3] and ds._label.dtype == np.int32
    ds2 = vision.MNIST(root=str(tmp_path), transform=lambda d, l: (d.astype("float32"), l + 1))
    assert ds2[0][1] == labels[0] + 1


def test_missing_dataset_explains_how_to_get_it(tmp_path, monkeypatch):
    monkeypatch.setattr(vision.datasets, "_SYSTEM_DIR", str(tmp_path / "system"))
    with pytest.raises(IOError, match="dataset-fashion-mnist"):
        vision.FashionMNIST(root=str(tmp_path / "nothing"), train=False)


def test_fashion_mnist_default_location_when_installed(tmp_path):
    if not os.path.isdir("/usr/share/datasets/fashion-mnist"):
        pytest.skip("dataset-fashion-mnist is not installed")
    with mx.test_utils.environment("MXNET_HOME", str(tmp_path)):
        test = vision.FashionMNIST(train=False)
    assert len(test) == 10000
    labels = np.array([test[i][1] for i in range(100)])
    assert labels.min() >= 0 and labels.max() <= 9


def test_transforms_against_numpy():
    rs = np.random.RandomState(2)
    img = rs.randint(0, 256, (5, 4, 3)).astype(np.uint8)
    t = transforms.ToTensor()(nd.array(img, dtype="uint8")).asnumpy()
    np.testing.assert_allclose(t, img.transpose(2, 0, 1) / 255.0, rtol=1e-6)
    batch = np.stack([img, img[::-1]])
    tb = transforms.ToTensor()(nd.array(batch, dtype="uint8")).asnumpy()
    np.testing.assert_allclose(tb, batch.transpose(0, 3, 1, 2) / 255.0, rtol=1e-6)
    mean, std = (0.1, 0.2, 0.3), (0.5, 0.6, 0.7)
    norm = transforms.Normalize(mean, std)(nd.array(t)).asnumpy()
    np.testing.assert_allclose(norm, (t - np.array(mean)[:, None, None]) / np.array(std)[:, None, None],
                               rtol=1e-5)
    composed = transforms.Compose([transforms.ToTensor(), transforms.Normalize(0.5, 0.25)])
    np.testing.assert_allclose(composed(nd.array(img, dtype="uint8")).asnumpy(),
                               (img.transpose(2, 0, 1) / 255.0 - 0.5) / 0.25, rtol=1e-5)
    cast = transforms.Cast("float64")(nd.array(img, dtype="uint8"))
    assert cast.dtype == np.float64


def test_flip_resize_crop():
    rs = np.random.RandomState(4)
    img = rs.randint(0, 256, (6, 8, 3)).astype(np.uint8)
    x = nd.array(img, dtype="uint8")
    np.testing.assert_array_equal(nd.image.flip_left_right(x).asnumpy(), img[:, ::-1])
    np.testing.assert_array_equal(nd.image.flip_top_bottom(x).asnumpy(), img[::-1])
    mx.random.seed(0)
    flips = [transforms.RandomFlipLeftRight()(x).asnumpy() for _ in range(20)]
    assert all(np.array_equal(f, img) or np.array_equal(f, img[:, ::-1]) for f in flips)
    assert any(np.array_equal(f, img) for f in flips) and any(np.array_equal(f, img[:, ::-1]) for f in flips)
    crop = transforms.CenterCrop((4, 2))(x).asnumpy()
    np.testing.assert_array_equal(crop, img[2:4, 2:6])
    near = transforms.Resize((4, 3), interpolation=0)(x).asnumpy()
    rows, cols = (np.arange(3) * 6 // 3), (np.arange(4) * 8 // 4)
    np.testing.assert_array_equal(near, img[rows][:, cols])
    up = transforms.Resize(16, keep_ratio=True)(nd.array(img.astype(np.float32))).asnumpy()
    assert up.shape == (16, 21, 3)
    # bilinear on a linear ramp reproduces the ramp at pixel centres away from the border
    ramp = np.tile(np.arange(8, dtype=np.float32), (4, 1))[:, :, None]
    half = transforms.Resize((4, 4))(nd.array(ramp)).asnumpy()[:, :, 0]
    np.testing.assert_allclose(half[0], [0.5, 2.5, 4.5, 6.5], rtol=1e-6)
