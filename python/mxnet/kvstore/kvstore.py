"""KVStore: the native key-value stores (local, device, nccl, dist_*) over the C API.

Keys are ints or strs (one kind per call: int keys use the plain C calls, str keys the `Ex`
ones) or lists of them. A value is an NDArray, a list of NDArrays (one per device, for one
key) or, with a list of keys, a list of those.
"""
import ctypes
import pickle
import warnings

import numpy as np

from ..base import _LIB, KVStoreHandle, NDArrayHandle, check_call, c_str, c_str_array, mx_uint, py_str
from ..ndarray import NDArray
from .. import optimizer as opt
from .base import KVStoreBase, _assign

__all__ = ["KVStore"]

# Heads of the commands `_send_command_to_servers` forwards.
COMMANDS = {"kController": 0, "kSetMultiPrecision": 1, "kStopServer": 2, "kSyncMode": 3,
            "kSetGradientCompression": 4, "kSetProfilerParams": 5}

_UPDATER = ctypes.CFUNCTYPE(None, ctypes.c_int, NDArrayHandle, NDArrayHandle, ctypes.c_void_p)
_STR_UPDATER = ctypes.CFUNCTYPE(None, ctypes.c_char_p, NDArrayHandle, NDArrayHandle, ctypes.c_void_p)


def _is_key(key):
    return isinstance(key, (str, int, np.integer)) and not isinstance(key, bool)


def _flatten(keys, vals):
    """([key per array], [NDArray per array], str keys?) for one call's keys and values."""
    if isinstance(keys, (list, tuple)):
        if not isinstance(vals, (list, tuple)) or len(keys) != len(vals):
            raise AssertionError("a list of keys needs a list of values of the same length")
        flat_keys, flat_vals, str_keys = [], [], None
        for key, val in zip(keys, vals):
            k, v, is_str = _flatten(key, val)
            if str_keys is None:
                str_keys = is_str
            elif str_keys != is_str:
                raise AssertionError("inconsistent types of keys detected.")
            flat_keys += k
            flat_vals += v
        return flat_keys, flat_vals, bool(str_keys)
    if not _is_key(keys):
        raise AssertionError("unexpected type for keys: " + str(type(keys)))
    vals = list(vals) if isinstance(vals, (list, tuple)) else [vals]
    for v in vals:
        if not isinstance(v, NDArray):
            raise AssertionError("values must be NDArrays, got " + str(type(v)))
    is_str = isinstance(keys, str)
    return [keys if is_str else int(keys)] * len(vals), vals, is_str


def _row_index(row_ids):
    """row_ids as the 1-D int64 array the library takes (NDArrays of any shape and dtype)."""
    if not isinstance(row_ids, NDArray):
        raise AssertionError("row_ids should be NDArray or list of NDArray")
    if row_ids.ndim != 1:
        row_ids = row_ids.reshape((-1,))
    if row_ids.dtype != np.int64:
        row_ids = row_ids.astype(np.int64)
    return row_ids


def _c_keys(keys, str_keys):
    if str_keys:
        return c_str_array(keys)
    return (ctypes.c_int * len(keys))(*keys)


def _c_handles(vals):
    arr = (NDArrayHandle * len(vals))()
    arr[:] = [v.handle for v in vals]
    return arr


class KVStore(KVStoreBase):
    """A native store, made by `mx.kv.create`."""

    def __init__(self, handle):
        if not isinstance(handle, KVStoreHandle):
            raise TypeError("KVStore takes a KVStoreHandle; use mx.kv.create(name)")
        self.handle = handle
        self._updater = None
        self._updater_funcs = None  # the ctypes callbacks, alive while the library holds them
        self._updater_error = None
        self._warned_sparse = False

    def __del__(self):
        handle = getattr(self, "handle", None)
        if handle is not None and _LIB is not None:
            _LIB.MXKVStoreFree(handle)
            self.handle = None

    # -- calls ----------------------------------------------------------------------------
    def _call(self, plain, ex, str_keys, *args):
        """Calls the int- or str-key variant, then raises what the updater raised meanwhile."""
        check_call(getattr(_LIB, ex if str_keys else plain)(self.handle, *args))
        self._raise_updater_error()

    def _raise_updater_error(self):
        err, self._updater_error = self._updater_error, None
        if err is not None:
            raise err

    def init(self, key, value):
        """Stores a copy of `value` under `key` (a key is initialized once). Distributed:
        rank 0's value is kept, and every worker waits for it."""
        keys, vals, str_keys = _flatten(key, value)
        self._call("MXKVStoreInit", "MXKVStoreInitEx", str_keys, mx_uint(len(keys)),
                   _c_keys(keys, str_keys), _c_handles(vals))

    def push(self, key, value, priority=0):
        """Sums the values given for each key (over devices, and over workers when
        distributed), then applies the updater to the stored value, or stores the sum."""
        keys, vals, str_keys = _flatten(key, value)
        self._call("MXKVStorePush", "MXKVStorePushEx", str_keys, mx_uint(len(keys)),
                   _c_keys(keys, str_keys), _c_handles(vals), ctypes.c_int(priority))

    def pull(self, key, out=None, priority=0, ignore_sparse=True):
        """Copies each key's stored value into every array of `out`. Sparse outs are skipped
        (with one warning) unless ignore_sparse is False."""
        if out is None:
            raise AssertionError("pull needs out: the arrays to copy the stored values into")
        keys, vals, str_keys = _flatten(key, out)
        if ignore_sparse:
            dense = [i for i, v in enumerate(vals) if v.stype == "default"]
            if len(dense) != len(vals):
                if not self._warned_sparse:
                    warnings.warn("pull skips sparse outs; use row_sparse_pull, or "
                                  "ignore_sparse=False", UserWarning, stacklevel=2)
                    self._warned_sparse = True
                keys = [keys[i] for i in dense]
                vals = [vals[i] for i in dense]
                if not keys:
                    return
        self._call("MXKVStorePullWithSparse", "MXKVStorePullWithSparseEx", str_keys, mx_uint(len(keys)),
                   _c_keys(keys, str_keys), _c_handles(vals), ctypes.c_int(priority),
                   ctypes.c_bool(ignore_sparse))

    def pushpull(self, key, value, out=None, priority=0):
        """push then pull in one call; with out=None the result lands in `value`."""
        self._values_then_outs("MXKVStorePushPull", key, value, value if out is None else out, priority)

    def broadcast(self, key, value, out, priority=0):
        """init(key, value) then pull(key, out): a key is broadcast once."""
        self._values_then_outs("MXKVStoreBroadcast", key, value, out, priority)

    def _values_then_outs(self, api, key, value, out, priority):
        """The C calls taking (keys, values) then (keys, outs): MXKVStorePushPull, MXKVStoreBroadcast."""
        vkeys, vals, str_keys = _flatten(key, value)
        okeys, outs, out_str = _flatten(key, out)
        if out_str != str_keys:
            raise AssertionError("inconsistent types of keys detected.")
        self._call(api, api + "Ex", str_keys,
                   mx_uint(len(vkeys)), _c_keys(vkeys, str_keys), mx_uint(len(okeys)),
                   _c_keys(okeys, str_keys), _c_handles(vals), _c_handles(outs), ctypes.c_int(priority))

    def row_sparse_pull(self, key, out=None, priority=0, row_ids=None):
        """Copies the stored rows listed in `row_ids` into `out`; the other rows become 0.

        row_ids is an NDArray of row indices (any order, repeats allowed) or a list of them,
        one per out. With one row_ids and a list of outs, the rows are pulled into the first
        out and copied to the others.
        """
        if out is None:
            raise AssertionError("row_sparse_pull needs out")
        if row_ids is None:
            raise AssertionError("row_sparse_pull needs row_ids")
        if isinstance(row_ids, NDArray):
            row_ids = [row_ids]
        if not isinstance(row_ids, (list, tuple)):
            raise AssertionError("row_ids should be NDArray or list of NDArray")
        row_ids = [_row_index(r) for r in row_ids]
        first_out, rest = out, []
        if len(row_ids) == 1 and isinstance(out, (list, tuple)):
            first_out, rest = [out[0]], list(out[1:])
        keys, vals, str_keys = _flatten(key, first_out)
        _, rids, _ = _flatten(key, row_ids)
        if len(rids) != len(vals):
            raise AssertionError("the number of row_ids doesn't match the number of values")
        self._call("MXKVStorePullRowSparse", "MXKVStorePullRowSparseEx", str_keys, mx_uint(len(keys)),
                   _c_keys(keys, str_keys), _c_handles(vals), _c_handles(rids), ctypes.c_int(priority))
        for o in rest:
            _assign(o, vals[0])

    # -- compression and optimizer -------------------------------------------------------------
    def set_gradient_compression(self, compression_params):
        """Compresses pushed gradients, e.g. {'type': '2bit', 'threshold': 0.5}. Only for
        'device' and distributed stores; call it before init."""
        if "device" not in self.type and "dist" not in self.type:
            raise Exception("Gradient compression is not supported for this type of kvstore")
        names = [str(k) for k in compression_params]
        values = [str(compression_params[k]) for k in compression_params]
        check_call(_LIB.MXKVStoreSetGradientCompression(self.handle, mx_uint(len(names)),
                                                        c_str_array(names), c_str_array(values)))

    def set_optimizer(self, optimizer):
        """Applies `optimizer` to every push. It runs in this process; in distributed stores
        every worker runs it on the summed gradients, so all keep the same weights and states."""
        if not isinstance(optimizer, opt.Optimizer):
            raise TypeError("set_optimizer takes an Optimizer, got %r" % (optimizer,))
        if "dist" in self.type:
            # Every worker must be able to rebuild the same optimizer (1.x shipped it pickled).
            pickle.dumps(optimizer, 0)
        self._set_updater(opt.get_updater(optimizer))

    def is_capable(self, capability):
        """'optimizer': whether set_optimizer can be used (always, for the native stores)."""
        if capability.lower() == KVStoreBase.OPTIMIZER:
            return True
        raise ValueError("Unknown capability: {}".format(capability))

    def _set_updater(self, updater):
        """Installs `updater(key, received, stored)`, which updates `stored` in place. str keys
        reach it as bytes. An exception it raises is raised again by the store's next call."""
        def call(key, recv, local, _):
            try:
                updater(key, NDArray(NDArrayHandle(recv)), NDArray(NDArrayHandle(local)))
            except BaseException as err:  # pylint: disable=broad-except
                if self._updater_error is None:
                    self._updater_error = err
        self._updater = updater
        self._updater_funcs = (_UPDATER(call), _STR_UPDATER(call))
        check_call(_LIB.MXKVStoreSetUpdaterEx(self.handle, self._updater_funcs[0], self._updater_funcs[1],
                                              None))

    def save_optimizer_states(self, fname, dump_optimizer=False):
        """Pickles the updater's states (and the optimizer when dump_optimizer) to `fname`."""
        if self._updater is None:
            raise AssertionError("Cannot save states for distributed training")
        with open(fname, "wb") as fout:
            fout.write(self._updater.get_states(dump_optimizer))

    def load_optimizer_states(self, fname):
        """Restores states saved by save_optimizer_states."""
        if self._updater is None:
            raise AssertionError("Cannot load states for distributed training")
        with open(fname, "rb") as fin:
            self._updater.set_states(fin.read())

    # -- identity and synchronisation --------------------------------------------------------
    @property
    def type(self):
        kv_type = ctypes.c_char_p()
        check_call(_LIB.MXKVStoreGetType(self.handle, ctypes.byref(kv_type)))
        return py_str(kv_type.value)

    @property
    def rank(self):
        ret = ctypes.c_int()
        check_call(_LIB.MXKVStoreGetRank(self.handle, ctypes.byref(ret)))
        return ret.value

    @property
    def num_workers(self):
        ret = ctypes.c_int()
        check_call(_LIB.MXKVStoreGetGroupSize(self.handle, ctypes.byref(ret)))
        return ret.value

    def _barrier(self):
        """Waits until every worker reached it (local stores: returns at once). It does not
        wait for this worker's pending pushes and pulls."""
        check_call(_LIB.MXKVStoreBarrier(self.handle))

    barrier = _barrier

    def _send_command_to_servers(self, head, body):
        """Forwards (head, body) to the servers' controller; see COMMANDS."""
        check_call(_LIB.MXKVStoreSendCommmandToServers(self.handle, ctypes.c_int(head), c_str(body)))
