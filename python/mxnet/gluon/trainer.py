"""gluon.Trainer: applies an optimizer to a set of Parameters.

step(batch_size) = allreduce_grads() + update(): gradients are rescaled by 1/batch_size, the
copies of each gradient on several contexts are summed (so every copy of a weight receives the
same update), then the optimizer updates every copy of every parameter.
"""
import warnings

from .. import optimizer as opt
from .parameter import Parameter, ParameterDict

__all__ = ["Trainer"]


class Trainer(object):
    """Updates `params` with `optimizer` (a name with optimizer_params, or an instance)."""

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
        if isinstance(kvstore, str) and "dist" in kvstore:
            raise ValueError("Trainer(kvstore=%r): distributed training needs the distributed "
                             "kvstore, which this build does not provide; use 'device' or "
                             "'local' (gradients on several local contexts are summed)" % kvstore)
        self._kvstore_type = kvstore
        self._update_on_kvstore = update_on_kvstore
        self._contexts = None
        self._init_optimizer(optimizer, optimizer_params or {})
        self._scale = self._optimizer.rescale_grad

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
        if self._updaters is None:
            self._contexts = self._check_contexts()
            self._updaters = [opt.get_updater(self._optimizer) for _ in self._contexts]

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
        self._optimizer.set_learning_rate(lr)

    def step(self, batch_size, ignore_stale_grad=False):
        """One optimisation step for gradients summed over `batch_size` samples."""
        self._optimizer.rescale_grad = self._scale / batch_size
        self._ensure_updaters()
        self._allreduce_grads()
        self._update(ignore_stale_grad)

    def allreduce_grads(self):
        """Sums the gradient copies across contexts (for a manual allreduce_grads + update)."""
        self._ensure_updaters()
        self._allreduce_grads()

    def _allreduce_grads(self):
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
        """The optimizer step alone, after allreduce_grads()."""
        self._optimizer.rescale_grad = self._scale / batch_size
        self._ensure_updaters()
        self._update(ignore_stale_grad)

    def _update(self, ignore_stale_grad=False):
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
                per_updater[j].append((i, grad, arr))
                _mark_used(arr)
        for updater, items in zip(self._updaters, per_updater):
            if items:
                indices, grads, arrs = zip(*items)
                updater(list(indices), list(grads), list(arrs))

    def save_states(self, fname):
        """Writes the optimizer states (momenta, ...) to a file."""
        self._ensure_updaters()
        if not self._updaters:
            raise RuntimeError("Trainer has no parameters on any context; nothing to save")
        with open(fname, "wb") as fout:
            fout.write(self._updaters[0].get_states(dump_optimizer=True))

    def load_states(self, fname):
        """Restores what save_states wrote (optimizer settings included)."""
        self._ensure_updaters()
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
