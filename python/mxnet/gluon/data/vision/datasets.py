"""Image datasets read from local files: MNIST and Fashion-MNIST (idx format, optionally
gzipped), images packed in a RecordIO file (ImageRecordDataset), and a folder of images
with one subfolder per class (ImageFolderDataset).

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

__all__ = ["MNIST", "FashionMNIST", "ImageRecordDataset", "ImageFolderDataset", "read_idx"]

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
