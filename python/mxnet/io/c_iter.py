"""The iterators written in C++ (CSVIter, LibSVMIter, MNISTIter, ImageRecordIter, ...): MXDataIter wraps
one, and `mx.io.<Name>(**kwargs)` functions are generated from the library's registry."""
import ctypes

import numpy as np

from ..base import _LIB, DataIterHandle, NDArrayHandle, MXNetError, check_call, c_str_array, py_str
from ..ndarray import NDArray
from ..ndarray.sparse import CSRNDArray
from .data_iter import DataBatch, DataDesc, DataIter

__all__ = ["MXDataIter"]

# Python-side names of the arrays; not parameters of the C iterators.
_PYTHON_ONLY_KWARGS = ("data_name", "label_name")


class MXDataIter(DataIter):
    """A data iterator implemented in the library (create it with `mx.io.<Name>(...)`).

    The first batch is read here, so a bad file or parameter fails at construction, and
    provide_data / provide_label come from it. The arrays of a batch belong to that batch:
    the iterator never writes them again.
    """

    def __init__(self, handle, data_name="data", label_name="softmax_label", **_):
        super(MXDataIter, self).__init__()
        self.handle = handle
        self._debug_skip_load = False
        self._debug_at_begin = True
        self.first_batch = None
        try:
            self.first_batch = self.next()
        except StopIteration:
            raise MXNetError("the data iterator gives no batch (is the data empty?)") from None
        data = self.first_batch.data[0]
        label = self.first_batch.label[0]
        self.provide_data = [DataDesc(data_name, data.shape, data.dtype)]
        self.provide_label = [DataDesc(label_name, label.shape, label.dtype)]
        self.batch_size = data.shape[0]

    def __del__(self):
        if getattr(self, "handle", None) is not None and _LIB is not None:
            _LIB.MXDataIterFree(self.handle)
            self.handle = None

    def debug_skip_load(self):
        """From now on return the current batch again and again, without reading (to time a
        network without the loading)."""
        self._debug_skip_load = True

    def reset(self):
        self._debug_at_begin = True
        self.first_batch = None
        check_call(_LIB.MXDataIterBeforeFirst(self.handle))

    def _current(self):
        return DataBatch(data=[self.getdata()], label=[self.getlabel()], pad=self.getpad(),
                         index=self.getindex())

    def next(self):
        if self._debug_skip_load and not self._debug_at_begin:
            return self._current()
        if self.first_batch is not None:
            batch, self.first_batch = self.first_batch, None
            return batch
        self._debug_at_begin = False
        more = ctypes.c_int(0)
        check_call(_LIB.MXDataIterNext(self.handle, ctypes.byref(more)))
        if more.value:
            return self._current()
        raise StopIteration

    def iter_next(self):
        if self.first_batch is not None:
            # The first batch, read by the constructor, is the iterator's current one.
            self.first_batch = None
            return True
        more = ctypes.c_int(0)
        check_call(_LIB.MXDataIterNext(self.handle, ctypes.byref(more)))
        return bool(more.value)

    def _csr(self, which):
        """The current data (0) or label (1) as a CSRNDArray, or None when it is dense."""
        parts = (NDArrayHandle * 3)()
        rows, cols, is_csr = ctypes.c_int64(), ctypes.c_int64(), ctypes.c_int()
        check_call(_LIB.MXDataIterGetCSRData(self.handle, ctypes.c_int(which), parts, ctypes.byref(rows),
                                             ctypes.byref(cols), ctypes.byref(is_csr)))
        if not is_csr.value:
            return None
        data, indices, indptr = (NDArray(NDArrayHandle(p), False) for p in parts)
        return CSRNDArray(data, indices, indptr, (rows.value, cols.value))

    def getdata(self):
        csr = self._csr(0)
        if csr is not None:
            return csr
        h = NDArrayHandle()
        check_call(_LIB.MXDataIterGetData(self.handle, ctypes.byref(h)))
        return NDArray(h, False)

    def getlabel(self):
        csr = self._csr(1)
        if csr is not None:
            return csr
        h = NDArrayHandle()
        check_call(_LIB.MXDataIterGetLabel(self.handle, ctypes.byref(h)))
        return NDArray(h, False)

    def getindex(self):
        """The batch's per-sample indices as a uint64 numpy array, or None."""
        size = ctypes.c_uint64(0)
        data = ctypes.POINTER(ctypes.c_uint64)()
        check_call(_LIB.MXDataIterGetIndex(self.handle, ctypes.byref(data), ctypes.byref(size)))
        if not size.value:
            return None
        return np.ctypeslib.as_array(data, shape=(size.value,)).copy()

    def getpad(self):
        pad = ctypes.c_int(0)
        check_call(_LIB.MXDataIterGetPadNum(self.handle, ctypes.byref(pad)))
        return pad.value


def _param_value(v):
    """The string a C iterator parses: str(v), with dtypes by their numpy name."""
    if isinstance(v, np.dtype) or (isinstance(v, type) and issubclass(v, np.generic)):
        return np.dtype(v).name
    return str(v)


def _iter_info(creator):
    name, desc = ctypes.c_char_p(), ctypes.c_char_p()
    num_args = ctypes.c_uint()
    names, types, descs = (ctypes.POINTER(ctypes.c_char_p)() for _ in range(3))
    check_call(_LIB.MXDataIterGetIterInfo(ctypes.c_void_p(creator), ctypes.byref(name), ctypes.byref(desc),
                                          ctypes.byref(num_args), ctypes.byref(names),
                                          ctypes.byref(types), ctypes.byref(descs)))
    args = [(py_str(names[i]), py_str(types[i]), py_str(descs[i])) for i in range(num_args.value)]
    return py_str(name.value), py_str(desc.value) if desc.value else "", args


def _make_doc(desc, args):
    lines = [desc, "", "Parameters", "----------"]
    for n, t, d in args:
        lines += ["%s : %s" % (n, t), "    %s" % d]
    lines += ["data_name : str, optional, default='data'", "    Name of the data in provide_data.",
              "label_name : str, optional, default='softmax_label'",
              "    Name of the label in provide_label.", "", "Returns", "-------",
              "MXDataIter", "    The iterator."]
    return "\n".join(lines)


def _make_iter_function(creator):
    name, desc, args = _iter_info(creator)

    def create(*args, **kwargs):
        if args:
            raise TypeError("%s takes keyword arguments only, got %d positional" % (name, len(args)))
        keys = [k for k in kwargs if k not in _PYTHON_ONLY_KWARGS]
        vals = [_param_value(kwargs[k]) for k in keys]
        handle = DataIterHandle()
        check_call(_LIB.MXDataIterCreateIter(ctypes.c_void_p(creator), ctypes.c_uint(len(keys)),
                                             c_str_array(keys), c_str_array(vals),
                                             ctypes.byref(handle)))
        return MXDataIter(handle, **kwargs)

    create.__name__ = name
    create.__qualname__ = name
    create.__doc__ = _make_doc(desc, args)
    return name, create


def list_iterators():
    """Names of the iterators the library registers."""
    return [n for n, _ in _iter_functions()]


def _iter_functions():
    size = ctypes.c_uint()
    creators = ctypes.POINTER(ctypes.c_void_p)()
    check_call(_LIB.MXListDataIters(ctypes.byref(size), ctypes.byref(creators)))
    return [_make_iter_function(creators[i]) for i in range(size.value)]


def populate(namespace):
    """Puts one creating function per registered iterator into namespace (mx.io's globals)."""
    for name, fn in _iter_functions():
        fn.__module__ = namespace.get("__name__", __name__)
        namespace[name] = fn
