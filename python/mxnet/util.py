"""Utilities 1.x scripts import from mxnet.util: directories, GPU counts, and the NumPy-shape
switch (whether () means a scalar shape and 0 a zero-size dimension)."""
import ctypes
import functools
import os

from .base import _LIB, check_call


def makedirs(d):
    """Creates d and its parents; an existing d is fine."""
    os.makedirs(os.path.expanduser(d), exist_ok=True)


def get_gpu_count():
    from .context import num_gpus
    return num_gpus()


def get_gpu_memory(gpu_dev_id):
    """(free, total) bytes of a GPU."""
    from .context import gpu_memory_info
    return gpu_memory_info(gpu_dev_id)


def is_np_shape():
    curr = ctypes.c_int()
    check_call(_LIB.MXIsNumpyShape(ctypes.byref(curr)))
    return bool(curr.value)


def set_np_shape(active):
    """Turns NumPy shape semantics on or off; returns the previous setting."""
    prev = ctypes.c_int()
    check_call(_LIB.MXSetIsNumpyShape(ctypes.c_int(1 if active else 0), ctypes.byref(prev)))
    return bool(prev.value)


class _NumpyShapeScope(object):
    def __init__(self, active):
        self._active = active
        self._prev = None

    def __enter__(self):
        self._prev = set_np_shape(self._active)

    def __exit__(self, *exc):
        set_np_shape(self._prev)


def np_shape(active=True):
    """with np_shape(): ... runs the block with NumPy shape semantics."""
    return _NumpyShapeScope(active)


def use_np_shape(func):
    """Decorates func (or a class's methods) to run with NumPy shape semantics."""
    if isinstance(func, type):
        for name, method in list(vars(func).items()):
            if callable(method) and not name.startswith("__"):
                setattr(func, name, use_np_shape(method))
        return func

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with np_shape(True):
            return func(*args, **kwargs)
    return wrapper
