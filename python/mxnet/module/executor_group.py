"""DataParallelExecutorGroup: one executor per context, the batch split along its batch axis.

The group owns the device arrays. Parameters, their gradients and auxiliary states are
allocated here (or borrowed from a shared group, which is how bucketing modules share
weights) and passed to Symbol.bind, so every executor the group ever binds - one per context,
and again for each new input shape - reads and writes the same parameter arrays. Executors
bound for a shape are kept, so alternating between shapes (a short last batch, evaluation
with another batch size) does not rebind each time.
"""
import logging
from collections import OrderedDict

import numpy as np

from .. import ndarray as nd
from ..io import DataDesc

__all__ = ["DataParallelExecutorGroup"]


def _split_input_slice(batch_size, work_load_list):
    """Slices of [0, batch_size) proportional to work_load_list, one per context."""
    total = float(sum(work_load_list))
    counts = [int(round(w * batch_size / total)) for w in work_load_list]
    counts[-1] = batch_size - sum(counts[:-1])
    slices, start = [], 0
    for n in counts:
        if n <= 0:
            raise ValueError("Too many slices: batch size %d cannot be split over %d contexts "
                             "with work loads %s" % (batch_size, len(work_load_list),
                                                    work_load_list))
        slices.append(slice(start, start + n))
        start += n
    return slices


def _slice_axis(arr, axis, sl):
    """arr[sl] along `axis` (a view along axis 0)."""
    if sl.start == 0 and sl.stop == arr.shape[axis]:
        return arr
    if axis == 0:
        return arr[sl.start:sl.stop]
    return nd.slice_axis(arr, axis=axis, begin=sl.start, end=sl.stop)


def _copy_into(src, dst):
    """Copies src (NDArray or numpy) into the executor array dst, casting when needed."""
    if isinstance(src, nd.NDArray):
        if tuple(src.shape) != tuple(dst.shape):
            raise ValueError("Cannot load an array of shape %s into an input of shape %s"
                             % (src.shape, dst.shape))
        if src.dtype != dst.dtype:
            src = src.astype(dst.dtype)
        if src.context != dst.context:
            src = src.as_in_context(dst.context)
        src.copyto(dst)
    else:
        dst[:] = np.asarray(src, dtype=dst.dtype)


def _merge(arrays, axis):
    """One array from per-device pieces (concatenated along the batch axis)."""
    if len(arrays) == 1:
        return arrays[0]
    ctx = arrays[0].context
    return nd.concat(*[a.as_in_context(ctx) for a in arrays], dim=axis)


class _Binding(object):
    """The executors bound for one set of input shapes, with their data and label arrays."""

    def __init__(self, execs, data_arrays, label_names, label_arrays, state_arrays,
                 input_grad_arrays):
        self.execs = execs
        self.label_names = label_names      # the labels that are arguments of the symbol
        self.data_arrays = data_arrays      # per data name: [(slice, array) per context]
        self.label_arrays = label_arrays    # per bound label name, same layout
        self.state_arrays = state_arrays    # per state name: [array per context]
        self.input_grad_arrays = input_grad_arrays  # per data name: [array per context]


class DataParallelExecutorGroup(object):
    """Executors of `symbol` over `contexts`, sharing one set of parameter arrays per context.

    grad_req: a string (applied to non-fixed params, and to data only with
    inputs_need_grad), a list in list_arguments() order, or a dict by name.
    """

    def __init__(self, symbol, contexts, workload, data_shapes, label_shapes, param_names,
                 for_training, inputs_need_grad, shared_group=None, logger=logging,
                 fixed_param_names=None, grad_req="write", state_names=None, group2ctxs=None):
        self.symbol = symbol
        self.contexts = list(contexts)
        self.workload = list(workload) if workload else [1] * len(self.contexts)
        self.param_names = list(param_names)
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self.logger = logger
        self.fixed_param_names = list(fixed_param_names or [])
        self.state_names = list(state_names or [])
        self.group2ctxs = group2ctxs
        self.arg_names = symbol.list_arguments()
        self.aux_names = symbol.list_auxiliary_states()
        self.output_names = symbol.list_outputs()
        self._monitors = []
        self._bindings = {}
        self._shared_group = shared_group

        data_names = [d[0] for d in data_shapes]
        self.grad_req = self._grad_req_dict(grad_req, data_names)

        # Device arrays, per name then per context; filled by the first bind.
        self._params = {}     # name -> [NDArray per ctx]
        self._grads = {}      # name -> [NDArray or None per ctx]
        self._aux = {}        # name -> [NDArray per ctx]
        self.batch_size = None
        self.slices = None
        self.bind_exec(data_shapes, label_shapes, shared_group)

    def _group2ctx(self, i):
        """The ctx_group -> Context map of context i (group2ctxs: one dict, or one per context)."""
        g = self.group2ctxs
        if g is None:
            return None
        if isinstance(g, dict):
            return g
        if len(g) != len(self.contexts):
            raise ValueError("group2ctxs has %d entries for %d contexts"
                             % (len(g), len(self.contexts)))
        return g[i]

    # ---- grad_req -------------------------------------------------------------------------
    def _grad_req_dict(self, grad_req, data_names):
        if not self.for_training:
            return {name: "null" for name in self.arg_names}
        if isinstance(grad_req, str):
            req = {}
            for name in self.arg_names:
                if name in self.param_names:
                    req[name] = "null" if name in self.fixed_param_names else grad_req
                elif name in data_names:
                    req[name] = grad_req if self.inputs_need_grad else "null"
                else:
                    req[name] = "null"
            return req
        if isinstance(grad_req, (list, tuple)):
            if len(grad_req) != len(self.arg_names):
                raise ValueError("grad_req has %d entries but the symbol has %d arguments"
                                 % (len(grad_req), len(self.arg_names)))
            return dict(zip(self.arg_names, grad_req))
        if isinstance(grad_req, dict):
            req = {name: "null" for name in self.arg_names}
            req.update({k: v for k, v in grad_req.items() if k in req})
            return req
        raise ValueError("grad_req must be a string, a list or a dict, got %r" % (grad_req,))

    # ---- binding ---------------------------------------------------------------------------
    def _layouts(self, descs):
        return [DataDesc.get_batch_axis(getattr(d, "layout", None)) for d in descs]

    def bind_exec(self, data_shapes, label_shapes, shared_group=None, reshape=False):
        """Binds (or reuses) executors for these input shapes and makes them current."""
        data_shapes = [d if isinstance(d, DataDesc) else DataDesc(*d) for d in data_shapes]
        if label_shapes is not None:
            label_shapes = [l if isinstance(l, DataDesc) else DataDesc(*l) for l in label_shapes]
        self.data_shapes = data_shapes
        self.label_shapes = label_shapes
        self.data_names = [d.name for d in data_shapes]
        self.label_names = [l.name for l in label_shapes] if label_shapes else []
        self.data_layouts = self._layouts(data_shapes)
        self.label_layouts = self._layouts(label_shapes) if label_shapes else []

        batch_sizes = set()
        for desc, axis in zip(data_shapes + (label_shapes or []),
                              self.data_layouts + self.label_layouts):
            if axis >= 0:
                batch_sizes.add(desc.shape[axis])
        if len(batch_sizes) > 1:
            raise ValueError("All inputs must have the same batch size, got %s"
                             % ", ".join("%s%s" % (d.name, tuple(d.shape))
                                         for d in data_shapes + (label_shapes or [])))
        self.batch_size = batch_sizes.pop() if batch_sizes else data_shapes[0].shape[0]
        self.slices = _split_input_slice(self.batch_size, self.workload[:len(self.contexts)])

        key = tuple((d.name, tuple(d.shape), np.dtype(d.dtype).name)
                    for d in data_shapes + (label_shapes or []))
        binding = self._bindings.get(key)
        if binding is None:
            binding = self._bind(data_shapes, label_shapes, shared_group)
            self._bindings[key] = binding
        self._current = binding
        self.execs = binding.execs
        self.data_arrays = binding.data_arrays
        self.label_arrays = binding.label_arrays if binding.label_arrays else None
        self.state_arrays = binding.state_arrays
        self.input_grad_arrays = binding.input_grad_arrays if self.inputs_need_grad else None
        self.param_arrays = [self._params[n] for n in self.param_names]
        self.grad_arrays = [self._grads[n] for n in self.param_names] if self.for_training else None
        self.aux_arrays = [self._aux[n] for n in self.aux_names]
        self._output_shapes = self._infer_output_shapes(data_shapes, label_shapes)

    def reshape(self, data_shapes, label_shapes):
        """Switches to executors for new input shapes (parameters are shared)."""
        self.bind_exec(data_shapes, label_shapes, reshape=True)

    def _slice_shape(self, desc, axis, sl):
        shape = list(desc.shape)
        if axis >= 0:
            shape[axis] = sl.stop - sl.start
        return tuple(shape)

    def _infer_output_shapes(self, data_shapes, label_shapes):
        shapes = {d.name: tuple(d.shape) for d in data_shapes + (label_shapes or [])
                  if d.name in self.arg_names}
        try:
            _, out_shapes, _ = self.symbol.infer_shape(**shapes)
        except Exception:  # pylint: disable=broad-except
            out_shapes = None
        if out_shapes is None:
            out_shapes = [tuple(o.shape) for o in self.execs[0].outputs]
        return list(zip(self.output_names, [tuple(s) for s in out_shapes]))

    def _shared_arrays(self, table_name, name, ctx_index, shape, dtype):
        """An array of the shared group's, when it has one of this name, shape and dtype."""
        group = self._shared_group
        if group is None:
            return None
        table = getattr(group, table_name)
        arrays = table.get(name)
        if not arrays or ctx_index >= len(arrays) or arrays[ctx_index] is None:
            return None
        arr = arrays[ctx_index]
        if tuple(arr.shape) != tuple(shape) or np.dtype(arr.dtype) != np.dtype(dtype):
            return None
        return arr

    def _device_array(self, table, table_name, name, i, ctx, shape, dtype):
        """The persistent array `name` on context i: existing, shared, or new zeros."""
        arrays = table.setdefault(name, [None] * len(self.contexts))
        arr = arrays[i]
        if arr is not None and tuple(arr.shape) == tuple(shape):
            return arr
        if arr is not None:
            raise ValueError("Shape of %s changed from %s to %s: parameters and auxiliary "
                             "states cannot change shape when the input shapes change"
                             % (name, tuple(arr.shape), tuple(shape)))
        arr = self._shared_arrays(table_name, name, i, shape, dtype)
        if arr is None:
            arr = nd.zeros(shape, ctx=ctx, dtype=dtype)
        arrays[i] = arr
        return arr

    def _bind(self, data_shapes, label_shapes, shared_group):
        arg_set = set(self.arg_names)
        bound_labels = [l for l in (label_shapes or []) if l.name in arg_set]
        execs = []
        data_arrays = [[] for _ in data_shapes]
        label_arrays = [[] for _ in bound_labels]
        state_arrays = [[] for _ in self.state_names]
        input_grads = [[] for _ in data_shapes]
        inputs = [(d, a) for d, a in zip(data_shapes, self.data_layouts)]
        label_axes = dict(zip([l.name for l in (label_shapes or [])], self.label_layouts))
        inputs += [(l, label_axes[l.name]) for l in bound_labels]
        for i, (ctx, sl) in enumerate(zip(self.contexts, self.slices)):
            shapes = {d.name: self._slice_shape(d, axis, sl) for d, axis in inputs}
            types = {d.name: np.dtype(d.dtype) for d, _ in inputs}
            for name in shapes:
                if name not in arg_set:
                    raise ValueError("Input '%s' is not an argument of the symbol; its "
                                     "arguments are %s" % (name, self.arg_names))
            try:
                arg_shapes, _, aux_shapes = self.symbol.infer_shape(**shapes)
            except Exception as err:
                raise ValueError("Cannot infer the shapes of the symbol's arguments from the "
                                 "inputs %s: %s" % (shapes, err)) from err
            if arg_shapes is None or any(s is None for s in arg_shapes):
                raise ValueError("The input shapes %s do not determine every argument's shape"
                                 % (shapes,))
            try:
                arg_types, _, aux_types = self.symbol.infer_type(**types)
            except Exception:  # pylint: disable=broad-except
                arg_types, aux_types = None, None
            if arg_types is None:
                arg_types = [types.get(n, np.float32) for n in self.arg_names]
            if aux_types is None:
                aux_types = [np.float32] * len(self.aux_names)
            arg_types = [np.float32 if t is None else t for t in arg_types]
            aux_types = [np.float32 if t is None else t for t in aux_types]

            args, grads, reqs = [], [], {}
            for name, shape, dtype in zip(self.arg_names, arg_shapes, arg_types):
                req = self.grad_req.get(name, "null")
                if name in shapes or name not in self.param_names:
                    arr = nd.zeros(shape, ctx=ctx, dtype=dtype)
                    grad = nd.zeros(shape, ctx=ctx, dtype=dtype) if req != "null" else None
                else:
                    arr = self._device_array(self._params, "_params", name, i, ctx, shape, dtype)
                    grad = None
                    if req != "null":
                        grad = self._device_array(self._grads, "_grads", name, i, ctx, shape,
                                                  dtype)
                    else:
                        self._grads.setdefault(name, [None] * len(self.contexts))
                args.append(arr)
                grads.append(grad)
                reqs[name] = req if grad is not None else "null"
            aux = [self._device_array(self._aux, "_aux", name, i, ctx, shape, dtype)
                   for name, shape, dtype in zip(self.aux_names, aux_shapes, aux_types)]
            any_grad = any(g is not None for g in grads)
            exe = self.symbol.bind(ctx, args, args_grad=grads if any_grad else None,
                                   grad_req=reqs if any_grad else "null", aux_states=aux,
                                   group2ctx=self._group2ctx(i))
            for mon in self._monitors:
                mon.install(exe)
            execs.append(exe)
            arg_pos = {n: k for k, n in enumerate(self.arg_names)}
            for k, d in enumerate(data_shapes):
                data_arrays[k].append((sl, args[arg_pos[d.name]]))
                input_grads[k].append(grads[arg_pos[d.name]])
            for k, l in enumerate(bound_labels):
                label_arrays[k].append((sl, args[arg_pos[l.name]]))
            for k, n in enumerate(self.state_names):
                state_arrays[k].append(args[arg_pos[n]])
        return _Binding(execs, data_arrays, [l.name for l in bound_labels], label_arrays,
                        state_arrays, input_grads)

    # ---- parameters ------------------------------------------------------------------------
    def set_params(self, arg_params, aux_params, allow_extra=False):
        """Copies the given arrays into every context's parameters and auxiliary states."""
        for params, table, kind in ((arg_params, self._params, "arguments"),
                                    (aux_params, self._aux, "auxiliary states")):
            for name, src in (params or {}).items():
                if name not in table:
                    if name in self.arg_names and table is self._params:
                        continue  # an input (data/label/state) saved alongside
                    if allow_extra:
                        continue
                    raise ValueError('Find name "%s" that is not in the %s' % (name, kind))
                for dst in table[name]:
                    _copy_into(src, dst)

    def get_params(self, arg_params, aux_params):
        """Copies the parameters (averaged over contexts) into the given dicts' arrays."""
        for table, out in ((self._params, arg_params), (self._aux, aux_params)):
            for name, arrays in table.items():
                if len(arrays) == 1:
                    value = arrays[0]
                else:
                    ctx = arrays[0].context
                    value = arrays[0].copy()
                    for a in arrays[1:]:
                        value += a.as_in_context(ctx)
                    value /= len(arrays)
                if name in out:
                    dst = out[name]
                    value.astype(dst.dtype).as_in_context(dst.context).copyto(dst)
                else:
                    out[name] = value.copyto(value.context)

    def param_array_dict(self):
        return {n: self._params[n] for n in self.param_names}

    # ---- running ---------------------------------------------------------------------------
    def _load(self, sources, targets, axes):
        for src, dsts, axis in zip(sources, targets, axes):
            for sl, dst in dsts:
                piece = _slice_axis(src, max(axis, 0), sl) if isinstance(src, nd.NDArray) \
                    else np.asarray(src)[tuple([slice(None)] * max(axis, 0) + [sl])]
                _copy_into(piece, dst)

    def forward(self, data_batch, is_train=None):
        """Loads the batch into the executors and runs them forward."""
        if is_train is None:
            is_train = self.for_training
        self._load(data_batch.data, self.data_arrays, self.data_layouts)
        labels = getattr(data_batch, "label", None)
        binding = self._current
        if labels and binding.label_names:
            by_name = dict(zip(self.label_names, labels))
            axes = dict(zip(self.label_names, self.label_layouts))
            loads = [(by_name[n], arrays, axes[n])
                     for n, arrays in zip(binding.label_names, binding.label_arrays)
                     if n in by_name]
            if loads:
                self._load(*zip(*loads))
        for exe in self.execs:
            exe.forward(is_train=is_train)

    def backward(self, out_grads=None):
        """Backward on every executor; out_grads are split along each output's batch axis."""
        if not self.for_training:
            raise RuntimeError("re-bind with for_training=True to run backward")
        if out_grads is not None and not isinstance(out_grads, (list, tuple)):
            out_grads = [out_grads]
        for i, (exe, sl) in enumerate(zip(self.execs, self.slices)):
            if out_grads is None:
                exe.backward()
                continue
            pieces = []
            for grad in out_grads:
                piece = _slice_axis(grad, 0, sl) if len(self.execs) > 1 else grad
                pieces.append(piece.as_in_context(self.contexts[i]))
            exe.backward(out_grads=pieces)

    def get_outputs(self, merge_multi_context=True, begin=0, end=None):
        end = len(self.output_names) if end is None else end
        outputs = [[exe.outputs[k] for exe in self.execs] for k in range(begin, end)]
        if merge_multi_context:
            return [_merge(o, 0) for o in outputs]
        return outputs

    def get_output_shapes(self):
        return self._output_shapes

    def get_input_grads(self, merge_multi_context=True):
        if not self.inputs_need_grad:
            raise RuntimeError("bind with inputs_need_grad=True to get input gradients")
        grads = self._current.input_grad_arrays
        if merge_multi_context:
            return [_merge(g, axis) for g, axis in zip(grads, [max(a, 0) for a in
                                                                self.data_layouts])]
        return grads

    def get_states(self, merge_multi_context=True):
        states = self._current.state_arrays
        if merge_multi_context:
            return [_merge(s, 0) for s in states]
        return states

    def set_states(self, states=None, value=None):
        if states is not None:
            for src, dsts in zip(states, self._current.state_arrays):
                for s, d in zip(src if isinstance(src, (list, tuple)) else [src] * len(dsts),
                                dsts):
                    _copy_into(s, d)
        else:
            for dsts in self._current.state_arrays:
                for d in dsts:
                    d[:] = value

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """Updates eval_metric with each executor's outputs and its slice of the labels."""
        for i, (exe, sl) in enumerate(zip(self.execs, self.slices)):
            if pre_sliced:
                labels_slice = labels[i]
            elif len(self.execs) == 1:
                labels_slice = labels
            else:
                labels_slice = [_slice_axis(l, max(a, 0), sl) if isinstance(l, nd.NDArray)
                                else np.asarray(l)[sl]
                                for l, a in zip(labels, self.label_layouts or [0] * len(labels))]
            label_names = self.label_names or ["label%d" % k for k in range(len(labels_slice or
                                                                               []))]
            label_dict = OrderedDict(zip(label_names, labels_slice or []))
            pred_dict = OrderedDict(zip(self.output_names, exe.outputs))
            eval_metric.update_dict(label_dict, pred_dict)

    def install_monitor(self, mon):
        self._monitors.append(mon)
        for exe in self.execs:
            mon.install(exe)
