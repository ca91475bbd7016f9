"""Utilities 1.x scripts import from mxnet.util: directories, GPU counts and capabilities, the
runtime's view of environment variables, and the NumPy-shape switch (whether () means a scalar
shape and 0 a zero-size dimension)."""
import ctypes
import functools
import os

from .base import _LIB, c_str, check_call


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


def getenv(name):
    """The runtime's view of a variable (its value in effect), or None when unset."""
    value = ctypes.c_char_p()
    check_call(_LIB.MXGetEnv(c_str(name), ctypes.byref(value)))
    return None if value.value is None else value.value.decode("utf-8")


def setenv(name, value):
    """Sets a variable in the runtime and the process environment; None unsets it."""
    check_call(_LIB.MXSetEnv(c_str(name), None if value is None else c_str(value)))
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value


def set_module(module):
    """Decorator that sets a function's or class's __module__ (None leaves it)."""
    def decorate(func):
        if module is not None:
            func.__module__ = module
        return func
    return decorate


def _cuda_driver():
    for name in ("libcuda.so.1", "libcuda.so", "libcuda.dylib", "nvcuda.dll"):
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    raise OSError("get_cuda_compute_capability: the CUDA driver library (libcuda) could not be loaded")


def get_cuda_compute_capability(ctx):
    """The compute capability of a GPU context as major*10+minor (70 for sm_70), read from the
    CUDA driver."""
    if getattr(ctx, "device_type", None) != "gpu":
        raise ValueError("get_cuda_compute_capability expects a gpu context, got %s" % (ctx,))
    cuda = _cuda_driver()
    major, minor, device = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()

    def call(what, ret):
        if ret != 0:
            text = ctypes.c_char_p()
            cuda.cuGetErrorString(ret, ctypes.byref(text))
            raise RuntimeError("%s failed with CUDA error %d: %s"
                               % (what, ret, (text.value or b"unknown").decode()))
    call("cuInit", cuda.cuInit(0))
    call("cuDeviceGet(%d)" % ctx.device_id, cuda.cuDeviceGet(ctypes.byref(device), ctx.device_id))
    call("cuDeviceComputeCapability", cuda.cuDeviceComputeCapability(
        ctypes.byref(major), ctypes.byref(minor), device))
    return major.value * 10 + minor.value


def is_np_array():
    """Whether NumPy-array semantics (mx.np arrays in Gluon) are on: never, in this runtime,
    which has no mx.np arrays; 1.x code branches on it."""
    return False


def reset_np():
    """Turns NumPy shape semantics off (this runtime has no NumPy-array semantics to turn off)."""
    set_np_shape(False)


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
