"""SequentialModule: modules chained so each one's outputs are the next one's data."""
import copy
import logging

from ..initializer import Uniform
from ..io import DataBatch, DataDesc
from .base_module import BaseModule

__all__ = ["SequentialModule"]


class SequentialModule(BaseModule):
    """Chains modules added with add(module, take_labels=False, auto_wiring=False).

    take_labels: the module gets the batch's labels (and updates the metric);
    auto_wiring: the previous module's outputs are renamed to this module's data_names.
    """

    META_TAKE_LABELS = "take_labels"
    META_AUTO_WIRING = "auto_wiring"

    def __init__(self, logger=logging):
        super(SequentialModule, self).__init__(logger=logger)
        self._modules = []
        self._metas = []
        self._label_shapes = None
        self._data_shapes = None
        self._meta_keys = {SequentialModule.META_TAKE_LABELS, SequentialModule.META_AUTO_WIRING}

    def add(self, module, **kwargs):
        """Appends a module; returns self so calls can be chained."""
        for key in kwargs:
            if key not in self._meta_keys:
                raise ValueError("Unknown meta \"%s\", a typo?" % key)
        self._modules.append(module)
        self._metas.append(kwargs)
        # the chain must be bound (and initialised) again
        self.binded = False
        self.params_initialized = False
        self.optimizer_initialized = False
        return self

    @property
    def data_names(self):
        return self._modules[0].data_names if self._modules else []

    @property
    def output_names(self):
        return self._modules[-1].output_names if self._modules else []

    @property
    def data_shapes(self):
        self._check_binded()
        return self._modules[0].data_shapes

    @property
    def label_shapes(self):
        self._check_binded()
        return self._label_shapes

    @property
    def output_shapes(self):
        self._check_binded()
        return self._modules[-1].output_shapes

    def _check_binded(self):
        if not self.binded:
            raise RuntimeError("SequentialModule is not bound: call bind() first")

    def get_params(self):
        self._check_ready()
        arg_params, aux_params = {}, {}
        for module in self._modules:
            arg, aux = module.get_params()
            arg_params.update(arg)
            aux_params.update(aux)
        return (arg_params, aux_params)

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None,
                    allow_missing=False, force_init=False, allow_extra=False):
        if self.params_initialized and not force_init:
            return
        self._check_binded()
        for module in self._modules:
            module.init_params(initializer=initializer, arg_params=arg_params,
                               aux_params=aux_params, allow_missing=allow_missing,
                               force_init=force_init, allow_extra=allow_extra)
        # a parameter name in two modules would make get_params ambiguous
        seen = {}
        for i, module in enumerate(self._modules):
            arg, aux = module.get_params()
            for name in list(arg) + list(aux):
                if name in seen:
                    raise ValueError("Duplicated parameter name %s: layer %d (%s) and layer %d "
                                     "(%s)" % (name, seen[name], type(self._modules[seen[name]])
                                               .__name__, i, type(module).__name__))
                seen[name] = i
        self.params_initialized = True

    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req="write"):
        if self.binded and not force_rebind:
            self.logger.warning("Already bound, ignoring bind()")
            return
        if inputs_need_grad and not for_training:
            raise ValueError("inputs_need_grad=True needs for_training=True")
        if shared_module is not None:
            raise ValueError("shared_module is not supported for SequentialModule")
        if not self._modules:
            raise RuntimeError("Attempting to bind an empty SequentialModule")
        self.binded = True
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self._label_shapes = label_shapes
        my_data_shapes = data_shapes
        any_takes_labels = False
        for i, (meta, module) in enumerate(zip(self._metas, self._modules)):
            my_label_shapes = None
            if meta.get(SequentialModule.META_TAKE_LABELS, False):
                my_label_shapes = label_shapes
                any_takes_labels = True
            my_inputs_need_grad = bool(inputs_need_grad or (for_training and i > 0))
            if meta.get(SequentialModule.META_AUTO_WIRING, False):
                names = module.data_names
                if len(names) != len(my_data_shapes):
                    raise ValueError("auto_wiring: %d outputs feed %d data inputs"
                                     % (len(my_data_shapes), len(names)))
                my_data_shapes = [DataDesc(name, tuple(d[1]))
                                  for name, d in zip(names, my_data_shapes)]
            module.bind(data_shapes=my_data_shapes, label_shapes=my_label_shapes,
                        for_training=for_training, inputs_need_grad=my_inputs_need_grad,
                        force_rebind=force_rebind, shared_module=None, grad_req=grad_req)
            my_data_shapes = module.output_shapes
        if not any_takes_labels:
            self._label_shapes = None

    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),), force_init=False):
        self._check_ready()
        if self.optimizer_initialized and not force_init:
            self.logger.warning("optimizer already initialized, ignoring.")
            return
        for module in self._modules:
            module.init_optimizer(kvstore=kvstore, optimizer=optimizer,
                                  optimizer_params=optimizer_params, force_init=force_init)
        self.optimizer_initialized = True

    def forward(self, data_batch, is_train=None):
        self._check_ready()
        batch = copy.copy(data_batch)
        for i, module in enumerate(self._modules):
            module.forward(batch, is_train=is_train)
            if i + 1 == len(self._modules):
                break
            outputs = module.get_outputs()
            takes_labels = self._metas[i + 1].get(SequentialModule.META_TAKE_LABELS, False)
            batch = DataBatch(data=outputs,
                              label=data_batch.label if takes_labels else None,
                              pad=getattr(data_batch, "pad", None),
                              index=getattr(data_batch, "index", None),
                              provide_data=[DataDesc(name, tuple(o.shape)) for name, o in
                                            zip(self._modules[i + 1].data_names, outputs)],
                              provide_label=getattr(data_batch, "provide_label", None)
                              if takes_labels else None)

    def backward(self, out_grads=None):
        self._check_ready()
        for i, module in reversed(list(zip(range(len(self._modules)), self._modules))):
            module.backward(out_grads=out_grads)
            if i == 0:
                break
            out_grads = module.get_input_grads()

    def update(self):
        self._check_ready()
        for module in self._modules:
            module.update()

    def get_outputs(self, merge_multi_context=True):
        self._check_ready()
        return self._modules[-1].get_outputs(merge_multi_context=merge_multi_context)

    def get_input_grads(self, merge_multi_context=True):
        self._check_ready()
        if not self.inputs_need_grad:
            raise RuntimeError("bind with inputs_need_grad=True to get input gradients")
        return self._modules[0].get_input_grads(merge_multi_context=merge_multi_context)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        self._check_ready()
        for meta, module in zip(self._metas, self._modules):
            if meta.get(SequentialModule.META_TAKE_LABELS, False):
                module.update_metric(eval_metric, labels, pre_sliced)

    def install_monitor(self, mon):
        self._check_binded()
        for module in self._modules:
            module.install_monitor(mon)

    @property
    def symbol(self):
        return self._modules[-1].symbol if self._modules else None
