"""The Symbol class (a handle on a graph's output entries) and the mx.sym module functions.

Everything structural (composition, listings, attributes, inference, JSON, binding) is done by
the library through the C API; this file converts arguments and results.
"""
import ctypes
import numbers
import warnings

import numpy as np

from .. import attribute
from ..base import _LIB, SymbolHandle, MXNetError, check_call, c_str, c_str_array, c_handle_array, py_str
from ..context import current_context
from ..ndarray.ndarray import _DTYPE_NP_TO_MX, _DTYPE_MX_TO_NP, _BF16

__all__ = ["Symbol", "var", "Variable", "Group", "load", "load_json", "pow", "power", "maximum", "minimum",
           "hypot", "zeros", "ones", "full", "arange", "linspace", "eye"]

_STYPE = {"default": 0, "row_sparse": 1, "csr": 2}
_CHAR_PP = ctypes.POINTER(ctypes.c_char_p)


def _dtype_code(dtype):
    if isinstance(dtype, str) and dtype == "bfloat16":
        return _BF16
    try:
        return _DTYPE_NP_TO_MX[np.dtype(dtype)]
    except (KeyError, TypeError):
        raise TypeError("unsupported dtype %r; supported: float32, float64, float16, bfloat16, uint8, int8, "
                        "int32, int64, bool" % (dtype,)) from None


def _dtype_from_code(code):
    if code < 0:
        return None
    if code == _BF16:
        return np.dtype([("bfloat16", np.uint16)])
    return _DTYPE_MX_TO_NP[code].type


def _str_list(size, arr):
    return [py_str(arr[i]) for i in range(size.value)]


def _is_number(x):
    return isinstance(x, (numbers.Number, np.generic))


# Operator dispatch -------------------------------------------------------------------------------
# (1.x function name = the auto-name hint, registered op names to try in order)
_OPS = {
    "_Plus": ("_Plus", "_plus", "elemwise_add"), "_Minus": ("_Minus", "_minus", "elemwise_sub"),
    "_Mul": ("_Mul", "_mul", "elemwise_mul"), "_Div": ("_Div", "_div", "elemwise_div"),
    "_Mod": ("_Mod", "_mod", "broadcast_mod"), "_Power": ("_Power", "_power", "broadcast_power"),
    "_Maximum": ("_Maximum", "_maximum", "broadcast_maximum"),
    "_Minimum": ("_Minimum", "_minimum", "broadcast_minimum"),
    "_Hypot": ("_Hypot", "_hypot", "broadcast_hypot"),
    "_equal": ("_equal", "broadcast_equal"), "_not_equal": ("_not_equal", "broadcast_not_equal"),
    "_greater": ("_greater", "broadcast_greater"), "_greater_equal": ("_greater_equal", "broadcast_greater_equal"),
    "_lesser": ("_lesser", "broadcast_lesser"), "_lesser_equal": ("_lesser_equal", "broadcast_lesser_equal"),
    "_PlusScalar": ("_PlusScalar", "_plus_scalar"), "_MinusScalar": ("_MinusScalar", "_minus_scalar"),
    "_RMinusScalar": ("_RMinusScalar", "_rminus_scalar"), "_MulScalar": ("_MulScalar", "_mul_scalar"),
    "_DivScalar": ("_DivScalar", "_div_scalar"), "_RDivScalar": ("_RDivScalar", "_rdiv_scalar"),
    "_ModScalar": ("_ModScalar", "_mod_scalar"), "_RModScalar": ("_RModScalar", "_rmod_scalar"),
    "_PowerScalar": ("_PowerScalar", "_power_scalar"), "_RPowerScalar": ("_RPowerScalar", "_rpower_scalar"),
    "_MaximumScalar": ("_MaximumScalar", "_maximum_scalar"),
    "_MinimumScalar": ("_MinimumScalar", "_minimum_scalar"),
    "_HypotScalar": ("_HypotScalar", "_hypot_scalar"),
    "_equal_scalar": ("_equal_scalar",), "_not_equal_scalar": ("_not_equal_scalar",),
    "_greater_scalar": ("_greater_scalar",), "_greater_equal_scalar": ("_greater_equal_scalar",),
    "_lesser_scalar": ("_lesser_scalar",), "_lesser_equal_scalar": ("_lesser_equal_scalar",),
}
_RESOLVED = {}


def _op(func, *args, **kwargs):
    """Calls the op 1.x's `_internal.<func>` names, auto-named `<func lower-cased><n>`."""
    from . import register
    from .. import _registry
    op_name = _RESOLVED.get(func)
    if op_name is None:
        for candidate in _OPS.get(func, (func,)):
            try:
                _registry.info_by_name(candidate)
            except MXNetError:
                continue
            op_name = _RESOLVED[func] = candidate
            break
        else:
            raise NotImplementedError("no registered operator implements %s (tried %s)"
                                      % (func, ", ".join(_OPS.get(func, (func,)))))
    return register.create(op_name, func.lower(), args, kwargs)


def _binary(lhs, rhs, sym_op, scalar_op, rscalar_op=None, py_fn=None):
    """Symbol (op) Symbol or Symbol (op) number, with the number on either side."""
    if isinstance(lhs, Symbol) and isinstance(rhs, Symbol):
        return _op(sym_op, lhs, rhs)
    if isinstance(lhs, Symbol) and _is_number(rhs):
        return _op(scalar_op, lhs, scalar=float(rhs))
    if _is_number(lhs) and isinstance(rhs, Symbol):
        return _op(rscalar_op or scalar_op, rhs, scalar=float(lhs))
    if py_fn is not None and _is_number(lhs) and _is_number(rhs):
        return py_fn(lhs, rhs)
    raise TypeError("types (%s, %s) not supported" % (type(lhs).__name__, type(rhs).__name__))


class Symbol(object):
    """A symbolic graph: the output entries of a graph of operators and variables."""

    __array_priority__ = 1000.0  # numpy scalars on the left defer to our reflected operators

    def __init__(self, handle):
        self.handle = handle

    def __del__(self):
        handle = getattr(self, "handle", None)
        if handle is not None and _LIB is not None:
            _LIB.MXSymbolFree(handle)
            self.handle = None

    # ---- copies and pickling ------------------------------------------------------------------
    def __copy__(self):
        handle = SymbolHandle()
        check_call(_LIB.MXSymbolCopy(self.handle, ctypes.byref(handle)))
        return Symbol(handle)

    def __deepcopy__(self, memo):
        return self.__copy__()

    copy = __copy__

    def __getstate__(self):
        return {"handle": self.tojson() if self.handle is not None else None}

    def __setstate__(self, state):
        json_str = state["handle"]
        if json_str is None:
            self.handle = None
            return
        handle = SymbolHandle()
        check_call(_LIB.MXSymbolCreateFromJSON(c_str(json_str), ctypes.byref(handle)))
        self.handle = handle

    def __repr__(self):
        name = self.name
        if name is None:
            return "<%s group [%s]>" % (self.__class__.__name__, ", ".join(str(s.name) for s in self))
        return "<%s %s>" % (self.__class__.__name__, name)

    # ---- arithmetic ---------------------------------------------------------------------------
    def __add__(self, other):
        return _binary(self, other, "_Plus", "_PlusScalar")

    __radd__ = __add__

    def __sub__(self, other):
        return _binary(self, other, "_Minus", "_MinusScalar")

    def __rsub__(self, other):
        return _binary(other, self, "_Minus", "_MinusScalar", "_RMinusScalar")

    def __mul__(self, other):
        return _binary(self, other, "_Mul", "_MulScalar")

    __rmul__ = __mul__

    def __truediv__(self, other):
        return _binary(self, other, "_Div", "_DivScalar")

    def __rtruediv__(self, other):
        return _binary(other, self, "_Div", "_DivScalar", "_RDivScalar")

    __div__ = __truediv__
    __rdiv__ = __rtruediv__

    def __mod__(self, other):
        return _binary(self, other, "_Mod", "_ModScalar")

    def __rmod__(self, other):
        return _binary(other, self, "_Mod", "_ModScalar", "_RModScalar")

    def __pow__(self, other):
        return _binary(self, other, "_Power", "_PowerScalar")

    def __rpow__(self, other):
        return _binary(other, self, "_Power", "_PowerScalar", "_RPowerScalar")

    def __neg__(self):
        return self.__mul__(-1.0)

    def __pos__(self):
        return self

    def __abs__(self):
        return _op("abs", self)

    def __eq__(self, other):
        return _binary(self, other, "_equal", "_equal_scalar")

    def __ne__(self, other):
        return _binary(self, other, "_not_equal", "_not_equal_scalar")

    def __gt__(self, other):
        return _binary(self, other, "_greater", "_greater_scalar", "_lesser_scalar")

    def __ge__(self, other):
        return _binary(self, other, "_greater_equal", "_greater_equal_scalar", "_lesser_equal_scalar")

    def __lt__(self, other):
        return _binary(self, other, "_lesser", "_lesser_scalar", "_greater_scalar")

    def __le__(self, other):
        return _binary(self, other, "_lesser_equal", "_lesser_equal_scalar", "_greater_equal_scalar")

    def __hash__(self):
        return id(self) // 16

    def __bool__(self):
        raise NotImplementedError("The truth value of a Symbol is undefined: it has no value until bound "
                                  "and run (compare with `is None`, or use len() for its outputs).")

    __nonzero__ = __bool__

    # ---- composition --------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        """A copy of this symbol with its free variables replaced (see _compose)."""
        sym = self.__copy__()
        sym._compose(*args, **kwargs)
        return sym

    def _compose(self, *args, **kwargs):
        """Composes in place: positional Symbols fill the inputs in order, keyword ones replace the
        inputs (or free variables) of that name; `name=` renames the head node."""
        name = kwargs.pop("name", None)
        if args and kwargs:
            raise TypeError("compose only accept input Symbols either as positional or keyword arguments, "
                            "not both")
        for arg in list(args) + list(kwargs.values()):
            if not isinstance(arg, Symbol):
                raise TypeError("Compose expect `Symbol` as arguments, got %s" % type(arg).__name__)
        if kwargs:
            keys = c_str_array(list(kwargs))
            handles = c_handle_array(list(kwargs.values()))
        else:
            keys = None
            handles = c_handle_array(list(args))
        check_call(_LIB.MXSymbolCompose(self.handle, c_str(name) if name is not None else None,
                                        ctypes.c_uint(len(args) + len(kwargs)), keys, handles))

    # ---- outputs ------------------------------------------------------------------------------
    def __len__(self):
        count = ctypes.c_uint()
        check_call(_LIB.MXSymbolGetNumOutputs(self.handle, ctypes.byref(count)))
        return count.value

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __getitem__(self, index):
        if isinstance(index, str):
            found = None
            for i, out_name in enumerate(self.list_outputs()):
                if out_name == index:
                    if found is not None:
                        raise ValueError('There are multiple outputs with name "%s"' % index)
                    found = i
            if found is None:
                raise ValueError('Cannot find output that matches name "%s"' % index)
            index = found
        elif isinstance(index, slice):
            return Group([self[i] for i in range(len(self))[index]])
        if not isinstance(index, (int, np.integer)):
            raise TypeError("Symbol only supports integer, string or slice indices, got %s" % type(index).__name__)
        count = len(self)
        if index < 0:
            index += count
        if not 0 <= index < count:
            raise IndexError("Symbol output index %d out of range: the symbol has %d outputs" % (index, count))
        handle = SymbolHandle()
        check_call(_LIB.MXSymbolGetOutput(self.handle, ctypes.c_uint(int(index)), ctypes.byref(handle)))
        return Symbol(handle)

    @property
    def name(self):
        """The head node's name; None for a group of several outputs."""
        out = ctypes.c_char_p()
        success = ctypes.c_int()
        check_call(_LIB.MXSymbolGetName(self.handle, ctypes.byref(out), ctypes.byref(success)))
        return py_str(out.value) if success.value != 0 else None

    # ---- attributes ---------------------------------------------------------------------------
    def attr(self, key):
        """The head node's attribute `key` as a string, or None."""
        out = ctypes.c_char_p()
        success = ctypes.c_int()
        check_call(_LIB.MXSymbolGetAttr(self.handle, c_str(key), ctypes.byref(out), ctypes.byref(success)))
        return py_str(out.value) if success.value != 0 else None

    def list_attr(self, recursive=False):
        """The head node's attributes as a dict (recursive=True is attr_dict's job)."""
        if recursive:
            raise DeprecationWarning("Symbol.list_attr with recursive=True has been deprecated. "
                                     "Please use attr_dict instead.")
        size = ctypes.c_uint()
        pairs = _CHAR_PP()
        check_call(_LIB.MXSymbolListAttrShallow(self.handle, ctypes.byref(size), ctypes.byref(pairs)))
        return {py_str(pairs[2 * i]): py_str(pairs[2 * i + 1]) for i in range(size.value)}

    def attr_dict(self):
        """{node name: {attribute: value}} for every node with attributes."""
        size = ctypes.c_uint()
        pairs = _CHAR_PP()
        check_call(_LIB.MXSymbolListAttr(self.handle, ctypes.byref(size), ctypes.byref(pairs)))
        ret = {}
        for i in range(size.value):
            node, _, key = py_str(pairs[2 * i]).partition("$")
            ret.setdefault(node, {})[key] = py_str(pairs[2 * i + 1])
        return ret

    def _set_attr(self, **kwargs):
        """Sets string attributes on the head node."""
        for key, value in kwargs.items():
            if not isinstance(value, str):
                raise ValueError("Set Attr only accepts string values, got %s=%r" % (key, value))
            check_call(_LIB.MXSymbolSetAttr(self.handle, c_str(key), c_str(value)))

    # ---- structure ----------------------------------------------------------------------------
    def get_internals(self):
        """A group of every node's visible outputs (variables included), in DFS order."""
        handle = SymbolHandle()
        check_call(_LIB.MXSymbolGetInternals(self.handle, ctypes.byref(handle)))
        return Symbol(handle)

    def get_children(self):
        """A group of the head node's inputs; None for a variable."""
        handle = SymbolHandle()
        check_call(_LIB.MXSymbolGetChildren(self.handle, ctypes.byref(handle)))
        ret = Symbol(handle)
        if len(ret.list_outputs()) == 0:
            return None
        return ret

    def _list(self, fn, *extra):
        size = ctypes.c_uint()
        arr = _CHAR_PP()
        check_call(fn(self.handle, *(extra + (ctypes.byref(size), ctypes.byref(arr)))))
        return _str_list(size, arr)

    def list_arguments(self):
        """Names of the arguments (inputs the graph does not mutate), in DFS order."""
        return self._list(_LIB.MXSymbolListArguments)

    def list_outputs(self):
        """Names of the outputs (`<node>_output`, `<node>_<name>`, or a variable's own name)."""
        return self._list(_LIB.MXSymbolListOutputs)

    def list_auxiliary_states(self):
        """Names of the auxiliary states (inputs ops mutate, e.g. BatchNorm's moving stats)."""
        return self._list(_LIB.MXSymbolListAuxiliaryStates)

    def list_inputs(self):
        """Names of every input variable (arguments and auxiliary states), in DFS order."""
        return self._list(_LIB.NNSymbolListInputNames, ctypes.c_int(0))

    # ---- inference ----------------------------------------------------------------------------
    def _known(self, args, kwargs, what):
        """Positional or keyword known values as a {argument name: value} dict."""
        if args and kwargs:
            raise ValueError("Can only specify known argument %ss either by positional or kwargs way." % what)
        if args:
            names = self.list_arguments()
            if len(args) > len(names):
                raise ValueError("Too many positional %ss: %d given, the symbol has %d arguments"
                                 % (what, len(args), len(names)))
            return {names[i]: v for i, v in enumerate(args) if v is not None}
        return {k: v for k, v in kwargs.items() if v is not None}

    def infer_shape(self, *args, **kwargs):
        """(arg_shapes, out_shapes, aux_shapes) from the known argument shapes, or (None, None, None)
        with a warning naming the undecided arguments when some shape stays unknown."""
        try:
            res = self._infer_shape_impl(False, *args, **kwargs)
            if res[1] is None:
                arg_shapes, _, _ = self._infer_shape_impl(True, *args, **kwargs)
                unknowns = ["%s: %s" % (n, s) for n, s in zip(self.list_arguments(), arg_shapes)
                            if not s or 0 in s]
                warnings.warn("Cannot decide shape for the following arguments (0s in shape means unknown "
                              "dimensions). Consider providing them as input:\n\t" + "\n\t".join(unknowns),
                              stacklevel=2)
            return res
        except MXNetError:
            print("infer_shape error. Arguments:")
            for i, arg in enumerate(args):
                print("  #%d: %s" % (i, arg))
            for k, v in kwargs.items():
                print("  %s: %s" % (k, v))
            raise

    def infer_shape_partial(self, *args, **kwargs):
        """Like infer_shape, but unknown shapes come back as () and unknown dims as 0."""
        return self._infer_shape_impl(True, *args, **kwargs)

    def _infer_shape_impl(self, partial, *args, **kwargs):
        known = self._known(args, kwargs, "shape")
        keys, indptr, data = [], [0], []
        for key, shape in known.items():
            if isinstance(shape, (int, np.integer)):
                shape = (shape,)
            if not isinstance(shape, (tuple, list)):
                raise TypeError("Arguments need to be shapes (tuple), but '%s' is %s." % (key, type(shape)))
            keys.append(key)
            data.extend(int(d) for d in shape)
            indptr.append(len(data))
        sizes = [ctypes.c_size_t() for _ in range(3)]
        ndims = [ctypes.POINTER(ctypes.c_int)() for _ in range(3)]
        datas = [ctypes.POINTER(ctypes.POINTER(ctypes.c_int64))() for _ in range(3)]
        complete = ctypes.c_int()
        fn = _LIB.MXSymbolInferShapePartialEx64 if partial else _LIB.MXSymbolInferShapeEx64
        check_call(fn(self.handle, ctypes.c_uint(len(keys)), c_str_array(keys),
                      (ctypes.c_int64 * len(indptr))(*indptr), (ctypes.c_int64 * len(data))(*data),
                      ctypes.byref(sizes[0]), ctypes.byref(ndims[0]), ctypes.byref(datas[0]),
                      ctypes.byref(sizes[1]), ctypes.byref(ndims[1]), ctypes.byref(datas[1]),
                      ctypes.byref(sizes[2]), ctypes.byref(ndims[2]), ctypes.byref(datas[2]),
                      ctypes.byref(complete)))
        if complete.value == 0 and not partial:
            return (None, None, None)

        def shapes(k):
            # Legacy (1.x default) shape semantics: an unknown shape is (), an unknown dim 0.
            out = []
            for i in range(sizes[k].value):
                ndim = ndims[k][i]
                out.append(() if ndim < 0 else tuple(max(int(datas[k][i][j]), 0) for j in range(ndim)))
            return out
        return (shapes(0), shapes(1), shapes(2))

    def infer_type(self, *args, **kwargs):
        """(arg_types, out_types, aux_types) as NumPy types from the known argument dtypes, or
        (None, None, None) with a warning when some type stays unknown."""
        try:
            res = self._infer_type_impl(False, *args, **kwargs)
            if res[1] is None:
                arg_types, _, _ = self._infer_type_impl(True, *args, **kwargs)
                unknowns = ["%s: %s" % (n, t) for n, t in zip(self.list_arguments(), arg_types) if t is None]
                warnings.warn("Cannot decide type for the following arguments. Consider providing them as "
                              "input:\n\t" + "\n\t".join(unknowns), stacklevel=2)
            return res
        except MXNetError:
            print("infer_type error. Arguments:")
            for i, arg in enumerate(args):
                print("  #%d: %s" % (i, arg))
            for k, v in kwargs.items():
                print("  %s: %s" % (k, v))
            raise

    def infer_type_partial(self, *args, **kwargs):
        """Like infer_type, but unknown types come back as None instead of failing."""
        return self._infer_type_impl(True, *args, **kwargs)

    def _infer_type_impl(self, partial, *args, **kwargs):
        known = self._known(args, kwargs, "type")
        keys = list(known)
        codes = [_dtype_code(known[k]) for k in keys]
        sizes = [ctypes.c_uint() for _ in range(3)]
        datas = [ctypes.POINTER(ctypes.c_int)() for _ in range(3)]
        complete = ctypes.c_int()
        fn = _LIB.MXSymbolInferTypePartial if partial else _LIB.MXSymbolInferType
        check_call(fn(self.handle, ctypes.c_uint(len(keys)), c_str_array(keys), (ctypes.c_int * len(codes))(*codes),
                      ctypes.byref(sizes[0]), ctypes.byref(datas[0]), ctypes.byref(sizes[1]),
                      ctypes.byref(datas[1]), ctypes.byref(sizes[2]), ctypes.byref(datas[2]),
                      ctypes.byref(complete)))
        if complete.value == 0 and not partial:
            return (None, None, None)
        return tuple([_dtype_from_code(datas[k][i]) for i in range(sizes[k].value)] for k in range(3))

    # ---- serialisation ------------------------------------------------------------------------
    def tojson(self, remove_amp_cast=True):
        """The graph as MXNet's symbol JSON text."""
        out = ctypes.c_char_p()
        check_call(_LIB.MXSymbolSaveToJSON(self.handle, ctypes.byref(out)))
        return py_str(out.value)

    def save(self, fname, remove_amp_cast=True):
        """Writes the graph's JSON to `fname` (load it back with mx.sym.load)."""
        if not isinstance(fname, str):
            raise TypeError("fname needs to be a string")
        check_call(_LIB.MXSymbolSaveToFile(self.handle, c_str(fname)))

    def debug_str(self):
        """A readable listing of the graph's nodes, inputs and attributes."""
        out = ctypes.c_char_p()
        check_call(_LIB.MXSymbolPrint(self.handle, ctypes.byref(out)))
        return py_str(out.value)

    # ---- gradient -----------------------------------------------------------------------------
    def gradient(self, wrt):
        """The symbol of the gradients of this symbol's outputs w.r.t. the arguments named in `wrt`."""
        if isinstance(wrt, str):
            wrt = [wrt]
        handle = SymbolHandle()
        check_call(_LIB.MXSymbolGrad(self.handle, ctypes.c_uint(len(wrt)), c_str_array(list(wrt)),
                                     ctypes.byref(handle)))
        return Symbol(handle)

    grad = gradient

    # ---- binding ------------------------------------------------------------------------------
    def bind(self, ctx, args, args_grad=None, grad_req="write", aux_states=None, group2ctx=None,
             shared_exec=None):
        """An Executor over the given arrays (used as they are; lists follow list_arguments and
        list_auxiliary_states, dicts are looked up by name; a None gradient means grad_req null)."""
        from . import binding
        return binding.bind(self, ctx, args, args_grad, grad_req, aux_states, group2ctx, shared_exec)

    def simple_bind(self, ctx, grad_req="write", type_dict=None, stype_dict=None, group2ctx=None,
                    shared_arg_names=None, shared_exec=None, shared_buffer=None, **kwargs):
        """An Executor with every array allocated (zero-filled) from the given shapes (tuple kwargs);
        shared_exec / shared_arg_names / shared_buffer share memory with another executor."""
        from . import binding
        return binding.simple_bind(self, ctx, grad_req, type_dict, stype_dict, group2ctx, shared_arg_names,
                                   shared_exec, shared_buffer, **kwargs)

    def eval(self, ctx=None, **kwargs):
        """Binds to the keyword NDArrays and runs forward; returns the list of outputs."""
        if ctx is None:
            ctx = current_context()
        return self.bind(ctx, kwargs).forward()

    # ---- fluent methods with their own signatures ---------------------------------------------
    def reshape(self, *args, **kwargs):
        """op.reshape over this symbol (`sym.reshape((2, -1))` or `sym.reshape(shape=...)`)."""
        return _op("reshape", self, *args, **kwargs)

    def astype(self, dtype, **kwargs):
        """op.Cast to `dtype`."""
        return _op("Cast", self, dtype=dtype, **kwargs)

    def as_nd_ndarray(self):
        return self

    def as_np_ndarray(self):
        raise NotImplementedError("the NumPy-semantics symbol (mx.sym.np) is not available in this build")


def _fluent(op_name):
    def method(self, *args, **kwargs):
        return _op(op_name, self, *args, **kwargs)
    method.__name__ = op_name
    method.__doc__ = "Calls op %s with this symbol as its first input (mx.sym.%s(self, ...))." % (op_name, op_name)
    return method


def install_fluent_methods(names, available):
    """Adds Symbol.<name> for every name in `names` that is a registered op."""
    for op_name in names:
        if op_name in available and not hasattr(Symbol, op_name):
            setattr(Symbol, op_name, _fluent(op_name))


# Module functions --------------------------------------------------------------------------------
def var(name, attr=None, shape=None, lr_mult=None, wd_mult=None, dtype=None, init=None, stype=None,
        profiler_scope=None, **kwargs):
    """A variable (a graph input) named `name`, with the attributes inference, the initializer and
    the optimizer read (__shape__, __dtype__, __init__, __lr_mult__, ...). Extra keyword attributes
    must be spelled `__name__`."""
    if not isinstance(name, str):
        raise TypeError("Expect a string for variable `name`, got %s" % type(name).__name__)
    handle = SymbolHandle()
    check_call(_LIB.MXSymbolCreateVariable(c_str(name), ctypes.byref(handle)))
    ret = Symbol(handle)
    attrs = attribute.current().get(attr)
    if shape is not None:
        attrs["__shape__"] = str(tuple(shape)) if isinstance(shape, list) else str(shape)
    if lr_mult is not None:
        attrs["__lr_mult__"] = str(lr_mult)
    if wd_mult is not None:
        attrs["__wd_mult__"] = str(wd_mult)
    if dtype is not None:
        attrs["__dtype__"] = str(_dtype_code(dtype))
    if init is not None:
        attrs["__init__"] = init if isinstance(init, str) else init.dumps()
    if stype is not None:
        if stype not in _STYPE:
            raise ValueError("unknown storage type %r; expected one of %s" % (stype, list(_STYPE)))
        attrs["__storage_type__"] = str(_STYPE[stype])
    if profiler_scope is not None:
        attrs["__profiler_scope__"] = profiler_scope
    for key, value in kwargs.items():
        if not (key.startswith("__") and key.endswith("__")):
            raise ValueError("Attribute name=%s is not supported. Additional attributes must start and end "
                             "with double underscores, e.g, __yourattr__" % key)
        attrs[key] = str(value)
    ret._set_attr(**attrs)
    return ret


Variable = var


def Group(symbols):
    """One symbol whose outputs are the given symbols' outputs, in order (duplicates kept)."""
    symbols = list(symbols) if isinstance(symbols, (list, tuple)) else symbols
    if not symbols or not isinstance(symbols, list) or any(not isinstance(s, Symbol) for s in symbols):
        raise TypeError("Expected a list of symbols as input")
    handle = SymbolHandle()
    check_call(_LIB.MXSymbolCreateGroup(ctypes.c_uint(len(symbols)), c_handle_array(symbols),
                                        ctypes.byref(handle)))
    return Symbol(handle)


def load(fname):
    """Loads a symbol saved with Symbol.save (MXNet symbol JSON)."""
    if not isinstance(fname, str):
        raise TypeError("fname needs to be a string")
    handle = SymbolHandle()
    check_call(_LIB.MXSymbolCreateFromFile(c_str(fname), ctypes.byref(handle)))
    return Symbol(handle)


def load_json(json_str):
    """Makes a symbol from MXNet symbol JSON text."""
    if not isinstance(json_str, str):
        raise TypeError("json_str needs to be a string")
    handle = SymbolHandle()
    check_call(_LIB.MXSymbolCreateFromJSON(c_str(json_str), ctypes.byref(handle)))
    return Symbol(handle)


def pow(base, exp):  # noqa: A001 (1.x name)
    """base ** exp for symbols and/or numbers."""
    return _binary(base, exp, "_Power", "_PowerScalar", "_RPowerScalar", lambda a, b: a ** b)


power = pow


def maximum(left, right):
    """Element-wise maximum of symbols and/or numbers."""
    return _binary(left, right, "_Maximum", "_MaximumScalar", None, lambda a, b: a if a > b else b)


def minimum(left, right):
    """Element-wise minimum of symbols and/or numbers."""
    return _binary(left, right, "_Minimum", "_MinimumScalar", None, lambda a, b: a if a < b else b)


def hypot(left, right):
    """Element-wise sqrt(left**2 + right**2) of symbols and/or numbers."""
    return _binary(left, right, "_Hypot", "_HypotScalar", None, lambda a, b: float(np.hypot(a, b)))


def _creation_dtype(dtype):
    return np.dtype(np.float32 if dtype is None else dtype).name


def zeros(shape, dtype=None, **kwargs):
    """A symbol of zeros of the given shape (op _zeros)."""
    return _op("_zeros", shape=shape, dtype=_creation_dtype(dtype), **kwargs)


def ones(shape, dtype=None, **kwargs):
    """A symbol of ones of the given shape (op _ones)."""
    return _op("_ones", shape=shape, dtype=_creation_dtype(dtype), **kwargs)


def full(shape, val, dtype=None, **kwargs):
    """A symbol filled with `val` (op _full)."""
    return _op("_full", shape=shape, dtype=_creation_dtype(dtype), value=float(val), **kwargs)


def arange(start, stop=None, step=1.0, repeat=1, infer_range=False, name=None, dtype=None):
    """Evenly spaced values in [start, stop), each repeated `repeat` times (op _arange)."""
    return _op("_arange", start=start, stop=stop, step=step, repeat=repeat, infer_range=infer_range,
               name=name, dtype=_creation_dtype(dtype))


def linspace(start, stop, num, endpoint=True, name=None, dtype=None):
    """`num` evenly spaced samples over [start, stop] (op _linspace)."""
    return _op("_linspace", start=start, stop=stop, num=num, endpoint=endpoint, name=name,
               dtype=_creation_dtype(dtype))


def eye(N, M=0, k=0, dtype=None, **kwargs):
    """A 2-D symbol with ones on the k-th diagonal (op _eye)."""
    return _op("_eye", N=N, M=M, k=k, dtype=_creation_dtype(dtype), **kwargs)

