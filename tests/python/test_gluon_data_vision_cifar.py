"""CIFAR10 / CIFAR100 read from small files written here in the datasets' binary format (label
byte(s), then the red, green and blue 32x32 planes), never downloaded."""
import os

import numpy as np
import pytest

import mxnet as mx
from mxnet.gluon.data import DataLoader, vision
from mxnet.gluon.data.vision import CIFAR10, CIFAR100

PIXELS = 3 * 32 * 32


def _write_batch(path, labels, seed):
    """Writes len(labels) records; returns the images as HWC uint8 (the expected samples)."""
    rs = np.random.RandomState(seed)
    labels = np.asarray(labels, dtype=np.uint8).reshape(len(labels), -1)
    planes = rs.randint(0, 256, (len(labels), 3, 32, 32)).astype(np.uint8)
    records = np.concatenate([labels, planes.reshape(len(labels), PIXELS)], axis=1)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(records.tobytes())
    return planes.transpose(0, 2, 3, 1)


@pytest.fixture(autouse=True)
def _no_system_copy(tmp_path, monkeypatch):
    monkeypatch.setattr(vision.datasets, "_SYSTEM_DIR", str(tmp_path / "system"))


def _cifar10_files(root):
    train_images, train_labels = [], []
    for i in range(1, 6):
        labels = [(i + j) % 10 for j in range(3)]
        train_images.append(_write_batch(str(root / ("data_batch_%d.bin" % i)), labels, seed=i))
        train_labels += labels
    test_images = _write_batch(str(root / "test_batch.bin"), [9, 0], seed=7)
    return np.concatenate(train_images), np.array(train_labels), test_images, np.array([9, 0])


def test_cifar10_reads_train_and_test_batches(tmp_path):
    images, labels, test_images, test_labels = _cifar10_files(tmp_path)
    train = CIFAR10(root=str(tmp_path))
    assert len(train) == 15
    data, label = train[4]
    assert data.shape == (32, 32, 3) and data.dtype == np.uint8
    np.testing.assert_array_equal(data.asnumpy(), images[4])
    assert label == labels[4] and label.dtype == np.int32
    test = CIFAR10(root=str(tmp_path), train=False)
    assert len(test) == 2
    np.testing.assert_array_equal(test[1][0].asnumpy(), test_images[1])
    assert [int(test[i][1]) for i in range(2)] == test_labels.tolist()


def test_cifar10_transform_and_data_loader(tmp_path):
    images, labels, _, _ = _cifar10_files(tmp_path)
    ds = CIFAR10(root=str(tmp_path), transform=lambda d, l: (d.astype("float32") / 255, l + 100))
    data, label = ds[0]
    np.testing.assert_allclose(data.asnumpy(), images[0] / 255.0, rtol=1e-6)
    assert label == labels[0] + 100
    batches = list(DataLoader(CIFAR10(root=str(tmp_path)), batch_size=4))
    assert batches[0][0].shape == (4, 32, 32, 3)
    np.testing.assert_array_equal(batches[-1][1].asnumpy(), labels[12:])


def test_cifar10_archive_subfolder_and_mxnet_home(tmp_path):
    home = tmp_path / "home"
    _cifar10_files(home / "datasets" / "cifar10" / "cifar-10-batches-bin")
    with mx.test_utils.environment("MXNET_HOME", str(home)):
        assert len(CIFAR10()) == 15


def test_cifar10_missing_file_names_the_path(tmp_path):
    _write_batch(str(tmp_path / "data_batch_1.bin"), [1], seed=0)
    with pytest.raises(IOError) as e:
        CIFAR10(root=str(tmp_path))
    assert "data_batch_2.bin" in str(e.value) and str(tmp_path) in str(e.value)
    assert "does not download" in str(e.value)


def test_cifar_rejects_truncated_files_and_bad_labels(tmp_path):
    _cifar10_files(tmp_path)
    with open(str(tmp_path / "test_batch.bin"), "ab") as f:
        f.write(b"\x00" * 10)
    with pytest.raises(ValueError, match="not a whole number of CIFAR10 records of 3073 bytes"):
        CIFAR10(root=str(tmp_path), train=False)
    _write_batch(str(tmp_path / "test_batch.bin"), [3, 10], seed=1)
    with pytest.raises(ValueError, match="label 10 in record 1 is not below the 10 classes"):
        CIFAR10(root=str(tmp_path), train=False)


def test_cifar100_coarse_and_fine_labels(tmp_path):
    coarse, fine = [3, 19, 0, 7], [30, 99, 1, 75]
    images = _write_batch(str(tmp_path / "cifar-100-binary" / "train.bin"), list(zip(coarse, fine)), seed=2)
    _write_batch(str(tmp_path / "cifar-100-binary" / "test.bin"), [(1, 12)], seed=3)
    ds = CIFAR100(root=str(tmp_path))
    assert [int(ds[i][1]) for i in range(4)] == coarse
    np.testing.assert_array_equal(ds[2][0].asnumpy(), images[2])
    ds = CIFAR100(root=str(tmp_path), fine_label=True)
    assert [int(ds[i][1]) for i in range(4)] == fine
    test = CIFAR100(root=str(tmp_path), fine_label=True, train=False)
    assert len(test) == 1 and int(test[0][1]) == 12
    with pytest.raises(IOError, match="test.bin"):
        CIFAR100(root=str(tmp_path / "nowhere"), train=False)
    _write_batch(str(tmp_path / "cifar-100-binary" / "test.bin"), [(20, 5)], seed=3)
    with pytest.raises(ValueError, match="label 20 in record 0 is not below the 20 classes of CIFAR100"):
        CIFAR100(root=str(tmp_path), train=False)
