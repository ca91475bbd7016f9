"""Modules written in Python: PythonModule (no parameters) and PythonLossModule (a loss whose
gradient is a Python function), for chaining after symbolic modules in a SequentialModule."""
import logging
import warnings

from .. import ndarray as nd
from ..initializer import Uniform
from .base_module import BaseModule, _parse_data_desc

__all__ = ["PythonModule", "PythonLossModule"]


class PythonModule(BaseModule):
    """A parameter-free module; subclasses implement forward, backward, get_outputs,
    get_input_grads and _compute_output_shapes."""

    def __init__(self, data_names, label_names, output_names, logger=logging):
        super(PythonModule, self).__init__(logger=logger)
        self._data_names = list(data_names) if data_names is not None else []
        self._label_names = list(label_names) if label_names is not None else []
        self._output_names = list(output_names) if output_names is not None else []
        self._data_shapes = None
        self._label_shapes = None
        self._output_shapes = None

    @property
    def data_names(self):
        return self._data_names

    @property
    def output_names(self):
        return self._output_names

    @property
    def data_shapes(self):
        return self._data_shapes

    @property
    def label_shapes(self):
        return self._label_shapes

    @property
    def output_shapes(self):
        return self._output_shapes

    def get_params(self):
        return (dict(), dict())

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None,
                    allow_missing=False, force_init=False, allow_extra=False):
        self.params_initialized = True

    def update(self):
        """No parameters, nothing to update."""

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        if self._label_shapes is None:
            return  # no labels: a module in the middle of a chain
        if pre_sliced:
            raise RuntimeError("PythonModule does not support pre-sliced labels")
        eval_metric.update(labels, self.get_outputs())

    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req="write"):
        if self.binded and not force_rebind:
            self.logger.warning("Already bound, ignoring bind()")
            return
        if grad_req != "write":
            raise ValueError("PythonModule supports grad_req='write' only")
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self._data_shapes, self._label_shapes = _parse_data_desc(
            self._data_names, self._label_names, data_shapes, label_shapes)
        self._output_shapes = self._compute_output_shapes()
        self.binded = True

    def _compute_output_shapes(self):
        """[(output name, shape)] from self._data_shapes / self._label_shapes."""
        raise NotImplementedError()

    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),), force_init=False):
        self.optimizer_initialized = True

    def install_monitor(self, mon):
        warnings.warn("PythonModule has no executors to monitor")


class PythonLossModule(PythonModule):
    """A loss: passes its input through as the output; backward calls
    grad_func(scores, labels) for the gradient w.r.t. the input."""

    def __init__(self, name="pyloss", data_names=("data",), label_names=("softmax_label",),
                 logger=logging, grad_func=None):
        super(PythonLossModule, self).__init__(data_names, label_names, [name + "_output"],
                                               logger=logger)
        self._name = name
        if len(self._data_names) != 1 or len(self._label_names) != 1:
            raise ValueError("PythonLossModule takes one data and one label input")
        self._scores = None
        self._labels = None
        self._scores_grad = None
        if grad_func is not None and not callable(grad_func):
            raise TypeError("grad_func must be callable")
        self._grad_func = grad_func

    def _compute_output_shapes(self):
        return [(self._name + "_output", self._data_shapes[0][1])]

    def forward(self, data_batch, is_train=None):
        self._scores = data_batch.data[0]
        if is_train is None:
            is_train = self.for_training
        if is_train:
            self._labels = data_batch.label[0]

    def get_outputs(self, merge_multi_context=True):
        return [self._scores]

    def backward(self, out_grads=None):
        if out_grads is not None:
            raise ValueError("For a loss module, out_grads should be None")
        if not self.for_training:
            raise RuntimeError("bind with for_training=True to run backward")
        self._backward_impl()

    def _backward_impl(self):
        """Computes self._scores_grad; by default from grad_func."""
        if self._grad_func is None:
            raise NotImplementedError("PythonLossModule needs grad_func (or override "
                                      "_backward_impl)")
        grad = self._grad_func(self._scores, self._labels)
        if not isinstance(grad, nd.NDArray):
            grad = nd.array(grad)
        self._scores_grad = grad

    def get_input_grads(self, merge_multi_context=True):
        if not self.inputs_need_grad:
            raise RuntimeError("bind with inputs_need_grad=True to get input gradients")
        return [self._scores_grad]

    def install_monitor(self, mon):
        raise NotImplementedError("PythonLossModule cannot be monitored")
