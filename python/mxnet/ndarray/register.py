"""Generates the mx.nd op functions from the operator registry at import."""
import ctypes
import sys
import types

import numpy as np

from ..base import _LIB, NDArrayHandle, check_call, c_str, c_str_array, py_str, _Null
from ..context import current_context
from .ndarray import NDArray
from .op_trace import STATE as _TRACE

_OP_HANDLES = {}


def _op_handle(name):
    h = _OP_HANDLES.get(name)
    if h is None:
        h = ctypes.c_void_p()
        check_call(_LIB.NNGetOpHandle(c_str(name), ctypes.byref(h)))
        _OP_HANDLES[name] = h
    return h


def _param_str(key, value):
    if key == "dtype" and not isinstance(value, str):
        return np.dtype(value).name
    if key == "ctx" and not isinstance(value, str):
        return str(value)
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, np.generic):
        return str(value.item())
    return str(value)


class EncodedParams(object):
    """An op call's parameter names and values encoded once for C, for callers that repeat the
    same call (pass it as imperative_invoke's keys, with vals None)."""
    __slots__ = ["count", "keys", "vals"]

    def __init__(self, keys, vals):
        self.count = len(keys)
        self.keys = c_str_array(keys)
        self.vals = c_str_array(vals)


_HANDLES = [NDArrayHandle * n for n in range(8)]  # array types by input count, made once
_OUT_PTR = ctypes.POINTER(NDArrayHandle)


def imperative_invoke(handle, inputs, keys, vals, out=None):
    """MXImperativeInvokeEx; returns one NDArray, a list, or `out` when given. keys and vals are
    lists of strings, or keys is an EncodedParams and vals None."""
    n_in = len(inputs)
    in_arr = (_HANDLES[n_in] if n_in < 8 else NDArrayHandle * n_in)(*[a.handle for a in inputs])
    num_out = ctypes.c_int(0)
    if out is not None:
        outs = out if isinstance(out, (list, tuple)) else [out]
        for o in outs:
            if not isinstance(o, NDArray):
                raise TypeError("out must be an NDArray or a list of NDArrays, got %s" % type(o))
        out_ptr = ctypes.cast((NDArrayHandle * len(outs))(*[o.handle for o in outs]), _OUT_PTR)
        num_out.value = len(outs)
    else:
        out_ptr = _OUT_PTR()
    if isinstance(keys, EncodedParams):
        n_params, c_keys, c_vals = keys.count, keys.keys, keys.vals
    else:
        n_params, c_keys, c_vals = len(keys), c_str_array(keys), c_str_array(vals)
    if _LIB.MXImperativeInvokeEx(handle, n_in, in_arr, ctypes.byref(num_out), ctypes.byref(out_ptr),
                                 n_params, c_keys, c_vals, None) != 0:
        check_call(-1)
    if out is not None:
        if _TRACE.recorder is not None:
            _TRACE.recorder.op(handle, inputs, keys, vals, outs, None)
        return out
    n = num_out.value
    if n == 1:
        res = NDArray(NDArrayHandle(out_ptr[0]))
        if _TRACE.recorder is not None:
            _TRACE.recorder.op(handle, inputs, keys, vals, None, [res])
        return res
    res = [NDArray(NDArrayHandle(out_ptr[i])) for i in range(n)]
    if _TRACE.recorder is not None:
        _TRACE.recorder.op(handle, inputs, keys, vals, None, res)
    return res


class _OpInfo(object):
    __slots__ = ["name", "handle", "inputs", "params", "variadic", "key_var_num_args", "doc"]


def _op_info(handle):
    name, desc = ctypes.c_char_p(), ctypes.c_char_p()
    num_args = ctypes.c_uint()
    arg_names, arg_types, arg_descs = (ctypes.POINTER(ctypes.c_char_p)() for _ in range(3))
    key_var, ret_type = ctypes.c_char_p(), ctypes.c_char_p()
    check_call(_LIB.MXSymbolGetAtomicSymbolInfo(handle, ctypes.byref(name), ctypes.byref(desc),
                                                ctypes.byref(num_args), ctypes.byref(arg_names),
                                                ctypes.byref(arg_types), ctypes.byref(arg_descs),
                                                ctypes.byref(key_var), ctypes.byref(ret_type)))
    info = _OpInfo()
    info.name = py_str(name.value)
    info.handle = handle
    info.inputs, info.params, info.variadic = [], [], False
    info.key_var_num_args = py_str(key_var.value) if key_var.value else ""
    lines = []
    for i in range(num_args.value):
        an, at, ad = py_str(arg_names[i]), py_str(arg_types[i]), py_str(arg_descs[i])
        if at.startswith("NDArray-or-Symbol"):
            if "[]" in at:
                info.variadic = True
            info.inputs.append(an)
        elif an != info.key_var_num_args:
            info.params.append(an)
        lines.append("%s : %s\n    %s" % (an, at, ad))
    info.doc = "%s\n\nParameters\n----------\n%s\nout : NDArray, optional\n    The output array.\n\n" \
               "Returns\n-------\nout : NDArray or list of NDArrays\n    The output of this function." % (
                   py_str(desc.value) if desc.value else "", "\n".join(lines))
    return info


def _call(info, args, kwargs):
    out = kwargs.pop("out", None)
    kwargs.pop("name", None)
    inputs, keys, vals = [], [], []
    if info.variadic:
        inputs = list(args)
        if len(inputs) == 1 and isinstance(inputs[0], (list, tuple)):
            inputs = list(inputs[0])
    else:
        names = info.inputs + info.params
        if len(args) > len(names):
            raise TypeError("%s takes at most %d positional arguments, got %d" % (info.name, len(names), len(args)))
        for i, a in enumerate(args):
            if names[i] in kwargs:
                raise TypeError("%s got multiple values for argument '%s'" % (info.name, names[i]))
            kwargs[names[i]] = a
        for n in info.inputs:
            v = kwargs.pop(n, None)
            if v is None:
                continue
            inputs.append(v)
    for a in inputs:
        if not isinstance(a, NDArray):
            raise TypeError("%s: expected NDArray inputs, got %s" % (info.name, type(a).__name__))
    for k, v in kwargs.items():
        # None is sent as "None" (optional parameters parse it), as 1.x does; only _Null
        # means "not passed".
        if v is _Null:
            continue
        keys.append(k)
        vals.append(_param_str(k, v))
    if not inputs and "ctx" not in keys and out is None:
        keys.append("ctx")
        vals.append(str(current_context()))
    return imperative_invoke(info.handle, inputs, keys, vals, out)


def _make_function(info, func_name):
    def op_function(*args, **kwargs):
        return _call(info, args, kwargs)
    op_function.__name__ = func_name
    op_function.__qualname__ = func_name
    op_function.__doc__ = info.doc
    return op_function


_INFOS = {}


def invoke_by_name(name, args, kwargs):
    info = _INFOS.get(name)
    if info is None:
        info = _op_info(_op_handle(name))
        _INFOS[name] = info
    return _call(info, args, dict(kwargs))


def _submodule(root, name):
    full = root.__name__ + "." + name
    mod = sys.modules.get(full)
    if mod is None:
        mod = types.ModuleType(full)
        sys.modules[full] = mod
        setattr(root, name, mod)
    return mod


def populate(root):
    """Fills mx.nd, nd.op, nd._internal, nd.contrib, nd.linalg, ... per MXNet's naming rules."""
    size = ctypes.c_uint()
    names = ctypes.POINTER(ctypes.c_char_p)()
    check_call(_LIB.MXListAllOpNames(ctypes.byref(size), ctypes.byref(names)))
    op_mod = _submodule(root, "op")
    internal = _submodule(root, "_internal")
    prefixes = {"_contrib_": "contrib", "_linalg_": "linalg", "_sparse_": "sparse", "_image_": "image"}
    for i in range(size.value):
        name = py_str(names[i])
        if name.startswith(("_np_", "_npi_", "_npx_")):
            continue
        info = _op_info(_op_handle(name))
        info.name = name
        _INFOS[name] = info
        if name.startswith("_"):
            setattr(internal, name, _make_function(info, name))
            for prefix, sub in prefixes.items():
                if name.startswith(prefix):
                    short = name[len(prefix):]
                    setattr(_submodule(root, sub), short, _make_function(info, short))
            continue
        fn = _make_function(info, name)
        setattr(op_mod, name, fn)
        if not hasattr(root, name):
            setattr(root, name, fn)
