"""What the operator registry says about each op, read once and shared by mx.nd and mx.sym.

Both front ends generate their op functions from the same OpInfo records and lay them out in
the same namespaces (root, op, _internal, contrib, linalg, ...), so the two cannot drift.
"""
import ctypes
import sys
import types

import numpy as np

from .base import _LIB, check_call, c_str, py_str

__all__ = ["OpInfo", "op_handle", "op_info", "info_by_name", "param_str", "populate", "INFOS",
           "FLUENT_METHODS"]

_OP_HANDLES = {}
INFOS = {}  # op name -> OpInfo, for every op listed at import (aliases included)

# Prefixes of internal op names that 1.x also exposes, shortened, in a submodule.
SUBMODULE_PREFIXES = {"_contrib_": "contrib", "_linalg_": "linalg", "_sparse_": "sparse", "_image_": "image"}

# Methods 1.x NDArray and Symbol forward to same-named ops (installed where the op exists).
FLUENT_METHODS = (
    "sum", "mean", "max", "min", "prod", "nansum", "nanprod", "norm", "argmax", "argmin", "argmax_channel",
    "abs", "sign", "sqrt", "rsqrt", "cbrt", "rcbrt", "square", "exp", "expm1", "log", "log10", "log2", "log1p",
    "sin", "cos", "tan", "arcsin", "arccos", "arctan", "degrees", "radians", "sinh", "cosh", "tanh", "arcsinh",
    "arccosh", "arctanh", "relu", "sigmoid", "softmax", "log_softmax", "softmin", "transpose", "flatten",
    "expand_dims", "squeeze", "clip", "tile", "repeat", "flip", "topk", "sort", "argsort", "split", "slice",
    "slice_axis", "slice_like", "take", "pick", "one_hot", "swapaxes", "broadcast_to", "broadcast_like",
    "broadcast_axes", "round", "floor", "ceil", "trunc", "fix", "rint", "reciprocal", "zeros_like", "ones_like",
    "diag", "pad", "depth_to_space", "space_to_depth", "reshape_like", "shape_array", "size_array")


def op_handle(name):
    """The registry handle of an op (cached)."""
    h = _OP_HANDLES.get(name)
    if h is None:
        h = ctypes.c_void_p()
        check_call(_LIB.NNGetOpHandle(c_str(name), ctypes.byref(h)))
        _OP_HANDLES[name] = h
    return h


def param_str(key, value):
    """The text an op parameter is sent as (dtype as its NumPy name, the rest via str)."""
    if key == "dtype" and not isinstance(value, str):
        return np.dtype(value).name
    if key == "ctx" and not isinstance(value, str):
        return str(value)
    if isinstance(value, np.generic):
        return str(value.item())
    return str(value)


class OpInfo(object):
    """One op's name, handle, input names (NDArray-or-Symbol arguments), parameter names and docs."""
    __slots__ = ["name", "handle", "inputs", "params", "variadic", "key_var_num_args", "description",
                 "arg_docs", "doc"]

    def make_doc(self, kind):
        """Numpy-style docstring for the generated function; kind is 'NDArray' or 'Symbol'."""
        extra = ("out : NDArray, optional\n    The output array." if kind == "NDArray" else
                 "name : string, optional\n    Name of the resulting symbol.\n"
                 "attr : dict of string to string, optional\n    Attributes of the resulting symbol.")
        ret = "NDArray or list of NDArrays" if kind == "NDArray" else "Symbol"
        return "%s\n\nParameters\n----------\n%s\n%s\n\nReturns\n-------\nout : %s\n    The output of this " \
               "function." % (self.description, "\n".join(self.arg_docs), extra, ret)


def op_info(handle):
    """Reads an op's OpInfo from MXSymbolGetAtomicSymbolInfo."""
    name, desc = ctypes.c_char_p(), ctypes.c_char_p()
    num_args = ctypes.c_uint()
    arg_names, arg_types, arg_descs = (ctypes.POINTER(ctypes.c_char_p)() for _ in range(3))
    key_var, ret_type = ctypes.c_char_p(), ctypes.c_char_p()
    check_call(_LIB.MXSymbolGetAtomicSymbolInfo(handle, ctypes.byref(name), ctypes.byref(desc),
                                                ctypes.byref(num_args), ctypes.byref(arg_names),
                                                ctypes.byref(arg_types), ctypes.byref(arg_descs),
                                                ctypes.byref(key_var), ctypes.byref(ret_type)))
    info = OpInfo()
    info.name = py_str(name.value)
    info.handle = handle
    info.inputs, info.params, info.variadic = [], [], False
    info.key_var_num_args = py_str(key_var.value) if key_var.value else ""
    info.description = py_str(desc.value) if desc.value else ""
    info.arg_docs = []
    for i in range(num_args.value):
        an, at, ad = py_str(arg_names[i]), py_str(arg_types[i]), py_str(arg_descs[i])
        if at.startswith("NDArray-or-Symbol"):
            if "[]" in at:
                info.variadic = True
            info.inputs.append(an)
        elif an != info.key_var_num_args:
            info.params.append(an)
        info.arg_docs.append("%s : %s\n    %s" % (an, at, ad))
    info.doc = info.make_doc("NDArray")
    return info


def name_positional(info, args, kwargs):
    """Moves positional arguments of a non-variadic op call into kwargs by the op's argument
    names (inputs, then parameters), as Python binds them; both front ends call it."""
    names = info.inputs + info.params
    if len(args) > len(names):
        raise TypeError("%s takes at most %d positional arguments, got %d" % (info.name, len(names), len(args)))
    for i, a in enumerate(args):
        if names[i] in kwargs:
            raise TypeError("%s got multiple values for argument '%s'" % (info.name, names[i]))
        kwargs[names[i]] = a


def info_by_name(name):
    """The OpInfo of a registered op by name (read on first use)."""
    info = INFOS.get(name)
    if info is None:
        info = op_info(op_handle(name))
        info.name = name
        INFOS[name] = info
    return info


def list_op_names():
    """Every registered op name (aliases included) that the 1.x front ends expose."""
    size = ctypes.c_uint()
    names = ctypes.POINTER(ctypes.c_char_p)()
    check_call(_LIB.MXListAllOpNames(ctypes.byref(size), ctypes.byref(names)))
    out = []
    for i in range(size.value):
        name = py_str(names[i])
        if not name.startswith(("_np_", "_npi_", "_npx_")):
            out.append(name)
    return out


def submodule(root, name):
    """root.<name>, created (and registered in sys.modules) on first use."""
    full = root.__name__ + "." + name
    mod = sys.modules.get(full)
    if mod is None:
        mod = types.ModuleType(full)
        sys.modules[full] = mod
    if getattr(root, name, None) is not mod:
        setattr(root, name, mod)
    return mod


def populate(root, make_function):
    """Fills root, root.op, root._internal, root.contrib, root.linalg, ... with make_function(info,
    func_name) for every op, by 1.x's naming rules: public ops at the root (unless the root already
    defines the name) and in op; `_` ops in _internal; `_contrib_x` also as contrib.x, etc."""
    op_mod = submodule(root, "op")
    internal = submodule(root, "_internal")
    for sub in SUBMODULE_PREFIXES.values():  # present (as in 1.x) even where no op fills them
        submodule(root, sub)
    for name in list_op_names():
        info = info_by_name(name)
        if name.startswith("_"):
            setattr(internal, name, make_function(info, name))
            for prefix, sub in SUBMODULE_PREFIXES.items():
                if name.startswith(prefix):
                    short = name[len(prefix):]
                    setattr(submodule(root, sub), short, make_function(info, short))
            continue
        fn = make_function(info, name)
        setattr(op_mod, name, fn)
        if not hasattr(root, name):
            setattr(root, name, fn)
