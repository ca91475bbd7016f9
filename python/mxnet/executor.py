"""Executor (mx.executor): a symbol bound to arrays on a device, made by Symbol.bind/simple_bind.

Outputs are fixed buffers the next forward overwrites. Arrays are listed in the symbol's
list_arguments / list_auxiliary_states / list_outputs order and also offered as dicts by name.
"""
import ctypes

import numpy as np

from .base import _LIB, ExecutorHandle, NDArrayHandle, SymbolHandle, check_call, c_str_array, c_handle_array, py_str
from .ndarray.ndarray import NDArray

__all__ = ["Executor"]

_MONITOR_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_char_p, NDArrayHandle, ctypes.c_void_p)


def _group2ctx_arrays(group2ctx):
    """(keys, device type ids, device ids) C arrays for a {ctx_group: Context} map."""
    keys, dev_types, dev_ids = [], [], []
    for key, ctx in (group2ctx or {}).items():
        keys.append(key)
        dev_types.append(ctx.device_typeid)
        dev_ids.append(ctx.device_id)
    return keys, (ctypes.c_int * len(keys))(*dev_types), (ctypes.c_int * len(keys))(*dev_ids)


def _shape_arrays(shapes):
    """(names, int data, uint index) CSR arrays for the tuple-valued entries of `shapes`."""
    names, data, idx = [], [], [0]
    for key, shape in shapes.items():
        if isinstance(shape, tuple):
            names.append(key)
            data.extend(int(d) for d in shape)
            idx.append(len(data))
    return names, (ctypes.c_int * len(data))(*data), (ctypes.c_uint * len(idx))(*idx)


def _arrays(count, handles, optional=False):
    return [NDArray(NDArrayHandle(handles[i])) if (handles[i] or not optional) else None
            for i in range(count.value)]


class Executor(object):
    """A bound symbol: forward, backward, and the arrays it reads and writes."""

    def __init__(self, handle, symbol, ctx, grad_req, group2ctx):
        if not isinstance(handle, ExecutorHandle):
            raise TypeError("Handle type error: expected an ExecutorHandle")
        self.handle = handle
        self.arg_arrays = []
        self.grad_arrays = []
        self.aux_arrays = []
        self.outputs = self._get_outputs()
        self._symbol = symbol.__copy__()
        self._optimized_symbol = None
        self._arg_dict = None
        self._grad_dict = None
        self._aux_dict = None
        self._monitor_callback = None
        self._monitor_all = None
        self._ctx = ctx
        self._grad_req = grad_req
        self._group2ctx = dict(group2ctx) if group2ctx else group2ctx

    def __del__(self):
        handle = getattr(self, "handle", None)
        if handle is not None and _LIB is not None:
            _LIB.MXExecutorFree(handle)
            self.handle = None

    @staticmethod
    def _get_dict(names, ndarrays):
        if len(set(names)) != len(names):
            raise ValueError("Duplicate names detected, %s" % str(names))
        return dict(zip(names, ndarrays))

    def _get_outputs(self):
        size = ctypes.c_uint()
        handles = ctypes.POINTER(NDArrayHandle)()
        check_call(_LIB.MXExecutorOutputs(self.handle, ctypes.byref(size), ctypes.byref(handles)))
        return _arrays(size, handles)

    # ---- running ------------------------------------------------------------------------------
    def forward(self, is_train=False, **kwargs):
        """Runs the forward pass, first copying keyword arrays into the arguments of that name.
        Returns the outputs."""
        if kwargs:
            arg_dict = self.arg_dict
            for name, array in kwargs.items():
                if not isinstance(array, (NDArray, np.ndarray)):
                    raise ValueError("only accept keyword argument of NDArrays and numpy.ndarray")
                if name not in arg_dict:
                    raise TypeError("Unknown argument %s" % name)
                if arg_dict[name].shape != array.shape:
                    raise ValueError("Shape not match! Argument %s, need: %s, received: %s"
                                     % (name, str(arg_dict[name].shape), str(array.shape)))
                arg_dict[name][:] = array
        check_call(_LIB.MXExecutorForward(self.handle, ctypes.c_int(int(is_train))))
        self.outputs = self._get_outputs()
        return self.outputs

    def backward(self, out_grads=None, is_train=True):
        """Runs the backward pass; out_grads (NDArray, list, or dict by output name) are the head
        gradients, needed unless the outputs are losses."""
        if out_grads is None:
            out_grads = []
        elif isinstance(out_grads, NDArray):
            out_grads = [out_grads]
        elif isinstance(out_grads, dict):
            out_grads = [out_grads[k] for k in self._symbol.list_outputs()]
        for obj in out_grads:
            if not isinstance(obj, NDArray):
                raise TypeError("inputs must be NDArray")
        check_call(_LIB.MXExecutorBackwardEx(self.handle, ctypes.c_uint(len(out_grads)), c_handle_array(out_grads),
                                             ctypes.c_int(int(is_train))))

    def set_monitor_callback(self, callback, monitor_all=False):
        """Calls callback(name, handle) for every op output (and, with monitor_all, every input)
        as the executor runs; name is bytes and handle an NDArrayHandle owned by the receiver
        (wrap it: mx.nd.NDArray(handle))."""
        def wrapper(name, array, _):
            callback(name, array)
        self._monitor_callback = _MONITOR_CALLBACK(wrapper)  # kept alive as long as the executor
        self._monitor_all = monitor_all
        check_call(_LIB.MXExecutorSetMonitorCallbackEX(self.handle, self._monitor_callback, None,
                                                       ctypes.c_bool(bool(monitor_all))))

    # ---- arrays by name -----------------------------------------------------------------------
    @property
    def arg_dict(self):
        if self._arg_dict is None:
            self._arg_dict = Executor._get_dict(self._symbol.list_arguments(), self.arg_arrays)
        return self._arg_dict

    @property
    def grad_dict(self):
        if self._grad_dict is None:
            self._grad_dict = Executor._get_dict(self._symbol.list_arguments(), self.grad_arrays)
        return self._grad_dict

    @property
    def aux_dict(self):
        if self._aux_dict is None:
            self._aux_dict = Executor._get_dict(self._symbol.list_auxiliary_states(), self.aux_arrays)
        return self._aux_dict

    @property
    def output_dict(self):
        return Executor._get_dict(self._symbol.list_outputs(), self.outputs)

    def copy_params_from(self, arg_params, aux_params=None, allow_extra_params=False):
        """Copies the given arrays (cast to each target's dtype) into the arguments and auxiliary
        states of the same name; names the executor lacks are an error unless allowed."""
        for name, array in arg_params.items():
            if name in self.arg_dict:
                dst = self.arg_dict[name]
                array.astype(dst.dtype).copyto(dst)
            elif not allow_extra_params:
                raise ValueError('Find name "%s" that is not in the arguments' % name)
        if aux_params is None:
            return
        for name, array in aux_params.items():
            if name in self.aux_dict:
                dst = self.aux_dict[name]
                array.astype(dst.dtype).copyto(dst)
            elif not allow_extra_params:
                raise ValueError('Find name %s that is not in the auxiliary states' % name)

    # ---- reshaping, inspection ----------------------------------------------------------------
    def reshape(self, partial_shaping=False, allow_up_sizing=False, **kwargs):
        """A new executor for new input shapes (tuple kwargs) sharing this one's memory; never run
        the two at the same time."""
        names, data, idx = _shape_arrays(kwargs)
        keys, dev_types, dev_ids = _group2ctx_arrays(self._group2ctx)
        num_args, num_aux = ctypes.c_uint(), ctypes.c_uint()
        arg_handles, grad_handles, aux_handles = (ctypes.POINTER(NDArrayHandle)() for _ in range(3))
        handle = ExecutorHandle()
        check_call(_LIB.MXExecutorReshapeEx(
            ctypes.c_int(int(partial_shaping)), ctypes.c_int(int(allow_up_sizing)),
            ctypes.c_int(self._ctx.device_typeid), ctypes.c_int(self._ctx.device_id),
            ctypes.c_uint(len(keys)), c_str_array(keys), dev_types, dev_ids,
            ctypes.c_uint(len(names)), c_str_array(names), data, idx,
            ctypes.byref(num_args), ctypes.byref(arg_handles), ctypes.byref(grad_handles),
            ctypes.byref(num_aux), ctypes.byref(aux_handles), self.handle, ctypes.byref(handle)))
        executor = Executor(handle, self._symbol, self._ctx, self._grad_req, self._group2ctx)
        executor.arg_arrays = _arrays(num_args, arg_handles)
        executor.grad_arrays = _arrays(num_args, grad_handles, optional=True)
        executor.aux_arrays = _arrays(num_aux, aux_handles)
        return executor

    def debug_str(self):
        """The bound graph after the passes, with the memory it allocated."""
        out = ctypes.c_char_p()
        check_call(_LIB.MXExecutorPrint(self.handle, ctypes.byref(out)))
        return py_str(out.value)

    def get_optimized_symbol(self):
        """The forward graph as the executor runs it (after its rewrites)."""
        from .symbol import Symbol
        handle = SymbolHandle()
        check_call(_LIB.MXExecutorGetOptimizedSymbol(self.handle, ctypes.byref(handle)))
        return Symbol(handle)

    def memory_plan(self):
        """What the static memory plan holds: planned_bytes (with in-place and sharing),
        unshared_bytes (every entry on its own), num_inplace and num_shared entries."""
        planned, unshared = ctypes.c_uint64(), ctypes.c_uint64()
        inplace, shared = ctypes.c_uint(), ctypes.c_uint()
        check_call(_LIB.MXExecutorGetMemoryPlan(self.handle, ctypes.byref(planned), ctypes.byref(unshared),
                                                ctypes.byref(inplace), ctypes.byref(shared)))
        return {"planned_bytes": planned.value, "unshared_bytes": unshared.value,
                "num_inplace": inplace.value, "num_shared": shared.value}
