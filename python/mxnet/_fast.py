"""Selects the compiled fast path (the extension module mxnet._fastpath) or the ctypes binding.

As in MXNet 1.x: with MXNET_ENABLE_CYTHON=0 the ctypes binding is used; otherwise the compiled
module is loaded when it is found (beside this package's files, where `pip install ./python`
puts it, or beside the loaded libmxnet.so, where the build writes it); when it cannot be loaded,
MXNET_ENFORCE_CYTHON=1 makes the import fail and otherwise ctypes is used. Both paths call the
same functions of the same library: the module receives their addresses from the loaded one.

`module` is the loaded extension or None; `reason` says why it is None.
"""
import ctypes
import importlib.machinery
import importlib.util
import os

from .base import _ENABLE_CYTHON, _ENFORCE_CYTHON, _LIB, _LIB_PATH, get_last_ffi_error

# The C API functions the module calls, by name (it gets their addresses at bind()).
_FUNCTIONS = ("MXImperativeInvokeEx", "MXNDArrayWaitToRead", "MXNDArrayCreateEx64", "MXNDArrayGetShapeEx64",
              "MXNDArrayGetDType", "MXNDArraySyncCopyToCPU", "MXNDArrayFree")


def _candidates():
    folders = [os.path.dirname(os.path.abspath(__file__)), os.path.dirname(os.path.abspath(_LIB_PATH))]
    for folder in folders:
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = os.path.join(folder, "_fastpath" + suffix)
            if os.path.isfile(path):
                yield path


def _load():
    if not _ENABLE_CYTHON:
        return None, "MXNET_ENABLE_CYTHON=0"
    reason = "mxnet._fastpath was not built for this Python (%s) beside %s or %s" % (
        importlib.machinery.EXTENSION_SUFFIXES[0], os.path.dirname(os.path.abspath(__file__)),
        os.path.dirname(os.path.abspath(_LIB_PATH)))
    for path in _candidates():
        try:
            spec = importlib.util.spec_from_file_location("mxnet._fastpath", path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return module, None
        except ImportError as err:
            reason = "%s cannot be loaded: %s" % (path, err)
    if _ENFORCE_CYTHON:
        raise ImportError("Cython Module cannot be loaded but MXNET_ENFORCE_CYTHON=1 (%s)" % reason)
    return None, reason


module, reason = _load()


def _raise_last_error():
    raise get_last_ffi_error()


def bind(ndarray_class, handle_class):
    """Hands the module the library's functions and the NDArray class (mxnet.ndarray calls it)."""
    if module is None:
        return
    addresses = {name: ctypes.cast(getattr(_LIB, name), ctypes.c_void_p).value for name in _FUNCTIONS}
    module.init(addresses, ndarray_class, handle_class, _raise_last_error)
