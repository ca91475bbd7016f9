"""Devices: mx.cpu(), mx.gpu(i), and the thread-local default context."""
import ctypes
import threading

from .base import _LIB, check_call

__all__ = ["Context", "cpu", "gpu", "cpu_pinned", "current_context", "num_gpus", "gpu_memory_info"]


class Context(object):
    """A device: its type ('cpu', 'gpu', 'cpu_pinned', 'cpu_shared') and id."""

    _default_ctx = threading.local()
    devtype2str = {1: "cpu", 2: "gpu", 3: "cpu_pinned", 5: "cpu_shared"}
    devstr2type = {"cpu": 1, "gpu": 2, "cpu_pinned": 3, "cpu_shared": 5}

    def __init__(self, device_type, device_id=0):
        if isinstance(device_type, Context):
            self.device_typeid = device_type.device_typeid
            self.device_id = device_type.device_id
        else:
            if device_type not in Context.devstr2type:
                raise ValueError("Unknown device type '%s': expected one of %s"
                                 % (device_type, ", ".join(Context.devstr2type)))
            self.device_typeid = Context.devstr2type[device_type]
            self.device_id = int(device_id)

    @property
    def device_type(self):
        return Context.devtype2str[self.device_typeid]

    def __hash__(self):
        return hash((self.device_typeid, self.device_id))

    def __eq__(self, other):
        return isinstance(other, Context) and self.device_typeid == other.device_typeid and \
            self.device_id == other.device_id

    def __str__(self):
        return "%s(%d)" % (self.device_type, self.device_id)

    def __repr__(self):
        return self.__str__()

    def __enter__(self):
        # The contexts being replaced wait on a per-thread stack, not on self, so one Context
        # object may be entered again inside its own `with` (NDArray.context hands out shared
        # instances).
        state = Context._default_ctx
        if not hasattr(state, "value"):
            state.value = Context("cpu", 0)
        if not hasattr(state, "outer"):
            state.outer = []
        state.outer.append(state.value)
        state.value = self
        return self

    def __exit__(self, ptype, value, trace):
        state = Context._default_ctx
        state.value = state.outer.pop()

    def empty_cache(self):
        """Returns this device's cached pool memory to the device (MXStorageEmptyCache)."""
        from . import _storage
        _storage.empty_cache(self.device_typeid, self.device_id)


def cpu(device_id=0):
    return Context("cpu", device_id)


def gpu(device_id=0):
    return Context("gpu", device_id)


def cpu_pinned(device_id=0):
    return Context("cpu_pinned", device_id)


def num_gpus():
    count = ctypes.c_int()
    check_call(_LIB.MXGetGPUCount(ctypes.byref(count)))
    return count.value


def gpu_memory_info(device_id=0):
    """(free, total) bytes of a GPU."""
    from . import _storage
    return _storage.gpu_memory_info(device_id)


def current_context():
    if not hasattr(Context._default_ctx, "value"):
        Context._default_ctx.value = Context("cpu", 0)
    return Context._default_ctx.value
