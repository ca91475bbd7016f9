"""Generates the mx.nd op functions from the operator registry at import."""
import ctypes

from .. import _registry
from ..base import _LIB, NDArrayHandle, check_call, c_str_array, _Null
from ..context import current_context
from .ndarray import CSRHandleError, NDArray, _set_op_invoker
from .. import _fast
from .._fast import module as _FAST

_fast.bind(NDArray, NDArrayHandle)
if _FAST is not None:
    _FAST.init_ops(_Null, _registry.param_str, lambda: str(current_context()), CSRHandleError)

# Shared with mx.sym (one reading of the registry for both front ends); the old private
# names stay importable for the modules that use them.
_op_handle = _registry.op_handle
_param_str = _registry.param_str
_op_info = _registry.op_info
_OpInfo = _registry.OpInfo
_INFOS = _registry.INFOS


class EncodedParams(object):
    """An op call's parameter names and values encoded once for C, for callers that repeat the
    same call (pass it as imperative_invoke's keys, with vals None)."""
    __slots__ = ["count", "keys", "vals", "key_strs", "val_strs"]

    def __init__(self, keys, vals):
        self.count = len(keys)
        self.keys = c_str_array(keys)
        self.vals = c_str_array(vals)
        self.key_strs = tuple(keys)  # what the compiled path takes
        self.val_strs = tuple(vals)


_HANDLES = [NDArrayHandle * n for n in range(8)]  # array types by input count, made once

# op name -> fn(info, args, kwargs) for ops with their own path for CSRNDArray operands
# (filled by mx.nd.sparse before populate()); it returns NotImplemented when no operand is
# CSR. The generated functions of these ops call it first.
_STYPE_HOOKS = {}
_OUT_PTR = ctypes.POINTER(NDArrayHandle)


def imperative_invoke(handle, inputs, keys, vals, out=None):
    """MXImperativeInvokeEx; returns one NDArray, a list, or `out` when given. keys and vals are
    lists of strings, or keys is an EncodedParams and vals None."""
    if _FAST is not None:
        if isinstance(keys, EncodedParams):
            keys, vals = keys.key_strs, keys.val_strs
        try:
            return _FAST.invoke(handle, inputs, keys, vals, out)
        except CSRHandleError:
            pass  # a CSRNDArray operand: the dense fallback below
    return _ctypes_invoke(handle, inputs, keys, vals, out)


def _ctypes_invoke(handle, inputs, keys, vals, out=None):
    """imperative_invoke through ctypes (MXNET_ENABLE_CYTHON=0, or no compiled module)."""
    n_in = len(inputs)
    try:
        in_arr = (_HANDLES[n_in] if n_in < 8 else NDArrayHandle * n_in)(*[a.handle for a in inputs])
    except CSRHandleError:
        # A CSRNDArray input: this op has no CSR path, so it runs on a dense copy (1.x's
        # storage fallback, warned once per op).
        from .sparse import dense_inputs
        inputs = dense_inputs(handle, inputs, out)
        in_arr = (_HANDLES[n_in] if n_in < 8 else NDArrayHandle * n_in)(*[a.handle for a in inputs])
    num_out = ctypes.c_int(0)
    if out is not None:
        outs = out if isinstance(out, (list, tuple)) else [out]
        for o in outs:
            if not isinstance(o, NDArray):
                raise TypeError("out must be an NDArray or a list of NDArrays, got %s" % type(o))
        try:
            out_ptr = ctypes.cast((NDArrayHandle * len(outs))(*[o.handle for o in outs]), _OUT_PTR)
        except CSRHandleError:
            raise TypeError("out= cannot be a CSRNDArray: operators write dense arrays") from None
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
        return out
    n = num_out.value
    if n == 1:
        return NDArray(NDArrayHandle(out_ptr[0]))
    return [NDArray(NDArrayHandle(out_ptr[i])) for i in range(n)]


def _call(info, args, kwargs):
    out = kwargs.pop("out", None)
    kwargs.pop("name", None)
    inputs, keys, vals = [], [], []
    if info.variadic:
        inputs = list(args)
        if len(inputs) == 1 and isinstance(inputs[0], (list, tuple)):
            inputs = list(inputs[0])
    else:
        _registry.name_positional(info, args, kwargs)
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
        # means "not passed". ctx=None means the current context, as in 1.x's creation ops.
        if v is _Null or (v is None and k == "ctx"):
            continue
        keys.append(k)
        vals.append(_param_str(k, v))
    if not inputs and "ctx" not in keys and out is None:
        keys.append("ctx")
        vals.append(str(current_context()))
    return imperative_invoke(info.handle, inputs, keys, vals, out)


def _compiled_function(info, func_name):
    """The op function as the compiled module's OpFunction (same binding rules as _call)."""
    def python_path(*args, **kwargs):  # for CSR operands, which have no single handle
        return _call(info, args, kwargs)
    return _FAST.OpFunction(info.handle, info.name, tuple(info.inputs), tuple(info.params), bool(info.variadic),
                            func_name, info.doc, "mxnet.ndarray", python_path)


def _make_function(info, func_name):
    hook = _STYPE_HOOKS.get(info.name)
    if hook is None and _FAST is not None:
        return _compiled_function(info, func_name)
    if hook is not None:  # only these ops pay for the CSR check
        def op_function(*args, **kwargs):
            res = hook(info, args, kwargs)
            return _call(info, args, kwargs) if res is NotImplemented else res
    else:
        def op_function(*args, **kwargs):
            return _call(info, args, kwargs)
    op_function.__name__ = func_name
    op_function.__qualname__ = func_name
    op_function.__doc__ = info.doc
    return op_function


_BY_NAME = {}  # op name -> its compiled function (NDArray methods call ops by name)


def invoke_by_name(name, args, kwargs):
    if _FAST is not None and name not in _STYPE_HOOKS:
        fn = _BY_NAME.get(name)
        if fn is None:
            fn = _BY_NAME[name] = _compiled_function(_registry.info_by_name(name), name)
        return fn(*args, **kwargs)
    return _call(_registry.info_by_name(name), args, dict(kwargs))


_set_op_invoker(invoke_by_name)  # NDArray's methods call ops through it


def populate(root):
    """Fills mx.nd, nd.op, nd._internal, nd.contrib, nd.linalg, ... per MXNet's naming rules."""
    _registry.populate(root, _make_function)
