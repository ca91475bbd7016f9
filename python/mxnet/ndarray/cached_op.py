"""CachedOp: a symbol run as one library call (MXCreateCachedOpEx / MXInvokeCachedOpEx).

Inputs are given in the symbol's list_inputs() order. Per input signature the library infers,
differentiates (when autograd records) and memory-plans the graph once; later calls with that
signature only bind the arrays and push the ops. Under autograd the call is recorded as one
node whose gradient runs the planned backward graph.
"""
import ctypes

from ..base import _LIB, NDArrayHandle, c_str_array, check_call, mx_uint
from .ndarray import CSRHandleError, NDArray

__all__ = ["CachedOp"]

_OUT_PTR = ctypes.POINTER(NDArrayHandle)


def _flag_str(value):
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(str(int(v)) for v in value) + "]"
    return str(value)


class CachedOp(object):
    """CachedOp(sym, flags=()): flags are (name, value) pairs: static_alloc, static_shape,
    inline_limit, forward_bulk_size, backward_bulk_size, data_indices, param_indices, backend."""

    def __init__(self, sym, flags=()):
        self.handle = ctypes.c_void_p()
        self._num_outputs = len(sym.list_outputs())
        flags = [(k, v) for k, v in flags if v is not None]
        keys = [k for k, _ in flags]
        vals = [_flag_str(v) for _, v in flags]
        check_call(_LIB.MXCreateCachedOpEx(sym.handle, len(keys), c_str_array(keys), c_str_array(vals),
                                           ctypes.byref(self.handle)))

    def __del__(self):
        if getattr(self, "handle", None) and _LIB is not None:
            _LIB.MXFreeCachedOp(self.handle)
            self.handle = None

    def __call__(self, *args, **kwargs):
        """Runs the graph on args (NDArrays in list_inputs order); `out` takes output arrays.
        Returns one NDArray or a list, one per output."""
        out = kwargs.pop("out", None)
        default_ctx = kwargs.pop("default_ctx", None)  # accepted for 1.x callers; inputs decide
        del default_ctx
        if kwargs:
            raise TypeError("CachedOp.__call__ got unexpected keyword arguments %s" % sorted(kwargs))
        for i, a in enumerate(args):
            if not isinstance(a, NDArray):
                raise TypeError("CachedOp: input %d must be an NDArray, got %s" % (i, type(a).__name__))
        try:
            in_arr = (NDArrayHandle * len(args))(*[a.handle for a in args])
        except CSRHandleError:  # the graph's ops are dense: run it on dense copies (warned once)
            from .sparse import storage_fallback
            args = [storage_fallback("CachedOp", a) if a.stype == "csr" else a for a in args]
            in_arr = (NDArrayHandle * len(args))(*[a.handle for a in args])
        num_out = ctypes.c_int(0)
        if out is not None:
            outs = out if isinstance(out, (list, tuple)) else [out]
            out_ptr = ctypes.cast((NDArrayHandle * len(outs))(*[o.handle for o in outs]), _OUT_PTR)
            num_out.value = len(outs)
        else:
            out_ptr = _OUT_PTR()
        check_call(_LIB.MXInvokeCachedOpEx(self.handle, len(args), in_arr, ctypes.byref(num_out),
                                           ctypes.byref(out_ptr), None))
        if out is not None:
            return out
        if num_out.value == 1:
            return NDArray(NDArrayHandle(out_ptr[0]))
        return [NDArray(NDArrayHandle(out_ptr[i])) for i in range(num_out.value)]

    def info(self):
        """(plans held, fused ops the subgraph backend made in the plan of the latest call)."""
        plans, fused = mx_uint(), ctypes.c_int()
        check_call(_LIB.MXCachedOpGetInfo(self.handle, ctypes.byref(plans), ctypes.byref(fused)))
        return plans.value, fused.value
