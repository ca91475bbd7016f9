"""NDArrayIter: batches over in-memory arrays (NumPy or NDArray), with MXNet's handling of
the last incomplete batch ('pad', 'discard' or 'roll_over')."""
from collections import OrderedDict

import numpy as np

from .. import ndarray as nd
from .data_iter import DataBatch, DataDesc, DataIter

__all__ = ["NDArrayIter"]


def _init_data(data, allow_empty, default_name):
    """(name, NDArray) pairs sorted by name, from an array, a list or a dict of arrays."""
    if data is None:
        if not allow_empty:
            raise ValueError("data must not be None")
        data = []
    if isinstance(data, (np.ndarray, nd.NDArray)):
        data = [data]
    if isinstance(data, list):
        if not allow_empty and not data:
            raise ValueError("data must not be an empty list")
        if len(data) == 1:
            data = OrderedDict([(default_name, data[0])])
        else:
            data = OrderedDict([("_%d_%s" % (i, default_name), d) for i, d in enumerate(data)])
    if not isinstance(data, dict):
        raise TypeError("Input must be NDArray, numpy.ndarray, a list of them or dict with "
                        "them as values")
    out = []
    for k, v in data.items():
        if not isinstance(v, nd.NDArray):
            try:
                v = nd.array(v)
            except Exception as err:  # pylint: disable=broad-except
                raise TypeError("Invalid type '%s' for %s, should be NDArray or numpy.ndarray"
                                % (type(v), k)) from err
        out.append((k, v))
    return sorted(out, key=lambda kv: kv[0])


class NDArrayIter(DataIter):
    """Iterates over arrays in batches of batch_size along axis 0.

    last_batch_handle: 'pad' fills the last batch from the start (DataBatch.pad says how
    many), 'discard' drops it, 'roll_over' carries it into the first batch of the next epoch.
    shuffle permutes the samples (NumPy's generator) at every reset.
    """

    def __init__(self, data, label=None, batch_size=1, shuffle=False, last_batch_handle="pad",
                 data_name="data", label_name="softmax_label", layout="NCHW"):
        super(NDArrayIter, self).__init__(batch_size)
        if DataDesc.get_batch_axis(layout) > 0:
            raise ValueError("NDArrayIter batches along axis 0; layout %r puts N elsewhere" % (layout,))
        self.layout = layout
        if last_batch_handle not in ("pad", "discard", "roll_over"):
            raise ValueError("last_batch_handle must be 'pad', 'discard' or 'roll_over', got %r"
                             % (last_batch_handle,))
        self.data = _init_data(data, allow_empty=False, default_name=data_name)
        self.label = _init_data(label, allow_empty=True, default_name=label_name)
        self.num_data = self.data[0][1].shape[0]
        for name, arr in self.data + self.label:
            if arr.shape[0] != self.num_data:
                raise ValueError("%s has %d samples, %s has %d" % (
                    self.data[0][0], self.num_data, name, arr.shape[0]))
        self.idx = np.arange(self.num_data)
        self.shuffle = shuffle
        self.last_batch_handle = last_batch_handle
        self.batch_size = batch_size
        self.cursor = -batch_size
        self._cache_data = None
        self._cache_label = None
        self.reset()

    @property
    def provide_data(self):
        return [DataDesc(k, tuple([self.batch_size] + list(v.shape[1:])), v.dtype, self.layout)
                for k, v in self.data]

    @property
    def provide_label(self):
        return [DataDesc(k, tuple([self.batch_size] + list(v.shape[1:])), v.dtype, self.layout)
                for k, v in self.label]

    def hard_reset(self):
        """Back to the start, forgetting any rolled-over samples."""
        if self.shuffle:
            self._shuffle_data()
        self.cursor = -self.batch_size
        self._cache_data = None
        self._cache_label = None

    def reset(self):
        if self.shuffle:
            self._shuffle_data()
        if self.last_batch_handle == "roll_over" and \
                self.num_data - self.batch_size < self.cursor < self.num_data:
            self.cursor = self.cursor - self.num_data - self.batch_size
        else:
            self.cursor = -self.batch_size

    def iter_next(self):
        self.cursor += self.batch_size
        return self.cursor < self.num_data

    def next(self):
        if not self.iter_next():
            raise StopIteration
        data = self.getdata()
        label = self.getlabel()
        if data[0].shape[0] != self.batch_size:
            # incomplete last batch: kept for the next epoch (roll_over) or dropped (discard)
            self._cache_data = data
            self._cache_label = label
            raise StopIteration
        return DataBatch(data=data, label=label, pad=self.getpad(), index=None)

    @staticmethod
    def _slice(source, start=None, end=None):
        out = []
        for _, arr in source:
            lo = 0 if start is None else start
            hi = arr.shape[0] if end is None else end
            out.append(arr[lo:hi])
        return out

    @staticmethod
    def _concat(first, second):
        return [nd.concat(a, b, dim=0) for a, b in zip(first, second)]

    def _batchify(self, source, cache):
        if self.cursor >= self.num_data:
            raise RuntimeError("DataIter needs reset.")
        if self.last_batch_handle == "roll_over" and -self.batch_size < self.cursor < 0:
            if cache is None:
                raise RuntimeError("next epoch should have cached data")
            return self._concat(cache, self._slice(source, end=self.cursor + self.batch_size))
        if self.last_batch_handle == "pad" and self.cursor + self.batch_size > self.num_data:
            pad = self.batch_size - self.num_data + self.cursor
            return self._concat(self._slice(source, start=self.cursor),
                                self._slice(source, end=pad))
        end = min(self.cursor + self.batch_size, self.num_data)
        return self._slice(source, self.cursor, end)

    def getdata(self):
        out = self._batchify(self.data, self._cache_data)
        self._cache_data = None
        return out

    def getlabel(self):
        out = self._batchify(self.label, self._cache_label)
        self._cache_label = None
        return out

    def getpad(self):
        if self.last_batch_handle == "pad" and self.cursor + self.batch_size > self.num_data:
            return self.cursor + self.batch_size - self.num_data
        if self.last_batch_handle == "roll_over" and -self.batch_size < self.cursor < 0:
            return -self.cursor
        return 0

    def _shuffle_data(self):
        np.random.shuffle(self.idx)
        perm = self.idx.copy()
        self.data = [(k, nd.array(v.asnumpy()[perm], ctx=v.context, dtype=v.dtype))
                     for k, v in self.data]
        self.label = [(k, nd.array(v.asnumpy()[perm], ctx=v.context, dtype=v.dtype))
                      for k, v in self.label]
