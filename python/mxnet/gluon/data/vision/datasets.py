"""Image datasets read from local files: MNIST and Fashion-MNIST (idx format, optionally
gzipped).

Files are looked up in `root` (default $MXNET_HOME/datasets/<name>, MXNET_HOME defaulting to
~/.mxnet) and then in /usr/share/datasets/<name>, where Debian's dataset packages (e.g.
dataset-fashion-mnist) install them. Nothing is downloaded.
"""
import gzip
import os
import struct

import numpy as np

from .... import ndarray as nd
from ...utils import data_home
from ..dataset import Dataset

__all__ = ["MNIST", "FashionMNIST", "read_idx"]

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


class _IdxImageDataset(Dataset):
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

    def __getitem__(self, idx):
        if self._transform is not None:
            return self._transform(self._data[idx], self._label[idx])
        return self._data[idx], self._label[idx]

    def __len__(self):
        return len(self._label)


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
