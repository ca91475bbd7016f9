"""MXNet 1.x's data helpers of mx.test_utils, offline: downloads through file:// URLs, files
already in place, archives unpacked, and MNIST iterators over small idx files written here."""
import bz2
import os
import struct
import zipfile

import numpy as np
import pytest

import mxnet as mx
from mxnet import test_utils as tu
from conftest import REPO


def _url(path):
    return "file://" + os.path.abspath(str(path))


def test_download_file_url_keep_and_overwrite(tmp_path):
    src = tmp_path / "src.bin"
    src.write_bytes(b"first")
    target = tu.download(_url(src), dirname=str(tmp_path / "out"))
    assert target == str(tmp_path / "out" / "src.bin") and open(target, "rb").read() == b"first"
    src.write_bytes(b"second")
    assert open(tu.download(_url(src), dirname=str(tmp_path / "out")), "rb").read() == b"first"
    named = tu.download(_url(src), fname=str(tmp_path / "out" / "src.bin"), overwrite=True)
    assert open(named, "rb").read() == b"second"
    assert not [f for f in os.listdir(str(tmp_path / "out")) if f.startswith(".download-")]


def test_download_failure_names_the_url(tmp_path):
    missing = _url(tmp_path / "nowhere.bin")
    with pytest.raises(IOError, match="nowhere.bin.*1 attempt"):
        tu.download(missing, dirname=str(tmp_path), retries=1)
    assert not (tmp_path / "nowhere.bin").exists()
    with pytest.raises(ValueError, match="retries"):
        tu.download(missing, retries=-1)


def test_download_model_with_meta_info(tmp_path):
    (tmp_path / "s.json").write_text("{}")
    (tmp_path / "p.params").write_bytes(b"\x00")
    meta = {"tiny": {"symbol": _url(tmp_path / "s.json"), "params": _url(tmp_path / "p.params")}}
    prefix, epoch = tu.download_model("tiny", dst_dir=str(tmp_path / "models"), meta_info=meta)
    assert (prefix, epoch) == (str(tmp_path / "models" / "tiny"), 0)
    assert open(prefix + "-symbol.json").read() == "{}" and os.path.isfile(prefix + "-0000.params")
    assert tu.download_model("unknown", dst_dir=str(tmp_path), meta_info=meta) == (None, 0)
    with pytest.raises(ValueError, match="params"):
        tu.download_model("tiny", dst_dir=str(tmp_path), meta_info={"tiny": {"symbol": "x"}})


def test_get_zip_and_bz2_data(tmp_path):
    archive = tmp_path / "pack.zip"
    with zipfile.ZipFile(str(archive), "w") as zf:
        zf.writestr("inner/a.txt", "hello")
    dest = tmp_path / "data"
    tu.get_zip_data(str(dest), _url(archive), "pack.zip")
    assert (dest / "inner" / "a.txt").read_text() == "hello"
    compressed = tmp_path / "rows.txt.bz2"
    compressed.write_bytes(bz2.compress(b"1 2\n3 4\n"))
    tu.get_bz2_data(str(dest), "rows.txt", _url(compressed), "rows.txt.bz2")
    assert (dest / "rows.txt").read_bytes() == b"1 2\n3 4\n"
    assert not (dest / "rows.txt.bz2").exists()


def _write_mnist(folder, prefix, n):
    rng = np.random.RandomState(n)
    images = rng.randint(0, 256, size=(n, 28, 28)).astype(np.uint8)
    labels = rng.randint(0, 10, size=n).astype(np.uint8)
    with open(os.path.join(folder, prefix + "-images-idx3-ubyte"), "wb") as f:
        f.write(struct.pack(">iiii", 2051, n, 28, 28) + images.tobytes())
    with open(os.path.join(folder, prefix + "-labels-idx1-ubyte"), "wb") as f:
        f.write(struct.pack(">ii", 2049, n) + labels.tobytes())
    return images, labels


def test_mnist_helpers_use_files_in_place(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    os.makedirs("data")
    train_images, _ = _write_mnist("data", "train", 8)
    _write_mnist("data", "t10k", 4)
    tu.get_mnist_ubyte()  # all four files present: nothing to fetch
    train, val = tu.get_mnist_iterator(4, (784,))
    batch = next(train)
    assert batch.data[0].shape == (4, 784) and batch.label[0].shape == (4,)
    assert sum(1 for _ in val) == 1
    train3d, _ = tu.get_mnist_iterator(2, (1, 28, 28))
    assert next(train3d).data[0].shape == (2, 1, 28, 28)
    # The training iterator shuffles: its two batches hold the eight images in some order
    # (MNISTIter scales bytes by 1/256, as 1.x's does).
    train.reset()
    rows = np.concatenate([b.data[0].asnumpy() for b in train]) * 256
    expected = train_images.reshape(8, 784).astype(np.float64)
    assert sorted(map(tuple, rows.round().astype(int))) == sorted(map(tuple, expected.astype(int)))


def test_cifar10_and_pkl_use_files_in_place(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    os.makedirs(os.path.join("data", "cifar"))
    for name in ("train.rec", "test.rec", "train.lst", "test.lst"):
        open(os.path.join("data", "cifar", name), "w").close()
    open(os.path.join("data", "mnist.pkl.gz"), "w").close()
    tu.get_cifar10()
    tu.get_mnist_pkl()
    assert sorted(os.listdir("data")) == ["cifar", "mnist.pkl.gz"]


def test_get_im2rec_path(tmp_path, monkeypatch):
    monkeypatch.delenv("MXNET_HOME", raising=False)
    found = tu.get_im2rec_path()
    assert os.path.samefile(found, os.path.join(REPO, "tools", "im2rec.py"))
    os.makedirs(str(tmp_path / "tools"))
    (tmp_path / "tools" / "im2rec.py").write_text("")
    monkeypatch.setenv("MXNET_HOME", str(tmp_path))
    assert tu.get_im2rec_path() == str(tmp_path / "tools" / "im2rec.py")
    monkeypatch.setenv("ELSEWHERE", str(tmp_path / "empty"))
    with pytest.raises(IOError, match="im2rec.py"):
        tu.get_im2rec_path("ELSEWHERE")


def test_dummy_iter_repeats_the_first_batch():
    data = np.arange(12, dtype=np.float32).reshape(6, 2)
    real = mx.io.NDArrayIter(data, np.arange(6), batch_size=2)
    dummy = tu.DummyIter(real)
    assert dummy.batch_size == 2 and dummy.provide_data == real.provide_data
    batches = [next(dummy) for _ in range(5)]
    assert all(b is batches[0] for b in batches)
    np.testing.assert_array_equal(batches[0].data[0].asnumpy(), data[:2])
    assert isinstance(dummy, mx.io.DataIter) and iter(dummy) is dummy
