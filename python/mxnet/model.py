"""Checkpoints of symbolic models (mx.model) and the helpers Module's training loop shares.

A checkpoint is two files: `prefix-symbol.json` (the graph) and `prefix-%04d.params` (an
NDArray dict whose keys say what each array is: `arg:<name>` for trainable arguments and
`aux:<name>` for auxiliary states such as BatchNorm's moving statistics).
"""
import logging
from collections import namedtuple

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


def _create_kvstore(kvstore, num_device, arg_params):
    """(kvstore, update_on_kvstore). This build has no kvstore module: a single device needs
    none, and several devices on one machine are reduced by the Module itself."""
    if kvstore is None or isinstance(kvstore, str):
        return None, False
    # A KVStore object: use it when it looks like one.
    if all(hasattr(kvstore, a) for a in ("init", "push", "pull")):
        return kvstore, False
    raise TypeError("kvstore must be a KVStore, a string or None, got %r" % (kvstore,))
