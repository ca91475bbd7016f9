"""The 1.x hand-written conveniences, as one dispatch table onto registered ops.

Array-array calls use the broadcast_* op; array-scalar calls the _*_scalar op (reversed
`_r*_scalar` when the scalar is on the left); scalar-scalar calls Python's operator.
"""
import numbers
import operator as _pyop

import numpy as np

from .ndarray import CSRHandleError, NDArray, _op, array
from .register import EncodedParams, _op_handle, imperative_invoke
from .._fast import module as _FAST

_NO_PARAMS = EncodedParams([], [])

# name: (broadcast op, scalar op, reversed scalar op or None if commutative, python fn)
_TABLE = {
    "add": ("broadcast_add", "_plus_scalar", None, _pyop.add),
    "subtract": ("broadcast_sub", "_minus_scalar", "_rminus_scalar", _pyop.sub),
    "multiply": ("broadcast_mul", "_mul_scalar", None, _pyop.mul),
    "divide": ("broadcast_div", "_div_scalar", "_rdiv_scalar", _pyop.truediv),
    "modulo": ("broadcast_mod", "_mod_scalar", "_rmod_scalar", _pyop.mod),
    "power": ("broadcast_power", "_power_scalar", "_rpower_scalar", _pyop.pow),
    "maximum": ("broadcast_maximum", "_maximum_scalar", None, max),
    "minimum": ("broadcast_minimum", "_minimum_scalar", None, min),
    "equal": ("broadcast_equal", "_equal_scalar", None, lambda a, b: float(a == b)),
    "not_equal": ("broadcast_not_equal", "_not_equal_scalar", None, lambda a, b: float(a != b)),
    "greater": ("broadcast_greater", "_greater_scalar", "_lesser_scalar", lambda a, b: float(a > b)),
    "greater_equal": ("broadcast_greater_equal", "_greater_equal_scalar", "_lesser_equal_scalar",
                      lambda a, b: float(a >= b)),
    "lesser": ("broadcast_lesser", "_lesser_scalar", "_greater_scalar", lambda a, b: float(a < b)),
    "lesser_equal": ("broadcast_lesser_equal", "_lesser_equal_scalar", "_greater_equal_scalar",
                     lambda a, b: float(a <= b)),
    "logical_and": ("broadcast_logical_and", "_logical_and_scalar", None, lambda a, b: float(a and b)),
    "logical_or": ("broadcast_logical_or", "_logical_or_scalar", None, lambda a, b: float(a or b)),
    "logical_xor": ("broadcast_logical_xor", "_logical_xor_scalar", None, lambda a, b: float(bool(a) != bool(b))),
}


def _is_scalar(x):
    if type(x) in (float, int):  # the common case, without the slower ABC check
        return True
    return isinstance(x, (numbers.Number, np.generic)) and not isinstance(x, np.ndarray)


_SCALARS = {}  # scalar text -> its encoded parameter; loops repeat the same few constants


def _scalar_param(value):
    text = str(float(value))
    encoded = _SCALARS.get(text)
    if encoded is None:
        if len(_SCALARS) >= 1024:
            _SCALARS.clear()
        encoded = _SCALARS[text] = EncodedParams(["scalar"], [text])
    return encoded


def dispatch(name, lhs, rhs, out=None):
    bcast, scalar, rscalar, pyfn = _TABLE[name]
    if isinstance(lhs, np.ndarray):
        lhs = array(lhs)
    if isinstance(rhs, np.ndarray):
        rhs = array(rhs)
    # Straight to the op (handle and parameters encoded here): the generic keyword path costs
    # more than the C call for small arrays.
    if isinstance(lhs, NDArray) and isinstance(rhs, NDArray):
        return imperative_invoke(_op_handle(bcast), [lhs, rhs], _NO_PARAMS, None, out)
    if isinstance(lhs, NDArray) and _is_scalar(rhs):
        return imperative_invoke(_op_handle(scalar), [lhs], _scalar_param(rhs), None, out)
    if _is_scalar(lhs) and isinstance(rhs, NDArray):
        return imperative_invoke(_op_handle(rscalar or scalar), [rhs], _scalar_param(lhs), None, out)
    if _is_scalar(lhs) and _is_scalar(rhs):
        return pyfn(lhs, rhs)
    raise TypeError("%s: unsupported operand types %s and %s" % (name, type(lhs).__name__, type(rhs).__name__))


def _make(name):
    def fn(lhs, rhs, out=None):
        return dispatch(name, lhs, rhs, out)
    fn.__name__ = name
    fn.__doc__ = "Element-wise %s of arrays and/or scalars, with broadcasting (MXNet 1.x nd.%s)." % (name, name)
    return fn


FUNCTIONS = {name: _make(name) for name in _TABLE}
FUNCTIONS["true_divide"] = FUNCTIONS["divide"]


def _handles(name):
    """The three ops of a table entry as handles, for the compiled path."""
    bcast, scalar, rscalar, _ = _TABLE[name]
    return _op_handle(bcast), _op_handle(scalar), _op_handle(rscalar) if rscalar else None


def _binary(name, reflected=False):
    if reflected:
        python_path = lambda self, other: dispatch(name, other, self)  # noqa: E731
    else:
        python_path = lambda self, other: dispatch(name, self, other)  # noqa: E731
    if _FAST is None:
        return python_path
    # Array-array and array-int/float calls go through one C call; the rest (numpy arrays,
    # numpy scalars, CSR operands) take the Python dispatch.
    return _FAST.BinaryMethod(*_handles(name), reflected, python_path, CSRHandleError, name)


def _inplace(name):
    def fn(self, other):
        if not self.writable:
            raise ValueError("trying to modify a read-only NDArray")
        return dispatch(name, self, other, out=self)
    return fn


def install(cls):
    """Adds the Python operators to NDArray."""
    for dunder, name in (("add", "add"), ("sub", "subtract"), ("mul", "multiply"), ("truediv", "divide"),
                         ("div", "divide"), ("mod", "modulo"), ("pow", "power")):
        setattr(cls, "__%s__" % dunder, _binary(name))
        setattr(cls, "__r%s__" % dunder, _binary(name, reflected=True))
        setattr(cls, "__i%s__" % dunder, _inplace(name))
    for dunder, name in (("eq", "equal"), ("ne", "not_equal"), ("gt", "greater"), ("ge", "greater_equal"),
                         ("lt", "lesser"), ("le", "lesser_equal")):
        setattr(cls, "__%s__" % dunder, _binary(name))
    cls.__neg__ = lambda self: _op("negative", self)
    cls.__pos__ = lambda self: self
    cls.__abs__ = lambda self: _op("abs", self)
    cls.__hash__ = lambda self: id(self) // 16
