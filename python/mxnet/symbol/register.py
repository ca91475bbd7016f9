"""Generates the mx.sym op functions from the same registry records as mx.nd (mxnet._registry).

A generated function takes its inputs positionally or by input name (a list or `*args` for ops
with a variable number of inputs), parameters as keywords, plus `name=` and `attr=`. It creates
the op node with MXSymbolCreateAtomicSymbol and composes it with its inputs (MXSymbolCompose);
inputs left out become variables `<name>_<input>` (fc1_weight).
"""
import ctypes

from .. import _registry, attribute, name as _name
from ..base import _LIB, SymbolHandle, check_call, c_str_array, _Null
from .symbol import Symbol

__all__ = ["create", "invoke_by_name", "populate"]


def _split_inputs(info, args, kwargs):
    """(positional Symbols, keyword Symbols); what is left in kwargs are parameters."""
    if info.variadic:
        sym_args = list(args)
        if len(sym_args) == 1 and isinstance(sym_args[0], (list, tuple)):
            sym_args = list(sym_args[0])
        for a in sym_args:
            if not isinstance(a, Symbol):
                raise TypeError("%s: expected Symbol inputs, got %s" % (info.name, type(a).__name__))
    else:
        sym_args = []
        _registry.name_positional(info, args, kwargs)
    sym_kwargs = {}
    for key in list(kwargs):
        value = kwargs[key]
        if isinstance(value, Symbol):
            sym_kwargs[key] = kwargs.pop(key)
        elif value is None and key in info.inputs:
            del kwargs[key]  # an input given as None is an input not given
        elif key in info.inputs:
            raise TypeError("%s: input '%s' must be a Symbol, got %s" % (info.name, key, type(value).__name__))
    return sym_args, sym_kwargs


def _create(info, hint, args, kwargs):
    name = kwargs.pop("name", None)
    attr = kwargs.pop("attr", None)
    kwargs.pop("out", None)
    sym_args, sym_kwargs = _split_inputs(info, args, kwargs)
    if sym_args and sym_kwargs:
        raise TypeError("%s: give the input Symbols either positionally or by keyword, not both" % info.name)
    # Scope attributes go to the node as parameters (the library keeps `__x__` keys and the
    # lr_mult/wd_mult/ctx_group family as attributes), as 1.x does.
    params = attribute.current().get(attr)
    for key, value in params.items():
        if not isinstance(value, str):
            raise ValueError("Attributes need to be string: %s=%r" % (key, value))
    for key, value in kwargs.items():
        if value is not _Null:
            params[key] = _registry.param_str(key, value)
    if info.variadic and info.key_var_num_args and info.key_var_num_args not in params:
        params[info.key_var_num_args] = str(len(sym_args))
    keys = list(params)
    handle = SymbolHandle()
    check_call(_LIB.MXSymbolCreateAtomicSymbol(info.handle, ctypes.c_uint(len(keys)), c_str_array(keys),
                                               c_str_array([params[k] for k in keys]), ctypes.byref(handle)))
    sym = Symbol(handle)
    sym._compose(*sym_args, name=_name.current().get(name, hint), **sym_kwargs)
    return sym


def create(op_name, hint, args, kwargs):
    """A new symbol of op `op_name` (auto-named `<hint><n>`) over the given inputs and params."""
    return _create(_registry.info_by_name(op_name), hint, args, dict(kwargs))


def invoke_by_name(op_name, args, kwargs):
    """Calls op `op_name` as its generated mx.sym function would (hint = its name lower-cased)."""
    return create(op_name, op_name.lower(), args, kwargs)


def _make_function(info, func_name):
    hint = func_name.lower()

    def op_function(*args, **kwargs):
        return _create(info, hint, args, kwargs)
    op_function.__name__ = func_name
    op_function.__qualname__ = func_name
    op_function.__doc__ = info.make_doc("Symbol")
    return op_function


def populate(root):
    """Fills mx.sym, sym.op, sym._internal, sym.contrib, sym.linalg, ... exactly as mx.nd is laid out."""
    _registry.populate(root, _make_function)
