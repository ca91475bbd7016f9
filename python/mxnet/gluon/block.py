"""Block and HybridBlock: the building units of Gluon models.

Naming follows MXNet 1.x: a block created outside any name scope gets `<classname><n>_` as
prefix (counted per class name); inside a parent's `name_scope()` it gets the parent's prefix
plus `<classname><n>_` counted within that parent. Parameters are named prefix + local name
(`dense0_weight`). save_parameters instead keys them by structure (`0.weight`,
`features.3.bias`), from attribute and child names.

A HybridBlock runs `hybrid_forward(F, x, ...)` with F = mx.nd, with deferred parameter shapes
inferred by each layer's `infer_shape`. Hybridized, its first call runs hybrid_forward with
F = mx.sym on variables and builds a CachedOp from the resulting symbol; every later call is one
library call (MXInvokeCachedOpEx) whatever the depth of the block tree. The library plans each
input signature once, fuses inference graphs with the CPU subgraph backend
(MXNET_SUBGRAPH_BACKEND, or hybridize(backend=...)) and records one autograd node per call.
"""
import re
import threading
import warnings
import weakref
from collections import OrderedDict

import numpy as np

from .. import name as _name
from .. import ndarray as nd
from .. import symbol as _symbol
from . import hybrid_graph
from .hybrid_graph import flatten as _flatten, regroup as _regroup
from .parameter import (DeferredInitializationError, Parameter, ParameterDict, ParameterLoadError,
                        data_epoch, shape_is_known)
from .utils import _indent

__all__ = ["Block", "HybridBlock"]


class _BlockScope(object):
    """The naming scope a block opens with `with block.name_scope():`."""

    _current = threading.local()

    def __init__(self, block):
        self._block = block
        self._counter = {}
        self._old_scope = None
        self._name_scope = None

    @staticmethod
    def create(prefix, params, hint):
        """(prefix, ParameterDict) for a new block in the current scope."""
        current = getattr(_BlockScope._current, "value", None)
        if current is None:
            if prefix is None:
                prefix = _name.current().get(None, hint) + "_"
            if params is None:
                params = ParameterDict(prefix)
            else:
                params = ParameterDict(params.prefix, params)
            return prefix, params
        if prefix is None:
            count = current._counter.get(hint, 0)
            prefix = "%s%d_" % (hint, count)
            current._counter[hint] = count + 1
        if params is None:
            parent = current._block.params
            params = ParameterDict(parent.prefix + prefix, parent._shared)
        else:
            params = ParameterDict(params.prefix, params)
        return current._block.prefix + prefix, params

    def __enter__(self):
        if self._block._empty_prefix:
            return self
        self._old_scope = getattr(_BlockScope._current, "value", None)
        _BlockScope._current.value = self
        self._name_scope = _name.Prefix(self._block.prefix)
        self._name_scope.__enter__()
        return self

    def __exit__(self, ptype, value, trace):
        if self._block._empty_prefix:
            return
        self._name_scope.__exit__(ptype, value, trace)
        self._name_scope = None
        _BlockScope._current.value = self._old_scope


class HookHandle(object):
    """Returned by register_*hook; detach() removes the hook (also usable as `with`)."""

    def __init__(self):
        self._hooks_dict_ref = None
        self._id = None

    def attach(self, hooks_dict, hook):
        if self._hooks_dict_ref is not None:
            raise RuntimeError("The same handle cannot be attached twice.")
        self._id = id(hook)
        hooks_dict[self._id] = hook
        self._hooks_dict_ref = weakref.ref(hooks_dict)
        hybrid_graph.structure_changed()

    def detach(self):
        hooks_dict = self._hooks_dict_ref() if self._hooks_dict_ref is not None else None
        if hooks_dict is not None and self._id in hooks_dict:
            del hooks_dict[self._id]
            hybrid_graph.structure_changed()

    def __enter__(self):
        return self

    def __exit__(self, ptype, value, trace):
        self.detach()


def _flatten_shapes(obj):
    if isinstance(obj, nd.NDArray):
        return tuple(obj.shape)
    if isinstance(obj, (list, tuple)):
        return [_flatten_shapes(o) for o in obj]
    return obj


class Block(object):
    """Base class of all layers and models: children, parameters, naming, save/load."""

    def __init__(self, prefix=None, params=None):
        self._empty_prefix = prefix == ""
        self._prefix, self._params = _BlockScope.create(prefix, params, self._alias())
        self._name = self._prefix[:-1] if self._prefix.endswith("_") else self._prefix
        self._scope = _BlockScope(self)
        self._children = OrderedDict()
        self._reg_params = OrderedDict()
        self._forward_hooks = OrderedDict()
        self._forward_pre_hooks = OrderedDict()

    def __repr__(self):
        lines = ["  ({key}): {block}".format(key=key, block=_indent(repr(block), 2))
                 for key, block in self._children.items()]
        return "{name}(\n{mods}\n)".format(name=self.__class__.__name__, mods="\n".join(lines))

    # Attributes that cache runtime state (a CachedOp with its C handle, its graph), and their
    # empty values: copies and pickles start without them.
    _RUNTIME_CACHES = {"_cached_op": None, "_cached_graph": (), "_cached_op_args": None,
                       "_cached_op_template": None}

    def __getstate__(self):
        state = dict(self.__dict__)
        for name, empty in self._RUNTIME_CACHES.items():
            if name in state:
                state[name] = empty
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)

    def __setattr__(self, name, value):
        if hasattr(self, name) and name in self.__dict__:
            existing = self.__dict__[name]
            if isinstance(existing, (Parameter, Block)) and not isinstance(value, type(existing)):
                raise TypeError("Changing attribute type for {name} from {type1} to {type2} is "
                                "not allowed.".format(name=name, type1=type(existing),
                                                      type2=type(value)))
        if isinstance(value, Block):
            self.register_child(value, name)
        elif isinstance(value, Parameter):
            hybrid_graph.structure_changed()
            if name in self._reg_params and self._reg_params[name] is not value:
                raise ValueError("Overriding Parameter attribute %s is not allowed. If you want "
                                 "to share parameters between blocks, please set 'params' at "
                                 "Block construction instead." % name)
            self._reg_params[name] = value
        super(Block, self).__setattr__(name, value)

    def _alias(self):
        return self.__class__.__name__.lower()

    @property
    def prefix(self):
        """The prefix of this block's parameter (and child) names."""
        return self._prefix

    @property
    def name(self):
        """The prefix without its trailing underscore."""
        return self._name

    @property
    def params(self):
        """This block's own ParameterDict (children not included; see collect_params)."""
        return self._params

    def name_scope(self):
        """Context manager under which children get this block's prefix."""
        return self._scope

    def collect_params(self, select=None):
        """This block's and all descendants' parameters, optionally filtered by a regex."""
        ret = ParameterDict(self._params.prefix)
        if not select:
            ret.update(self.params)
        else:
            pattern = re.compile(select)
            ret.update({n: v for n, v in self.params.items() if pattern.match(n)})
        for child in self._children.values():
            ret.update(child.collect_params(select=select))
        return ret

    def _collect_params_with_prefix(self, prefix=""):
        if prefix:
            prefix += "."
        ret = OrderedDict((prefix + key, val) for key, val in self._reg_params.items())
        for name, child in self._children.items():
            ret.update(child._collect_params_with_prefix(prefix + name))
        return ret

    def save_parameters(self, filename, deduplicate=False):
        """Writes the parameters to a .params file keyed by structural names (`0.weight`).

        deduplicate: a parameter shared by several blocks is written once.
        """
        params = self._collect_params_with_prefix()
        if deduplicate:
            first = OrderedDict()
            for key, val in params.items():
                first.setdefault(id(val), (key, val))
            params = OrderedDict(first.values())
        nd.save(filename, {key: val._reduce() for key, val in params.items()})

    def load_parameters(self, filename, ctx=None, allow_missing=False, ignore_extra=False,
                        cast_dtype=False, dtype_source="current"):
        """Loads a .params file written by save_parameters, by export/save_checkpoint
        (arg:/aux: keys) or by ParameterDict.save (prefixed names such as dense0_weight)."""
        loaded = nd.load(filename)
        if not isinstance(loaded, dict):
            raise ValueError("Cannot load parameters from '%s': the file holds an unnamed list "
                             "of arrays, names are needed" % filename)
        params = self._collect_params_with_prefix()
        if not loaded and not params:
            return
        if not any("." in key for key in loaded.keys()):
            # Keys by full parameter name (legacy save_params, export, ParameterDict.save).
            self.collect_params().load(filename, ctx, allow_missing, ignore_extra, self.prefix,
                                       cast_dtype=cast_dtype, dtype_source=dtype_source)
            return
        if not allow_missing:
            names_of = {}
            for key, val in params.items():
                names_of.setdefault(id(val), []).append(key)
            for key, val in params.items():
                if not any(k in loaded for k in names_of[id(val)]):
                    raise ParameterLoadError("Parameter '%s' is missing in file '%s', which contains "
                                     "parameters: %s. Set allow_missing=True to ignore missing "
                                     "parameters." % (key, filename,
                                                      _brief(list(loaded.keys()))))
        extra = [key for key in loaded if key not in params]
        if extra and not ignore_extra:
            raise ParameterLoadError("Parameter '%s' loaded from file '%s' is not present in Block, which "
                             "contains parameters %s. Set ignore_extra=True to ignore. "
                             % (extra[0], filename, _brief(list(params.keys()))))
        for key, value in loaded.items():
            if key in params:
                params[key]._load_init(value, ctx, cast_dtype=cast_dtype,
                                       dtype_source=dtype_source)

    def save_params(self, filename):
        """Older API: writes parameters by full name minus this block's prefix."""
        warnings.warn("save_params is deprecated. Please use save_parameters.")
        self.collect_params().save(filename, strip_prefix=self.prefix)

    def load_params(self, filename, ctx=None, allow_missing=False, ignore_extra=False):
        """Older API: same as load_parameters."""
        warnings.warn("load_params is deprecated. Please use load_parameters.")
        self.load_parameters(filename, ctx, allow_missing, ignore_extra)

    def register_child(self, block, name=None):
        """Adds a child block (named by its position when no name is given)."""
        if name is None:
            name = str(len(self._children))
        self._children[name] = block
        hybrid_graph.structure_changed()

    def register_forward_pre_hook(self, hook):
        """hook(block, inputs) runs before each forward; returns a HookHandle."""
        handle = HookHandle()
        handle.attach(self._forward_pre_hooks, hook)
        return handle

    def _hooked(self):
        """Whether forward hooks or pre-hooks are registered on this block."""
        return bool(self._forward_hooks or self._forward_pre_hooks)

    def register_forward_hook(self, hook):
        """hook(block, inputs, outputs) runs after each forward; returns a HookHandle."""
        handle = HookHandle()
        handle.attach(self._forward_hooks, hook)
        return handle

    def apply(self, fn):
        """Calls fn on every descendant and then on this block; returns self."""
        for child in self._children.values():
            child.apply(fn)
        fn(self)
        return self

    def initialize(self, init=None, ctx=None, verbose=False, force_reinit=False):
        """Initialises all parameters (see ParameterDict.initialize); default Uniform(0.07)."""
        from .. import initializer
        if init is None:
            init = initializer.Uniform()
        self.collect_params().initialize(init, ctx, verbose, force_reinit)

    def hybridize(self, active=True, **kwargs):
        """Passes the hybridize flags on to the HybridBlocks below."""
        for child in self._children.values():
            child.hybridize(active, **kwargs)

    def cast(self, dtype):
        """Converts all parameters (and so the computation) to `dtype`."""
        hybrid_graph.structure_changed()
        for child in self._children.values():
            child.cast(dtype)
        for param in self._reg_params.values():
            param.cast(dtype)

    def zero_grad(self):
        """Sets the gradients of all parameters to 0."""
        self.collect_params().zero_grad()

    def reset_ctx(self, ctx):
        """Moves all parameters to `ctx` (a context or a list)."""
        self.collect_params().reset_ctx(ctx)

    def share_parameters(self, shared):
        """Uses the Parameters of `shared` (a dict keyed by structural names such as
        '0.weight', e.g. another block's _collect_params_with_prefix()) in place of this
        block's own parameters of the same structural name; returns self."""
        if shared is None:
            return self
        hybrid_graph.structure_changed()
        if not isinstance(shared, (dict, OrderedDict)):
            raise ValueError("'shared' should be in type of Dict. Get a type {} instead."
                             .format(type(shared)))
        self._share_with_prefix(shared, "")
        return self

    def _share_with_prefix(self, shared, prefix):
        for key in list(self._reg_params.keys()):
            full = prefix + key
            if full in shared:
                param = shared[full]
                self._reg_params[key] = param
                object.__setattr__(self, key, param)
                local = self._params._params
                for pname, p in list(local.items()):
                    if pname.endswith(key) and p is not param:
                        local[pname] = param
        for name, child in self._children.items():
            child._share_with_prefix(shared, prefix + name + ".")

    def __call__(self, *args):
        for hook in list(self._forward_pre_hooks.values()):
            hook(self, args)
        out = self.forward(*args)
        for hook in list(self._forward_hooks.values()):
            hook(self, args, out)
        return out

    def forward(self, *args):
        """The computation; subclasses define it."""
        raise NotImplementedError("%s must define forward()" % self.__class__.__name__)

    def summary(self, *inputs):
        """Prints each layer's output shape and parameter count for a forward on `inputs`."""
        from .nn.basic_layers import Sequential, HybridSequential
        summary = OrderedDict()
        seen = set()
        hooks = []

        def _hook(block, _, outputs):
            key = "%s-%i" % (block.__class__.__name__, len(summary))
            entry = {"output_shape": _flatten_shapes(outputs), "n_params": 0, "trainable": 0,
                     "shared": 0}
            for p in block.params.values():
                size = int(np.prod(p.data().shape))
                entry["n_params"] += size
                entry["trainable"] += 0 if p.grad_req == "null" else size
                if id(p) in seen:
                    entry["shared"] += size
                else:
                    seen.add(id(p))
            summary[key] = entry

        def _register(block):
            if isinstance(block, HybridBlock) and block._active:
                warnings.warn('"{}" is hybridized; the summary shows the imperative run.'
                              .format(block.name))
            if not isinstance(block, (Sequential, HybridSequential)):
                hooks.append(block.register_forward_hook(_hook))

        summary["Input"] = {"output_shape": _flatten_shapes(list(inputs)) if len(inputs) > 1
                            else _flatten_shapes(inputs[0]), "n_params": 0, "trainable": 0,
                            "shared": 0}
        try:
            self.apply(_register)
            self(*inputs)
            fmt = "{:>20}  {:>42} {:>15}"
            print("-" * 80)
            print(fmt.format("Layer (type)", "Output Shape", "Param #"))
            print("=" * 80)
            total = trainable = shared = 0
            for layer, entry in summary.items():
                print(fmt.format(layer, str(entry["output_shape"]), entry["n_params"]))
                total += entry["n_params"]
                trainable += entry["trainable"]
                shared += entry["shared"]
            print("=" * 80)
            print("Parameters in forward computation graph, duplicate included")
            print("   Total params: " + str(total))
            print("   Trainable params: " + str(trainable))
            print("   Non-trainable params: " + str(total - trainable))
            print("Shared params in forward computation graph: " + str(shared))
            print("Unique parameters in model: " + str(total - shared))
            print("-" * 80)
        finally:
            for handle in hooks:
                handle.detach()


def _brief(keys, limit=10):
    text = ", ".join(keys[:limit])
    return text + (", ... (%d in all)" % len(keys) if len(keys) > limit else "")


class HybridBlock(Block):
    """A Block whose computation is written once as hybrid_forward(F, x, *args, **params).

    Parameters registered as attributes arrive as keyword arguments under their attribute
    names. Layers whose parameter shapes depend on the input implement infer_shape(x, ...);
    hybridized, shapes are inferred on the block's graph.
    """

    def __init__(self, prefix=None, params=None):
        super(HybridBlock, self).__init__(prefix=prefix, params=params)
        self._active = False
        self._flags = []
        self._backend = None
        self._backend_opts = {}
        self._cached_graph = ()
        self._cached_op = None
        self._cached_op_args = None
        self._cached_op_template = None
        self._cached_epoch = -1
        self._graph_epoch = -1
        self._in_format = None
        self._out_format = None
        self._build_lock = threading.Lock()

    def __getstate__(self):
        state = super(HybridBlock, self).__getstate__()
        state.pop("_build_lock", None)
        return state

    def __setstate__(self, state):
        super(HybridBlock, self).__setstate__(state)
        self._build_lock = threading.Lock()

    def register_child(self, block, name=None):
        if not isinstance(block, HybridBlock):
            raise ValueError("Children of HybridBlock must also be HybridBlock, but %s has "
                             "type %s. If you are using Sequential, please try HybridSequential "
                             "instead." % (str(block), str(type(block))))
        super(HybridBlock, self).register_child(block, name)
        self._clear_cached_op()

    def _clear_cached_op(self):
        self._cached_graph = ()
        self._cached_op = None
        self._cached_op_args = None
        self._cached_op_template = None

    def hybridize(self, active=True, backend=None, backend_opts=None, clear=True,
                  static_alloc=False, static_shape=False, inline_limit=2,
                  forward_bulk_size=None, backward_bulk_size=None, **kwargs):
        """Makes the block (and its children) run as one compiled graph from the next call.

        static_alloc keeps the graph's buffers across calls; static_shape (needs static_alloc)
        promises unchanging input shapes; inline_limit: graphs with at most that many ops are
        recorded op by op under autograd; forward/backward_bulk_size: ops per engine segment;
        backend: the inference fusion backend ('ONEDNN', or 'NONE'), with backend_opts.
        """
        if kwargs:
            raise ValueError("hybridize: unknown arguments %s (known: active, backend, "
                             "backend_opts, clear, static_alloc, static_shape, inline_limit, "
                             "forward_bulk_size, backward_bulk_size)" % sorted(kwargs))
        if static_shape and not static_alloc:
            raise ValueError("static_alloc must be True when static_shape is True")
        if backend_opts:
            # The CPU backend's rewrites are switched by MXNET_DISABLE_ONEDNN_* variables; it
            # takes no per-call options, so none is accepted and then ignored.
            raise ValueError("hybridize: backend %r takes no backend_opts, got %s; use the "
                             "MXNET_DISABLE_ONEDNN_* variables to switch its rewrites"
                             % (backend, sorted(backend_opts)))
        self._active = active
        self._flags = [("static_alloc", static_alloc), ("static_shape", static_shape),
                       ("inline_limit", inline_limit)]
        if forward_bulk_size is not None:
            self._flags.append(("forward_bulk_size", forward_bulk_size))
        if backward_bulk_size is not None:
            self._flags.append(("backward_bulk_size", backward_bulk_size))
        self._backend = backend
        self._backend_opts = dict(backend_opts or {})
        if backend is not None:
            self._flags.append(("backend", backend))
        if clear:
            self._clear_cached_op()
        if active and self._hooked():
            warnings.warn('"{block}" is being hybridized while still having forward '
                          'hook/pre-hook. If "{block}" is a child of HybridBlock, the hooks '
                          'will not take effect.'.format(block=self))
        super(HybridBlock, self).hybridize(active, backend=backend, backend_opts=backend_opts,
                                           clear=clear, static_alloc=static_alloc,
                                           static_shape=static_shape, inline_limit=inline_limit,
                                           forward_bulk_size=forward_bulk_size,
                                           backward_bulk_size=backward_bulk_size)

    def cast(self, dtype):
        self._clear_cached_op()
        super(HybridBlock, self).cast(dtype)

    def infer_shape(self, *args):
        """Fills unknown parameter dimensions from the inputs (on the block's graph); layers
        may override it."""
        self._infer_attrs("infer_shape", "shape", *args)

    def infer_type(self, *args):
        """Gives parameters the dtypes the block's graph infers from the inputs."""
        self._infer_attrs("infer_type", "dtype", *args)

    def _infer_attrs(self, infer_fn, attr, *args):
        inputs, out = self._get_graph(*args)
        flat, _ = _flatten(args, "input")
        flat = [a for a in flat if a is not None]
        known = {i.name: getattr(j, attr) for i, j in zip(inputs, flat)}
        try:
            arg_attrs, _, aux_attrs = getattr(out, infer_fn + "_partial")(**known)
        except Exception as err:  # the graph's own message names the op
            raise ValueError("%s: deferred initialisation failed because the parameters' %ss "
                             "cannot be inferred from the inputs: %s" % (self.name, attr, err))
        if arg_attrs is None:
            raise ValueError("%s: the parameters' %ss cannot be inferred from inputs %s"
                             % (self.name, attr, known))
        found = dict(zip(out.list_arguments(), arg_attrs))
        found.update(zip(out.list_auxiliary_states(), aux_attrs))
        for param in self.collect_params().values():
            if param.name in found and (attr != "shape" or not shape_is_known(param.shape)):
                setattr(param, attr, found[param.name])

    def _get_graph(self, *args):
        if self._cached_graph and self._graph_epoch != hybrid_graph.structure_epoch():
            self._clear_cached_op()
        if not self._cached_graph:
            self._graph_epoch = hybrid_graph.structure_epoch()
            flat, self._in_format = _flatten(args, "input")
            real = [a for a in flat if a is not None]
            if len(real) > 1:
                inputs = [_symbol.var("data%d" % i) for i in range(len(real))]
            else:
                inputs = [_symbol.var("data")]
            it = iter(inputs)
            grouped = _regroup([None if a is None else next(it) for a in flat], self._in_format)
            params = {name: p.var() for name, p in self._reg_params.items()}
            out = hybrid_graph.trace_symbol(self, grouped, params)
            out, self._out_format = _flatten(out, "output")
            self._cached_graph = inputs, _symbol.Group(out)
        return self._cached_graph

    def _build_cache(self, *args):
        inputs, out = self._get_graph(*args)
        data_names = {d.name: i for i, d in enumerate(inputs)}
        params = self.collect_params()
        input_names = out.list_inputs()
        unknown = [n for n in input_names if n not in data_names and n not in params._params]
        if unknown:
            raise ValueError("%s: the graph reads %s, which are neither inputs nor parameters of "
                             "the block" % (self.name, ", ".join(unknown)))
        unused = [n for n in data_names if n not in input_names]
        if unused:
            warnings.warn("The %s input(s) %s of %s are not used by its graph; they are ignored."
                          % (len(unused), ", ".join(unused), self.name), stacklevel=4)
        unused_params = [n for n in params.keys() if n not in input_names]
        if unused_params:
            warnings.warn("Parameter(s) %s of %s are not used by its graph." %
                          (", ".join(unused_params), self.name), stacklevel=4)
        args_map, data_indices, param_indices = [], [], []
        for i, name in enumerate(input_names):
            if name in data_names:
                data_indices.append(i)
                args_map.append((True, data_names[name]))
            else:
                param_indices.append(i)
                args_map.append((False, params._params[name]))
        flags = [("data_indices", data_indices), ("param_indices", param_indices)] + self._flags
        self._cached_op = nd.CachedOp(out, flags)
        self._cached_op_args = args_map
        self._cached_epoch = hybrid_graph.structure_epoch()

    def _call_cached_op(self, *args):
        if self._cached_op is None or self._cached_epoch != hybrid_graph.structure_epoch():
            with self._build_lock:
                if self._cached_op is None or self._cached_epoch != hybrid_graph.structure_epoch():
                    self._build_cache(*args)
        cached_op, args_map = self._cached_op, self._cached_op_args
        if len(args) == 1 and self._in_format == [0] and isinstance(args[0], nd.NDArray):
            flat = [args[0]]  # the common single-array call, without walking a structure
        else:
            flat, fmt = _flatten(args, "input")
            if fmt != self._in_format:
                raise ValueError("The argument structure of HybridBlock does not match the cached "
                                 "version. Stored format = %s, input format = %s"
                                 % (self._in_format, fmt))
            flat = [a for a in flat if a is not None]
        ctx = flat[0].context
        # The parameter arrays of the argument list are looked up again only when some
        # parameter's arrays were replaced (or the context changed).
        key = (ctx, data_epoch(), id(args_map))
        template = self._cached_op_template
        if template is not None and template[0] == key:
            cargs = list(template[1])
            for slot, i in template[2]:
                cargs[slot] = flat[i]
            out = cached_op(*cargs)
            if isinstance(out, nd.NDArray):
                out = [out]
            return _regroup(out, self._out_format)
        try:
            cargs = [flat[i] if is_data else i.data(ctx) for is_data, i in args_map]
            self._cached_op_template = (key, [None if is_data else a for (is_data, _), a in
                                              zip(args_map, cargs)],
                                        [(slot, i) for slot, (is_data, i) in enumerate(args_map)
                                         if is_data])
        except DeferredInitializationError:
            self._deferred_infer_shape(*args)
            cargs = []
            for is_data, i in args_map:
                if is_data:
                    cargs.append(flat[i])
                else:
                    i._finish_deferred_init()
                    cargs.append(i.data(ctx))
        out = cached_op(*cargs)
        if isinstance(out, nd.NDArray):
            out = [out]
        return _regroup(out, self._out_format)

    def _deferred_infer_shape(self, *args):
        try:
            self._infer_attrs("infer_shape", "shape", *args)
        except ValueError as graph_err:
            # The graph could not tell; a layer's own rule (infer_shape overrides) may.
            try:
                self.infer_shape(*args)
            except Exception:  # pylint: disable=broad-except
                raise graph_err
        missing = [p.name for p in self.collect_params().values()
                   if p._data is None and not shape_is_known(p.shape)]
        if missing:
            raise ValueError("%s: deferred initialisation failed: shapes of %s cannot be "
                             "inferred from the inputs" % (self.name, ", ".join(missing)))

    def export(self, path, epoch=0, remove_amp_cast=True):
        """Writes `path-symbol.json` and `path-%04d.params` (keys `arg:name` / `aux:name`),
        loadable by SymbolBlock.imports, mx.model.load_checkpoint and Module. Needs one
        hybridized forward first. Returns the two file names."""
        if not self._cached_graph:
            raise RuntimeError("Please first call block.hybridize() and then run forward with "
                               "this block at least once before calling export.")
        sym = self._cached_graph[1]
        sym_file = "%s-symbol.json" % path
        sym.save(sym_file, remove_amp_cast=remove_amp_cast)
        arg_names = set(sym.list_arguments())
        aux_names = set(sym.list_auxiliary_states())
        arrays = {}
        for name, param in self.collect_params().items():
            if name in arg_names:
                arrays["arg:%s" % name] = param._reduce()
            elif name in aux_names:
                arrays["aux:%s" % name] = param._reduce()
        params_file = "%s-%04d.params" % (path, epoch)
        nd.save(params_file, arrays)
        return sym_file, params_file

    def forward(self, x, *args):
        """Runs hybrid_forward with F = mx.nd (or the compiled graph, when hybridized) on x's
        context; with Symbol inputs, composes this block's graph on them."""
        if isinstance(x, nd.NDArray):
            if self._active:
                with x.context:
                    return self._call_cached_op(x, *args)
            return self._forward_imperative(x, *args)
        if isinstance(x, _symbol.Symbol):
            params = {name: p.var() for name, p in self._reg_params.items()}
            with self.name_scope():
                return self.hybrid_forward(_symbol, x, *args, **params)
        raise TypeError("HybridBlock requires the first argument to forward be either Symbol or "
                        "NDArray, but got %s" % type(x))

    def _forward_imperative(self, x, *args):
        ctx = x.context
        with ctx:
            try:
                params = self._param_arrays(ctx)
            except DeferredInitializationError:
                self.infer_shape(x, *args)
                for param in self._reg_params.values():
                    param._finish_deferred_init()
                params = self._param_arrays(ctx)
            return self.hybrid_forward(nd, x, *args, **params)

    def _param_arrays(self, ctx):
        return {name: p.data(ctx) for name, p in self._reg_params.items()}

    def hybrid_forward(self, F, x, *args, **kwargs):
        """The computation in terms of F's operators; subclasses define it."""
        raise NotImplementedError("%s must define hybrid_forward()" % self.__class__.__name__)
