"""Image datasets read from local files: MNIST and Fashion-MNIST (idx format, optionally
gzipped), CIFAR-10 and CIFAR-100 (their binary version), images packed in a RecordIO file
(ImageRecordDataset), and a folder of images with one subfolder per class (ImageFolderDataset).

Files are looked up in `root` (default $MXNET_HOME/datasets/<name>, MXNET_HOME defaulting to
~/.mxnet) and then in /usr/share/datasets/<name>, where Debian's dataset packages (e.g.
dataset-fashion-mnist) install them. Nothing is downloaded.
"""
import gzip
import os
import struct
import warnings

import numpy as np

from .... import image
from .... import ndarray as nd
from .... import recordio
from ...utils import data_home
from ..dataset import Dataset, RecordFileDataset

__all__ = ["MNIST", "FashionMNIST", "CIFAR10", "CIFAR100", "ImageRecordDataset", "ImageFolderDataset",
           "read_idx"]

_SYSTEM_DIR = "/usr/share/datasets"

# idx type codes -> NumPy element types (big-endian in the file)
_IDX_TYPES = {0x08: np.uint8, 0x09: np.int8, 0x0B: np.dtype(">i2"), 0x0C: np.dtype(">i4"),
              0x0D: np.dtype(">f4"), 0x0E: np.dtype(">f8")}


def read_idx(path):
    """Reads an idx file (plain or .gz) into a NumPy array, checking its header and size."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        raw = f.read()
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0:
        raise ValueError("%s is not an idx file (bad magic number)" % path)
    code, ndim = raw[2], raw[3]
    if code not in _IDX_TYPES:
        raise ValueError("%s: unknown idx element type 0x%02x" % (path, code))
    if ndim < 1 or len(raw) < 4 + 4 * ndim:
        raise ValueError("%s: truncated idx header" % path)
    shape = struct.unpack(">" + "I" * ndim, raw[4:4 + 4 * ndim])
    dtype = np.dtype(_IDX_TYPES[code])
    count = int(np.prod(shape))
    body = raw[4 + 4 * ndim:]
    if len(body) != count * dtype.itemsize:
        raise ValueError("%s: idx header announces %s (%d bytes) but the file holds %d bytes"
                         % (path, shape, count * dtype.itemsize, len(body)))
    return np.frombuffer(body, dtype=dtype).reshape(shape).astype(dtype.newbyteorder("="))


class _InMemoryImageDataset(Dataset):
    """Images held as one uint8 NDArray (self._data) and labels as int32 NumPy (self._label);
    `transform(data, label)` is applied to each sample when given."""

    def __getitem__(self, idx):
        if self._transform is not None:
            return self._transform(self._data[idx], self._label[idx])
        return self._data[idx], self._label[idx]

    def __len__(self):
        return len(self._label)


class _IdxImageDataset(_InMemoryImageDataset):
    """Images (N, 28, 28, 1) uint8 as one NDArray and labels as int32 NumPy."""

    _name = None
    _debian_package = None
    _train_files = ("train-images-idx3-ubyte", "train-labels-idx1-ubyte")
    _test_files = ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")

    def __init__(self, root=None, train=True, transform=None):
        self._train = train
        self._transform = transform
        self._root = os.path.expanduser(root) if root is not None else \
            os.path.join(data_home(), "datasets", self._name)
        images, labels = self._read()
        self._data = nd.array(images, dtype=images.dtype)
        self._label = labels

    def _find(self, stem):
        dirs = [self._root, os.path.join(_SYSTEM_DIR, self._name)]
        for directory in dirs:
            for candidate in (stem + ".gz", stem):
                path = os.path.join(directory, candidate)
                if os.path.isfile(path):
                    return path
        how = ("install Debian's %s package (apt-get install %s), or " % (
            self._debian_package, self._debian_package)) if self._debian_package else ""
        raise IOError("Cannot find %s(.gz) for %s in %s. To get the data, %scopy the four "
                      "idx files (train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz, "
                      "t10k-images-idx3-ubyte.gz, t10k-labels-idx1-ubyte.gz) into %s; this "
                      "runtime does not download them."
                      % (stem, self.__class__.__name__, " or ".join(dirs), how, self._root))

    def _read(self):
        image_stem, label_stem = self._train_files if self._train else self._test_files
        labels = read_idx(self._find(label_stem)).astype(np.int32)
        images = read_idx(self._find(image_stem))
        if images.ndim != 3 or images.shape[0] != labels.shape[0]:
            raise ValueError("%s: %d labels for images of shape %s"
                             % (self.__class__.__name__, labels.shape[0], images.shape))
        return images.reshape(images.shape + (1,)), labels


class MNIST(_IdxImageDataset):
    """The MNIST handwritten digits: 60000 training / 10000 test 28x28 grey images.

    Samples are (NDArray (28, 28, 1) uint8, int32 label); `transform(data, label)` is applied
    to each when given.
    """
    _name = "mnist"


class FashionMNIST(_IdxImageDataset):
    """Zalando's Fashion-MNIST: 10 classes of clothing as 28x28 grey images, same layout and
    sample format as MNIST."""
    _name = "fashion-mnist"
    _debian_package = "dataset-fashion-mnist"


class CIFAR10(_InMemoryImageDataset):
    """CIFAR-10: 32x32 colour images in 10 classes, 50000 for training (data_batch_1.bin ..
    data_batch_5.bin) and 10000 for testing (test_batch.bin), from the dataset's binary version.

    Each record of a batch file is one label byte followed by the 3072 bytes of the image, its
    red, green and blue planes in turn. The files are looked up in `root` (default
    $MXNET_HOME/datasets/cifar10), its subfolder cifar-10-batches-bin (where the archive
    unpacks), then /usr/share/datasets/cifar10; nothing is downloaded. Samples are
    (NDArray (32, 32, 3) uint8, int32 label), with `transform(data, label)` applied when given.
    """
    _name = "cifar10"
    _subfolder = "cifar-10-batches-bin"
    _archive = "cifar-10-binary.tar.gz"
    _train_files = ["data_batch_%d.bin" % i for i in range(1, 6)]
    _test_files = ["test_batch.bin"]
    _label_bytes = 1
    _classes = (10,)

    def __init__(self, root=None, train=True, transform=None):
        self._train = train
        self._transform = transform
        self._root = os.path.expanduser(root) if root is not None else \
            os.path.join(data_home(), "datasets", self._name)
        images, labels = zip(*(self._read_batch(self._find(name)) for name in
                               (self._train_files if train else self._test_files)))
        images = np.concatenate(images)
        self._data = nd.array(images, dtype=images.dtype)
        self._label = np.concatenate(labels)

    def _find(self, name):
        dirs = [self._root, os.path.join(self._root, self._subfolder),
                os.path.join(_SYSTEM_DIR, self._name)]
        for directory in dirs:
            path = os.path.join(directory, name)
            if os.path.isfile(path):
                return path
        raise IOError("Cannot find %s for %s in %s. To get the data, unpack %s (the binary version "
                      "from https://www.cs.toronto.edu/~kriz/cifar.html) into %s; this runtime does "
                      "not download it." % (name, self.__class__.__name__, " or ".join(dirs),
                                            self._archive, self._root))

    def _label_column(self):
        return 0

    def _read_batch(self, path):
        record = self._label_bytes + 3 * 32 * 32
        with open(path, "rb") as f:
            raw = np.frombuffer(f.read(), dtype=np.uint8)
        if raw.size == 0 or raw.size % record:
            raise ValueError("%s: %d bytes is not a whole number of %s records of %d bytes (%d label "
                             "byte(s) + a 3x32x32 image)" % (path, raw.size, self.__class__.__name__,
                                                              record, self._label_bytes))
        raw = raw.reshape(-1, record)
        column = self._label_column()
        labels = raw[:, column].astype(np.int32)
        classes = self._classes[column]
        if labels.max() >= classes:
            raise ValueError("%s: label %d in record %d is not below the %d classes of %s"
                             % (path, labels.max(), int(labels.argmax()), classes,
                                self.__class__.__name__))
        images = raw[:, self._label_bytes:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)
        return np.ascontiguousarray(images), labels


class CIFAR100(CIFAR10):
    """CIFAR-100: 32x32 colour images in 100 classes grouped into 20 superclasses, 50000 for
    training (train.bin) and 10000 for testing (test.bin), from the dataset's binary version.

    Each record holds the coarse (superclass) label byte, the fine label byte, then the image as
    in CIFAR10; fine_label picks which label the samples carry. Files are looked up in `root`
    (default $MXNET_HOME/datasets/cifar100), its subfolder cifar-100-binary, then
    /usr/share/datasets/cifar100; nothing is downloaded.
    """
    _name = "cifar100"
    _subfolder = "cifar-100-binary"
    _archive = "cifar-100-binary.tar.gz"
    _train_files = ["train.bin"]
    _test_files = ["test.bin"]
    _label_bytes = 2
    _classes = (20, 100)

    def __init__(self, root=None, fine_label=False, train=True, transform=None):
        self._fine_label = fine_label
        super(CIFAR100, self).__init__(root, train, transform)

    def _label_column(self):
        return 1 if self._fine_label else 0


class ImageRecordDataset(RecordFileDataset):
    """The images of a RecordIO file (as written by im2rec.py), in the order of its .idx.

    Samples are (image, label): the image decoded with image.imdecode(payload, flag) (flag 1:
    3 channels RGB, 0: 1 gray channel) and the record header's label (a float, or a float32
    array for multi-label records). `transform(image, label)` is applied when given.
    """

    def __init__(self, filename, flag=1, transform=None):
        super(ImageRecordDataset, self).__init__(filename)
        self._flag = flag
        self._transform = transform

    def __getitem__(self, idx):
        header, payload = recordio.unpack(super(ImageRecordDataset, self).__getitem__(idx))
        img = image.imdecode(payload, self._flag)
        if self._transform is not None:
            return self._transform(img, header.label)
        return img, header.label


class ImageFolderDataset(Dataset):
    """Images stored one folder per class: root/<class>/<image>.

    `synsets` lists the class folders in sorted order (label i is synsets[i]); `items` lists
    (path, label) for every .jpg, .jpeg and .png file (other files are skipped with a warning),
    sorted within each folder. Samples are (image.imread(path, flag), label), with
    `transform(image, label)` applied when given.
    """

    _exts = (".jpg", ".jpeg", ".png")

    def __init__(self, root, flag=1, transform=None):
        self._root = os.path.expanduser(root)
        self._flag = flag
        self._transform = transform
        self._list_images(self._root)

    def _list_images(self, root):
        self.synsets = []
        self.items = []
        for folder in sorted(os.listdir(root)):
            path = os.path.join(root, folder)
            if not os.path.isdir(path):
                warnings.warn("Ignoring %s, which is not a directory." % path, stacklevel=3)
                continue
            label = len(self.synsets)
            self.synsets.append(folder)
            for filename in sorted(os.listdir(path)):
                filename = os.path.join(path, filename)
                ext = os.path.splitext(filename)[1]
                if ext.lower() not in self._exts:
                    warnings.warn("Ignoring %s of type %s. Only %s are read."
                                  % (filename, ext, ", ".join(self._exts)))
                    continue
                self.items.append((filename, label))

    def __getitem__(self, idx):
        img = image.imread(self.items[idx][0], self._flag)
        label = self.items[idx][1]
        if self._transform is not None:
            return self._transform(img, label)
        return img, label

    def __len__(self):
        return len(self.items)
