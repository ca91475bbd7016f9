"""'horovod': Horovod's interface (sum-allreduce per array, broadcast from rank 0) on the
native distributed store, so scripts written for it run under this runtime's launcher."""
from .base import KVStoreBase, _as_list

__all__ = ["Horovod"]


@KVStoreBase.register
class Horovod(KVStoreBase):
    """Every listed array is summed over the ranks on its own (arrays of one call are not
    added together); broadcast sends rank 0's value. It applies no optimizer: the Trainer
    updates the weights itself."""

    def __init__(self):
        from .base import create
        self._store = create("dist_sync")
        self._known = set()  # native keys that exist already

    def _native_key(self, key, array):
        # Horovod names a reduction by its key; the native store needs one byte size per key.
        return "horovod:%s:%s:%d" % (key, "x".join(str(d) for d in array.shape), array._dtype_flag)

    @property
    def type(self):
        return "horovod"

    @property
    def rank(self):
        return self._store.rank

    @property
    def num_workers(self):
        return self._store.num_workers

    def broadcast(self, key, value, out, priority=0):
        name = self._native_key(key, value)
        outs = _as_list(out)
        if name not in self._known:
            self._known.add(name)
            self._store.broadcast(name, value, out=outs, priority=priority)
            return
        # An existing key: the sum of rank 0's value and zeros elsewhere.
        sent = value if self.rank == 0 else value.zeros_like()
        self._store.pushpull(name, sent, out=outs, priority=priority)

    def pushpull(self, key, value, out=None, priority=0):
        values = _as_list(value)
        outs = values if out is None else _as_list(out)
        for v, o in zip(values, outs):
            name = self._native_key(key, v)
            if name not in self._known:
                self._known.add(name)
                self._store.init(name, v.zeros_like())
            self._store.pushpull(name, v, out=o, priority=priority)

    def set_optimizer(self, optimizer):
        pass

    @staticmethod
    def is_capable(capability):
        if capability.lower() == KVStoreBase.OPTIMIZER:
            return False
        raise ValueError("Unknown capability: {}".format(capability))

    def save_optimizer_states(self, fname, dump_optimizer=False):
        pass

    def load_optimizer_states(self, fname):
        pass
