"""BucketingModule: one Module per bucket key (e.g. sequence length), all sharing parameters.

sym_gen(bucket_key) returns (symbol, data_names, label_names). The default bucket's module is
bound first; every other bucket binds with shared_module = that module, so they read and
update the same parameter arrays and share one optimizer.
"""
import logging

from ..context import cpu
from ..initializer import Uniform
from ..io import DataDesc
from ..model import load_checkpoint
from .base_module import BaseModule
from .module import Module

__all__ = ["BucketingModule"]


class BucketingModule(BaseModule):
    """A module whose symbol depends on each batch's bucket_key."""

    def __init__(self, sym_gen, default_bucket_key=None, logger=logging, context=cpu(),
                 work_load_list=None, fixed_param_names=None, state_names=None,
                 group2ctxs=None, compression_params=None):
        super(BucketingModule, self).__init__(logger=logger)
        if default_bucket_key is None:
            raise ValueError("default_bucket_key is required")
        self._default_bucket_key = default_bucket_key
        self._sym_gen = sym_gen
        symbol, data_names, label_names = self._call_sym_gen(default_bucket_key)
        self._data_names = list(data_names or [])
        self._label_names = list(label_names or [])
        self._state_names = list(state_names or [])
        self._fixed_param_names = list(fixed_param_names or [])
        self._context = context
        self._work_load_list = work_load_list
        self._group2ctxs = group2ctxs
        self._compression_params = compression_params
        self._symbol = symbol
        self._buckets = {}
        self._curr_module = None
        self._curr_bucket_key = None
        self._params_dirty = False
        self._monitor = None
        self._grad_req = None
        self._pending_params = None

    def _call_sym_gen(self, key):
        out = self._sym_gen(key)
        if not isinstance(out, (list, tuple)) or len(out) != 3:
            raise ValueError("sym_gen(%r) must return (symbol, data_names, label_names)" % (key,))
        return out

    def _new_module(self, symbol, data_names, label_names):
        return Module(symbol, data_names, label_names, logger=self.logger,
                      context=self._context, work_load_list=self._work_load_list,
                      fixed_param_names=self._fixed_param_names,
                      state_names=self._state_names, group2ctxs=self._group2ctxs,
                      compression_params=self._compression_params)

    def _reset_bind(self):
        self.binded = False
        self._buckets = {}
        self._curr_module = None
        self._curr_bucket_key = None

    # ---- properties -------------------------------------------------------------------------
    @property
    def data_names(self):
        if self.binded:
            return self._curr_module.data_names
        return self._data_names

    @property
    def output_names(self):
        if self.binded:
            return self._curr_module.output_names
        return self._symbol.list_outputs()

    @property
    def data_shapes(self):
        self._check_binded()
        return self._curr_module.data_shapes

    @property
    def label_shapes(self):
        self._check_binded()
        return self._curr_module.label_shapes

    @property
    def output_shapes(self):
        self._check_binded()
        return self._curr_module.output_shapes

    @property
    def symbol(self):
        """The current bucket's symbol."""
        self._check_binded()
        return self._curr_module.symbol

    def _check_binded(self):
        if not self.binded:
            raise RuntimeError("BucketingModule is not bound: call bind() first")

    # ---- parameters -------------------------------------------------------------------------
    def get_params(self):
        self._check_ready()
        self._curr_module._params_dirty = self._params_dirty
        params = self._curr_module.get_params()
        self._params_dirty = False
        return params

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None,
                    allow_missing=False, force_init=False, allow_extra=False):
        if self.params_initialized and not force_init:
            return
        self._check_binded()
        self._curr_module.init_params(initializer=initializer, arg_params=arg_params,
                                      aux_params=aux_params, allow_missing=allow_missing,
                                      force_init=force_init, allow_extra=allow_extra)
        self._params_dirty = False
        self.params_initialized = True

    def set_params(self, arg_params, aux_params, allow_missing=False, force_init=True,
                   allow_extra=False):
        if self._set_params_handled(arg_params, aux_params, allow_missing, force_init, allow_extra):
            return
        self._curr_module.set_params(arg_params, aux_params, allow_missing=allow_missing,
                                     force_init=force_init, allow_extra=allow_extra)
        self._params_dirty = True
        self.params_initialized = True

    def get_states(self, merge_multi_context=True):
        self._check_ready()
        return self._curr_module.get_states(merge_multi_context=merge_multi_context)

    def set_states(self, states=None, value=None):
        self._check_ready()
        self._curr_module.set_states(states, value)

    # ---- binding ----------------------------------------------------------------------------
    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req="write"):
        """Binds the default bucket's module."""
        if self.params_initialized:
            if self._pending_params is not None:  # from load()
                arg_params, aux_params = self._pending_params
                self._pending_params = None
            else:
                arg_params, aux_params = self.get_params()
        if force_rebind:
            self._reset_bind()
        if self.binded:
            self.logger.warning("Already bound, ignoring bind()")
            return
        if shared_module is not None:
            raise ValueError("shared_module for BucketingModule is not supported")
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self._grad_req = grad_req
        self.binded = True

        symbol, data_names, label_names = self._call_sym_gen(self._default_bucket_key)
        module = self._new_module(symbol, data_names, label_names)
        module.bind(data_shapes, label_shapes, for_training, inputs_need_grad,
                    force_rebind=False, shared_module=None, grad_req=grad_req)
        self._curr_module = module
        self._curr_bucket_key = self._default_bucket_key
        self._buckets[self._default_bucket_key] = module
        if self.params_initialized:
            self.set_params(arg_params, aux_params)

    def switch_bucket(self, bucket_key, data_shapes, label_shapes=None):
        """Makes bucket_key current, binding its module (sharing the default's) when new."""
        self._check_binded()
        if bucket_key not in self._buckets:
            symbol, data_names, label_names = self._call_sym_gen(bucket_key)
            module = self._new_module(symbol, data_names, label_names)
            module.bind(data_shapes, label_shapes, self._curr_module.for_training,
                        self._curr_module.inputs_need_grad, force_rebind=False,
                        shared_module=self._buckets[self._default_bucket_key],
                        grad_req=self._grad_req)
            if self._monitor is not None:
                module.install_monitor(self._monitor)
            self._buckets[bucket_key] = module
        self._curr_module = self._buckets[bucket_key]
        self._curr_bucket_key = bucket_key
        if self.optimizer_initialized and not self._curr_module.optimizer_initialized:
            self._curr_module.borrow_optimizer(self._buckets[self._default_bucket_key])

    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),), force_init=False):
        self._check_ready()
        if self.optimizer_initialized and not force_init:
            self.logger.warning("optimizer already initialized, ignoring.")
            return
        self._curr_module.init_optimizer(kvstore, optimizer, optimizer_params,
                                         force_init=force_init)
        for mod in self._buckets.values():
            if mod is not self._curr_module:
                mod.borrow_optimizer(self._curr_module)
        self.optimizer_initialized = True

    def _batch_shapes(self, data_batch):
        """(data_shapes, label_shapes) of a batch: its provide_* or its arrays' shapes."""
        data_shapes = getattr(data_batch, "provide_data", None)
        if not data_shapes:
            data_shapes = [DataDesc(n, tuple(a.shape), a.dtype) for n, a in
                           zip(self._buckets[self._default_bucket_key].data_names,
                               data_batch.data)]
        label_shapes = getattr(data_batch, "provide_label", None)
        if not label_shapes and getattr(data_batch, "label", None):
            label_shapes = [DataDesc(n, tuple(a.shape), a.dtype) for n, a in
                            zip(self._buckets[self._default_bucket_key].label_names,
                                data_batch.label)]
        return data_shapes, label_shapes or None

    # ---- computation ------------------------------------------------------------------------
    def prepare(self, data_batch, sparse_row_id_fn=None):
        self._check_ready()
        key = getattr(data_batch, "bucket_key", None)
        if key is None:
            key = self._default_bucket_key
        original = self._curr_bucket_key
        self.switch_bucket(key, *self._batch_shapes(data_batch))
        self._curr_module.prepare(data_batch, sparse_row_id_fn=sparse_row_id_fn)
        self.switch_bucket(original, None, None)

    def forward(self, data_batch, is_train=None):
        """Switches to the batch's bucket (bucket_key; the default when None), then forward."""
        self._check_ready()
        key = getattr(data_batch, "bucket_key", None)
        if key is None:
            key = self._default_bucket_key
        self.switch_bucket(key, *self._batch_shapes(data_batch))
        self._curr_module.forward(data_batch, is_train=is_train)

    def backward(self, out_grads=None):
        self._check_ready()
        self._curr_module.backward(out_grads=out_grads)

    def update(self):
        self._check_ready()
        if not self.optimizer_initialized:
            raise RuntimeError("init_optimizer before update")
        self._params_dirty = True
        self._curr_module.update()

    def get_outputs(self, merge_multi_context=True):
        self._check_ready()
        return self._curr_module.get_outputs(merge_multi_context=merge_multi_context)

    def get_input_grads(self, merge_multi_context=True):
        self._check_ready()
        if not self.inputs_need_grad:
            raise RuntimeError("bind with inputs_need_grad=True to get input gradients")
        return self._curr_module.get_input_grads(merge_multi_context=merge_multi_context)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        self._check_ready()
        self._curr_module.update_metric(eval_metric, labels, pre_sliced)

    def install_monitor(self, mon):
        self._check_binded()
        self._monitor = mon
        for mod in self._buckets.values():
            mod.install_monitor(mon)

    # ---- checkpoints ------------------------------------------------------------------------
    def save_checkpoint(self, prefix, epoch, remove_amp_cast=False):
        """The default bucket's symbol and the shared parameters as a checkpoint."""
        from ..model import save_checkpoint
        self._check_binded()
        arg_params, aux_params = self.get_params()
        save_checkpoint(prefix, epoch, self._buckets[self._default_bucket_key].symbol,
                        arg_params, aux_params, remove_amp_cast=remove_amp_cast)

    @staticmethod
    def load(prefix, epoch, sym_gen=None, default_bucket_key=None, **kwargs):
        """A BucketingModule with the checkpoint's parameters preset (bind to use it)."""
        if sym_gen is None or default_bucket_key is None:
            raise ValueError("sym_gen and default_bucket_key are required")
        _, args, auxs = load_checkpoint(prefix, epoch)
        mod = BucketingModule(sym_gen=sym_gen, default_bucket_key=default_bucket_key, **kwargs)
        mod._pending_params = (args, auxs)
        mod.params_initialized = True
        return mod
