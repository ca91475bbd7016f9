"""The NDArray class and array creation, save/load, waits (MXNet 1.x `mx.nd`)."""
import ctypes
import operator

import numpy as np

from ..base import (_LIB, NDArrayHandle, check_call, c_str, c_str_array, c_handle_array, MXNetError,
                    py_str)
from ..context import Context, current_context
from .._fast import module as _FAST

__all__ = ["NDArray", "array", "empty", "zeros", "ones", "full", "arange", "linspace", "eye", "save", "load",
           "load_frombuffer", "waitall", "concatenate", "moveaxis"]

_DTYPE_NP_TO_MX = {
    np.dtype(np.float32): 0, np.dtype(np.float64): 1, np.dtype(np.float16): 2,
    np.dtype(np.uint8): 3, np.dtype(np.int32): 4, np.dtype(np.int8): 5,
    np.dtype(np.int64): 6, np.dtype(np.bool_): 7,
}
_DTYPE_MX_TO_NP = {v: k for k, v in _DTYPE_NP_TO_MX.items()}
_BF16 = 12
_CONTEXTS = {}  # (device type id, device id) -> the Context NDArray.context returns
_GRAD_REQ = {"null": 0, "write": 1, "add": 3}


def _dtype_flag(dtype):
    if dtype is None:
        return 0
    if isinstance(dtype, str) and dtype == "bfloat16":
        return _BF16
    try:
        return _DTYPE_NP_TO_MX[np.dtype(dtype)]
    except (KeyError, TypeError):
        raise TypeError("unsupported dtype %r; supported: float32, float64, float16, bfloat16, "
                        "uint8, int8, int32, int64, bool" % (dtype,)) from None


def _dtype_name(dtype):
    """The string operators take for a dtype parameter."""
    if isinstance(dtype, str) and dtype == "bfloat16":
        return dtype
    return np.dtype(dtype).name


class CSRHandleError(TypeError):
    """A CSRNDArray (mx.nd.sparse) was given where the library needs one dense array handle."""


def _new_alloc(shape, ctx, dtype, delay_alloc=True):
    shape = tuple(int(s) for s in shape)
    if _FAST is not None:
        return _FAST.new_array(shape, ctx.device_typeid, ctx.device_id, delay_alloc, _dtype_flag(dtype))
    arr = (ctypes.c_int64 * len(shape))(*shape)
    h = NDArrayHandle()
    check_call(_LIB.MXNDArrayCreateEx64(arr, ctypes.c_int(len(shape)), ctypes.c_int(ctx.device_typeid),
                                        ctypes.c_int(ctx.device_id), ctypes.c_int(int(delay_alloc)),
                                        ctypes.c_int(_dtype_flag(dtype)), ctypes.byref(h)))
    return NDArray(h)


class NDArray(object):
    """An array on a device; operations run asynchronously through the engine."""
    __slots__ = ["handle", "writable", "__weakref__"]
    __array_priority__ = 1000.0

    def __init__(self, handle, writable=True):
        self.handle = handle
        self.writable = writable

    def __del__(self):
        if _FAST is not None:
            _FAST.free(self)
        elif getattr(self, "handle", None) is not None and _LIB is not None:
            _LIB.MXNDArrayFree(self.handle)
            self.handle = None

    # ---- pickling (MXNDArraySaveRawBytes / LoadFromRawBytes) ----
    # The default reduce with the state {'handle': raw bytes}, as 1.x pickles NDArrays, so
    # pickles move both ways between the two.

    def _raw_bytes(self):
        size = ctypes.c_size_t()
        buf = ctypes.POINTER(ctypes.c_char)()
        check_call(_LIB.MXNDArraySaveRawBytes(self.handle, ctypes.byref(size), ctypes.byref(buf)))
        return ctypes.string_at(buf, size.value)

    # ---- properties ----
    @property
    def shape(self):
        if _FAST is not None:
            return _FAST.shape(self.handle)
        ndim = ctypes.c_int()
        pdata = ctypes.POINTER(ctypes.c_int64)()
        check_call(_LIB.MXNDArrayGetShapeEx64(self.handle, ctypes.byref(ndim), ctypes.byref(pdata)))
        if ndim.value < 0:
            return None
        return tuple(pdata[i] for i in range(ndim.value))

    @property
    def size(self):
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def dtype(self):
        flag = self._dtype_flag
        if flag == _BF16:
            return np.dtype([("bfloat16", np.uint16)])
        return _DTYPE_MX_TO_NP[flag].type

    @property
    def _dtype_flag(self):
        if _FAST is not None:
            return _FAST.dtype_flag(self.handle)
        t = ctypes.c_int()
        check_call(_LIB.MXNDArrayGetDType(self.handle, ctypes.byref(t)))
        return t.value

    @property
    def context(self):
        dev_type, dev_id = ctypes.c_int(), ctypes.c_int()
        check_call(_LIB.MXNDArrayGetContext(self.handle, ctypes.byref(dev_type), ctypes.byref(dev_id)))
        key = (dev_type.value, dev_id.value)
        ctx = _CONTEXTS.get(key)
        if ctx is None:  # one shared instance per device (every layer asks for its input's)
            ctx = _CONTEXTS.setdefault(key, Context(Context.devtype2str[key[0]], key[1]))
        return ctx

    ctx = context

    @property
    def stype(self):
        return "default"

    @property
    def T(self):
        if self.ndim > 2:
            raise ValueError("Only 2D matrix is allowed to be transposed")
        return _op("transpose", self)

    @property
    def grad(self):
        h = NDArrayHandle()
        check_call(_LIB.MXNDArrayGetGrad(self.handle, ctypes.byref(h)))
        return NDArray(h) if h.value else None

    @property
    def _fresh_grad(self):
        out = ctypes.c_int()
        check_call(_LIB.MXNDArrayGetGradState(self.handle, ctypes.byref(out)))
        return bool(out.value)

    @_fresh_grad.setter
    def _fresh_grad(self, state):
        check_call(_LIB.MXNDArraySetGradState(self.handle, ctypes.c_int(int(state))))

    # ---- host copies and waits ----
    def asnumpy(self):
        flag = self._dtype_flag
        if flag == _BF16:
            raw = np.empty(self.shape, dtype=np.uint16)
            check_call(_LIB.MXNDArraySyncCopyToCPU(self.handle, raw.ctypes.data_as(ctypes.c_void_p),
                                                   ctypes.c_size_t(raw.size)))
            return (raw.astype(np.uint32) << 16).view(np.float32)
        data = np.empty(self.shape, dtype=_DTYPE_MX_TO_NP[flag])
        if _FAST is not None:
            _FAST.copy_to(self.handle, data, data.size)
            return data
        check_call(_LIB.MXNDArraySyncCopyToCPU(self.handle, data.ctypes.data_as(ctypes.c_void_p),
                                               ctypes.c_size_t(data.size)))
        return data

    def asscalar(self):
        if self.shape != (1,):
            raise ValueError("The current array is not a scalar")
        return self.asnumpy()[0]

    def _sync_copyfrom(self, source):
        if isinstance(source, NDArray):
            source = source.asnumpy()
        flag = self._dtype_flag
        if flag == _BF16:
            f = np.ascontiguousarray(np.broadcast_to(np.asarray(source, dtype=np.float32), self.shape))
            bits = f.view(np.uint32)
            rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
            src = np.ascontiguousarray(rounded)
        else:
            src = np.ascontiguousarray(np.broadcast_to(np.asarray(source, dtype=_DTYPE_MX_TO_NP[flag]),
                                                       self.shape))
        check_call(_LIB.MXNDArraySyncCopyFromCPU(self.handle, src.ctypes.data_as(ctypes.c_void_p),
                                                 ctypes.c_size_t(src.size)))

    def wait_to_read(self):
        if _FAST is not None:
            _FAST.wait_to_read(self.handle)
            return
        check_call(_LIB.MXNDArrayWaitToRead(self.handle))

    def wait_to_write(self):
        check_call(_LIB.MXNDArrayWaitToWrite(self.handle))

    # ---- copies and conversions ----
    def copyto(self, other):
        if isinstance(other, NDArray):
            if other.handle is self.handle:
                return other
            if other.context != self.context or other.dtype != self.dtype:
                if other.shape != self.shape:
                    raise ValueError("copyto: shape %s differs from the target's %s" % (self.shape, other.shape))
                # Between devices (or dtypes): an engine copy on the devices' copy streams.
                check_call(_LIB.MXNDArrayCopyFromTo(self.handle, other.handle))
                return other
            return _op("_copy", self, out=other)
        if isinstance(other, Context):
            if other == self.context:
                return _op("_copy", self)
            hret = _new_alloc(self.shape, other, self.dtype if self._dtype_flag != _BF16 else "bfloat16")
            if self.context.device_type == "gpu" or other.device_type == "gpu":
                check_call(_LIB.MXNDArrayCopyFromTo(self.handle, hret.handle))
                return hret
            # Host contexts share one memory: an engine copy, recorded by autograd as 1.x's is.
            return _op("_copy", self, out=hret)
        raise TypeError("copyto does not support type " + str(type(other)))

    def copy(self):
        return self.copyto(self.context)

    def as_in_context(self, context):
        return self if self.context == context else self.copyto(context)

    as_in_ctx = as_in_context

    def astype(self, dtype, copy=True):
        if not copy and np.dtype(dtype) == np.dtype(self.dtype):
            return self
        return _op("Cast", self, dtype=_dtype_name(dtype))

    def detach(self):
        h = NDArrayHandle()
        check_call(_LIB.MXNDArrayDetach(self.handle, ctypes.byref(h)))
        return NDArray(h)

    def tostype(self, stype):
        if stype == "default":
            return self
        if stype == "csr":
            from .sparse import _dense_to_csr
            return _dense_to_csr(self.asnumpy(), self.context, self.dtype)
        raise ValueError("cannot convert to stype %r: this runtime has 'default' (dense) and 'csr' arrays" % (stype,))

    def reshape(self, *shape, **kwargs):
        if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
            shape = shape[0]
        elif not shape:
            shape = kwargs.get("shape")
            if shape is None:
                raise TypeError("reshape() takes a shape")
        reverse = kwargs.get("reverse", False)
        dims = (ctypes.c_int64 * len(shape))(*[int(s) for s in shape])
        h = NDArrayHandle()
        check_call(_LIB.MXNDArrayReshape64(self.handle, ctypes.c_int(len(shape)), dims,
                                           ctypes.c_bool(reverse), ctypes.byref(h)))
        return NDArray(h, self.writable)

    def reshape_like(self, other):
        return self.reshape(other.shape)

    def _slice(self, start, stop):
        h = NDArrayHandle()
        check_call(_LIB.MXNDArraySlice64(self.handle, ctypes.c_int64(start), ctypes.c_int64(stop),
                                         ctypes.byref(h)))
        return NDArray(h, self.writable)

    def _at(self, idx):
        h = NDArrayHandle()
        check_call(_LIB.MXNDArrayAt64(self.handle, ctypes.c_int64(idx), ctypes.byref(h)))
        return NDArray(h, self.writable)

    # ---- autograd ----
    def attach_grad(self, grad_req="write", stype=None):
        if grad_req not in _GRAD_REQ:
            raise ValueError("grad_req must be one of %s, got %r" % (sorted(_GRAD_REQ), grad_req))
        grad = _op("zeros_like", self)
        check_call(_LIB.MXAutogradMarkVariables(1, ctypes.pointer(self.handle),
                                                ctypes.pointer(ctypes.c_uint(_GRAD_REQ[grad_req])),
                                                ctypes.pointer(grad.handle)))

    def backward(self, out_grad=None, retain_graph=False, train_mode=True):
        ograd = None if out_grad is None else c_handle_array([out_grad])
        check_call(_LIB.MXAutogradBackwardEx(1, c_handle_array([self]), ograd, 0, None,
                                             ctypes.c_int(retain_graph), 0, ctypes.c_int(train_mode),
                                             None, None))

    # ---- printing ----
    def __repr__(self):
        shape_info = "x".join(str(x) for x in self.shape)
        return "\n%s\n<%s %s @%s>" % (str(self.asnumpy()), self.__class__.__name__, shape_info, self.context)

    def __len__(self):
        return self.shape[0]

    def __bool__(self):
        num = self.size
        if num == 0:
            raise ValueError("The truth value of an empty array is ambiguous.")
        if num == 1:
            return bool(self.asscalar()) if self.shape == (1,) else bool(self.asnumpy().item())
        raise ValueError("The truth value of an NDArray with multiple elements is ambiguous.")

    __nonzero__ = __bool__

    def __iter__(self):
        for i in range(self.shape[0]):
            yield self[i]

    def __hash__(self):
        return id(self) // 16

    def __array__(self, dtype=None, copy=None):
        a = self.asnumpy()
        return a if dtype is None else a.astype(dtype)

    def __reduce__(self):
        # as 1.x's: unpickling calls the class with handle None (so __init__ sets what 1.x's
        # in-place operators check, e.g. `writable`), then __setstate__
        return type(self), (None,), self.__getstate__()

    def __getstate__(self):
        # a bytearray, as 1.x keeps it (its loader needs a writable buffer)
        return {"handle": None if self.handle is None else bytearray(self._raw_bytes())}

    def __setstate__(self, state):
        raw = state["handle"] if "handle" in state else state["raw"]  # "raw": this runtime's older pickles
        self.writable = True
        if raw is None:
            self.handle = None
            return
        h = NDArrayHandle()
        check_call(_LIB.MXNDArrayLoadFromRawBytes(bytes(raw), ctypes.c_size_t(len(raw)), ctypes.byref(h)))
        self.handle = h


def _from_raw_bytes(raw):
    """Unpickles this runtime's older NDArray pickles (which named this function)."""
    h = NDArrayHandle()
    check_call(_LIB.MXNDArrayLoadFromRawBytes(raw, ctypes.c_size_t(len(raw)), ctypes.byref(h)))
    return NDArray(h)


# Runs a registered op by name for the methods above. .register builds the op functions on
# top of NDArray, so it imports this module and installs its invoker here, not the reverse.
_invoke_by_name = None


def _set_op_invoker(invoke_by_name):
    global _invoke_by_name
    _invoke_by_name = invoke_by_name


def _op(name, *args, **kwargs):
    """Calls a registered op by name (the generated functions' common path)."""
    return _invoke_by_name(name, args, kwargs)


def empty(shape, ctx=None, dtype=None):
    if isinstance(shape, int):
        shape = (shape,)
    return _new_alloc(shape, ctx or current_context(), dtype or np.float32)


def array(source_array, ctx=None, dtype=None):
    if getattr(source_array, "stype", None) == "csr" or type(source_array).__module__.startswith("scipy.sparse"):
        from .sparse import array as sparse_array  # a CSRNDArray, as 1.x gives for sparse input
        return sparse_array(source_array, ctx=ctx, dtype=dtype)
    if isinstance(source_array, NDArray):
        dtype = source_array.dtype if dtype is None else dtype
        src = source_array.asnumpy()
    else:
        dtype = np.float32 if dtype is None else dtype
        src = np.asarray(source_array, dtype=None if dtype == "bfloat16" else dtype)
    shape = src.shape if src.ndim > 0 else (1,)
    arr = empty(shape, ctx, dtype)
    arr._sync_copyfrom(src.reshape(shape))
    return arr


def _creation_dtype(dtype):
    return _dtype_name(np.float32 if dtype is None else dtype)


def _dense_only(kwargs):
    stype = kwargs.pop("stype", None)
    if stype not in (None, "default"):
        raise ValueError("stype %r is not supported here: only dense ('default') arrays" % (stype,))
    return kwargs


def zeros(shape, ctx=None, dtype=None, **kwargs):
    """An array of zeros (op _zeros); stype='csr' gives an empty CSRNDArray."""
    if kwargs.get("stype") == "csr":
        from .sparse import zeros as sparse_zeros
        return sparse_zeros("csr", shape, ctx=ctx, dtype=dtype)
    return _op("_zeros", shape=shape, ctx=ctx, dtype=_creation_dtype(dtype), **_dense_only(kwargs))


def ones(shape, ctx=None, dtype=None, **kwargs):
    """An array of ones (op _ones)."""
    return _op("_ones", shape=shape, ctx=ctx, dtype=_creation_dtype(dtype), **_dense_only(kwargs))


def full(shape, val, ctx=None, dtype=np.float32, out=None):
    """An array filled with `val` (op _full); into `out` when given."""
    if out is not None:
        return _op("_full", shape=out.shape, dtype=_dtype_name(out.dtype), value=float(val), out=out)
    return _op("_full", shape=shape, ctx=ctx, dtype=_creation_dtype(dtype), value=float(val))


def arange(start, stop=None, step=1.0, repeat=1, infer_range=None, ctx=None, dtype=np.float32):
    """Evenly spaced values in [start, stop), each repeated `repeat` times (op _arange)."""
    return _op("_arange", start=start, stop=stop, step=step, repeat=int(repeat), infer_range=False, ctx=ctx,
               dtype=_creation_dtype(dtype))


def linspace(start, stop, num, endpoint=True, ctx=None, dtype=np.float32):
    """`num` evenly spaced samples over [start, stop] (op _linspace)."""
    return _op("_linspace", start=start, stop=stop, num=int(num), endpoint=endpoint, ctx=ctx,
               dtype=_creation_dtype(dtype))


def eye(N, M=0, k=0, ctx=None, dtype=None, **kwargs):
    """A 2-D array with ones on the k-th diagonal (op _eye)."""
    return _op("_eye", N=N, M=M, k=k, ctx=ctx, dtype=_creation_dtype(dtype), **kwargs)


def concatenate(arrays, axis=0, always_copy=True):
    return _op("Concat", *arrays, dim=axis)


def moveaxis(tensor, source, destination):
    axes = list(range(tensor.ndim))
    src = source % tensor.ndim
    dst = destination % tensor.ndim
    axes.pop(src)
    axes.insert(dst, src)
    return _op("transpose", tensor, axes=tuple(axes))


def waitall():
    check_call(_LIB.MXNDArrayWaitAll())


def save(fname, data):
    if isinstance(data, NDArray):
        data = [data]
    keys = None
    if isinstance(data, dict):
        keys = c_str_array(list(data.keys()))
        data = list(data.values())
    elif not isinstance(data, (list, tuple)):
        raise ValueError("data needs to either be a NDArray, dict of str, NDArray pairs or a list of NDarrays.")
    for d in data:
        if not isinstance(d, NDArray):
            raise TypeError("save only accepts NDArrays, got %s" % type(d))
    check_call(_LIB.MXNDArraySave(c_str(str(fname)), ctypes.c_uint(len(data)), c_handle_array(data), keys))


def _unpack_loaded(out_size, handles, out_name_size, names):
    arrays = [NDArray(NDArrayHandle(handles[i])) for i in range(out_size.value)]
    if out_name_size.value == 0:
        return arrays
    return {py_str(names[i]): arrays[i] for i in range(out_name_size.value)}


def load(fname):
    if not isinstance(fname, str):
        raise TypeError("fname required to be a string")
    out_size, out_name_size = ctypes.c_uint(), ctypes.c_uint()
    handles = ctypes.POINTER(NDArrayHandle)()
    names = ctypes.POINTER(ctypes.c_char_p)()
    check_call(_LIB.MXNDArrayLoad(c_str(fname), ctypes.byref(out_size), ctypes.byref(handles),
                                  ctypes.byref(out_name_size), ctypes.byref(names)))
    return _unpack_loaded(out_size, handles, out_name_size, names)


def load_frombuffer(buf):
    if not isinstance(buf, (bytes, bytearray)):
        raise TypeError("buf required to be a bytes-like object")
    buf = bytes(buf)
    out_size, out_name_size = ctypes.c_uint(), ctypes.c_uint()
    handles = ctypes.POINTER(NDArrayHandle)()
    names = ctypes.POINTER(ctypes.c_char_p)()
    check_call(_LIB.MXNDArrayLoadFromBuffer(buf, ctypes.c_size_t(len(buf)), ctypes.byref(out_size),
                                            ctypes.byref(handles), ctypes.byref(out_name_size),
                                            ctypes.byref(names)))
    return _unpack_loaded(out_size, handles, out_name_size, names)
