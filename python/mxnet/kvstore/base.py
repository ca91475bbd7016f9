"""The store interface every kvstore implements, the plug-in registry and `create`."""
import ctypes
import warnings

from ..base import _LIB, KVStoreHandle, check_call, c_str

__all__ = ["KVStoreBase", "TestStore", "create"]


class KVStoreBase(object):
    """What a store offers to the Trainer: broadcast, pushpull and optimizer capability.

    Subclasses decorated with `KVStoreBase.register` become creatable by their lower-cased
    class name through `create`, before the native stores are consulted.
    """

    kv_registry = {}

    OPTIMIZER = "optimizer"

    def broadcast(self, key, value, out, priority=0):
        """Sets every array of `out` to `value` (the value of rank 0 when distributed)."""
        raise NotImplementedError()

    def pushpull(self, key, value, out=None, priority=0):
        """Reduces `value` (summed over its list and over ranks) into `out`, or into `value`
        when `out` is None."""
        raise NotImplementedError()

    def set_optimizer(self, optimizer):
        """Makes the store apply `optimizer` to pushed values."""
        raise NotImplementedError()

    def is_capable(self, capability):
        """Whether the store supports `capability` (KVStoreBase.OPTIMIZER)."""
        raise NotImplementedError()

    def save_optimizer_states(self, fname, dump_optimizer=False):
        """Writes the optimizer states (and the optimizer when dump_optimizer) to `fname`."""
        raise NotImplementedError()

    def load_optimizer_states(self, fname):
        """Restores what save_optimizer_states wrote."""
        raise NotImplementedError()

    @property
    def type(self):
        """The store's type name."""
        raise NotImplementedError()

    @property
    def rank(self):
        """This worker's rank, from 0."""
        raise NotImplementedError()

    @property
    def num_workers(self):
        """How many workers share the store."""
        raise NotImplementedError()

    @staticmethod
    def register(klass):
        """Class decorator: makes `klass` creatable by `create(klass.__name__.lower())`."""
        name = klass.__name__.lower()
        previous = KVStoreBase.kv_registry.get(name)
        if previous is not None and previous is not klass:
            warnings.warn("kvstore %r (%s.%s) replaces the one registered by %s.%s"
                          % (name, klass.__module__, klass.__name__, previous.__module__, previous.__name__))
        KVStoreBase.kv_registry[name] = klass
        return klass


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _assign(dst, src):
    """dst[:] = src, where src may live on another device."""
    dst[:] = src.as_in_context(dst.context)


@KVStoreBase.register
class TestStore(KVStoreBase):
    """A single-process store in pure Python, for testing code written against KVStoreBase."""

    def broadcast(self, key, value, out, priority=0):
        for o in _as_list(out):
            _assign(o, value)

    def pushpull(self, key, value, out=None, priority=0):
        values = _as_list(value)
        ctx = values[0].context
        total = values[0].copy()
        for v in values[1:]:
            total = total + v.as_in_context(ctx)
        for o in (values if out is None else _as_list(out)):
            _assign(o, total)

    @staticmethod
    def is_capable(capability):
        if capability.lower() == KVStoreBase.OPTIMIZER:
            return False
        raise ValueError("Unknown capability: {}".format(capability))

    # set_optimizer and the optimizer-state methods: KVStoreBase's NotImplementedError.

    @property
    def type(self):
        return "teststore"

    @property
    def rank(self):
        return 0

    @property
    def num_workers(self):
        return 1


def create(name="local"):
    """A store by type name (case-insensitive): a registered plug-in, else a native store.

    Native types: 'local' (sum on the CPU), 'device' (sum on the values' devices), 'nccl',
    and the distributed 'dist_sync', 'dist_device_sync' and 'dist_async'.
    """
    if not isinstance(name, str):
        raise TypeError("name must be a string")
    name = name.lower()
    klass = KVStoreBase.kv_registry.get(name)
    if klass is not None:
        return klass()
    from .kvstore import KVStore
    handle = KVStoreHandle()
    check_call(_LIB.MXKVStoreCreate(c_str(name), ctypes.byref(handle)))
    return KVStore(handle)

