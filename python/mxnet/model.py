"""Checkpoints of symbolic models (mx.model) and the helpers Module's training loop shares.

A checkpoint is two files: `prefix-symbol.json` (the graph) and `prefix-%04d.params` (an
NDArray dict whose keys say what each array is: `arg:<name>` for trainable arguments and
`aux:<name>` for auxiliary states such as BatchNorm's moving statistics).
"""
import logging
from collections import namedtuple

import numpy as np

from . import ndarray as nd
from .context import cpu

__all__ = ["BatchEndParam", "save_checkpoint", "load_checkpoint", "load_params"]

# What batch-end callbacks receive: the epoch, the batch number within it, the training metric
# and the caller's local variables.
BatchEndParam = namedtuple("BatchEndParams", ["epoch", "nbatch", "eval_metric", "locals"])


def _save_symbol(symbol, fname, remove_amp_cast=True):
    """symbol.save(fname), passing remove_amp_cast when the Symbol understands it."""
    try:
        symbol.save(fname, remove_amp_cast=remove_amp_cast)
    except TypeError:
        symbol.save(fname)


def _params_dict(arg_params, aux_params):
    """The on-disk dict of a checkpoint: CPU copies under `arg:`/`aux:` keys."""
    out = {}
    for prefix, params in (("arg", arg_params), ("aux", aux_params)):
        for name, arr in (params or {}).items():
            out["%s:%s" % (prefix, name)] = arr.as_in_context(cpu())
    return out


def save_checkpoint(prefix, epoch, symbol, arg_params, aux_params, remove_amp_cast=True):
    """Writes `prefix-symbol.json` (when symbol is not None) and `prefix-%04d.params`."""
    if symbol is not None:
        _save_symbol(symbol, "%s-symbol.json" % prefix, remove_amp_cast)
    param_name = "%s-%04d.params" % (prefix, epoch)
    nd.save(param_name, _params_dict(arg_params, aux_params))
    logging.info('Saved checkpoint to "%s"', param_name)


def _split_params(save_dict, fname):
    """(arg_params, aux_params) from a loaded dict keyed `arg:name` / `aux:name`."""
    arg_params, aux_params = {}, {}
    if not isinstance(save_dict, dict):
        raise ValueError("%s holds an unnamed list of arrays, not a parameter dict" % fname)
    for key, value in save_dict.items():
        kind, sep, name = key.partition(":")
        if not sep or kind not in ("arg", "aux"):
            raise ValueError("Invalid param file %s: key '%s' is neither arg:<name> nor "
                             "aux:<name>" % (fname, key))
        (arg_params if kind == "arg" else aux_params)[name] = value
    return arg_params, aux_params


def load_params(prefix, epoch):
    """(arg_params, aux_params) from `prefix-%04d.params`."""
    fname = "%s-%04d.params" % (prefix, epoch)
    return _split_params(nd.load(fname), fname)


def load_checkpoint(prefix, epoch):
    """(symbol, arg_params, aux_params) from a checkpoint written by save_checkpoint."""
    from . import symbol as sym
    symbol = sym.load("%s-symbol.json" % prefix)
    arg_params, aux_params = load_params(prefix, epoch)
    return symbol, arg_params, aux_params


def _multiple_callbacks(callbacks, *args, **kwargs):
    """Calls one callback or each of a list of them."""
    if callbacks is None:
        return
    if isinstance(callbacks, (list, tuple)):
        for cb in callbacks:
            cb(*args, **kwargs)
        return
    callbacks(*args, **kwargs)


def _update_on_kvstore_default():
    """MXNET_UPDATE_ON_KVSTORE as the runtime holds it (True unless set to a false value)."""
    import ctypes
    from .base import _LIB, check_call, c_str
    value = ctypes.c_char_p()
    check_call(_LIB.MXGetEnv(c_str("MXNET_UPDATE_ON_KVSTORE"), ctypes.byref(value)))
    text = (value.value or b"1").decode("utf-8").strip().lower()
    if text in ("", "1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    return bool(int(text))


# A weight with more elements than this is not updated inside a 'local' store: its CPU update
# would be slower than updating the copies on their own devices.
_LOCAL_UPDATE_MAX_SIZE = 1024 * 1024 * 16


def _create_kvstore(kvstore, num_device, arg_params):
    """(kvstore, update_on_kvstore) for training on `num_device` local devices.

    kvstore: None, a store type name or a store instance (used as given). A type name on one
    device without 'dist' in it needs no store (None). update_on_kvstore starts from
    MXNET_UPDATE_ON_KVSTORE, is False for exactly 'local' when some weight in arg_params (a dict
    of arrays, or of anything with a shape) is over 16M elements, and False when the store
    cannot run an optimizer; without a store it is False.
    """
    from . import kvstore as kvs
    update_on_kvstore = _update_on_kvstore_default()
    if kvstore is None:
        kv = None
    elif isinstance(kvstore, kvs.KVStoreBase):
        kv = kvstore
    elif isinstance(kvstore, str):
        if num_device == 1 and "dist" not in kvstore:
            kv = None
        else:
            kv = kvs.create(kvstore)
            if kvstore == "local" and arg_params:
                largest = max(int(np.prod(arr.shape)) if arr.shape else 1
                              for arr in arg_params.values())
                if largest > _LOCAL_UPDATE_MAX_SIZE:
                    update_on_kvstore = False
    else:
        raise TypeError("kvstore must be a KVStore, a type name (str) or None, got %r"
                        % (kvstore,))
    if kv is None:
        update_on_kvstore = False
    else:
        update_on_kvstore = update_on_kvstore and bool(kv.is_capable(kvs.KVStoreBase.OPTIMIZER))
    return kv, update_on_kvstore


def _initialize_kvstore(kvstore, param_arrays, arg_params, param_names, update_on_kvstore):
    """Puts every parameter into the store under its name.

    When the store updates the weights, its value (rank 0's in a distributed job) is also
    broadcast into the device copies, so that every worker starts from the same weights.
    """
    for name, on_devices in zip(param_names, param_arrays):
        if update_on_kvstore:
            kvstore.broadcast(name, arg_params[name], out=on_devices)
        else:
            kvstore.init(name, arg_params[name])


def _update_params_on_kvstore(param_arrays, grad_arrays, kvstore, param_names):
    """The store sums each parameter's gradients, updates its weight and writes the new weight
    into every device copy. Parameters without gradients are skipped."""
    for index, (weights, grads) in enumerate(zip(param_arrays, grad_arrays)):
        if grads is None or grads[0] is None:
            continue
        kvstore.pushpull(param_names[index], grads, out=weights, priority=-index)


def _update_params(param_arrays, grad_arrays, updater, num_device, kvstore=None,
                   param_names=None, param_index=None):
    """Sums each parameter's gradients through the store (when there is one), then updates
    every device copy with `updater`.

    The copy of parameter i on device k is updated under index i * num_device + k, so each
    device keeps its own optimizer state. param_index ({name: i}) overrides the position i
    (modules sharing one optimizer).
    """
    per_device = [[] for _ in range(num_device)]
    for pos, (weights, grads) in enumerate(zip(param_arrays, grad_arrays)):
        if grads is None or grads[0] is None:
            continue
        if kvstore:
            kvstore.pushpull(param_names[pos], grads, priority=-pos)
        index = pos if param_index is None else param_index[param_names[pos]]
        for k, (w, g) in enumerate(zip(weights, grads)):
            per_device[k].append((index * num_device + k, g, w))
    for updates in per_device:
        if updates:
            indices, grads, weights = zip(*updates)
            updater(list(indices), list(grads), list(weights))
