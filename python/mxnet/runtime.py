"""Build features, environment variables and runtime facts of the loaded library."""
import collections
import ctypes

from .base import _LIB, check_call, py_str, mx_uint

__all__ = ["Feature", "Features", "feature_list", "env_vars", "EnvVar", "info", "storage_stats"]


class LibFeature(ctypes.Structure):
    _fields_ = [("_name", ctypes.c_char_p), ("_enabled", ctypes.c_bool)]

    @property
    def name(self):
        return self._name.decode()

    @property
    def enabled(self):
        return self._enabled

    def __repr__(self):
        return ("✔ " if self.enabled else "✖ ") + self.name


Feature = LibFeature

# Both spellings of the oneDNN feature answer, so old and new scripts work.
_FEATURE_SYNONYMS = {"MKLDNN": "ONEDNN", "ONEDNN": "MKLDNN"}


def feature_list():
    """The library's build features, in MXNet 1.x's order (then ONEDNN, CYTHON).

    CYTHON says whether this process uses the compiled fast path (mxnet._fastpath), which the
    library alone cannot know: it may be built but disabled (MXNET_ENABLE_CYTHON=0) or missing.
    """
    from . import _fast
    lib_features = ctypes.POINTER(LibFeature)()
    size = ctypes.c_size_t()
    check_call(_LIB.MXLibInfoFeatures(ctypes.byref(lib_features), ctypes.byref(size)))
    features = [lib_features[i] for i in range(size.value)]
    for i, f in enumerate(features):
        if f.name == "CYTHON":
            features[i] = LibFeature(f._name, _fast.module is not None)
    return features


class Features(collections.OrderedDict):
    """Name -> Feature of the loaded library; `is_enabled(name)` as in MXNet 1.x."""

    instance = None

    def __new__(cls):
        if cls.instance is None:
            cls.instance = super(Features, cls).__new__(cls)
            super(Features, cls.instance).__init__([(f.name, f) for f in feature_list()])
        return cls.instance

    def __init__(self):  # pylint: disable=super-init-not-called
        pass

    def __repr__(self):
        return str(list(self.values()))

    def is_enabled(self, feature_name):
        name = feature_name.upper()
        if name not in self:
            raise RuntimeError("Feature '{}' is unknown, known features are: {}".format(
                feature_name, list(self.keys())))
        return self[name].enabled


EnvVar = collections.namedtuple(
    "EnvVar", ["name", "type", "value", "default", "allowed", "section", "acted_on", "changeable", "is_set", "doc",
               "aliases"])
_ENV_FIELDS = len(EnvVar._fields)


def env_vars():
    """Every environment variable the runtime knows: its value in effect, default, doc, and
    whether this build acts on it. Returns an ordered dict name -> EnvVar; `aliases` holds
    the old names a renamed variable is still read under."""
    size = mx_uint()
    arr = ctypes.POINTER(ctypes.c_char_p)()
    check_call(_LIB.MXListEnvVars(ctypes.byref(size), ctypes.byref(arr)))
    out = collections.OrderedDict()
    for i in range(size.value):
        f = [py_str(arr[i * _ENV_FIELDS + k]) for k in range(_ENV_FIELDS)]
        f[6], f[7], f[8] = f[6] == "1", f[7] == "1", f[8] == "1"
        f[10] = tuple(n for n in f[10].split(",") if n)
        out[f[0]] = EnvVar(*f)
    return out


def info():
    """Facts about this runtime: its own version, the MXNet version it is compatible with,
    and what it chose at start-up (threads, engine, BLAS)."""
    size = mx_uint()
    keys = ctypes.POINTER(ctypes.c_char_p)()
    vals = ctypes.POINTER(ctypes.c_char_p)()
    check_call(_LIB.MXGetRuntimeInfo(ctypes.byref(size), ctypes.byref(keys), ctypes.byref(vals)))
    return collections.OrderedDict((py_str(keys[i]), py_str(vals[i])) for i in range(size.value))


def storage_stats(ctx=None):
    """Memory-pool statistics of a device (default: the current context)."""
    from . import _storage
    from .context import current_context
    ctx = ctx if ctx is not None else current_context()
    return _storage.storage_stats(ctx.device_typeid, ctx.device_id)
