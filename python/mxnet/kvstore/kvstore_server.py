"""Server and scheduler processes of parameter-server launchers.

This runtime's distributed stores are formed by the workers alone. Launchers written for
MXNet's parameter server still start processes with DMLC_ROLE=server or scheduler: those
leave quietly (exit status 0) when they import mxnet, where 1.x servers left after serving.
"""
import ctypes
import logging
import pickle
import sys

from ..base import _LIB, check_call

__all__ = ["KVStoreServer"]


class KVStoreServer(object):
    """Serves a store's commands: head 0 carries a pickled optimizer to install."""

    def __init__(self, kvstore):
        self.kvstore = kvstore
        self.handle = kvstore.handle

    def _controller(self):
        def control(head, body, _):
            if head == 0:
                self.kvstore.set_optimizer(pickle.loads(body))
            else:
                logging.info("server: unknown command %d (%s)", head, body)
        return control

    def run(self):
        """Returns at once: no process serves the stores of this runtime."""
        proto = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)
        controller = proto(self._controller())
        check_call(_LIB.MXKVStoreRunServer(self.handle, controller, None))


def _is_worker():
    flag = ctypes.c_int()
    check_call(_LIB.MXKVStoreIsWorkerNode(ctypes.byref(flag)))
    return bool(flag.value)


def _leave_unless_worker():
    """Ends a server or scheduler process at `import mxnet`: its role has no work here."""
    if not _is_worker():
        sys.exit(0)
