"""gluon.Trainer: applies an optimizer to a set of Parameters.

step(batch_size) = allreduce_grads() + update(): gradients are rescaled by 1/batch_size, the
copies of each gradient on several contexts (and, in a distributed job, on every worker) are
summed through a kvstore, then the optimizer updates every copy of every parameter - or the
kvstore itself applies the optimizer and hands the new weights back (update_on_kvstore).

The kvstore is set up lazily, at the first step / allreduce_grads / update / save_states /
load_states, because only then are the parameters' contexts and shapes certain to be known.
Parameter i (in the order given, or sorted by name for a dict) is key i of the store, pushed
with priority -i.
"""
import warnings

from .. import optimizer as opt
from ..model import _create_kvstore
from .parameter import Parameter, ParameterDict

__all__ = ["Trainer"]


class Trainer(object):
    """Updates `params` with `optimizer` (a name with optimizer_params, or an instance).

    kvstore: a type name ('device', 'local', 'dist_sync', 'dist_device_sync', 'dist_async',
    ...), a KVStore instance (used as given) or None. A type name with a single context and no
    'dist' in it uses no store. compression_params go to the store's
    set_gradient_compression. update_on_kvstore: None decides from MXNET_UPDATE_ON_KVSTORE and
    what the store can do; True/False force it (ValueError when impossible).
    """

    def __init__(self, params, optimizer, optimizer_params=None, kvstore="device",
                 compression_params=None, update_on_kvstore=None):
        if isinstance(params, (dict, ParameterDict)):
            params = [params[key] for key in sorted(list(params.keys()))]
        if not isinstance(params, (list, tuple)):
            raise ValueError("First argument must be a list or dict of Parameters, got %s."
                             % (type(params)))
        self._params = []
        self._param2idx = {}
        for i, param in enumerate(params):
            if not isinstance(param, Parameter):
                raise ValueError("First argument must be a list or dict of Parameters, got "
                                 "list of %s." % (type(param)))
            if param.name in self._param2idx:
                raise ValueError("Parameter %s appears twice in the list given to Trainer"
                                 % param.name)
            self._param2idx[param.name] = i
            self._params.append(param)
            param._set_trainer(self)
        self._compression_params = compression_params
        self._contexts = None
        self._init_optimizer(optimizer, optimizer_params or {})
        self._scale = self._optimizer.rescale_grad
        self._kvstore_params = {"kvstore": kvstore, "update_on_kvstore": update_on_kvstore}
        self._kv_initialized = False
        self._kvstore = None
        self._update_on_kvstore = None
        self._distributed = None
        self._params_to_init = []
        self._reset_kvstore()

    def _init_optimizer(self, optimizer, optimizer_params):
        param_dict = {i: param for i, param in enumerate(self._params)}
        if isinstance(optimizer, opt.Optimizer):
            if optimizer_params:
                raise ValueError("optimizer_params must be None if optimizer is an instance of "
                                 "Optimizer instead of str")
            self._optimizer = optimizer
            self._optimizer.param_dict = param_dict
        else:
            self._optimizer = opt.create(optimizer, param_dict=param_dict, **optimizer_params)
        self._updaters = None

    def _check_contexts(self):
        contexts = None
        for param in self._params:
            ctx = param.list_ctx()
            if contexts is not None and contexts != ctx:
                raise ValueError("All Parameters must be initialized on the same set of "
                                 "contexts, but Parameter %s is initialized on %s while "
                                 "previous Parameters are initialized on %s."
                                 % (param.name, str(ctx), str(contexts)))
            contexts = ctx
        return list(contexts or [])

    def _ensure_updaters(self):
        """The contexts and one updater per context (the parameters must be initialized)."""
        if self._updaters is None:
            self._contexts = self._check_contexts()
            self._updaters = [opt.get_updater(self._optimizer) for _ in self._contexts]

    # ---- kvstore -------------------------------------------------------------------------
    def _reset_kvstore(self):
        """Forgets the store; the next step creates a new one and puts every parameter in."""
        if self._kvstore and "dist" in self._kvstore.type:
            raise RuntimeError("Cannot reset distributed KVStore.")
        self._kv_initialized = False
        self._kvstore = None
        self._distributed = None
        self._update_on_kvstore = None
        self._params_to_init = list(self._params)

    def _init_kvstore(self):
        """Creates the store and decides whether it applies the optimizer."""
        self._ensure_updaters()
        config = self._kvstore_params
        by_name = {param.name: param for param in self._params}
        kvstore, update_on_kvstore = _create_kvstore(config["kvstore"], len(self._contexts),
                                                     by_name)
        self._distributed = "dist" in kvstore.type if kvstore else False
        if self._distributed and "async" in kvstore.type:
            # asynchronous workers only meet in the store, so only it can apply updates
            update_on_kvstore = True
            if config["update_on_kvstore"] is False:
                raise ValueError("Please set update_on_kvstore=True when training in async "
                                 "mode.")
        if config["update_on_kvstore"] is not None:
            update_on_kvstore = config["update_on_kvstore"]
        if update_on_kvstore:
            if kvstore is None:
                raise AttributeError("update_on_kvstore=True needs a kvstore, but Trainer(kvstore="
                                     "%r) on %d context(s) has none"
                                     % (config["kvstore"], len(self._contexts)))
            from ..kvstore import KVStoreBase
            if not kvstore.is_capable(KVStoreBase.OPTIMIZER):
                if config["update_on_kvstore"]:
                    raise ValueError("Please set update_on_kvstore=False when training with "
                                     "{}".format(type(kvstore)))
                update_on_kvstore = False
        if kvstore:
            if self._compression_params:
                kvstore.set_gradient_compression(self._compression_params)
            if update_on_kvstore:
                # before any init, so that the store can keep what the optimizer needs
                kvstore.set_optimizer(self._optimizer)
            self._kvstore = kvstore
            self._update_on_kvstore = update_on_kvstore
        else:
            self._kvstore = None
            self._update_on_kvstore = None
        self._kv_initialized = True

    def _init_params(self):
        """Puts the parameters not in the store yet into it (rank 0's values win), copying the
        store's value into every context; deferred ones wait for their first forward."""
        if not self._kv_initialized:
            raise RuntimeError("Cannot initialize parameters in KVStore when KVStore is not "
                               "initialized.")
        pending = []
        if self._kvstore:
            for param in self._params_to_init:
                if param._deferred_init:
                    pending.append(param)
                    continue
                arrays = param.list_data()
                self._kvstore.broadcast(self._param2idx[param.name], arrays[0], out=arrays)
        self._params_to_init = pending

    def _prepare(self):
        if not self._kv_initialized:
            self._init_kvstore()
        if self._params_to_init:
            self._init_params()

    def _check_and_rescale_grad(self, scale):
        if self._update_on_kvstore and self._distributed and self._kv_initialized:
            if self._optimizer.rescale_grad != scale:
                warnings.warn("Possible change in the `batch_size` from previous `step` "
                              "detected. With update_on_kvstore=True and a distributed kvstore "
                              "every worker scales the summed gradient by its own 1/batch_size: "
                              "workers stepping with different batch sizes drift apart.",
                              UserWarning, stacklevel=3)
        self._optimizer.rescale_grad = scale

    # ---- optimizer ---------------------------------------------------------------------
    @property
    def learning_rate(self):
        """The optimizer's current learning rate."""
        if not isinstance(self._optimizer, opt.Optimizer):
            raise UserWarning("Optimizer has to be defined before its learning rate can be "
                              "accessed.")
        return self._optimizer.learning_rate

    @property
    def optimizer(self):
        if isinstance(self._optimizer, opt.Optimizer):
            return self._optimizer
        raise UserWarning("Optimizer has not been initialized yet")

    def set_learning_rate(self, lr):
        """Sets a new fixed learning rate."""
        if not isinstance(self._optimizer, opt.Optimizer):
            raise UserWarning("Optimizer has to be defined before its learning rate is mutated.")
        self._optimizer.set_learning_rate(lr)

    # ---- training ----------------------------------------------------------------------
    def step(self, batch_size, ignore_stale_grad=False):
        """One optimisation step for gradients summed over `batch_size` samples."""
        self._check_and_rescale_grad(self._scale / batch_size)
        self._prepare()
        self._allreduce_grads()
        self._update(ignore_stale_grad)

    def allreduce_grads(self):
        """Sums the gradient copies across contexts and workers (for a manual
        allreduce_grads + update); not available when the store updates the weights."""
        self._prepare()
        assert not (self._kvstore and self._update_on_kvstore), \
            "allreduce_grads() when parameters are updated on kvstore is not supported. " \
            "Try setting `update_on_kvstore` to False when creating trainer."
        self._allreduce_grads()

    def _allreduce_grads(self):
        if not self._kvstore:
            self._sum_grads_without_store()
            return
        for i, param in enumerate(self._params):
            if param.grad_req == "null":
                continue
            grads = param.list_grad()
            if self._update_on_kvstore:
                self._kvstore.pushpull(i, grads, out=param.list_data(), priority=-i)
            else:
                self._kvstore.pushpull(i, grads, priority=-i)

    def _sum_grads_without_store(self):
        """kvstore=None: the copies of a gradient on several contexts are summed here."""
        for param in self._params:
            if param.grad_req == "null":
                continue
            grads = param.list_grad()
            if len(grads) < 2:
                continue
            total = grads[0].copy()
            for g in grads[1:]:
                total += g.as_in_context(total.context)
            for g in grads:
                g[:] = total.as_in_context(g.context)

    def update(self, batch_size, ignore_stale_grad=False):
        """The optimizer step alone, after allreduce_grads(); not available when the store
        updates the weights."""
        self._prepare()
        assert not (self._kvstore and self._update_on_kvstore), \
            "update() when parameters are updated on kvstore is not supported. Try setting " \
            "`update_on_kvstore` to False when creating trainer."
        self._check_and_rescale_grad(self._scale / batch_size)
        self._update(ignore_stale_grad)

    def _update(self, ignore_stale_grad=False):
        on_store = bool(self._kvstore and self._update_on_kvstore)
        per_updater = [[] for _ in self._updaters]
        for i, param in enumerate(self._params):
            if param.grad_req == "null":
                continue
            data = param.list_data()
            fresh = [_is_fresh(arr) for arr in data]
            if not ignore_stale_grad and not all(fresh):
                stale = data[fresh.index(False)]
                raise UserWarning(
                    "Gradient of Parameter `%s` on context %s has not been updated by backward "
                    "since last `step`. This could mean a bug in your model that made it only "
                    "use a subset of the Parameters (Blocks) for this iteration. If you are "
                    "intentionally only using a subset, call step with ignore_stale_grad=True "
                    "to suppress this warning and skip updating of Parameters with stale "
                    "gradient" % (param.name, str(stale.context)))
            for j, (arr, grad) in enumerate(zip(data, param.list_grad())):
                if ignore_stale_grad and not fresh[j]:
                    continue
                if not on_store:
                    per_updater[j].append((i, grad, arr))
                _mark_used(arr)
        if on_store:
            return  # the store applied the optimizer in _allreduce_grads
        for updater, items in zip(self._updaters, per_updater):
            if items:
                indices, grads, arrs = zip(*items)
                updater(list(indices), list(grads), list(arrs))

    # ---- states ------------------------------------------------------------------------
    def save_states(self, fname):
        """Writes the optimizer states (momenta, ...) and the optimizer to a file."""
        assert self._optimizer is not None
        self._prepare()
        if self._update_on_kvstore:
            assert not self._params_to_init, "Cannot save trainer states when some " \
                "parameters are not yet initialized in kvstore."
            self._kvstore.save_optimizer_states(fname, dump_optimizer=True)
            return
        if not self._updaters:
            raise RuntimeError("Trainer has no parameters on any context; nothing to save")
        with open(fname, "wb") as fout:
            fout.write(self._updaters[0].get_states(dump_optimizer=True))

    def load_states(self, fname):
        """Restores what save_states wrote (optimizer settings included)."""
        self._prepare()
        if self._update_on_kvstore:
            self._kvstore.load_optimizer_states(fname)
            self._optimizer = self._kvstore._updater.optimizer
        else:
            with open(fname, "rb") as f:
                states = f.read()
            for updater in self._updaters:
                updater.set_states(states)
                updater.optimizer = self._updaters[0].optimizer
            self._optimizer = self._updaters[0].optimizer
        self._optimizer.param_dict = {i: param for i, param in enumerate(self._params)}


def _is_fresh(arr):
    """Whether backward wrote this array's gradient since the last step (True when the
    NDArray layer does not track it)."""
    return bool(getattr(arr, "_fresh_grad", True))


def _mark_used(arr):
    if hasattr(type(arr), "_fresh_grad"):
        try:
            arr._fresh_grad = False
        except (AttributeError, TypeError):
            warnings.warn("cannot reset the gradient freshness flag of %r" % (arr,))
