"""Fusion inside hybridized HybridSequential blocks.

A channel-first Convolution child immediately followed by a BatchNorm on axis 1 runs as one
convolution with the BatchNorm folded into its parameters:

    s = gamma / sqrt(running_var + eps)        (gamma = 1 when the BatchNorm has scale=False)
    w' = w * s (per output channel)            b' = (b - running_mean) * s + beta

and a following Activation (or the convolution's own `activation` when no BatchNorm follows)
joins it as the `_sg_onednn_conv` op, which runs it as a oneDNN post-op of the convolution.
Only in inference: autograd not recording and not in training mode, where BatchNorm uses its
running statistics. In every mode, a BatchNorm child followed by Activation('relu') (one the
folding did not take) runs as `_contrib_BatchNormWithReLU`: one pass forward, and in training a
backward that applies the ReLU's mask inside oneDNN's BatchNorm backward instead of a separate
ReLU backward, with no pre-ReLU output kept for it. MXNET_GLUON_FOLD_BN=0 turns both off.

A residual block act(body(x) + residual) whose body is such a HybridSequential ending in
conv [+ BatchNorm] (ResNet v1's blocks) runs its last unit with the sum and the activation fused
too (`with_sum`: the convolution adds the residual before its activation post-op); see
run_with_residual.

The folded arrays are cached per context and recomputed when any source array was written
(its write count, MXNDArrayGetVersion(s), differs), replaced (set_data into a new array, cast,
reset_ctx, load_parameters) or when the BatchNorm's eps changed. The count is taken when a
write is pushed, not when it runs: folding pushes reads ordered after every write counted so
far, so the cached result always matches the versions stored with it, and a write pushed
later shows up as a new version before it has even run.
"""
import ctypes
import operator

import numpy as np

from ... import autograd
from ...base import _LIB, NDArrayHandle, c_str, check_call
from ... import ndarray as nd
from ...ndarray.op_trace import STATE as TRACE
from ...ndarray.register import EncodedParams, _op_handle, _param_str, imperative_invoke
from ..block import Block, HybridBlock
from ..parameter import DeferredInitializationError

__all__ = ["fold_enabled", "plan_steps", "run_steps", "run_with_residual"]

_SWITCH = c_str("MXNET_GLUON_FOLD_BN")
_OFF = (b"0", b"false", b"no", b"off")
# Activations the fused op takes (Activation's act_type names).
_FUSABLE_ACTS = ("relu", "sigmoid", "tanh", "softrelu", "softsign")


def switch_on():
    """MXNET_GLUON_FOLD_BN is not off."""
    value = ctypes.c_char_p()
    check_call(_LIB.MXGetEnv(_SWITCH, ctypes.byref(value)))
    return value.value is None or value.value.strip().lower() not in _OFF


def fold_enabled():
    """Whether folding applies now: the switch is on, autograd is not recording and not in
    training mode."""
    return switch_on() and not autograd.is_recording() and not autograd.is_training()


def _fused_op_runs_on(ctx):
    """`_sg_onednn_conv` has a CPU kernel only (it serves every host-memory context)."""
    return ctx.device_type != "gpu"


def _unmodified(block, cls):
    """block is a cls whose calling path is cls's own (a subclass overriding the computation
    or the call may do something else)."""
    kind = type(block)
    return isinstance(block, cls) and kind.hybrid_forward is cls.hybrid_forward and \
        kind.forward is HybridBlock.forward and kind.__call__ is Block.__call__


def _plain_activation(block):
    from .activations import Activation
    return _unmodified(block, Activation) and block._act_type in _FUSABLE_ACTS


def _foldable_conv(block):
    from .conv_layers import _Conv
    return _unmodified(block, _Conv) and block._op_name == "Convolution" and \
        block._layout.index("C") == 1 and \
        (block.act is None or _plain_activation(block.act))


def _foldable_bn(block):
    from .basic_layers import BatchNorm
    return _unmodified(block, BatchNorm) and block._kwargs["axis"] == 1


class _Folded(object):
    """Folded weight and bias on one context, with what they were computed from."""
    __slots__ = ["sources", "eps", "handles", "versions", "now", "weight", "bias"]

    def __init__(self, sources, eps):
        present = [a for a in sources if a is not None]
        self.sources, self.eps = sources, eps
        self.handles = (NDArrayHandle * len(present))(*[a.handle for a in present])
        self.now = (ctypes.c_uint64 * len(present))()
        self.versions = self.read_versions()
        self.weight = self.bias = None

    def read_versions(self):
        check_call(_LIB.MXNDArrayGetVersions(len(self.now), self.handles, self.now))
        return bytes(self.now)

    def current(self, sources, eps):
        return eps == self.eps and all(map(operator.is_, sources, self.sources)) and \
            self.read_versions() == self.versions


class ConvUnit(object):
    """Consecutive children conv [BatchNorm] [Activation] run as one op."""

    def __init__(self, blocks, conv, bn, act_type):
        self.blocks = blocks      # the children it replaces, in order
        self.conv = conv
        self.bn = bn
        self.act_type = act_type
        self._folded = {}         # (device type, device id) -> _Folded
        self._calls = {}          # (has bias, fuses the activation) -> _call_spec

    def _call_spec(self, has_bias, act_type, with_sum=False):
        """(op handle, encoded parameters) of the convolution call; with an activation (or a
        sum) it is `_sg_onednn_conv` carrying them."""
        spec = self._calls.get((has_bias, act_type, with_sum))
        if spec is None:
            params = dict(self.conv._kwargs)
            params["no_bias"] = not has_bias
            if act_type is not None:
                params["act_type"] = act_type
            if with_sum:
                params["with_sum"] = True
            keys = sorted(params)
            spec = (_op_handle("Convolution" if act_type is None else "_sg_onednn_conv"),
                    EncodedParams(keys, [_param_str(k, params[k]) for k in keys]))
            self._calls[(has_bias, act_type, with_sum)] = spec
        return spec

    def _hooked(self):
        blocks = self.blocks + ([self.conv.act] if self.conv.act is not None else [])
        return any(block._hooked() for block in blocks)

    def _fold(self, ctx, weight, bias):
        bn = self.bn
        sources = (weight, bias, bn.gamma.data(ctx), bn.beta.data(ctx),
                   bn.running_mean.data(ctx), bn.running_var.data(ctx))
        eps = bn._kwargs["eps"]
        key = (ctx.device_typeid, ctx.device_id)
        folded = self._folded.get(key)
        if folded is None or not folded.current(sources, eps):
            # A cache, not part of the block's graph: a recorded call (gluon/trace.py) keeps
            # the folded arrays, guarded by their sources' versions, instead of the folding.
            recorder, TRACE.recorder = TRACE.recorder, None
            try:
                folded = self._compute_fold(sources, eps)
            finally:
                TRACE.recorder = recorder
            self._folded[key] = folded
        if TRACE.recorder is not None:
            TRACE.recorder.derived_from(folded, (folded.weight, folded.bias))
        return folded.weight, folded.bias

    def _compute_fold(self, sources, eps):
        bn = self.bn
        weight, bias, gamma, beta, mean, var = sources
        # Versions are read before the folding reads are pushed (see the module doc).
        folded = _Folded(sources, eps)
        # Half-precision weights fold in float32 (BatchNorm keeps float32 statistics for them).
        dtype = np.dtype(weight.dtype)
        compute = dtype if dtype.itemsize >= 4 else np.dtype(np.float32)
        scale = nd.rsqrt(var.astype(compute, copy=False) + eps)
        if not bn._kwargs["fix_gamma"]:
            scale = scale * gamma.astype(compute, copy=False)
        shift = beta.astype(compute, copy=False) - mean.astype(compute, copy=False) * scale
        if bias is not None:
            shift = shift + bias.astype(compute, copy=False) * scale
        per_channel = scale.reshape((-1,) + (1,) * (weight.ndim - 1))
        folded.weight = nd.broadcast_mul(weight.astype(compute, copy=False), per_channel) \
            .astype(dtype, copy=False)
        folded.bias = shift.astype(dtype, copy=False)
        return folded

    def __call__(self, x, residual=None, post_act=None):
        """The unit's output, or None when it cannot run fused now (hooks, deferred
        initialisation): the caller then runs the children one by one. With residual (a unit
        without activation of its own, on a CPU context): post_act(output + residual)."""
        if not isinstance(x, nd.NDArray) or self._hooked():
            return None
        ctx = x.context
        try:
            weight = self.conv.weight.data(ctx)
            bias = self.conv.bias.data(ctx) if self.conv.bias is not None else None
            if self.bn is not None:
                weight, bias = self._fold(ctx, weight, bias)
        except DeferredInitializationError:
            return None
        inputs = [x, weight] if bias is None else [x, weight, bias]
        if residual is not None:
            handle, params = self._call_spec(bias is not None, post_act, with_sum=True)
            return imperative_invoke(handle, inputs + [residual], params, None)
        # The fused op is a CPU kernel; elsewhere the folded convolution and the activation
        # run as two ops.
        fuse_act = self.act_type is not None and _fused_op_runs_on(ctx)
        handle, params = self._call_spec(bias is not None, self.act_type if fuse_act else None)
        out = imperative_invoke(handle, inputs, params, None)
        if self.act_type is not None and not fuse_act:
            out = nd.Activation(out, act_type=self.act_type)
        return out


class BNReluUnit(object):
    """A BatchNorm child and the Activation('relu') after it, run as one op."""

    def __init__(self, blocks, bn):
        self.blocks = blocks
        self.bn = bn
        self._call = None

    def __call__(self, x):
        """The unit's output, or None when it cannot run fused now (hooks, deferred
        initialisation): the caller then runs the children one by one."""
        if not isinstance(x, nd.NDArray) or any(b._hooked() for b in self.blocks):
            return None
        bn, ctx = self.bn, x.context
        try:
            params = [bn.gamma.data(ctx), bn.beta.data(ctx), bn.running_mean.data(ctx),
                      bn.running_var.data(ctx)]
        except DeferredInitializationError:
            return None
        if self._call is None:
            keys = sorted(bn._kwargs)
            self._call = (_op_handle("_contrib_BatchNormWithReLU"),
                          EncodedParams(keys, [_param_str(k, bn._kwargs[k]) for k in keys]))
        handle, encoded = self._call
        return imperative_invoke(handle, [x] + params, encoded, None)


def _match_bn_relu(children, i):
    """The BNReluUnit starting at children[i], or None."""
    from .basic_layers import BatchNorm
    bn = children[i]
    if _unmodified(bn, BatchNorm) and i + 1 < len(children) and \
            _plain_activation(children[i + 1]) and children[i + 1]._act_type == "relu":
        return BNReluUnit(children[i:i + 2], bn)
    return None


def _match(children, i, folding):
    """The ConvUnit (when folding) or BNReluUnit starting at children[i], or None."""
    conv = children[i]
    if not folding or not _foldable_conv(conv):
        return _match_bn_relu(children, i)
    j = i + 1
    bn = None
    if conv.act is None and j < len(children) and _foldable_bn(children[j]):
        bn = children[j]
        j += 1
    act_type = conv.act._act_type if conv.act is not None else None
    if act_type is None and j < len(children) and _plain_activation(children[j]):
        act_type = children[j]._act_type
        j += 1
    if bn is None and act_type is None:
        return None
    return ConvUnit(children[i:j], conv, bn, act_type)


def plan_steps(children, folding=True):
    """children as steps: blocks run as they are, ConvUnits (when folding) and BNReluUnits;
    None when nothing fuses."""
    steps, i, fused = [], 0, False
    while i < len(children):
        unit = _match(children, i, folding)
        if unit is None:
            steps.append(children[i])
            i += 1
        else:
            steps.append(unit)
            i += len(unit.blocks)
            fused = True
    return steps if fused else None


def _run_block(block, x, args):
    x = block(x, *args)
    if isinstance(x, (tuple, list)):
        return x[0], list(x[1:])
    return x, []


def run_steps(steps, x, args):
    """Runs steps as HybridSequential runs its children (extra outputs of one child become
    extra inputs of the next); a unit reached with extra inputs runs its children."""
    args = list(args)
    for step in steps:
        if not isinstance(step, Block):  # a fused unit
            out = step(x) if not args else None
            if out is not None:
                x = out
                continue
            for block in step.blocks:
                x, args = _run_block(block, x, args)
        else:
            x, args = _run_block(step, x, args)
    if args:
        x = tuple([x] + args)
    return x


def _sequence_plan(seq):
    """The fold plan of a hybridized, unhooked, unmodified HybridSequential; None otherwise."""
    from .basic_layers import HybridSequential
    if not (_unmodified(seq, HybridSequential) and seq._active) or seq._hooked():
        return None
    return seq._fold_plan()


def run_with_residual(seq, x, residual, act_type):
    """act_type(seq(x) + residual) with the sum and the activation fused into seq's last unit,
    when fusion applies now (fold_enabled), seq is a hybridized HybridSequential ending in
    conv [+ BatchNorm] without activation, act_type is one the fused op takes, and x and
    residual are NDArrays on a CPU context. None when it cannot run fused: the caller then
    computes it as written."""
    if act_type not in _FUSABLE_ACTS or not isinstance(residual, nd.NDArray) or \
            not isinstance(x, nd.NDArray) or not _fused_op_runs_on(x.context) or \
            not fold_enabled():
        return None
    steps = _sequence_plan(seq)
    if not steps or not isinstance(steps[-1], ConvUnit) or steps[-1].act_type is not None:
        return None
    last = steps[-1]
    if last._hooked():
        return None
    body = run_steps(steps[:-1], x, ())
    if not isinstance(body, nd.NDArray):  # a child returned several outputs
        return None
    out = last(body, residual, act_type)
    if out is not None:
        return out
    for block in last.blocks:  # deferred initialisation: finish the body as written
        body = block(body)
    return nd.Activation(body + residual, act_type=act_type)
