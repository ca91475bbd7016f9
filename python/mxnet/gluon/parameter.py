"""Parameters of Gluon blocks: Parameter, Constant and ParameterDict.

A Parameter holds one copy of its array per context plus a gradient per copy. Its shape may
contain unknown (0) dimensions: initialisation is then deferred until the owning layer sees its
first input and fills the shape in (done imperatively, at the first forward).
"""
import re
import warnings
import weakref
from collections import OrderedDict

import numpy as np

from .. import autograd
from .. import initializer
from .. import ndarray as nd
from ..base import MXNetError
from ..context import Context, cpu, current_context

__all__ = ["DeferredInitializationError", "ParameterLoadError", "Parameter", "Constant", "ParameterDict",
           "tensor_types"]

tensor_types = (nd.NDArray,)

_GRAD_REQS = ("write", "add", "null")


class ParameterLoadError(ValueError, AssertionError):
    """Saved parameters that do not fit the block or dictionary loading them. Also an
    AssertionError, which 1.x raised there, so scripts catching either keep working."""


class DeferredInitializationError(MXNetError):
    """A parameter whose initialisation waits for its shape was accessed too early."""


def shape_is_known(shape):
    return shape is not None and len(shape) > 0 and all(int(d) > 0 for d in shape)


def _dtype_name(dtype):
    return np.dtype(dtype).name if dtype is not None else None


# Bumped whenever any Parameter's array list is replaced (initialisation, cast, reset_ctx,
# grad_req changes): hybridized blocks keep their argument lists until it moves.
_DATA_EPOCH = [0]


def data_epoch():
    return _DATA_EPOCH[0]


class Parameter(object):
    """A named array (one copy per context) with its gradient, initializer and multipliers."""

    def __setattr__(self, name, value):
        if name == "_data":
            _DATA_EPOCH[0] += 1
        object.__setattr__(self, name, value)

    def __init__(self, name, grad_req="write", shape=None, dtype=np.float32, lr_mult=1.0,
                 wd_mult=1.0, init=None, allow_deferred_init=False, differentiable=True,
                 stype="default", grad_stype="default"):
        self._var = None
        self._data = None
        self._grad = None
        self._ctx_list = None
        self._ctx_map = None
        self._trainer = None
        self._deferred_init = ()
        self._differentiable = differentiable
        self._allow_deferred_init = allow_deferred_init
        self._grad_req = None
        if isinstance(shape, int):
            shape = (shape,)
        self._shape = tuple(shape) if shape is not None else None
        self.name = name
        self._dtype = dtype
        self.lr_mult = lr_mult
        self.wd_mult = wd_mult
        self.grad_req = grad_req
        self.init = init
        if stype not in ("default", "row_sparse", "csr") or \
                grad_stype not in ("default", "row_sparse", "csr"):
            raise ValueError("Parameter %s: unknown storage type %s / %s"
                             % (name, stype, grad_stype))
        if stype != "default" or grad_stype != "default":
            raise ValueError("Parameter %s: sparse storage (stype=%s, grad_stype=%s) is not "
                             "supported by this build; use 'default'" % (name, stype, grad_stype))
        self._stype = stype
        self._grad_stype = grad_stype

    def __repr__(self):
        return "Parameter {name} (shape={shape}, dtype={dtype})".format(
            name=self.name, shape=self.shape, dtype=self.dtype)

    # -- attributes ----------------------------------------------------------------------
    @property
    def grad_req(self):
        return self._grad_req

    @grad_req.setter
    def grad_req(self, req):
        if req not in _GRAD_REQS:
            raise ValueError("grad_req must be one of 'write', 'add', or 'null', but got '%s'"
                             % req)
        if not self._differentiable:
            req = "null"
        if self._grad_req == req:
            return
        self._grad_req = req
        if req == "null" and self._grad is not None:
            self._grad = None
            self._data = [d.detach() for d in self._data]
        elif self._data is not None:
            self._init_grad()

    @property
    def dtype(self):
        return self._dtype

    @dtype.setter
    def dtype(self, dtype):
        self.cast(dtype)

    @property
    def shape(self):
        return self._shape

    @shape.setter
    def shape(self, new_shape):
        new_shape = tuple(new_shape)
        if self._shape is None:
            self._shape = new_shape
            return
        if len(self._shape) != len(new_shape) or \
                any(old not in (0, new) for old, new in zip(self._shape, new_shape)):
            raise ValueError("Expected shape %s is incompatible with given shape %s for "
                             "Parameter %s." % (str(new_shape), str(self._shape), self.name))
        self._shape = new_shape

    @property
    def stype(self):
        return self._stype

    # -- internal helpers ------------------------------------------------------------------
    def _set_trainer(self, trainer):
        """Remembers (weakly) the Trainer updating this parameter: changing the value behind
        its back must make it refresh the copy its kvstore holds."""
        self._trainer = weakref.ref(trainer) if trainer is not None else None

    def _check_and_get(self, arr_list, ctx):
        if arr_list is not None:
            if ctx is list:
                return arr_list
            if ctx is None:
                if len(arr_list) == 1:
                    return arr_list[0]
                ctx = current_context()
            idx = self._ctx_map.get((ctx.device_typeid, ctx.device_id))
            if idx is not None:
                return arr_list[idx]
            raise RuntimeError("Parameter '%s' was not initialized on context %s. It was only "
                               "initialized on %s." % (self.name, str(ctx), str(self._ctx_list)))
        if self._deferred_init:
            raise DeferredInitializationError(
                "Parameter '%s' has not been initialized yet because initialization was "
                "deferred. Actual initialization happens during the first forward pass. Please "
                "pass one batch of data through the network before accessing Parameters. You "
                "can also avoid deferred initialization by specifying in_units, num_features, "
                "etc., for network layers." % self.name)
        raise RuntimeError("Parameter '%s' has not been initialized. Note that you should "
                           "initialize parameters and create Trainer with "
                           "Block.collect_params() instead of Block.params because the later "
                           "does not include Parameters of nested child Blocks" % self.name)

    def _set_ctx_list(self, ctx_list):
        self._ctx_list = list(ctx_list)
        self._ctx_map = {(c.device_typeid, c.device_id): i for i, c in enumerate(self._ctx_list)}

    def _load_init(self, data, ctx, cast_dtype=False, dtype_source="current"):
        """Takes the values of a loaded array (shape checked, dtype per cast_dtype)."""
        if cast_dtype and dtype_source not in ("current", "saved"):
            raise ValueError("dtype_source must be either 'current' or 'saved', got %r"
                             % (dtype_source,))
        if self.shape:
            unknown = 0
            if len(self.shape) != len(data.shape) or any(
                    s not in (unknown, d) for s, d in zip(self.shape, data.shape)):
                raise ParameterLoadError("Failed loading Parameter '%s' from saved params: shape "
                                 "incompatible expected %s vs saved %s"
                                 % (self.name, str(self.shape), str(data.shape)))
            self._shape = tuple(d if s == unknown else s for s, d in zip(self.shape, data.shape))
        else:
            self._shape = tuple(data.shape)
        if self.dtype is not None and np.dtype(self.dtype) != np.dtype(data.dtype):
            if cast_dtype:
                if dtype_source == "current":
                    data = data.astype(self.dtype, copy=False)
                else:
                    self._dtype = data.dtype
            else:
                raise ParameterLoadError("Failed loading Parameter '%s' from saved params: dtype "
                                 "incompatible expected %s vs saved %s. Set cast_dtype=True to "
                                 "cast the dtype of saved params."
                                 % (self.name, str(np.dtype(self.dtype)), str(data.dtype)))
        if isinstance(ctx, Context):
            ctx = [ctx]
        if self._data is None:
            if self._deferred_init:
                if ctx is not None and set(ctx) != set(self._deferred_init[1]):
                    raise ParameterLoadError("Failed to load Parameter '%s' on %s because it was "
                                     "previous initialized on %s."
                                     % (self.name, str(ctx), str(self.list_ctx())))
                ctx = self._deferred_init[1]
            elif ctx is None:
                ctx = [cpu()]
            self._init_impl(data, ctx)
        else:
            if ctx is not None and set(ctx) != set(self.list_ctx()):
                raise ParameterLoadError("Failed to load Parameter '%s' on %s because it was previous "
                                 "initialized on %s." % (self.name, str(ctx), str(self.list_ctx())))
            self.set_data(data)
        self._deferred_init = ()

    def _finish_deferred_init(self):
        """Creates the arrays of a deferred parameter now that its shape is known."""
        if not self._deferred_init:
            return
        init, ctx, default_init, data = self._deferred_init
        self._deferred_init = ()
        if not shape_is_known(self.shape):
            raise RuntimeError("Cannot initialize Parameter '%s' because it has invalid shape: "
                               "%s. Please specify in_units, in_channels, etc for `Block`s."
                               % (self.name, str(self.shape)))
        with autograd.pause():
            owned = data is None
            if owned:
                data = nd.zeros(self.shape, dtype=self.dtype, ctx=cpu())
                initializer.create(default_init)(
                    initializer.InitDesc(self.name, {"__init__": init}), data)
            self._init_impl(data, ctx, owned)

    def _init_impl(self, data, ctx_list, owned=False):
        """owned: data was made here for this parameter, so its first context may keep it
        instead of a copy (no second buffer of the parameter's size, then freed)."""
        self._set_ctx_list(ctx_list)
        self._data = [data if owned and i == 0 and data.context == c else data.copyto(c)
                      for i, c in enumerate(self._ctx_list)]
        self._init_grad()

    def _init_grad(self):
        if self.grad_req == "null":
            self._grad = None
            return
        self._grad = [nd.zeros(d.shape, dtype=d.dtype, ctx=d.context) for d in self._data]
        autograd.mark_variables(self._data, self._grad, self.grad_req)

    def _reduce(self):
        """The average of the copies on all contexts, on the CPU (what save writes)."""
        block = self.list_data()
        if len(block) == 1:
            return block[0].copyto(cpu())
        total = block[0].copyto(cpu())
        for arr in block[1:]:
            total = total + arr.copyto(cpu())
        return total / len(block)

    # -- public API --------------------------------------------------------------------------
    def initialize(self, init=None, ctx=None, default_init=initializer.Uniform(),
                   force_reinit=False):
        """Creates the arrays on `ctx` (a context or list), filled by `init`.

        With unknown dimensions and allow_deferred_init, creation waits for the first forward.
        """
        if self._data is not None and not force_reinit:
            warnings.warn("Parameter '%s' is already initialized, ignoring. Set "
                          "force_reinit=True to re-initialize." % self.name, stacklevel=2)
            return
        self._data = self._grad = None
        if ctx is None:
            ctx = [current_context()]
        if isinstance(ctx, Context):
            ctx = [ctx]
        if init is None:
            init = default_init if self.init is None else self.init
        if not shape_is_known(self.shape):
            if self._allow_deferred_init:
                self._deferred_init = (init, ctx, default_init, None)
                return
            raise ValueError("Cannot initialize Parameter '%s' because it has invalid shape: "
                             "%s." % (self.name, str(self.shape)))
        self._deferred_init = (init, ctx, default_init, None)
        self._finish_deferred_init()

    def reset_ctx(self, ctx):
        """Moves the parameter (values kept) to other contexts."""
        if ctx is None:
            ctx = [current_context()]
        if isinstance(ctx, Context):
            ctx = [ctx]
        if self._data:
            data = self._reduce()
            with autograd.pause():
                self._init_impl(data, ctx)
        elif self._deferred_init:
            init, _, default_init, data = self._deferred_init
            self._deferred_init = (init, ctx, default_init, data)
        else:
            raise ValueError("Cannot reset context for Parameter '%s' because it has not been "
                             "initialized." % self.name)

    def set_data(self, data):
        """Sets the value on every context (shape must match)."""
        self.shape = data.shape
        if self._data is None:
            if not self._deferred_init:
                raise RuntimeError("Parameter '%s' has not been initialized" % self.name)
            init, ctx, default_init, _ = self._deferred_init
            self._deferred_init = (init, ctx, default_init, data)
            return
        # a store that updates the weights holds its own copy: the Trainer must start again
        trainer = self._trainer() if self._trainer is not None else None
        if trainer is not None and trainer._kv_initialized and trainer._update_on_kvstore and \
                self not in trainer._params_to_init:
            trainer._reset_kvstore()
        for arr in self._check_and_get(self._data, list):
            if isinstance(data, nd.NDArray) and data.context != arr.context:
                arr[:] = data.as_in_context(arr.context)
            else:
                arr[:] = data

    def data(self, ctx=None):
        """The array on `ctx` (the only one, or the current context's, when None)."""
        return self._check_and_get(self._data, ctx)

    def list_data(self):
        return self._check_and_get(self._data, list)

    def grad(self, ctx=None):
        if self._data is not None and self._grad is None:
            raise RuntimeError("Cannot get gradient array for Parameter '%s' because grad_req="
                               "'null'" % self.name)
        return self._check_and_get(self._grad, ctx)

    def list_grad(self):
        if self._data is not None and self._grad is None:
            raise RuntimeError("Cannot get gradient array for Parameter '%s' because grad_req="
                               "'null'" % self.name)
        return self._check_and_get(self._grad, list)

    def list_ctx(self):
        """The contexts holding a copy (or that will, once a deferred init completes)."""
        if self._data is None:
            if self._deferred_init:
                return self._deferred_init[1]
            raise RuntimeError("Parameter '%s' has not been initialized" % self.name)
        return self._ctx_list

    def zero_grad(self):
        """Sets every gradient copy to 0."""
        if self._grad is None:
            return
        for g in self._grad:
            g[:] = 0

    def var(self):
        """This parameter as a graph variable, with its shape (0: unknown), dtype, multipliers and
        initializer as attributes (what a hybridized block's graph reads)."""
        if self._var is None:
            from .. import symbol
            init = self.init
            if init is not None and not isinstance(init, str):
                init = init.dumps() if hasattr(init, "dumps") else None
            self._var = symbol.var(self.name, shape=self.shape, dtype=self.dtype,
                                   lr_mult=self.lr_mult, wd_mult=self.wd_mult, init=init)
        return self._var

    def cast(self, dtype):
        """Converts the values (and gradients) to `dtype`."""
        self._dtype = dtype
        self._var = None
        if self._data is None:
            return
        with autograd.pause():
            self._data = [d.astype(dtype) for d in self._data]
            if self._grad is None:
                return
            self._grad = [g.astype(dtype) for g in self._grad]
            autograd.mark_variables(self._data, self._grad, self.grad_req)


class Constant(Parameter):
    """A parameter holding a fixed value; it gets no gradient and is never updated."""

    def __init__(self, name, value):
        if not isinstance(value, nd.NDArray):
            value = nd.array(value)
        self.value = value

        class _ConstInit(initializer.Initializer):
            def _init_weight(self, _, arr):
                arr[:] = value

        super(Constant, self).__init__(name, grad_req="null", shape=value.shape,
                                       dtype=value.dtype, init=_ConstInit())

    def __repr__(self):
        return "Constant {name} (shape={shape}, dtype={dtype})".format(
            name=self.name, shape=self.shape, dtype=self.dtype)

    @property
    def grad_req(self):
        return "null"

    @grad_req.setter
    def grad_req(self, req):
        if req != "null":
            warnings.warn("Constant parameter \"{}\" does not support grad_req other than "
                          "\"null\", and new value \"{}\" is ignored.".format(self.name, req))
        self._grad_req = "null"


class ParameterDict(object):
    """Parameters keyed by full name, all starting with `prefix`; may share another dict's."""

    def __init__(self, prefix="", shared=None):
        self._prefix = prefix
        self._params = OrderedDict()
        self._shared = shared

    def __repr__(self):
        body = "\n".join("  " + repr(v) for v in self.values())
        return "{name}(\n{content}\n)".format(
            name=self._prefix + " " if self._prefix else "", content=body)

    def __getitem__(self, key):
        return self._params[key]

    def __iter__(self):
        return iter(self._params)

    def __len__(self):
        return len(self._params)

    def __contains__(self, key):
        return key in self._params

    def items(self):
        return self._params.items()

    def keys(self):
        return self._params.keys()

    def values(self):
        return self._params.values()

    @property
    def prefix(self):
        return self._prefix

    def _get_impl(self, name):
        if name in self._params:
            return self._params[name]
        if self._shared is not None and name in self._shared._params:
            self._params[name] = self._shared._params[name]
            return self._shared._params[name]
        return None

    def get(self, name, **kwargs):
        """The parameter `prefix + name`, created with kwargs when it does not exist yet.

        An existing one must agree with kwargs; unknown (0) dimensions of its shape are filled
        from the given shape.
        """
        name = self.prefix + name
        param = self._get_impl(name)
        if param is None:
            param = Parameter(name, **kwargs)
            self._params[name] = param
            return param
        for key, value in kwargs.items():
            if value is None:
                continue
            attr = key if hasattr(param, key) else "_" + key
            existing = getattr(param, attr, None)
            if existing is None or existing == value:
                if existing is None and hasattr(param, attr):
                    if key == "shape":
                        value = (value,) if isinstance(value, int) else tuple(value)
                    setattr(param, attr, value)
                continue
            if key == "shape":
                value = (value,) if isinstance(value, int) else tuple(value)
                if len(existing) == len(value) and all(a in (0, b) or b == 0
                                                       for a, b in zip(existing, value)):
                    param._shape = tuple(a if a else b for a, b in zip(existing, value))
                    continue
            elif key == "dtype" and _dtype_name(existing) == _dtype_name(value):
                continue
            raise ValueError("Cannot retrieve Parameter '%s' because desired attribute does "
                             "not match with stored for attribute '%s': desired '%s' vs "
                             "stored '%s'." % (name, key, str(value), str(existing)))
        return param

    def get_constant(self, name, value=None):
        """The Constant `prefix + name`, created from `value` when new."""
        name = self.prefix + name
        param = self._get_impl(name)
        if param is None:
            if value is None:
                raise KeyError("No constant named '{}'. Please specify value if you want to "
                               "create a new constant.".format(name))
            param = Constant(name, value)
            self._params[name] = param
        elif value is not None:
            if not isinstance(param, Constant):
                raise TypeError("Parameter '{}' already exists but it is not a constant."
                                .format(name))
        return param

    def update(self, other):
        """Adds the parameters of another dict; the same name must be the same Parameter."""
        for k, v in other.items():
            if k in self._params and self._params[k] is not v:
                raise ValueError("Cannot update self with other because they have different "
                                 "Parameters with the same name '%s'" % k)
        for k, v in other.items():
            self._params[k] = v

    def initialize(self, init=initializer.Uniform(), ctx=None, verbose=False,
                   force_reinit=False):
        """Initialises every parameter; `init` is used for those without their own."""
        init = initializer.create(init) if isinstance(init, str) else init
        if verbose and hasattr(init, "set_verbosity"):
            init.set_verbosity(verbose=verbose)
        for _, v in self.items():
            v.initialize(None, ctx, init, force_reinit=force_reinit)

    def zero_grad(self):
        for v in self.values():
            v.zero_grad()

    def reset_ctx(self, ctx):
        for v in self.values():
            v.reset_ctx(ctx)

    def list_ctx(self):
        seen = []
        for v in self.values():
            for c in v.list_ctx():
                if c not in seen:
                    seen.append(c)
        return seen

    def setattr(self, name, value):
        """Sets attribute `name` (e.g. grad_req, lr_mult) on every parameter."""
        for v in self.values():
            setattr(v, name, value)

    def save(self, filename, strip_prefix=""):
        """Writes the parameters by full name (minus strip_prefix) to a .params file."""
        arg_dict = {}
        for param in self.values():
            weight = param._reduce()
            if not param.name.startswith(strip_prefix):
                raise ValueError("Prefix '%s' is to be striped before saving, but Parameter's "
                                 "name '%s' does not start with '%s'. this may be due to your "
                                 "Block shares parameters from other Blocks or you forgot to "
                                 "use 'with name_scope()' when creating child blocks. For more "
                                 "info on naming, please see https://mxnet.apache.org/api/"
                                 "python/docs/tutorials/packages/gluon/blocks/naming.html"
                                 % (strip_prefix, param.name, strip_prefix))
            arg_dict[param.name[len(strip_prefix):]] = weight
        nd.save(filename, arg_dict)

    def load(self, filename, ctx=None, allow_missing=False, ignore_extra=False,
             restore_prefix="", cast_dtype=False, dtype_source="current"):
        """Loads a .params file keyed by full names (also arg:/aux: keys, and keys missing
        restore_prefix)."""
        if restore_prefix:
            for name in self.keys():
                if not name.startswith(restore_prefix):
                    raise ParameterLoadError("restore_prefix is '%s' but Parameters name '%s' does not "
                                     "start with '%s'" % (restore_prefix, name, restore_prefix))
        loaded = nd.load(filename)
        if not isinstance(loaded, dict):
            raise ValueError("Cannot load parameters from '%s': the file holds an unnamed list "
                             "of arrays, names are needed" % filename)
        arg_dict = {}
        for key, value in loaded.items():
            if key.startswith("arg:") or key.startswith("aux:"):
                key = key[4:]
            if key not in self._params and restore_prefix + key in self._params:
                key = restore_prefix + key
            arg_dict[key] = value
        if not allow_missing:
            for name in self.keys():
                if name not in arg_dict:
                    raise ParameterLoadError("Parameter '%s' is missing in file '%s', which contains "
                                     "parameters: %s. Please make sure source and target "
                                     "networks have the same prefix."
                                     % (name[len(restore_prefix):], filename,
                                        _brief_keys(arg_dict.keys())))
        extra = [name for name in arg_dict if name not in self._params]
        if extra and not ignore_extra:
            raise ParameterLoadError("Parameter '%s' loaded from file '%s' is not present in "
                             "ParameterDict, choices are: %s. Set ignore_extra to True to "
                             "ignore. Please make sure source and target networks have the same "
                             "prefix." % (extra[0][len(restore_prefix):], filename,
                                          _brief_keys(self.keys())))
        for name, value in arg_dict.items():
            if name in self._params:
                self[name]._load_init(value, ctx, cast_dtype=cast_dtype,
                                      dtype_source=dtype_source)

    def select(self, select):
        """A new dict (same prefix) of the parameters whose names match the regex."""
        pattern = re.compile(select)
        out = ParameterDict(self.prefix)
        for name, value in self.items():
            if pattern.match(name):
                out._params[name] = value
        return out


def _brief_keys(keys, limit=10):
    keys = list(keys)
    text = ", ".join(keys[:limit])
    if len(keys) > limit:
        text += ", ... (%d in all)" % len(keys)
    return text
