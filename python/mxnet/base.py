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
DataIterCreatorHandle = ctypes.c_void_p


class MXNetError(RuntimeError):
    """Default error raised by the runtime."""


class _NullType(object):
    """Placeholder for arguments not passed."""

    def __repr__(self):
        return "_Null"


_Null = _NullType()

# Type groups 1.x scripts test values against (isinstance(x, numeric_types)).
import numpy as _np  # noqa: E402 - after the handle types, which need nothing else

# Python 2 names 1.x code still spells.
basestring = str
long = int

integer_types = (int, _np.int32, _np.int64)
numeric_types = (float, int, _np.generic)
string_types = (str,)
mx_real_t = _np.float32


def with_metaclass(meta, *bases):
    """A base for ``class Scope(with_metaclass(Meta, object))``: Scope is built by Meta with
    `bases` as its bases (1.x's Python 2/3 idiom). The returned placeholder is replaced at class
    creation, so it is neither in Scope's MRO nor ever passed to Meta."""
    class _Bridge(type):
        def __new__(mcs, name, _placeholder_bases, namespace):
            return meta(name, bases, namespace)

        @classmethod
        def __prepare__(mcs, name, _placeholder_bases):
            return meta.__prepare__(name, bases)
    return type.__new__(_Bridge, "_WithMetaclassPlaceholder", (), {})


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
error_types = _ERROR_TYPES  # 1.x's public name for the same table


def _register_builtin_error(name, builtin):
    cls = type(name, (MXNetError, builtin), {"__module__": "mxnet.error"})
    _ERROR_TYPES[name] = cls
    return cls


for _name in ("ValueError", "TypeError", "AttributeError", "IndexError", "KeyError", "NotImplementedError",
              "RuntimeError", "IOError", "OverflowError", "MemoryError"):
    _register_builtin_error(_name, getattr(builtins, _name))
_register_builtin_error("InternalError", RuntimeError)


def register_error(func_name=None, cls=None):
    """Registers an exception class under a name, so a library message "Name: text" raises it.

    Forms: ``@register_error`` (the class's own name), ``@register_error("Name")``, or
    ``register_error("Name", cls)``. Returns the class (or the decorator).
    """
    if callable(func_name):
        func_name, cls = func_name.__name__, func_name
    if func_name is not None and not isinstance(func_name, str):
        raise TypeError("register_error: the name must be a string, got %r" % (func_name,))

    def register(klass):
        if not (isinstance(klass, type) and issubclass(klass, BaseException)):
            raise TypeError("register_error: %r is not an exception class" % (klass,))
        _ERROR_TYPES[func_name or klass.__name__] = klass
        return klass
    return register if cls is None else register(cls)


class _NotAvailableFor(MXNetError):
    """A function called with an array kind it does not handle."""

    _KIND = ""

    def __init__(self, function, alias, *args):
        super(_NotAvailableFor, self).__init__()
        self.function = getattr(function, "__name__", str(function))
        self.alias = alias
        self.args = [str(type(a)) for a in args]

    def __str__(self):
        text = "Function %s" % self.function
        if self.alias:
            text += ' (namely operator "%s")' % self.alias
        if self.args:
            text += " with arguments (%s)" % ", ".join(self.args)
        return text + self._KIND


@register_error
class NotImplementedForSymbol(_NotAvailableFor):
    """A function that exists for NDArray but not for Symbol."""

    _KIND = " is not implemented for Symbol and only available in NDArray."


class NotSupportedForSparseNDArray(_NotAvailableFor):
    """A function that exists for dense NDArray but not for sparse arrays."""

    _KIND = " is not supported for SparseNDArray and only available in NDArray."


class MXCallbackList(ctypes.Structure):
    """Callbacks handed to the library (custom functions and operators): count, functions,
    and one context pointer per function."""
    _fields_ = [("num_callbacks", ctypes.c_int),
                ("callbacks", ctypes.POINTER(ctypes.CFUNCTYPE(ctypes.c_int))),
                ("contexts", ctypes.POINTER(ctypes.c_void_p))]


def c2pyerror(err_msg):
    """(message, error kind) of a library error text.

    The kind is the "Name" of a first line "Name: ..." (None when there is none). A "Stack
    trace" block (indented lines after it) moves to the front as a Python-style traceback,
    innermost frame last.
    """
    lines = err_msg.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    head = lines[0] if lines else ""
    kind = head.partition(":")[0] if ":" in head else None
    if kind is not None and not all(c.isalnum() or c in "_." for c in kind):
        kind = None
    message, trace, in_trace = [], [], False
    for line in lines:
        if in_trace and line.startswith("  "):
            trace.append(line)
            continue
        in_trace = line.startswith("Stack trace")
        if not in_trace:
            message.append(line)
    text = ""
    if trace:
        text = "Traceback (most recent call last):\n" + "\n".join(reversed(trace)) + "\n"
    return text + "\n".join(message), kind


def build_param_doc(arg_names, arg_types, arg_descs, remove_dup=True):
    """A numpydoc "Parameters" section from parallel lists of names, types and descriptions
    (num_args, the count of variadic inputs, is left out; repeats too when remove_dup)."""
    seen, entries = set(), []
    for key, type_info, desc in zip(arg_names, arg_types, arg_descs):
        if key == "num_args" or (remove_dup and key in seen):
            continue
        seen.add(key)
        entries.append("%s : %s" % (key, type_info) + ("\n    " + desc if desc else ""))
    return "Parameters\n----------\n%s\n" % "\n".join(entries)


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


def get_last_ffi_error():
    """The library's last error as an exception object, of the class its message names."""
    return _error_from_message(py_str(_LIB.MXGetLastError()))


def check_call(ret):
    """Raises the library's last error when a C API call returned non-zero."""
    if ret != 0:
        raise get_last_ffi_error()


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


_init_runtime()


def _notify_shutdown():
    _LIB.MXNotifyShutdown()


atexit.register(_notify_shutdown)
