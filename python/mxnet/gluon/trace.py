"""Replay of a hybridized block's operator calls.

A hybridized HybridBlock promises MXNet's hybridize contract: its computation depends on the
shapes and types of its inputs, never on array values. MXNet caches the graph of the first call
and runs later calls from that graph without the Python of the block tree. Here the block's
second call with the same input signature is recorded: every operator call (op handle, inputs,
encoded parameters, `out` arrays) and every view (reshape, slice, at, detach) it makes. Later
calls with that signature replay the record directly, skipping the Gluon layers' Python (about
45 us per operator, a tenth of Inception-v3's time at batch 1).

The signature is the inputs' shapes, dtypes and contexts (and non-array arguments), whether
autograd records and trains, and whether the fusion switch (MXNET_GLUON_FOLD_BN) is on. A record is used
only while it still describes the block:
- the block tree is unchanged: children, hooks, hybridize flags and parameter attributes bump
  a global epoch (`structure_changed`);
- every parameter it reads still holds the same array list (cast, reset_ctx and re-initialise
  replace it; in-place writes such as Trainer.step and load_parameters keep it, and the
  replay reads the new values like any run);
- arrays derived from parameters (folded Convolution+BatchNorm weights) were computed from the
  sources' current versions; otherwise the record is dropped and the block re-records.

Recording gives up (and the block runs its Python on every call with that signature) when a
block inside it has forward hooks, when the block reads values (asnumpy, scalar conversion), copies host data in, feeds an operator an array
that is neither an input, a parameter, a derived weight nor made by a recorded call, or returns
something other than arrays and plain constants. While any hybridized block runs, the blocks it
calls run their Python normally, so one record covers the whole tree.
"""
import ctypes
import threading
import weakref

from .. import autograd
from ..base import _LIB, NDArrayHandle, check_call
from ..ndarray import NDArray
from ..ndarray.op_trace import STATE
from ..ndarray.register import EncodedParams, imperative_invoke

__all__ = ["call", "structure_changed"]

# Signatures kept per block; a block called with more distinct shapes runs its Python.
MAX_SIGNATURES = 8
_PLAIN_LEAVES = (type(None), bool, int, float, str)
_EPOCH = [0]


def structure_changed():
    """A block tree changed (children, hooks, flags, parameters): drop every record."""
    _EPOCH[0] += 1


class _Running(threading.local):
    depth = 0  # hybridized block calls in progress on this thread


_RUNNING = _Running()


class _Untraceable(object):
    """A signature whose call cannot be replayed, with the reason."""
    __slots__ = ["reason"]

    def __init__(self, reason):
        self.reason = reason


_SEEN_ONCE = "seen once"


class _Abandon(Exception):
    pass


def _signature(args):
    """Hashable description of the call's inputs, or None when an argument is unhashable."""
    parts = []
    arrays = []
    for a in args:
        if isinstance(a, NDArray):
            ctx = a.context
            parts.append((a.shape, a._dtype_flag, ctx.device_typeid, ctx.device_id))
            arrays.append(id(a))
        else:
            try:
                hash(a)
            except TypeError:
                return None
            parts.append((type(a), a))
    if len(set(arrays)) != len(arrays):  # one array passed twice is a different graph
        parts.append(tuple(arrays.index(i) for i in arrays))
    return tuple(parts), autograd.is_recording(), autograd.is_training(), _fusion_switch_on()


def _fusion_switch_on():
    # Imported on first use: nn.conv_fold imports the block module, which imports this one.
    from .nn.conv_fold import switch_on
    global _fusion_switch_on
    _fusion_switch_on = switch_on
    return switch_on()


def _hooked_below(block):
    for child in block._children.values():
        if child._hooked() or _hooked_below(child):
            return True
    return False


class _Recorder(object):
    """Collects one call's operators as slot-indexed steps."""

    def __init__(self, block, args):
        # id(array) -> slot, for live arrays only: an entry leaves when its array dies (so a
        # new array reusing the id is not taken for it), and intermediates die as they would
        # in any run instead of living until the recorded call ends.
        self.slot_of = {}
        self.n_slots = 0
        self.arg_slots = []      # (slot, argument position)
        self.constants = []      # (slot, array)
        self.steps = []
        self.failure = None
        self.param_arrays = {}   # id(array) -> Parameter, for every parameter of the tree
        self._watch = []
        self.params_read = {}    # id(Parameter) -> (Parameter, its array list)
        self.derived = {}        # id(array) -> _Folded-like source record
        self.derived_read = {}   # id(source record) -> source record
        for param in block.collect_params().values():
            for arr in param._data or ():
                self.param_arrays[id(arr)] = param
        if _hooked_below(block):
            # Hooks of inner blocks run only when those blocks' Python does.
            self.failure = "a block inside has forward hooks"
        for pos, a in enumerate(args):
            if isinstance(a, NDArray) and id(a) not in self.slot_of:
                self.arg_slots.append((self._new_slot(a), pos))

    def _new_slot(self, arr):
        slot = self.n_slots
        self.n_slots += 1
        key = id(arr)
        self.slot_of[key] = slot
        self._watch.append(weakref.ref(arr, lambda _, key=key: self.slot_of.pop(key, None)))
        return slot

    def _slot(self, arr):
        slot = self.slot_of.get(id(arr))
        if slot is not None:
            return slot
        param = self.param_arrays.get(id(arr))
        if param is not None:
            self.params_read[id(param)] = (param, param._data)
        else:
            source = self.derived.get(id(arr))
            if source is None:
                raise _Abandon("an operator reads an array made outside the recorded calls")
            self.derived_read[id(source)] = source
        slot = self._new_slot(arr)
        self.constants.append((slot, arr))
        return slot

    def abandon(self, reason):
        if self.failure is None:
            self.failure = reason

    def derived_from(self, source, arrays):
        """arrays were computed from source.handles at source.versions (conv_fold's cache)."""
        for arr in arrays:
            if arr is not None and id(arr) not in self.slot_of:
                self.derived[id(arr)] = source

    def op(self, handle, inputs, keys, vals, outs, results):
        if self.failure is not None:
            return
        try:
            in_slots = tuple(self._slot(a) for a in inputs)
            out_slots = None if outs is None else tuple(self._slot(o) for o in outs)
        except _Abandon as e:
            self.failure = str(e)
            return
        params = keys if isinstance(keys, EncodedParams) else EncodedParams(keys, vals)
        first = self.n_slots
        for r in results or ():
            self._new_slot(r)
        self.steps.append((handle, in_slots, params, out_slots, first,
                           0 if results is None else len(results)))

    def view(self, source, method, args, result):
        if self.failure is not None:
            return
        try:
            src = self._slot(source)
        except _Abandon as e:
            self.failure = str(e)
            return
        self.steps.append((method, (src,), args, None, self._new_slot(result), 1))

    def output_tree(self, out):
        if isinstance(out, NDArray):
            slot = self.slot_of.get(id(out))
            if slot is None:
                raise _Abandon("the block returns an array made outside the recorded calls")
            return ("a", slot)
        if isinstance(out, (list, tuple)):
            return (type(out), tuple(self.output_tree(o) for o in out))
        if isinstance(out, _PLAIN_LEAVES):
            return ("v", out)
        raise _Abandon("the block returns a %s" % type(out).__name__)


class Trace(object):
    """One recorded call, replayable while its guards hold."""

    def __init__(self, recorder, out):
        self.tree = recorder.output_tree(out)
        self.epoch = _EPOCH[0]
        self.n_slots = recorder.n_slots
        self.arg_slots = recorder.arg_slots
        self.template = [None] * self.n_slots
        for slot, arr in recorder.constants:
            self.template[slot] = arr
        self.params_read = list(recorder.params_read.values())
        sources = list(recorder.derived_read.values())
        handles = [h for s in sources for h in s.handles]
        self.version_handles = (NDArrayHandle * len(handles))(*handles)
        self.versions_now = (ctypes.c_uint64 * len(handles))()
        self.versions = b"".join(s.versions for s in sources)
        self.steps = self._with_releases(recorder.steps)

    def _with_releases(self, steps):
        """Each step plus the slots whose last reader it is (dropped right after it), so
        intermediates die as early as in the Python run."""
        last = {}
        for i, step in enumerate(steps):
            for s in step[1] + (step[3] or ()):
                last[s] = i
        kept = set(s for s, _ in self.arg_slots) | set(
            i for i, v in enumerate(self.template) if v is not None)
        self._tree_slots(self.tree, kept)
        release = [[] for _ in steps]
        for s, i in last.items():
            if s not in kept:
                release[i].append(s)
        return [step + (tuple(release[i]),) for i, step in enumerate(steps)]

    def _tree_slots(self, tree, into):
        kind, value = tree
        if kind == "a":
            into.add(value)
        elif kind != "v":
            for t in value:
                self._tree_slots(t, into)

    def valid(self):
        if self.epoch != _EPOCH[0]:
            return False
        for param, data in self.params_read:
            if param._data is not data:
                return False
        if self.versions:
            check_call(_LIB.MXNDArrayGetVersions(len(self.versions_now), self.version_handles,
                                                 self.versions_now))
            if bytes(self.versions_now) != self.versions:
                return False
        return True

    def replay(self, args):
        slots = list(self.template)
        for slot, pos in self.arg_slots:
            slots[slot] = args[pos]
        for handle, ins, params, outs, first, n_new, release in self.steps:
            if isinstance(handle, str):
                src = slots[ins[0]]
                if handle == "reshape":
                    slots[first] = src.reshape(params[0], reverse=params[1])
                else:
                    slots[first] = getattr(src, handle)(*params)
            elif outs is None:
                res = imperative_invoke(handle, [slots[i] for i in ins], params, None)
                if n_new == 1:
                    slots[first] = res
                else:
                    slots[first:first + n_new] = res
            else:
                imperative_invoke(handle, [slots[i] for i in ins], params, None,
                                  [slots[i] for i in outs])
            for s in release:
                slots[s] = None
        return self._build(self.tree, slots)

    def _build(self, tree, slots):
        kind, value = tree
        if kind == "a":
            return slots[value]
        if kind == "v":
            return value
        return kind(self._build(t, slots) for t in value)


def call(block, run, args):
    """block's output for args: replayed from its record, or run(*args) (recording the
    second call of a signature)."""
    if _RUNNING.depth:
        return run(*args)
    sig = _signature(args)
    traces = block.__dict__.get("_traces")
    if traces is None or traces[0] != _EPOCH[0]:
        traces = (_EPOCH[0], {})
        object.__setattr__(block, "_traces", traces)
    table = traces[1]
    state = table.get(sig) if sig is not None else None
    if isinstance(state, Trace):
        if state.valid():
            _RUNNING.depth += 1
            try:
                return state.replay(args)
            finally:
                _RUNNING.depth -= 1
        state = None
    if sig is None or isinstance(state, _Untraceable) or \
            (state is None and len(table) >= MAX_SIGNATURES):
        return _run(run, args)
    if state is None:
        table[sig] = _SEEN_ONCE
        return _run(run, args)
    return _record(block, run, args, table, sig)


def _run(run, args):
    _RUNNING.depth += 1
    try:
        return run(*args)
    finally:
        _RUNNING.depth -= 1


def _record(block, run, args, table, sig):
    recorder = _Recorder(block, args)
    _RUNNING.depth += 1
    STATE.recorder = recorder
    try:
        out = run(*args)
    except BaseException:
        table.pop(sig, None)
        raise
    finally:
        STATE.recorder = None
        _RUNNING.depth -= 1
    if recorder.failure is not None:
        table[sig] = _Untraceable(recorder.failure)
        return out
    try:
        table[sig] = Trace(recorder, out)
    except _Abandon as e:
        table[sig] = _Untraceable(str(e))
    return out


def describe(block):
    """{signature: 'recorded' | 'seen once' | reason it cannot be replayed} (for tests and
    debugging)."""
    traces = block.__dict__.get("_traces")
    if traces is None or traces[0] != _EPOCH[0]:
        return {}
    return {sig: ("recorded" if isinstance(s, Trace) else
                  s.reason if isinstance(s, _Untraceable) else s)
            for sig, s in traces[1].items()}
