"""Key-value stores (mx.kv): sum values across devices and workers, optionally updating
stored weights with an optimizer."""
from .base import KVStoreBase, TestStore, create
from .kvstore import KVStore
from .horovod import Horovod
from .kvstore_server import KVStoreServer, _leave_unless_worker

__all__ = ["KVStoreBase", "TestStore", "create", "KVStore", "Horovod", "KVStoreServer"]

_leave_unless_worker()
