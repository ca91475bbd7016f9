"""The Optimizer base class, the name registry and the Updater that keeps per-weight state.

An optimizer turns (weight, gradient, state) into an updated weight in place. The base class
owns what every rule shares: the learning rate (fixed, or from an lr_scheduler driven by the
update count), weight decay, per-parameter lr_mult/wd_mult, gradient rescaling and clipping,
and multi-precision (a float32 master copy for float16 weights).

Optimizer objects pickle with the attribute dicts MXNet 1.x uses, and the built-in rules are
also reachable here (mxnet.optimizer.optimizer.SGD, ...), where 1.x's pickles name them: the
package's __init__ binds them in, so files written by either runtime load in the other.
"""
import pickle
import warnings

import numpy as np

__all__ = ["Optimizer", "register", "create", "Updater", "get_updater"]

_REGISTRY = {}


def register(klass):
    """Class decorator: makes `klass` creatable by its lower-case name."""
    if not isinstance(klass, type):
        raise TypeError("register takes an Optimizer class, got %r" % (klass,))
    name = klass.__name__.lower()
    if name in _REGISTRY and _REGISTRY[name] is not klass:
        warnings.warn("Optimizer %s is being overridden by %s.%s"
                      % (name, klass.__module__, klass.__name__))
    _REGISTRY[name] = klass
    return klass


def create(name, **kwargs):
    """Creates an optimizer from its registered name (case-insensitive) or returns an instance."""
    if isinstance(name, Optimizer):
        return name
    if not isinstance(name, str):
        raise TypeError("optimizer must be a name or an Optimizer, got %r" % (name,))
    key = name.lower()
    if key not in _REGISTRY:
        raise ValueError("Cannot find optimizer %s: registered ones are %s"
                         % (name, ", ".join(sorted(_REGISTRY))))
    return _REGISTRY[key](**kwargs)


class Optimizer(object):
    """Common optimizer state and helpers; subclasses implement create_state and update."""

    def __init__(self, rescale_grad=1., param_idx2name=None, wd=0., clip_gradient=None,
                 learning_rate=None, lr_scheduler=None, sym=None, begin_num_update=0,
                 multi_precision=False, param_dict=None):
        self.rescale_grad = rescale_grad
        self.lr_scheduler = lr_scheduler
        if lr_scheduler is None and learning_rate is None:
            learning_rate = 0.01
        self.lr = learning_rate
        if lr_scheduler is not None and learning_rate is not None and \
                lr_scheduler.base_lr != learning_rate:
            warnings.warn("learning rate from ``lr_scheduler`` has been overwritten by "
                          "``learning_rate`` in optimizer.")
            lr_scheduler.base_lr = learning_rate
            if hasattr(lr_scheduler, "base_lr_orig"):
                lr_scheduler.base_lr_orig = learning_rate
            lr_scheduler.warmup_final_lr = learning_rate
        self.wd = wd
        self.begin_num_update = begin_num_update
        self.num_update = begin_num_update
        self._all_index_update_counts = {0: {}}
        self._index_update_count = self._all_index_update_counts[0]
        self.clip_gradient = clip_gradient
        self.multi_precision = multi_precision
        self.aggregate_num = 0
        self.idx2name = dict(param_idx2name or {})
        # (attribute dict, argument names) of `sym`: all that lr/wd multipliers need from it
        self.sym_info = (sym.attr_dict(), sym.list_arguments()) if sym is not None else ()
        self.param_dict = param_dict if param_dict else {}
        self.allow_np_array = False
        self.lr_mult = {}
        self.wd_mult = {}
        self.set_lr_mult({})
        self.set_wd_mult({})

    # -- state ---------------------------------------------------------------------------
    def create_state(self, index, weight):
        """The auxiliary state one weight needs (None when the rule keeps none)."""
        return None

    def create_state_multi_precision(self, index, weight):
        """Like create_state, plus a float32 master copy for float16 weights."""
        if self.multi_precision and weight.dtype == np.float16:
            master = weight.astype(np.float32)
            return (master, self.create_state(index, master))
        if weight.dtype == np.float16 and not self.multi_precision:
            warnings.warn("Accumulating with float16 in optimizer can lead to poor accuracy or "
                          "slow convergence. Consider using multi_precision=True option of "
                          "the optimizer")
        return self.create_state(index, weight)

    def update(self, index, weight, grad, state):
        """Updates `weight` in place from `grad` and `state`."""
        raise NotImplementedError("%s must define update()" % self.__class__.__name__)

    def update_multi_precision(self, index, weight, grad, state):
        """update() on the float32 master copy when multi-precision applies, then cast back."""
        if self.multi_precision and weight.dtype == np.float16:
            master, inner = state
            self.update(index, master, grad.astype(np.float32), inner)
            weight[:] = master.astype(weight.dtype)
        else:
            self.update(index, weight, grad, state)

    # -- learning rate and decay -----------------------------------------------------------
    @property
    def learning_rate(self):
        """The current learning rate (from the scheduler when there is one)."""
        if self.lr_scheduler is not None:
            return self.lr_scheduler(self.num_update)
        return self.lr

    def set_learning_rate(self, lr):
        """Sets a fixed learning rate; not allowed when a scheduler drives it."""
        if self.lr_scheduler is not None:
            raise UserWarning("LRScheduler of the optimizer has already been defined. Note that "
                              "set_learning_rate can mutate the value of the learning rate of "
                              "the optimizer only when the LRScheduler of the optimizer is "
                              "undefined.")
        self.lr = lr

    def set_lr_mult(self, args_lr_mult):
        """Per-parameter learning-rate multipliers, by index or name (the symbol's
        __lr_mult__ attributes first, when the optimizer was given sym=)."""
        self.lr_mult = self._sym_mults("__lr_mult__")
        self.lr_mult.update(args_lr_mult)

    def set_wd_mult(self, args_wd_mult):
        """Per-parameter weight-decay multipliers; names not ending in _weight/_gamma get 0."""
        self.wd_mult = {}
        for name in self.idx2name.values():
            if not (name.endswith("_weight") or name.endswith("_gamma")):
                self.wd_mult[name] = 0.0
        self.wd_mult.update(self._sym_mults("__wd_mult__"))
        self.wd_mult.update(args_wd_mult)

    def set_lr_scale(self, args_lrscale):  # pylint: disable=unused-argument
        """Removed in MXNet 1.x already; raises DeprecationWarning as 1.x does."""
        raise DeprecationWarning("set_lr_scale is deprecated: use set_lr_mult")

    def _sym_mults(self, key):
        """{name: float} of the `key` attribute (__lr_mult__/__wd_mult__) of sym's arguments."""
        if not self.sym_info:
            return {}
        attrs, arg_names = self.sym_info
        return {name: float(attrs[name][key]) for name in arg_names
                if name in attrs and key in attrs[name]}

    def _set_current_context(self, device_id):
        """Update counts are kept per device id (as 1.x keys them, so pickled counts resume)."""
        if device_id not in self._all_index_update_counts:
            self._all_index_update_counts[device_id] = {}
        self._index_update_count = self._all_index_update_counts[device_id]

    def _update_count(self, index):
        indices = index if isinstance(index, (list, tuple)) else [index]
        for idx in indices:
            count = self._index_update_count.get(idx, self.begin_num_update) + 1
            self._index_update_count[idx] = count
            self.num_update = max(count, self.num_update)

    def _mult(self, index, table, attr):
        if index in self.param_dict:
            return getattr(self.param_dict[index], attr)
        if index in table:
            return table[index]
        if index in self.idx2name:
            return table.get(self.idx2name[index], 1.0)
        return 1.0

    def _get_lrs(self, indices):
        lr = self.lr_scheduler(self.num_update) if self.lr_scheduler is not None else self.lr
        return [lr * self._mult(i, self.lr_mult, "lr_mult") for i in indices]

    def _get_lr(self, index):
        return self._get_lrs([index])[0]

    def _get_wds(self, indices):
        return [self.wd * self._mult(i, self.wd_mult, "wd_mult") for i in indices]

    def _get_wd(self, index):
        return self._get_wds([index])[0]

    def _clip_kwargs(self):
        """rescale_grad and clip_gradient as the fused update operators take them."""
        kwargs = {"rescale_grad": self.rescale_grad}
        if self.clip_gradient:  # as in 1.x, 0 means no clipping for the fused operators
            kwargs["clip_gradient"] = self.clip_gradient
        return kwargs

    def _prepared_grad(self, grad, decay=None):
        """rescale_grad * grad (plus `decay`, for rules that clip the weight-decay term too),
        clipped to [-clip_gradient, clip_gradient] when set."""
        from .. import ndarray as nd
        g = grad * self.rescale_grad
        if decay is not None:
            g = g + decay
        if self.clip_gradient is not None and self.clip_gradient >= 0:
            g = nd.clip(g, -self.clip_gradient, self.clip_gradient)
        return g

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("param_dict", None)  # Parameters belong to the model, not to saved state
        return state

    def __setstate__(self, state):
        state = dict(state)
        if "sym" in state:  # this runtime's older pickles kept the Symbol itself
            sym = state.pop("sym")
            state.setdefault("sym_info", (sym.attr_dict(), sym.list_arguments())
                             if sym is not None else ())
        counts = state.get("_all_index_update_counts")
        if counts and any(isinstance(k, tuple) for k in counts):  # older (type, id) keys
            state["_all_index_update_counts"] = {
                (k[1] if isinstance(k, tuple) else k): v for k, v in counts.items()}
        state.setdefault("allow_np_array", False)
        state.setdefault("sym_info", ())
        self.__dict__.update(state)
        self.param_dict = {}  # set again by whoever owns the Parameters (gluon.Trainer)


# MXNet 1.x's spellings on the class: Optimizer.register, Optimizer.create_optimizer and the
# name -> class table Optimizer.opt_registry.
Optimizer.opt_registry = _REGISTRY
Optimizer.register = staticmethod(register)
Optimizer.create_optimizer = staticmethod(create)


def _aggregation_size(default=4):
    """MXNET_OPTIMIZER_AGGREGATION_SIZE as the runtime holds it (validated there: 1 to 60), or
    `default` when it is not set (LAMB's default, 45, differs from the variable's, 4)."""
    from ..runtime import env_vars
    var = env_vars().get("MXNET_OPTIMIZER_AGGREGATION_SIZE")
    return int(var.value) if var is not None and var.is_set and var.value else default


def _zeros_like(weight):
    from .. import ndarray as nd
    return nd.zeros(weight.shape, ctx=weight.context, dtype=weight.dtype)


def _states_to_device(obj, ctx=None):
    from .. import ndarray as nd
    if isinstance(obj, _HostArray):
        return nd.array(obj.value, ctx=ctx or obj.ctx, dtype=obj.value.dtype)
    if isinstance(obj, (list, tuple)):
        return type(obj)(_states_to_device(o, ctx) for o in obj)
    if isinstance(obj, dict):
        return {k: _states_to_device(v, ctx) for k, v in obj.items()}
    from ..ndarray import NDArray
    if isinstance(obj, NDArray) and ctx is not None:
        return obj.as_in_context(ctx)
    return obj


class _HostArray(object):
    """An optimizer-state array as this runtime's older state files pickled it (values and
    context); read when loading such files. States are now pickled as NDArrays, as in 1.x."""

    def __init__(self, value, ctx):
        self.value = value
        self.ctx = ctx

    def __getstate__(self):
        return {"value": self.value, "ctx": (self.ctx.device_type, self.ctx.device_id)}

    def __setstate__(self, state):
        from ..context import Context
        self.value = state["value"]
        self.ctx = Context(*state["ctx"])


class Updater(object):
    """Applies an optimizer to (index, grad, weight) and keeps each index's state."""

    def __init__(self, optimizer):
        self.optimizer = optimizer
        self.states = {}
        self.states_synced = {}
        self.aggregate_updates = optimizer.aggregate_num > 0

    def __call__(self, index, grad, weight):
        indices = index if isinstance(index, (list, tuple)) else [index]
        # A kvstore passes str keys as the bytes its C callback received; states are kept by str.
        indices = [i.decode("utf-8") if isinstance(i, bytes) else i for i in indices]
        grads = grad if isinstance(grad, (list, tuple)) else [grad]
        weights = weight if isinstance(weight, (list, tuple)) else [weight]
        if weights:
            self.optimizer._set_current_context(weights[0].context.device_id)
        for idx, w in zip(indices, weights):
            if idx not in self.states:
                self.states[idx] = self.optimizer.create_state_multi_precision(idx, w)
                self.states_synced[idx] = True
            elif not self.states_synced.get(idx, True):
                self.states[idx] = _states_to_device(self.states[idx], w.context)
                self.states_synced[idx] = True
        size = self.optimizer.aggregate_num
        if size > 1 and len(indices) > 1:
            # Optimizers that aggregate take lists: up to `size` weights of one dtype per call.
            by_dtype = {}
            for item in zip(indices, grads, weights):
                by_dtype.setdefault(item[2].dtype, []).append(item)
            for items in by_dtype.values():
                for start in range(0, len(items), size):
                    idx, g, w = (list(t) for t in zip(*items[start:start + size]))
                    self.optimizer.update_multi_precision(idx, w, g, [self.states[i] for i in idx])
            return
        for idx, g, w in zip(indices, grads, weights):
            self.optimizer.update_multi_precision(idx, w, g, self.states[idx])

    def get_states(self, dump_optimizer=False):
        """Pickled bytes of the states (and the optimizer when dump_optimizer): a dict of
        NDArrays (or tuples of them), as 1.x writes it."""
        return pickle.dumps((self.states, self.optimizer) if dump_optimizer else self.states)

    def set_states(self, states):
        """Restores what get_states produced; arrays move to each weight's context on use."""
        loaded = pickle.loads(states)
        if isinstance(loaded, tuple) and len(loaded) == 2 and isinstance(loaded[1], Optimizer):
            loaded, self.optimizer = loaded
        self.states = _states_to_device(loaded)
        self.states_synced = dict.fromkeys(self.states.keys(), False)

    def sync_state_context(self, state, context):
        """Moves a state (possibly nested) to `context`."""
        return _states_to_device(state, context)


def get_updater(optimizer):
    """An Updater bound to `optimizer`."""
    return Updater(optimizer)
