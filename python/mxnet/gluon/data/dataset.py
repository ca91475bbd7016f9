"""Datasets: indexable collections of samples, and lazy transformations of them."""
import os

from ... import ndarray as nd
from ... import recordio

__all__ = ["Dataset", "SimpleDataset", "ArrayDataset", "RecordFileDataset"]


class Dataset(object):
    """Abstract dataset: subclasses define __getitem__ and __len__."""

    def __getitem__(self, idx):
        raise NotImplementedError("%s must define __getitem__" % self.__class__.__name__)

    def __len__(self):
        raise NotImplementedError("%s must define __len__" % self.__class__.__name__)

    def filter(self, fn):
        """A dataset of the samples for which fn(sample) is true."""
        return _IndexedDataset(self, [i for i in range(len(self)) if fn(self[i])])

    def shard(self, num_shards, index):
        """Part `index` of `num_shards` contiguous parts (the first parts one longer when the
        length does not divide)."""
        if index >= num_shards or index < 0:
            raise ValueError("Shard index %d out of bound for %d shards" % (index, num_shards))
        length = len(self)
        per, extra = divmod(length, num_shards)
        start = index * per + min(index, extra)
        end = start + per + (1 if index < extra else 0)
        return _IndexedDataset(self, list(range(start, end)))

    def take(self, count):
        """The first `count` samples (all when count is None or too large)."""
        if count is None or count > len(self):
            count = len(self)
        return _IndexedDataset(self, list(range(count)))

    def sample(self, sampler):
        """The samples at the indices a Sampler yields."""
        return _IndexedDataset(self, list(sampler))

    def transform(self, fn, lazy=True):
        """A dataset whose samples are fn(*sample) (fn(sample) for non-tuples); lazy=False
        applies fn to everything now."""
        trans = _LazyTransformDataset(self, fn)
        if lazy:
            return trans
        return SimpleDataset([trans[i] for i in range(len(trans))])

    def transform_first(self, fn, lazy=True):
        """Like transform, but fn is applied to the first element of each sample only."""
        return self.transform(_TransformFirstClosure(fn), lazy)


class SimpleDataset(Dataset):
    """A dataset over any indexable object with a length (a list, a NumPy array, ...)."""

    def __init__(self, data):
        self._data = data

    def __len__(self):
        return len(self._data)

    def __getitem__(self, idx):
        return self._data[idx]


class _IndexedDataset(Dataset):
    def __init__(self, dataset, indices):
        self._dataset = dataset
        self._indices = indices

    def __len__(self):
        return len(self._indices)

    def __getitem__(self, idx):
        return self._dataset[self._indices[idx]]


class _LazyTransformDataset(Dataset):
    def __init__(self, data, fn):
        self._data = data
        self._fn = fn

    def __len__(self):
        return len(self._data)

    def __getitem__(self, idx):
        item = self._data[idx]
        if isinstance(item, tuple):
            return self._fn(*item)
        return self._fn(item)


class _TransformFirstClosure(object):
    """Applies fn to the first element only (a class, so it can be pickled)."""

    def __init__(self, fn):
        self._fn = fn

    def __call__(self, x, *args):
        if args:
            return (self._fn(x),) + args
        return self._fn(x)


class ArrayDataset(Dataset):
    """Zips arrays of equal length: sample i is (a[i], b[i], ...) or a[i] for one array.

    1-D NDArrays are kept as NumPy so that their elements come out as scalars.
    """

    def __init__(self, *args):
        if not args:
            raise ValueError("Needs at least 1 arrays")
        self._length = len(args[0])
        self._data = []
        for i, data in enumerate(args):
            if len(data) != self._length:
                raise ValueError("All arrays must have the same length; array[0] has length %d "
                                 "while array[%d] has %d." % (self._length, i, len(data)))
            if isinstance(data, nd.NDArray) and len(data.shape) == 1:
                data = data.asnumpy()
            self._data.append(data)

    def __getitem__(self, idx):
        if len(self._data) == 1:
            return self._data[0][idx]
        return tuple(data[idx] for data in self._data)

    def __len__(self):
        return self._length


class RecordFileDataset(Dataset):
    """The records of a RecordIO file, in the order of its index: item i is the raw record
    (bytes) at keys[i] of the .idx file next to it (same name, extension replaced)."""

    def __init__(self, filename):
        self.idx_file = os.path.splitext(filename)[0] + ".idx"
        self.filename = filename
        self._record = recordio.MXIndexedRecordIO(self.idx_file, self.filename, "r")

    def __getitem__(self, idx):
        return self._record.read_idx(self._record.keys[idx])

    def __len__(self):
        return len(self._record.keys)
