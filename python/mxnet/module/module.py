"""Module: a Symbol bound to contexts and input shapes, with parameters and an optimizer.

The module keeps a host copy of every parameter (`_arg_params`, `_aux_params`); the executor
group keeps the device copies the executors read. init_params / set_params write the host
copies and push them to the devices; get_params pulls the devices' values back when an
update has made the host copies stale.
"""
import logging
import warnings

from .. import ndarray as nd
from .. import optimizer as opt
from ..context import Context, cpu
from ..initializer import InitDesc, Uniform
from ..io import DataDesc
from ..model import (_create_kvstore, _initialize_kvstore, _update_params,
                     _update_params_on_kvstore, load_checkpoint)
from .base_module import BaseModule, _check_input_names, _parse_data_desc
from .executor_group import DataParallelExecutorGroup

__all__ = ["Module"]


def _symbol_attrs(symbol):
    """{name: {key: value}} of the symbol's nodes ({} when the Symbol cannot say)."""
    try:
        return symbol.attr_dict() or {}
    except Exception:  # pylint: disable=broad-except
        return {}


class Module(BaseModule):
    """A module over one Symbol.

    data_names / label_names / state_names name the symbol's inputs (the other arguments are
    parameters); fixed_param_names are parameters that are not updated. context may be one
    Context or a list of them (the batch is split among them).
    """

    def __init__(self, symbol, data_names=("data",), label_names=("softmax_label",),
                 logger=logging, context=cpu(), work_load_list=None, fixed_param_names=None,
                 state_names=None, group2ctxs=None, compression_params=None):
        super(Module, self).__init__(logger=logger)
        if isinstance(context, Context):
            context = [context]
        self._context = list(context)
        if work_load_list is None:
            work_load_list = [1] * len(self._context)
        if len(work_load_list) != len(self._context):
            raise ValueError("work_load_list has %d entries for %d contexts"
                             % (len(work_load_list), len(self._context)))
        self._work_load_list = work_load_list
        self._group2ctxs = group2ctxs
        self._symbol = symbol

        data_names = list(data_names) if data_names is not None else []
        label_names = list(label_names) if label_names is not None else []
        state_names = list(state_names) if state_names is not None else []
        fixed_param_names = list(fixed_param_names) if fixed_param_names is not None else []
        _check_input_names(symbol, data_names, "data", True)
        _check_input_names(symbol, label_names, "label", False)
        _check_input_names(symbol, state_names, "state", True)
        _check_input_names(symbol, fixed_param_names, "fixed_param", True)

        arg_names = symbol.list_arguments()
        input_names = data_names + label_names + state_names
        self._param_names = [x for x in arg_names if x not in input_names]
        self._fixed_param_names = fixed_param_names
        self._aux_names = symbol.list_auxiliary_states()
        self._data_names = data_names
        self._label_names = label_names
        self._state_names = state_names
        self._output_names = symbol.list_outputs()

        self._arg_params = None
        self._aux_params = None
        self._params_dirty = False
        self._compression_params = compression_params
        self._optimizer = None
        self._kvstore = None
        self._update_on_kvstore = None
        self._kv_keys = set()
        self._updater = None
        self._param_index = None
        self._preload_opt_states = None
        self._grad_req = None
        self._exec_group = None
        self._data_shapes = None
        self._label_shapes = None
        self._monitor = None

    @staticmethod
    def load(prefix, epoch, load_optimizer_states=False, **kwargs):
        """A Module over a checkpoint's symbol with its parameters preset (bind to use it).

        kwargs go to the constructor; load_optimizer_states loads `prefix-%04d.states` at
        init_optimizer.
        """
        sym, args, auxs = load_checkpoint(prefix, epoch)
        mod = Module(symbol=sym, **kwargs)
        mod._arg_params = args
        mod._aux_params = auxs
        mod.params_initialized = True
        if load_optimizer_states:
            mod._preload_opt_states = "%s-%04d.states" % (prefix, epoch)
        return mod

    def save_checkpoint(self, prefix, epoch, save_optimizer_states=False, remove_amp_cast=True):
        """Writes prefix-symbol.json, prefix-%04d.params (and prefix-%04d.states)."""
        from ..model import _save_symbol
        _save_symbol(self._symbol, "%s-symbol.json" % prefix, remove_amp_cast)
        param_name = "%s-%04d.params" % (prefix, epoch)
        self.save_params(param_name)
        logging.info('Saved checkpoint to "%s"', param_name)
        if save_optimizer_states:
            state_name = "%s-%04d.states" % (prefix, epoch)
            self.save_optimizer_states(state_name)
            logging.info('Saved optimizer state to "%s"', state_name)

    def _reset_bind(self):
        self.binded = False
        self._exec_group = None
        self._data_shapes = None
        self._label_shapes = None

    # ---- properties -------------------------------------------------------------------------
    @property
    def data_names(self):
        return self._data_names

    @property
    def label_names(self):
        return self._label_names

    @property
    def output_names(self):
        return self._output_names

    @property
    def data_shapes(self):
        self._check_binded()
        return self._data_shapes

    @property
    def label_shapes(self):
        self._check_binded()
        return self._label_shapes

    @property
    def output_shapes(self):
        self._check_binded()
        return self._exec_group.get_output_shapes()

    def _check_binded(self):
        if not self.binded:
            raise RuntimeError("Module is not bound: call bind() first")

    # ---- parameters -------------------------------------------------------------------------
    def get_params(self):
        """(arg_params, aux_params): host copies of the current parameter values."""
        self._check_ready()
        if self._params_dirty:
            self._sync_params_from_devices()
        return (self._arg_params, self._aux_params)

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None,
                    allow_missing=False, force_init=False, allow_extra=False):
        """Fills the parameters from arg_params/aux_params, else with the initializer.

        A parameter missing from the given dicts raises unless allow_missing (then the
        initializer fills it, seeing the symbol's attributes such as __init__).
        """
        if self.params_initialized and not force_init:
            warnings.warn("Parameters already initialized and force_init=False. "
                          "init_params call ignored.", stacklevel=2)
            return
        if not self.binded:
            raise RuntimeError("call bind before initializing the parameters")

        def _fill(desc, arr, given):
            if given is not None and str(desc) in given:
                src = given[str(desc)]
                if src is not arr:
                    if tuple(src.shape) != tuple(arr.shape):
                        raise ValueError("Parameter %s has shape %s in the given params, the "
                                         "module expects %s" % (desc, tuple(src.shape),
                                                                tuple(arr.shape)))
                    src.astype(arr.dtype).as_in_context(arr.context).copyto(arr)
                return
            if given is not None and not allow_missing:
                raise RuntimeError("%s is not presented" % desc)
            if initializer is not None:
                initializer(desc, arr)

        attrs = _symbol_attrs(self._symbol)
        for name, arr in sorted(self._arg_params.items()):
            _fill(InitDesc(name, attrs.get(name, None)), arr, arg_params)
        for name, arr in sorted(self._aux_params.items()):
            _fill(InitDesc(name, attrs.get(name, None)), arr, aux_params)

        self.params_initialized = True
        self._params_dirty = False
        self._exec_group.set_params(self._arg_params, self._aux_params, allow_extra=allow_extra)

    def set_params(self, arg_params, aux_params, allow_missing=False, force_init=True,
                   allow_extra=False):
        """Sets the parameters; names not in the module raise ValueError unless allow_extra."""
        if self._set_params_handled(arg_params, aux_params, allow_missing, force_init, allow_extra):
            return
        self._exec_group.set_params(arg_params, aux_params, allow_extra=allow_extra)
        # the host copies are stale now
        self._params_dirty = True
        self.params_initialized = True

    def _sync_params_from_devices(self):
        self._exec_group.get_params(self._arg_params, self._aux_params)
        self._params_dirty = False

    # ---- binding ----------------------------------------------------------------------------
    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req="write"):
        """Binds executors for these input shapes (lists of DataDesc or (name, shape))."""
        if force_rebind:
            if self.binded and self.params_initialized and self._params_dirty:
                self._sync_params_from_devices()  # keep what training did
            self._reset_bind()
        if self.binded:
            self.logger.warning("Already bound, ignoring bind()")
            return
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self._grad_req = grad_req
        if not for_training and inputs_need_grad:
            raise ValueError("inputs_need_grad=True needs for_training=True")

        self._data_shapes, self._label_shapes = _parse_data_desc(
            self.data_names, self.label_names, data_shapes, label_shapes)

        shared_group = None
        if shared_module is not None:
            if not (isinstance(shared_module, Module) and shared_module.binded and
                    shared_module.params_initialized):
                raise ValueError("shared_module must be a bound Module with initialized "
                                 "parameters")
            shared_group = shared_module._exec_group
            if len(shared_group.execs) < len(self._context):
                raise ValueError("shared_module has fewer contexts than this module")

        self._exec_group = DataParallelExecutorGroup(
            self._symbol, self._context, self._work_load_list, self._data_shapes,
            self._label_shapes, self._param_names, for_training, inputs_need_grad,
            shared_group, logger=self.logger, fixed_param_names=self._fixed_param_names,
            grad_req=grad_req, state_names=self._state_names, group2ctxs=self._group2ctxs)
        self._total_exec_bytes = 0
        self.binded = True
        if self._monitor is not None:
            self._exec_group.install_monitor(self._monitor)

        if shared_module is not None:
            self.params_initialized = True
            self._arg_params = shared_module._arg_params
            self._aux_params = shared_module._aux_params
            # parameters only this module has get host copies of their own
            self._add_missing_host_params()
        elif self.params_initialized:
            # e.g. Module.load: the loaded values go to the devices
            self._add_missing_host_params(fill_from_devices=False)
            self._exec_group.set_params(self._arg_params, self._aux_params)
        else:
            self._arg_params = None
            self._aux_params = None
            self._add_missing_host_params()

    def _add_missing_host_params(self, fill_from_devices=True):
        if self._arg_params is None:
            self._arg_params = {}
        if self._aux_params is None:
            self._aux_params = {}
        group = self._exec_group
        for name, arrays in zip(self._param_names, group.param_arrays):
            if name not in self._arg_params:
                src = arrays[0]
                self._arg_params[name] = nd.zeros(src.shape, ctx=cpu(), dtype=src.dtype)
                if fill_from_devices:
                    src.copyto(self._arg_params[name])
        for name, arrays in zip(self._symbol.list_auxiliary_states(), group.aux_arrays):
            if name not in self._aux_params:
                src = arrays[0]
                self._aux_params[name] = nd.zeros(src.shape, ctx=cpu(), dtype=src.dtype)
                if fill_from_devices:
                    src.copyto(self._aux_params[name])

    def reshape(self, data_shapes, label_shapes=None):
        """Re-binds for new input shapes (e.g. another batch size); parameters are kept."""
        self._check_binded()
        self._data_shapes, self._label_shapes = _parse_data_desc(
            self.data_names, self.label_names, data_shapes, label_shapes)
        self._exec_group.reshape(self._data_shapes, self._label_shapes)

    # ---- optimizer --------------------------------------------------------------------------
    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),), force_init=False):
        """Creates the optimizer (rescale_grad = 1/batch size) and its updater."""
        self._check_ready()
        if self.optimizer_initialized and not force_init:
            warnings.warn("optimizer already initialized, ignoring...", stacklevel=2)
            return
        if self._params_dirty:
            self._sync_params_from_devices()

        kvstore, update_on_kvstore = _create_kvstore(kvstore, len(self._context),
                                                     self._arg_params)
        batch_size = self._exec_group.batch_size
        if kvstore and "dist" in kvstore.type and "_sync" in kvstore.type:
            batch_size *= kvstore.num_workers
        rescale_grad = 1.0 / batch_size

        num_dev = len(self._context)
        param_names = self._exec_group.param_names
        self._param_index = {name: i for i, name in enumerate(param_names)}
        if update_on_kvstore:
            # the store updates one weight per parameter, keyed by its name (which its
            # updater receives as bytes): both find the name's lr/wd multipliers
            idx2name = dict(enumerate(param_names))
            idx2name.update((name.encode("utf-8"), name) for name in param_names)
        else:
            idx2name = {i * num_dev + k: name
                        for i, name in enumerate(param_names) for k in range(num_dev)}

        if isinstance(optimizer, str):
            params = dict(optimizer_params) if optimizer_params else {}
            params.setdefault("rescale_grad", rescale_grad)
            optimizer = opt.create(optimizer, sym=self.symbol, param_idx2name=idx2name,
                                   **params)
        else:
            if not isinstance(optimizer, opt.Optimizer):
                raise TypeError("optimizer must be a name or an Optimizer, got %r"
                                % (optimizer,))
            if optimizer.rescale_grad != rescale_grad:
                warnings.warn("Optimizer created manually outside Module but rescale_grad is "
                              "not normalized to 1.0/batch_size/num_workers (%s vs. %s). Is "
                              "this intended?" % (optimizer.rescale_grad, rescale_grad),
                              stacklevel=2)
            if not optimizer.idx2name:
                optimizer.idx2name = idx2name.copy()

        self._optimizer = optimizer
        self._kvstore = kvstore
        self._update_on_kvstore = update_on_kvstore
        self._updater = None
        self._kv_keys = set()
        if kvstore:
            if self._compression_params:
                kvstore.set_gradient_compression(self._compression_params)
            if update_on_kvstore:
                kvstore.set_optimizer(self._optimizer)
            # the store starts from the module's parameters
            _initialize_kvstore(kvstore=kvstore, param_arrays=self._exec_group.param_arrays,
                                arg_params=self._arg_params, param_names=self._param_names,
                                update_on_kvstore=update_on_kvstore)
            self._kv_keys.update(self._param_names)
            if update_on_kvstore:
                # the devices now hold the store's values (rank 0's in a distributed job)
                self._params_dirty = True
        if not update_on_kvstore:
            self._updater = opt.get_updater(optimizer)
        self.optimizer_initialized = True
        if self._preload_opt_states is not None:
            self.load_optimizer_states(self._preload_opt_states)
            self._preload_opt_states = None

    def borrow_optimizer(self, shared_module):
        """Uses shared_module's optimizer and updater (bucketing modules share one)."""
        if not shared_module.optimizer_initialized:
            raise RuntimeError("the shared module's optimizer is not initialized")
        self._optimizer = shared_module._optimizer
        self._kvstore = shared_module._kvstore
        self._update_on_kvstore = shared_module._update_on_kvstore
        self._updater = shared_module._updater
        index = dict(shared_module._param_index or {})
        for name in self._exec_group.param_names:
            if name not in index:
                index[name] = len(index)
        shared_module._param_index = index
        self._param_index = index
        # parameters only this module has join the shared store
        keys = getattr(shared_module, "_kv_keys", None)
        self._kv_keys = keys if keys is not None else set()
        if self._kvstore:
            missing = [(name, arrays) for name, arrays in
                       zip(self._exec_group.param_names, self._exec_group.param_arrays)
                       if name not in self._kv_keys]
            if missing:
                if self._params_dirty:
                    self._sync_params_from_devices()
                names, arrays = zip(*missing)
                _initialize_kvstore(self._kvstore, list(arrays), self._arg_params, list(names),
                                    self._update_on_kvstore)
                self._kv_keys.update(names)
        self.optimizer_initialized = True

    def save_optimizer_states(self, fname):
        """Writes the updater's states (pickled) to fname."""
        if not self.optimizer_initialized:
            raise RuntimeError("init_optimizer before save_optimizer_states")
        if self._update_on_kvstore:
            self._kvstore.save_optimizer_states(fname)
            return
        with open(fname, "wb") as fout:
            fout.write(self._updater.get_states())

    def load_optimizer_states(self, fname):
        """Restores states written by save_optimizer_states."""
        if not self.optimizer_initialized:
            raise RuntimeError("init_optimizer before load_optimizer_states")
        if self._update_on_kvstore:
            self._kvstore.load_optimizer_states(fname)
            return
        with open(fname, "rb") as fin:
            self._updater.set_states(fin.read())

    # ---- computation ------------------------------------------------------------------------
    def forward(self, data_batch, is_train=None):
        """Runs forward on the batch, re-binding first when its shapes are new."""
        self._check_ready()
        curr = tuple(tuple(d.shape) for d in self._data_shapes)
        if isinstance(data_batch, list):
            new = tuple(tuple(d.shape) for d in data_batch[0].data)
            batch0 = data_batch[0]
        else:
            new = tuple(tuple(d.shape) for d in data_batch.data)
            batch0 = data_batch
        if isinstance(data_batch, list) and len(data_batch) > 1:
            raise NotImplementedError("pre-sliced batches (one per context) are not supported")
        if curr != new:
            provide_data = getattr(batch0, "provide_data", None)
            if provide_data:
                new_dshape = provide_data
            else:
                new_dshape = [DataDesc(d.name, shape, d.dtype, d.layout)
                              for d, shape in zip(self._data_shapes, new)]
            provide_label = getattr(batch0, "provide_label", None)
            labels = getattr(batch0, "label", None)
            if provide_label:
                new_lshape = provide_label
            elif labels and self._label_shapes:
                new_lshape = [DataDesc(d.name, tuple(l.shape), d.dtype, d.layout)
                              for d, l in zip(self._label_shapes, labels)]
            else:
                new_lshape = None
            self.reshape(new_dshape, new_lshape)
        self._exec_group.forward(batch0, is_train)

    def backward(self, out_grads=None):
        self._check_ready()
        self._exec_group.backward(out_grads=out_grads)

    def update(self):
        """Applies the optimizer to every non-fixed parameter from the last backward.

        With a kvstore the gradients of the devices (and workers) are summed there; the store
        then either updates the weights itself (update_on_kvstore) or hands the sum back for
        the module's updater. Without one, the devices' gradients are summed here.
        """
        self._check_ready()
        if not self.optimizer_initialized:
            raise RuntimeError("init_optimizer before update")
        self._params_dirty = True
        group = self._exec_group
        if self._update_on_kvstore:
            _update_params_on_kvstore(group.param_arrays, group.grad_arrays, self._kvstore,
                                      group.param_names)
            return
        if not self._kvstore:
            _sum_across_devices(group.grad_arrays)
        _update_params(group.param_arrays, group.grad_arrays, updater=self._updater,
                       num_device=len(self._context), kvstore=self._kvstore,
                       param_names=group.param_names, param_index=self._param_index)

    def get_outputs(self, merge_multi_context=True):
        self._check_ready()
        return self._exec_group.get_outputs(merge_multi_context=merge_multi_context)

    def get_input_grads(self, merge_multi_context=True):
        self._check_ready()
        if not self.inputs_need_grad:
            raise RuntimeError("bind with inputs_need_grad=True to get input gradients")
        return self._exec_group.get_input_grads(merge_multi_context=merge_multi_context)

    def get_states(self, merge_multi_context=True):
        self._check_ready()
        return self._exec_group.get_states(merge_multi_context=merge_multi_context)

    def set_states(self, states=None, value=None):
        self._check_ready()
        self._exec_group.set_states(states, value)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        self._exec_group.update_metric(eval_metric, labels, pre_sliced)

    def install_monitor(self, mon):
        """Installs a Monitor on every executor (including ones bound later)."""
        self._check_binded()
        self._monitor = mon
        self._exec_group.install_monitor(mon)

    def prepare(self, data_batch, sparse_row_id_fn=None):
        super(Module, self).prepare(data_batch, sparse_row_id_fn=sparse_row_id_fn)


def _sum_across_devices(grad_arrays):
    """Every device's gradient becomes the sum over the devices (no kvstore to do it)."""
    for grads in grad_arrays or []:
        if grads is None or len(grads) < 2 or grads[0] is None:
            continue
        total = grads[0].copy()
        for g in grads[1:]:
            total += g.as_in_context(total.context)
        for g in grads:
            total.as_in_context(g.context).copyto(g)
