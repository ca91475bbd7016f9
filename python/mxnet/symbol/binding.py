"""Symbol.bind and Symbol.simple_bind: argument conversion for MXExecutorBindEX and
MXExecutorSimpleBindEx, and the Executor they return."""
import ctypes

from ..base import (_LIB, ExecutorHandle, NDArrayHandle, MXNetError, check_call, c_str_array, c_handle_array,
                    py_str)
from ..context import Context
from ..executor import Executor, _group2ctx_arrays, _shape_arrays
from ..ndarray.ndarray import NDArray, _GRAD_REQ
from .symbol import _STYPE, _dtype_code

__all__ = ["bind", "simple_bind", "ndarray_inputs"]

_CHAR_PP = ctypes.POINTER(ctypes.c_char_p)


def ndarray_inputs(arg_key, args, arg_names, allow_missing):
    """(handle array, list of NDArray or None) in arg_names order from a list or a dict."""
    if isinstance(args, (list, tuple)):
        if len(args) != len(arg_names):
            raise ValueError("Length of %s does not match the number of arguments: %d given, %d expected (%s)"
                             % (arg_key, len(args), len(arg_names), ", ".join(arg_names)))
        arrays = list(args)
        for arr in arrays:
            if arr is None and allow_missing:
                continue
            if not isinstance(arr, NDArray):
                raise TypeError("Only accept list of NDArrays or dict of str to NDArray")
    elif isinstance(args, dict):
        arrays = []
        for name in arg_names:
            arr = args.get(name)
            if arr is None:
                if not allow_missing:
                    raise ValueError("key `%s` is missing in `%s`" % (name, arg_key))
            elif not isinstance(arr, NDArray):
                raise TypeError("Only accept list of NDArrays or dict of str to NDArray")
            arrays.append(arr)
    else:
        raise TypeError("Only accept list of NDArrays or dict of str to NDArray")
    handles = (NDArrayHandle * len(arrays))(*[a.handle if a is not None else None for a in arrays])
    return handles, arrays

def bind(sym, ctx, args, args_grad=None, grad_req="write", aux_states=None, group2ctx=None,
         shared_exec=None):
    """An Executor over the given arrays (used as they are; lists follow list_arguments and
    list_auxiliary_states, dicts are looked up by name)."""
    if not isinstance(ctx, Context):
        raise TypeError("Context type error: expected mx.Context, got %s" % type(ctx).__name__)
    arg_names = sym.list_arguments()
    args_handle, args = ndarray_inputs("args", args, arg_names, False)
    if args_grad is None:
        args_grad = [None] * len(arg_names)
        grads_handle = (NDArrayHandle * len(arg_names))()
    else:
        grads_handle, args_grad = ndarray_inputs("args_grad", args_grad, arg_names, True)
    aux_handle, aux_states = ndarray_inputs("aux_states", aux_states if aux_states is not None else [],
                                                  sym.list_auxiliary_states(), False)
    if isinstance(grad_req, str):
        reqs = [grad_req] * len(arg_names)
    elif isinstance(grad_req, (list, tuple)):
        if len(grad_req) != len(arg_names):
            raise ValueError("grad_req list has %d entries, the symbol has %d arguments"
                             % (len(grad_req), len(arg_names)))
        reqs = list(grad_req)
    elif isinstance(grad_req, dict):
        reqs = [grad_req.get(name, "null") for name in arg_names]
    else:
        raise TypeError("grad_req must be a str, a list or a dict, got %s" % type(grad_req).__name__)
    codes = []
    for req, grad in zip(reqs, args_grad):
        if req not in _GRAD_REQ:
            raise ValueError("grad_req must be in %s, got %r" % (str(_GRAD_REQ), req))
        codes.append(_GRAD_REQ[req] if grad is not None else 0)
    keys, dev_types, dev_ids = _group2ctx_arrays(group2ctx)
    handle = ExecutorHandle()
    check_call(_LIB.MXExecutorBindEX(sym.handle, ctypes.c_int(ctx.device_typeid), ctypes.c_int(ctx.device_id),
                                     ctypes.c_uint(len(keys)), c_str_array(keys), dev_types, dev_ids,
                                     ctypes.c_uint(len(args)), args_handle, grads_handle,
                                     (ctypes.c_uint * len(codes))(*codes), ctypes.c_uint(len(aux_states)),
                                     aux_handle, shared_exec.handle if shared_exec is not None else None,
                                     ctypes.byref(handle)))
    executor = Executor(handle, sym, ctx, grad_req, group2ctx)
    executor.arg_arrays = args
    executor.grad_arrays = args_grad
    executor.aux_arrays = aux_states
    return executor

def simple_bind(sym, ctx, grad_req="write", type_dict=None, stype_dict=None, group2ctx=None,
                shared_arg_names=None, shared_exec=None, shared_buffer=None, **kwargs):
    """An Executor with every array allocated (zero-filled) from the given shapes (tuple kwargs)."""
    if not isinstance(ctx, Context):
        raise TypeError("Context type error: expected mx.Context, got %s" % type(ctx).__name__)
    arg_names = sym.list_arguments()
    # grad_req goes to the library by name for every argument (a list follows list_arguments,
    # a dict's missing names mean null).
    if isinstance(grad_req, str):
        reqs = {name: grad_req for name in arg_names}
    elif isinstance(grad_req, (list, tuple)):
        if not grad_req:
            raise RuntimeError("grad_req in simple_bind cannot be an empty list")
        if len(grad_req) != len(arg_names):
            raise ValueError("grad_req list has %d entries, the symbol has %d arguments"
                             % (len(grad_req), len(arg_names)))
        reqs = dict(zip(arg_names, grad_req))
    elif isinstance(grad_req, dict):
        if not grad_req:
            raise RuntimeError("grad_req in simple_bind cannot be an empty dict")
        reqs = {name: grad_req.get(name, "null") for name in arg_names}
    else:
        raise TypeError("grad_req must be a str, a list or a dict, got %s" % type(grad_req).__name__)
    for req in reqs.values():
        if req not in _GRAD_REQ:
            raise ValueError("grad_req must be in %s, got %r" % (str(_GRAD_REQ), req))
    req_names = list(reqs)
    dtype_names, dtype_codes = [], []
    for key, dtype in (type_dict or {}).items():
        dtype_names.append(key)
        dtype_codes.append(_dtype_code(dtype))
    stype_names, stype_codes = [], []
    for key, stype in (stype_dict or {}).items():
        if stype not in _STYPE:
            raise ValueError("unknown storage type %r for %s; expected one of %s" % (stype, key, list(_STYPE)))
        stype_names.append(key)
        stype_codes.append(_STYPE[stype])
    shape_names, shape_data, shape_idx = _shape_arrays(kwargs)
    keys, dev_types, dev_ids = _group2ctx_arrays(group2ctx)
    shared_names = list(shared_arg_names or [])
    if shared_buffer is not None:
        buf_names = list(shared_buffer)
        buf_handles = c_handle_array([shared_buffer[k] for k in buf_names])
        buf_len = ctypes.c_int(len(buf_names))
        buf_names_c = c_str_array(buf_names)
    else:
        buf_handles, buf_names_c, buf_len = None, None, ctypes.c_int(-1)
    updated_names = _CHAR_PP()
    updated_handles = ctypes.POINTER(NDArrayHandle)()
    num_args, num_aux = ctypes.c_uint(), ctypes.c_uint()
    arg_handles, grad_handles, aux_handles = (ctypes.POINTER(NDArrayHandle)() for _ in range(3))
    handle = ExecutorHandle()
    try:
        check_call(_LIB.MXExecutorSimpleBindEx(
            sym.handle, ctypes.c_int(ctx.device_typeid), ctypes.c_int(ctx.device_id),
            ctypes.c_uint(len(keys)), c_str_array(keys), dev_types, dev_ids,
            ctypes.c_uint(len(req_names)), c_str_array(req_names), c_str_array([reqs[n] for n in req_names]),
            ctypes.c_uint(len(shape_names)), c_str_array(shape_names), shape_data, shape_idx,
            ctypes.c_uint(len(dtype_names)), c_str_array(dtype_names),
            (ctypes.c_int * len(dtype_codes))(*dtype_codes),
            ctypes.c_uint(len(stype_names)), c_str_array(stype_names),
            (ctypes.c_int * len(stype_codes))(*stype_codes),
            ctypes.c_uint(len(shared_names)), c_str_array(shared_names),
            ctypes.byref(buf_len), buf_names_c, buf_handles, ctypes.byref(updated_names),
            ctypes.byref(updated_handles), ctypes.byref(num_args), ctypes.byref(arg_handles),
            ctypes.byref(grad_handles), ctypes.byref(num_aux), ctypes.byref(aux_handles),
            shared_exec.handle if shared_exec is not None else None, ctypes.byref(handle)))
    except MXNetError as err:
        msg = str(err)
        if not msg.startswith("simple_bind error"):  # the library may already have said so
            msg = "simple_bind error. Arguments:\n" + "".join("%s: %s\n" % kv for kv in kwargs.items()) + msg
        raise RuntimeError(msg) from None
    if shared_buffer is not None:
        for i in range(buf_len.value):
            shared_buffer[py_str(updated_names[i])] = NDArray(NDArrayHandle(updated_handles[i]))
    executor = Executor(handle, sym, ctx, grad_req, group2ctx)
    executor.arg_arrays = [NDArray(NDArrayHandle(arg_handles[i])) for i in range(num_args.value)]
    executor.grad_arrays = [NDArray(NDArrayHandle(grad_handles[i])) if grad_handles[i] else None
                            for i in range(num_args.value)]
    executor.aux_arrays = [NDArray(NDArrayHandle(aux_handles[i])) for i in range(num_aux.value)]
    return executor
