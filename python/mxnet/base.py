"""ctypes binding to libmxnet.so: loading, error conversion and small helpers."""
import atexit
import builtins
import ctypes
import os

from . import libinfo

__version__ = libinfo.__version__

py_str = lambda x: x.decode("utf-8")  # noqa: E731

mx_uint = ctypes.c_uint
mx_int = ctypes.c_int
mx_float = ctypes.c_float
mx_int64 = ctypes.c_int64
mx_float_p = ctypes.POINTER(mx_float)
NDArrayHandle = ctypes.c_void_p
SymbolHandle = ctypes.c_void_p
OpHandle = ctypes.c_void_p
CachedOpHandle = ctypes.c_void_p
KVStoreHandle = ctypes.c_void_p
ExecutorHandle = ctypes.c_void_p
DataIterHandle = ctypes.c_void_p
RecordIOHandle = ctypes.c_void_p
ProfileHandle = ctypes.c_void_p


class MXNetError(RuntimeError):
    """Default error raised by the runtime."""


class _NullType(object):
    """Placeholder for arguments not passed."""

    def __repr__(self):
        return "_Null"


_Null = _NullType()

# Type groups 1.x scripts test values against (isinstance(x, numeric_types)).
import numpy as _np  # noqa: E402 - after the handle types, which need nothing else

integer_types = (int, _np.int32, _np.int64)
numeric_types = (float, int, _np.generic)
string_types = (str,)
mx_real_t = _np.float32


class classproperty(object):  # noqa: N801 - 1.x's name
    """A read-only property on the class itself."""

    def __init__(self, func):
        self.func = func

    def __get__(self, obj, owner):
        return self.func(owner)


def data_dir_default():
    """~/.mxnet, where 1.x keeps downloaded models and datasets."""
    return os.path.join(os.path.expanduser("~"), ".mxnet")


def data_dir():
    """MXNET_HOME, or ~/.mxnet when it is unset."""
    return os.getenv("MXNET_HOME", data_dir_default())


def add_fileline_to_docstring(module, incursive=True):
    """1.x appended source locations to docstrings; kept for scripts that call it (no effect)."""
    return None


def ctypes2numpy_shared(cptr, shape):
    """A numpy array over the memory of a ctypes float pointer (shared, not copied)."""
    if not isinstance(cptr, ctypes.POINTER(mx_float)):
        raise RuntimeError("expected float pointer")
    size = 1
    for s in shape:
        size *= s
    dbuffer = (mx_float * size).from_address(ctypes.addressof(cptr.contents))
    return _np.frombuffer(dbuffer, dtype=_np.float32).reshape(shape)

# Error kinds the library may name on the first line of its message; each is both an
# MXNetError and the matching built-in exception, so either `except` clause works.
_ERROR_TYPES = {"MXNetError": MXNetError}


def register_error(name, base):
    cls = type(name, (MXNetError, base), {"__module__": "mxnet.error"})
    _ERROR_TYPES[name] = cls
    return cls


for _name in ("ValueError", "TypeError", "AttributeError", "IndexError", "KeyError", "NotImplementedError",
              "RuntimeError", "IOError", "OverflowError", "MemoryError"):
    register_error(_name, getattr(builtins, _name))
register_error("InternalError", RuntimeError)


def _error_from_message(message):
    """Builds the exception named by the message's "Kind: text" first line."""
    kind, sep, rest = message.partition(": ")
    if sep and kind in _ERROR_TYPES:
        return _ERROR_TYPES[kind](rest)
    return MXNetError(message)


def _check_bool_env(name, default):
    """Variables read before the library exists, validated like the registry does."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    raise MXNetError("Invalid value '%s' for environment variable %s: expected a boolean "
                     "(1/0, true/false, yes/no, on/off)." % (raw, name))


def _load_lib():
    """Loads the first library found; a path that exists but cannot be loaded is an error."""
    path = libinfo.find_lib_path()[0]
    try:
        lib = ctypes.CDLL(path, ctypes.RTLD_LOCAL)
    except OSError as err:
        source = " (from MXNET_LIBRARY_PATH)" if os.environ.get("MXNET_LIBRARY_PATH") and \
            os.path.abspath(os.environ["MXNET_LIBRARY_PATH"]) == path else ""
        raise MXNetError("Cannot load the MXNet library %s%s: %s" % (path, source, err)) from None
    lib.MXGetLastError.restype = ctypes.c_char_p
    return lib, path


def _default_thread_policy():
    """OpenMP threads spin only briefly (about 0.5 ms) before sleeping, unless the user chose.

    Spinning for OpenMP's default 3 ms competes with the Python thread that pushes the next
    operator and with the engine's workers; on a 2-core machine that cost the main job 3x its
    speed. Sleeping at once (PASSIVE) costs a wake-up per parallel region instead: 10-40%
    of batch-1 inference. A short spin bridges the gap between consecutive operators and
    still yields the cores. The OpenMP runtime reads this once when it loads, which is when
    the library below loads.
    """
    if "OMP_WAIT_POLICY" not in os.environ and "GOMP_SPINCOUNT" not in os.environ:
        os.environ["GOMP_SPINCOUNT"] = "50000"


def _default_blas_kernels():
    """OpenBLAS runs its AVX-512 kernels on Intel CPUs that have them, unless the user chose.

    A DYNAMIC_ARCH OpenBLAS picks its kernels by the CPU's model number, and one older than
    the CPU (Debian 12's 0.3.21 on a model-207 Xeon) falls back to its SSE3 'Prescott'
    kernels: sgemm, so FullyConnected and dot, ran 5x slower than with 'SkylakeX'. Those
    kernels need only AVX-512 F/CD/BW/DQ/VL, so every Intel CPU with these flags runs them
    (AMD CPUs are left to OpenBLAS's own choice). OpenBLAS reads OPENBLAS_CORETYPE once, when
    it loads with the library below.
    """
    if "OPENBLAS_CORETYPE" in os.environ:  # no /proc/cpuinfo (not Linux): left alone below
        return
    vendor, flags = None, set()
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                key, _, value = line.partition(":")
                key = key.strip()
                if key == "vendor_id":
                    vendor = value.strip()
                elif key == "flags":
                    flags = set(value.split())
                    break
    except OSError:
        return
    if vendor == "GenuineIntel" and \
            {"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"} <= flags:
        os.environ["OPENBLAS_CORETYPE"] = "SkylakeX"


_default_thread_policy()
_default_blas_kernels()
_ENABLE_CYTHON = _check_bool_env("MXNET_ENABLE_CYTHON", True)
_ENFORCE_CYTHON = _check_bool_env("MXNET_ENFORCE_CYTHON", False)
_LIB, _LIB_PATH = _load_lib()


def check_call(ret):
    """Raises the library's last error when a C API call returned non-zero."""
    if ret != 0:
        raise _error_from_message(py_str(_LIB.MXGetLastError()))


def c_str(string):
    return ctypes.c_char_p(string.encode("utf-8"))


def c_str_array(strings):
    arr = (ctypes.c_char_p * len(strings))()
    arr[:] = [s.encode("utf-8") for s in strings]
    return arr


def c_array(ctype, values):
    return (ctype * len(values))(*values)


def c_array_buf(ctype, buf):
    return (ctype * len(buf)).from_buffer(buf)


def c_handle_array(objs):
    arr = (ctypes.c_void_p * len(objs))()
    arr[:] = [o.handle for o in objs]
    return arr


def ctypes2buffer(cptr, length):
    if not isinstance(cptr, ctypes.POINTER(ctypes.c_char)):
        raise TypeError("expected char pointer")
    res = bytearray(length)
    rptr = (ctypes.c_char * length).from_buffer(res)
    if not ctypes.memmove(rptr, cptr, length):
        raise RuntimeError("memmove failed")
    return res


def _init_runtime():
    """Checks the library started cleanly (its environment parsed) and sets up the process."""
    # MXSetFlushDenorms goes through the same guard as every call, so a bad environment
    # variable surfaces here, at import, as MXNetError naming it.
    prev = ctypes.c_bool()
    check_call(_LIB.MXSetFlushDenorms(ctypes.c_bool(True), ctypes.byref(prev)))
    if _ENFORCE_CYTHON:
        # This build has no compiled fast path; asking to require it cannot be honoured.
        raise ImportError("Cython Module cannot be loaded but MXNET_ENFORCE_CYTHON=1")


_init_runtime()


def _notify_shutdown():
    _LIB.MXNotifyShutdown()


atexit.register(_notify_shutdown)
