"""Operators written in Python (mx.operator): CustomOp, CustomOpProp, register, nd.Custom.

A CustomOpProp describes the operator (argument/output/aux names, shape and type inference)
and creates the CustomOp that computes it. `mx.nd.Custom(*inputs, op_type=name, **kwargs)`
builds the prop from the registered class (keyword values passed as strings, as MXNet does),
infers the outputs, runs CustomOp.forward, and, when autograd is recording, records the call
so that backward runs CustomOp.backward. The Python code runs in the calling thread; the
NDArray operations it issues go through the engine like any others.
"""
import numpy as np

from . import autograd
from . import ndarray as nd

__all__ = ["CustomOp", "CustomOpProp", "register", "get_all_registered_operators", "Custom"]

_REGISTRY = {}


class CustomOp(object):
    """The computation of a custom operator: override forward and backward."""

    def forward(self, is_train, req, in_data, out_data, aux):
        """Writes out_data from in_data (use self.assign to honour req)."""
        raise NotImplementedError("%s must define forward()" % self.__class__.__name__)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        """Writes in_grad from out_grad (use self.assign to honour req)."""
        raise NotImplementedError("%s must define backward()" % self.__class__.__name__)

    @staticmethod
    def assign(dst, req, src):
        """Stores src into dst as req says: 'null' skips, 'write'/'inplace' copy, 'add' adds."""
        if req == "null":
            return
        if req in ("write", "inplace"):
            dst[:] = src
        elif req == "add":
            dst[:] = dst + src
        else:
            raise ValueError("unknown req %r (expected null, write, inplace or add)" % (req,))


class CustomOpProp(object):
    """Properties of a custom operator. need_top_grad: whether backward uses out_grad."""

    def __init__(self, need_top_grad=True):
        self.need_top_grad_ = need_top_grad

    def infer_shape(self, in_shape):
        """(input shapes, output shapes, aux shapes); by default every output is shaped like
        the first input."""
        return in_shape, (in_shape[0],) * len(self.list_outputs()), ()

    def infer_type(self, in_type):
        """(input, output, aux dtypes); by default all take the first input's dtype."""
        return (in_type, [in_type[0]] * len(self.list_outputs()),
                [in_type[0]] * len(self.list_auxiliary_states()))

    def infer_storage_type(self, in_stype):
        return (in_stype, ["default"] * len(self.list_outputs()),
                ["default"] * len(self.list_auxiliary_states()))

    def list_outputs(self):
        return ["output"]

    def list_arguments(self):
        return ["data"]

    def list_auxiliary_states(self):
        return []

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        deps = []
        if self.need_top_grad_:
            deps.extend(out_grad)
        deps.extend(in_data)
        deps.extend(out_data)
        return deps

    def create_operator(self, ctx, in_shapes, in_dtypes):
        """The CustomOp instance that computes this operator."""
        raise NotImplementedError("%s must define create_operator()" % self.__class__.__name__)


def register(reg_name):
    """Class decorator registering a CustomOpProp subclass under `reg_name` (the op_type)."""
    def do_register(prop_cls):
        if not (isinstance(prop_cls, type) and issubclass(prop_cls, CustomOpProp)):
            raise TypeError("register expects a CustomOpProp subclass, got %r" % (prop_cls,))
        _REGISTRY[reg_name] = prop_cls
        return prop_cls
    return do_register


def get_all_registered_operators():
    """Names of the registered custom operators."""
    return sorted(_REGISTRY)


class _CustomCall(autograd.Function):
    """One invocation of a custom operator, recorded for autograd like a Function."""

    def __init__(self, op, prop, aux, out_shapes, out_dtypes, ctx):
        super(_CustomCall, self).__init__()
        self._op, self._prop, self._aux = op, prop, aux
        self._out_shapes, self._out_dtypes, self._ctx = out_shapes, out_dtypes, ctx
        self._in = self._outs = None

    def forward(self, *inputs):
        outs = [nd.zeros(s, ctx=self._ctx, dtype=t) for s, t in zip(self._out_shapes, self._out_dtypes)]
        self._op.forward(is_train=autograd.is_training(), req=["write"] * len(outs),
                         in_data=list(inputs), out_data=outs, aux=self._aux)
        self._in, self._outs = list(inputs), outs
        return outs[0] if len(outs) == 1 else tuple(outs)

    def backward(self, *out_grads):
        in_grads = [nd.zeros(x.shape, ctx=x.context, dtype=x.dtype) for x in self._in]
        self._op.backward(req=["write"] * len(in_grads), out_grad=list(out_grads),
                          in_data=self._in, out_data=self._outs, in_grad=in_grads, aux=self._aux)
        return in_grads[0] if len(in_grads) == 1 else tuple(in_grads)


def Custom(*inputs, **kwargs):  # pylint: disable=invalid-name
    """Runs the custom operator registered as op_type on the inputs (arguments, then
    auxiliary states); other keyword arguments go to its CustomOpProp as strings."""
    op_type = kwargs.pop("op_type", None)
    kwargs.pop("name", None)
    out = kwargs.pop("out", None)
    if op_type is None:
        raise ValueError("Custom needs op_type=<name given to mx.operator.register>")
    if op_type not in _REGISTRY:
        raise ValueError("Cannot find custom operator '%s'; registered: %s"
                         % (op_type, ", ".join(get_all_registered_operators()) or "none"))
    prop = _REGISTRY[op_type](**{k: str(v) for k, v in kwargs.items()})
    n_args = len(prop.list_arguments())
    n_aux = len(prop.list_auxiliary_states())
    if len(inputs) != n_args + n_aux:
        raise ValueError("Custom operator '%s' takes %d inputs (%s) and %d auxiliary states, got "
                         "%d arrays" % (op_type, n_args, ", ".join(prop.list_arguments()), n_aux,
                                        len(inputs)))
    args, aux = list(inputs[:n_args]), list(inputs[n_args:])
    for a in inputs:
        if not isinstance(a, nd.NDArray):
            raise TypeError("Custom operator '%s': inputs must be NDArrays, got %s"
                            % (op_type, type(a).__name__))
    in_shapes = [tuple(a.shape) for a in args]
    _, out_shapes, _ = prop.infer_shape([list(s) for s in in_shapes])
    _, out_dtypes, _ = prop.infer_type([np.dtype(a.dtype).type for a in args])
    out_shapes = [tuple(int(d) for d in s) for s in out_shapes]
    if len(out_shapes) != len(prop.list_outputs()):
        raise ValueError("Custom operator '%s': infer_shape gave %d output shapes for outputs %s"
                         % (op_type, len(out_shapes), prop.list_outputs()))
    ctx = args[0].context if args else None
    op = prop.create_operator(ctx, in_shapes, [np.dtype(a.dtype).type for a in args])
    result = _CustomCall(op, prop, aux, out_shapes, out_dtypes, ctx)(*args)
    if out is not None:
        results = result if isinstance(result, tuple) else (result,)
        targets = out if isinstance(out, (list, tuple)) else [out]
        for dst, src in zip(targets, results):
            dst[:] = src
        return out
    return result


nd.Custom = Custom
