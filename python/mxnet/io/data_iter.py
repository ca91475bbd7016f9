"""The data-iterator protocol of mx.io: DataDesc, DataBatch and the DataIter base class."""
from collections import namedtuple

import numpy as np

__all__ = ["DataDesc", "DataBatch", "DataIter"]


class DataDesc(namedtuple("DataDesc", ["name", "shape"])):
    """Name and shape (plus dtype and layout) of one input of a model."""

    def __new__(cls, name, shape, dtype=np.float32, layout="NCHW"):
        ret = super(DataDesc, cls).__new__(cls, name, shape)
        ret.dtype = dtype
        ret.layout = layout
        return ret

    def __repr__(self):
        return "DataDesc[%s,%s,%s,%s]" % (self.name, self.shape, self.dtype, self.layout)

    @staticmethod
    def get_batch_axis(layout):
        """Position of 'N' in the layout (0 when there is no layout)."""
        if layout is None:
            return 0
        return layout.find("N")

    @staticmethod
    def get_list(shapes, types):
        """DataDescs from (name, shape) pairs and optional (name, dtype) pairs."""
        if types is not None:
            type_dict = dict(types)
            return [DataDesc(x[0], x[1], type_dict[x[0]]) for x in shapes]
        return [DataDesc(x[0], x[1]) for x in shapes]


class DataBatch(object):
    """One batch: lists of data and label arrays, with `pad` samples of filler at the end."""

    def __init__(self, data, label=None, pad=None, index=None, bucket_key=None,
                 provide_data=None, provide_label=None):
        if data is not None and not isinstance(data, (list, tuple)):
            raise TypeError("Data must be list of NDArrays")
        if label is not None and not isinstance(label, (list, tuple)):
            raise TypeError("Label must be list of NDArrays")
        self.data = data
        self.label = label
        self.pad = pad
        self.index = index
        self.bucket_key = bucket_key
        self.provide_data = provide_data
        self.provide_label = provide_label

    def __str__(self):
        data_shapes = [d.shape for d in self.data]
        label_shapes = [l.shape for l in self.label] if self.label else None
        return "{}: data shapes: {} label shapes: {}".format(self.__class__.__name__,
                                                             data_shapes, label_shapes)


class DataIter(object):
    """Base class of data iterators: iter_next()/getdata()/getlabel()/getpad() make next()."""

    def __init__(self, batch_size=0):
        self.batch_size = batch_size

    def __iter__(self):
        return self

    def reset(self):
        """Back to the start of the data."""

    def next(self):
        if self.iter_next():
            return DataBatch(data=self.getdata(), label=self.getlabel(), pad=self.getpad(),
                             index=self.getindex())
        raise StopIteration

    def __next__(self):
        return self.next()

    def iter_next(self):
        """Moves to the next batch; False at the end."""
        raise NotImplementedError("%s must define iter_next()" % self.__class__.__name__)

    def getdata(self):
        raise NotImplementedError("%s must define getdata()" % self.__class__.__name__)

    def getlabel(self):
        raise NotImplementedError("%s must define getlabel()" % self.__class__.__name__)

    def getindex(self):
        return None

    def getpad(self):
        raise NotImplementedError("%s must define getpad()" % self.__class__.__name__)


class WrappingIter(DataIter):
    """An iterator over other iterators' batches: iter_next() sets self.current_batch, which
    next() returns whole and the getters read."""

    def next(self):
        if self.iter_next():
            return self.current_batch
        raise StopIteration

    def getdata(self):
        return self.current_batch.data

    def getlabel(self):
        return self.current_batch.label

    def getindex(self):
        return self.current_batch.index

    def getpad(self):
        return self.current_batch.pad
