"""BaseModule: the training loop, evaluation and prediction shared by every module.

A module is a computation (usually a Symbol) with parameters, bound to input shapes and
contexts. Subclasses provide bind / init_params / init_optimizer / forward / backward /
update / get_outputs / update_metric and the shape properties; everything here is written in
terms of those calls.
"""
import logging
import time
import warnings

import numpy as np

from .. import metric
from .. import ndarray as nd
from ..context import cpu
from ..initializer import Uniform
from ..io import DataDesc
from ..model import BatchEndParam, _multiple_callbacks

__all__ = ["BaseModule"]


def _as_list(obj):
    if obj is None:
        return []
    return list(obj) if isinstance(obj, (list, tuple)) else [obj]


def _check_input_names(symbol, names, typename, throw):
    """Complains (ValueError or a warning) about input names the symbol does not have."""
    args = symbol.list_arguments()
    for name in names:
        if name in args:
            continue
        candidates = [a for a in args if not a.endswith(("_weight", "_bias", "_gamma", "_beta"))]
        msg = ("Module(..., %s_names=%s): input '%s' is not an argument of the symbol. "
               "Inputs that it does have: %s" % (typename, list(names), name,
                                                 ", ".join(candidates)))
        if throw:
            raise ValueError(msg)
        warnings.warn(msg)


def _check_names_match(names, shapes, typename, throw):
    """Complains when the names of the given shapes are not exactly `names`."""
    actual = [x[0] for x in shapes]
    if sorted(names) != sorted(actual):
        msg = ("Data provided by %s_shapes don't match names specified by %s_names (%s vs. %s)"
               % (typename, typename, list(actual), list(names)))
        if throw:
            raise ValueError(msg)
        warnings.warn(msg)


def _parse_data_desc(data_names, label_names, data_shapes, label_shapes):
    """DataDesc lists from (name, shape) pairs or DataDescs, checked against the names."""
    data_shapes = [x if isinstance(x, DataDesc) else DataDesc(*x) for x in data_shapes]
    _check_names_match(data_names, data_shapes, "data", True)
    if label_shapes is not None:
        label_shapes = [x if isinstance(x, DataDesc) else DataDesc(*x) for x in label_shapes]
        _check_names_match(label_names, label_shapes, "label", False)
    else:
        _check_names_match(label_names, [], "label", False)
    return data_shapes, label_shapes


class BaseModule(object):
    """The interface of modules and the loops (fit, score, predict) built on it."""

    def __init__(self, logger=logging):
        self.logger = logger
        self.binded = False
        self.for_training = False
        self.inputs_need_grad = False
        self.params_initialized = False
        self.optimizer_initialized = False
        self._symbol = None
        self._total_exec_bytes = 0

    # ---- high-level loops --------------------------------------------------------------------
    def forward_backward(self, data_batch):
        """forward(is_train=True) then backward()."""
        self.forward(data_batch, is_train=True)
        self.backward()

    def score(self, eval_data, eval_metric, num_batch=None, batch_end_callback=None,
              score_end_callback=None, reset=True, epoch=0, sparse_row_id_fn=None):
        """Runs eval_data through the module and returns eval_metric's (name, value) pairs."""
        self._check_ready()
        if reset:
            eval_data.reset()
        if not isinstance(eval_metric, metric.EvalMetric):
            eval_metric = metric.create(eval_metric)
        eval_metric.reset()
        actual_num_batch = 0
        for nbatch, eval_batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.prepare(eval_batch, sparse_row_id_fn=sparse_row_id_fn)
            self.forward(eval_batch, is_train=False)
            if isinstance(eval_batch, list):
                self.update_metric(eval_metric, [eb.label for eb in eval_batch], pre_sliced=True)
            else:
                self.update_metric(eval_metric, eval_batch.label)
            if batch_end_callback is not None:
                _multiple_callbacks(batch_end_callback,
                                    BatchEndParam(epoch=epoch, nbatch=nbatch,
                                                  eval_metric=eval_metric, locals=locals()))
            actual_num_batch += 1
        if score_end_callback:
            _multiple_callbacks(score_end_callback,
                                BatchEndParam(epoch=epoch, nbatch=actual_num_batch,
                                              eval_metric=eval_metric, locals=locals()))
        return eval_metric.get_name_value()

    def _unpadded_outputs(self, batch):
        pad = getattr(batch, "pad", None) or 0
        outs = self.get_outputs()
        return [o[0:o.shape[0] - pad] if pad else o for o in outs]

    def iter_predict(self, eval_data, num_batch=None, reset=True, sparse_row_id_fn=None):
        """Yields (outputs, nbatch, batch) per batch; padding rows are removed from outputs.

        The outputs are the module's output buffers: the next batch overwrites them.
        """
        self._check_ready()
        if reset:
            eval_data.reset()
        for nbatch, eval_batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.prepare(eval_batch, sparse_row_id_fn=sparse_row_id_fn)
            self.forward(eval_batch, is_train=False)
            yield (self._unpadded_outputs(eval_batch), nbatch, eval_batch)

    def predict(self, eval_data, num_batch=None, merge_batches=True, reset=True,
                always_output_list=False, sparse_row_id_fn=None):
        """Outputs over eval_data (an iterator, or an NDArray / numpy array of data).

        merge_batches concatenates the batches; with one output the array itself is returned
        unless always_output_list.
        """
        self._check_ready()
        if isinstance(eval_data, (nd.NDArray, np.ndarray)):
            if isinstance(eval_data, np.ndarray):
                eval_data = nd.array(eval_data)
            self.forward(_SimpleBatch([eval_data]), is_train=False)
            outs = [o.copy() for o in self.get_outputs()]
            return outs[0] if len(outs) == 1 and not always_output_list else outs
        if reset:
            eval_data.reset()
        output_list = []
        for nbatch, eval_batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.prepare(eval_batch, sparse_row_id_fn=sparse_row_id_fn)
            self.forward(eval_batch, is_train=False)
            output_list.append([o.copy() for o in self._unpadded_outputs(eval_batch)])
        if not output_list:
            return output_list
        if not merge_batches:
            return output_list
        num_outputs = len(output_list[0])
        for outs in output_list:
            if len(outs) != num_outputs:
                raise ValueError("Cannot merge batches: the number of outputs differs between "
                                 "batches (bucketing?); use merge_batches=False")
        merged = [nd.concat(*[outs[i] for outs in output_list], dim=0)
                  if len(output_list) > 1 else output_list[0][i] for i in range(num_outputs)]
        if num_outputs == 1 and not always_output_list:
            return merged[0]
        return merged

    def fit(self, train_data, eval_data=None, eval_metric="acc", epoch_end_callback=None,
            batch_end_callback=None, kvstore="local", optimizer="sgd",
            optimizer_params=(("learning_rate", 0.01),), eval_end_callback=None,
            eval_batch_end_callback=None, initializer=Uniform(0.01), arg_params=None,
            aux_params=None, allow_missing=False, force_rebind=False, force_init=False,
            begin_epoch=0, num_epoch=None, validation_metric=None, monitor=None,
            sparse_row_id_fn=None):
        """Trains on train_data for epochs [begin_epoch, num_epoch)."""
        if num_epoch is None:
            raise ValueError("please specify number of epochs (num_epoch)")
        self.bind(data_shapes=train_data.provide_data, label_shapes=train_data.provide_label,
                  for_training=True, force_rebind=force_rebind)
        if monitor is not None:
            self.install_monitor(monitor)
        self.init_params(initializer=initializer, arg_params=arg_params, aux_params=aux_params,
                         allow_missing=allow_missing, force_init=force_init)
        self.init_optimizer(kvstore=kvstore, optimizer=optimizer,
                            optimizer_params=optimizer_params)
        if validation_metric is None:
            validation_metric = eval_metric
        if not isinstance(eval_metric, metric.EvalMetric):
            eval_metric = metric.create(eval_metric)

        for epoch in range(begin_epoch, num_epoch):
            tic = time.time()
            eval_metric.reset()
            nbatch = 0
            data_iter = iter(train_data)
            end_of_batch = False
            try:
                next_data_batch = next(data_iter)
            except StopIteration:
                end_of_batch = True
            eval_name_vals = []
            while not end_of_batch:
                data_batch = next_data_batch
                if monitor is not None:
                    monitor.tic()
                self.forward_backward(data_batch)
                self.update()
                if isinstance(data_batch, list):
                    self.update_metric(eval_metric, [db.label for db in data_batch],
                                       pre_sliced=True)
                else:
                    self.update_metric(eval_metric, data_batch.label)
                try:
                    next_data_batch = next(data_iter)
                    self.prepare(next_data_batch, sparse_row_id_fn=sparse_row_id_fn)
                except StopIteration:
                    end_of_batch = True
                if monitor is not None:
                    monitor.toc_print()
                if end_of_batch:
                    eval_name_vals = eval_metric.get_global_name_value()
                if batch_end_callback is not None:
                    _multiple_callbacks(batch_end_callback,
                                        BatchEndParam(epoch=epoch, nbatch=nbatch,
                                                      eval_metric=eval_metric, locals=locals()))
                nbatch += 1

            for name, val in eval_name_vals:
                self.logger.info("Epoch[%d] Train-%s=%f", epoch, name, val)
            self.logger.info("Epoch[%d] Time cost=%.3f", epoch, time.time() - tic)

            # pull the trained values off the devices (and make every device agree)
            arg_params, aux_params = self.get_params()
            self.set_params(arg_params, aux_params)

            if epoch_end_callback is not None:
                _multiple_callbacks(epoch_end_callback, epoch, self.symbol, arg_params,
                                    aux_params)
            if eval_data:
                res = self.score(eval_data, validation_metric,
                                 score_end_callback=eval_end_callback,
                                 batch_end_callback=eval_batch_end_callback, epoch=epoch)
                for name, val in res:
                    self.logger.info("Epoch[%d] Validation-%s=%f", epoch, name, val)
            train_data.reset()

    # ---- properties subclasses provide ----------------------------------------------------
    @property
    def data_names(self):
        raise NotImplementedError()

    @property
    def output_names(self):
        raise NotImplementedError()

    @property
    def data_shapes(self):
        raise NotImplementedError()

    @property
    def label_shapes(self):
        raise NotImplementedError()

    @property
    def output_shapes(self):
        raise NotImplementedError()

    @property
    def symbol(self):
        """The symbol this module computes."""
        return self._symbol

    # ---- parameters ------------------------------------------------------------------------
    def get_params(self):
        raise NotImplementedError()

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None,
                    allow_missing=False, force_init=False, allow_extra=False):
        raise NotImplementedError()

    def set_params(self, arg_params, aux_params, allow_missing=False, force_init=True,
                   allow_extra=False):
        """Sets parameters from dicts of arrays (through init_params with no initializer)."""
        self.init_params(initializer=None, arg_params=arg_params, aux_params=aux_params,
                         allow_missing=allow_missing, force_init=force_init,
                         allow_extra=allow_extra)

    def _set_params_handled(self, arg_params, aux_params, allow_missing, force_init, allow_extra):
        """The common start of a module's set_params: without allow_missing it is init_params,
        and already initialised parameters stay unless force_init. True when nothing is left."""
        if not allow_missing:
            self.init_params(initializer=None, arg_params=arg_params, aux_params=aux_params,
                             allow_missing=allow_missing, force_init=force_init,
                             allow_extra=allow_extra)
            return True
        if self.params_initialized and not force_init:
            warnings.warn("Parameters already initialized and force_init=False. "
                          "set_params call ignored.", stacklevel=3)
            return True
        return False

    def save_params(self, fname):
        """Saves the parameters as `arg:`/`aux:` keyed arrays (the .params format)."""
        arg_params, aux_params = self.get_params()
        save_dict = {"arg:%s" % k: v.as_in_context(cpu()) for k, v in arg_params.items()}
        save_dict.update({"aux:%s" % k: v.as_in_context(cpu()) for k, v in aux_params.items()})
        nd.save(fname, save_dict)

    def load_params(self, fname):
        """Loads parameters saved by save_params (or a checkpoint's .params file)."""
        from ..model import _split_params
        arg_params, aux_params = _split_params(nd.load(fname), fname)
        self.set_params(arg_params, aux_params)

    def get_states(self, merge_multi_context=True):
        """The state inputs' arrays (none unless state_names were given)."""
        if not (self.binded and self.params_initialized):
            raise RuntimeError("bind and init_params before get_states")
        return []

    def set_states(self, states=None, value=None):
        if not (self.binded and self.params_initialized):
            raise RuntimeError("bind and init_params before set_states")
        if states or value is not None:
            raise ValueError("this module has no states")

    def install_monitor(self, mon):
        raise NotImplementedError()

    # ---- computation -----------------------------------------------------------------------
    def prepare(self, data_batch, sparse_row_id_fn=None):
        """Prepares the module for the next batch (nothing to do for dense parameters)."""
        if sparse_row_id_fn is not None:
            warnings.warn("sparse_row_id_fn is ignored: this build has dense storage only")

    def forward(self, data_batch, is_train=None):
        raise NotImplementedError()

    def backward(self, out_grads=None):
        raise NotImplementedError()

    def get_outputs(self, merge_multi_context=True):
        raise NotImplementedError()

    def get_input_grads(self, merge_multi_context=True):
        raise NotImplementedError()

    def update(self):
        raise NotImplementedError()

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        raise NotImplementedError()

    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req="write"):
        raise NotImplementedError()

    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),), force_init=False):
        raise NotImplementedError()

    def _check_ready(self):
        if not (self.binded and self.params_initialized):
            raise RuntimeError("%s: call bind and init_params (or fit) first"
                               % self.__class__.__name__)


class _SimpleBatch(object):
    """A data-only batch for predict() on an array."""

    def __init__(self, data):
        self.data = data
        self.label = None
        self.pad = 0
        self.index = None
        self.bucket_key = None
        self.provide_data = None
        self.provide_label = None
