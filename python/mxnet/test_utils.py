"""Helpers for tests written against MXNet 1.x."""
import contextlib
import os

from .base import _LIB, check_call, c_str

__all__ = ["environment", "setenv", "getenv", "assert_almost_equal", "almost_equal", "same",
           "check_numeric_gradient", "rand_ndarray", "rand_shape_nd", "rand_shape_2d", "rand_shape_3d",
           "default_context", "set_default_context"]


def getenv(name):
    """The runtime's view of a variable (its value in effect), or None when unset."""
    import ctypes
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


@contextlib.contextmanager
def environment(*args):
    """Sets environment variables for the duration of a `with` block.

    environment(name, value) or environment({name: value, ...}); a value of None unsets.
    Values are validated by the runtime: a bad one raises MXNetError naming the variable.
    """
    if len(args) == 2:
        changes = {args[0]: args[1]}
    elif len(args) == 1 and isinstance(args[0], dict):
        changes = dict(args[0])
    else:
        raise ValueError("environment() takes (name, value) or a dict of them")
    saved = {name: os.environ.get(name) for name in changes}
    applied = []
    try:
        for name, value in changes.items():
            setenv(name, None if value is None else str(value))
            applied.append(name)
        yield
    finally:
        for name in reversed(applied):
            setenv(name, saved[name])


# ---- numerical helpers (MXNet 1.x mx.test_utils) ----
import numpy as _np

_DEFAULT_CTX = [None]


def default_context():
    """The context tests run on (cpu() unless set_default_context changed it)."""
    from .context import cpu
    return _DEFAULT_CTX[0] or cpu()


def set_default_context(ctx):
    _DEFAULT_CTX[0] = ctx


def _as_numpy(a):
    from .ndarray import NDArray
    return a.asnumpy() if isinstance(a, NDArray) else _np.asarray(a)


_TOLS = {_np.dtype(_np.float16): (1e-2, 1e-2), _np.dtype(_np.float32): (1e-4, 1e-5),
         _np.dtype(_np.float64): (1e-7, 1e-9)}


def _tols(a, b, rtol, atol):
    dt = _np.result_type(a.dtype, b.dtype) if a.dtype.kind == "f" or b.dtype.kind == "f" else None
    r, t = _TOLS.get(_np.dtype(dt), (1e-5, 1e-20)) if dt is not None else (0, 0)
    return (r if rtol is None else rtol), (t if atol is None else atol)


def same(a, b):
    return _np.array_equal(_as_numpy(a), _as_numpy(b))


def almost_equal(a, b, rtol=None, atol=None, equal_nan=False):
    a, b = _as_numpy(a), _as_numpy(b)
    rtol, atol = _tols(a, b, rtol, atol)
    return _np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


def assert_almost_equal(a, b, rtol=None, atol=None, names=("a", "b"), equal_nan=False):
    a, b = _as_numpy(a), _as_numpy(b)
    if a.shape != b.shape:
        raise AssertionError("shape mismatch: %s %s vs %s %s" % (names[0], a.shape, names[1], b.shape))
    rtol, atol = _tols(a, b, rtol, atol)
    if _np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan):
        return
    diff = _np.abs(a.astype(_np.float64) - b.astype(_np.float64))
    idx = _np.unravel_index(_np.argmax(diff), diff.shape) if diff.size else ()
    raise AssertionError("Items are not equal (rtol=%g, atol=%g): max abs error %g at %s: %s=%s, %s=%s\n%s: %s\n%s: %s"
                         % (rtol, atol, diff.max(), idx, names[0], a[idx], names[1], b[idx], names[0], a,
                            names[1], b))


def rand_shape_nd(num_dim, dim=10, allow_zero_size=False):
    low = 0 if allow_zero_size else 1
    return tuple(_np.random.randint(low, dim + 1, size=num_dim))


def rand_shape_2d(dim0=10, dim1=10, allow_zero_size=False):
    low = 0 if allow_zero_size else 1
    return _np.random.randint(low, dim0 + 1), _np.random.randint(low, dim1 + 1)


def rand_shape_3d(dim0=10, dim1=10, dim2=10, allow_zero_size=False):
    low = 0 if allow_zero_size else 1
    return (_np.random.randint(low, dim0 + 1), _np.random.randint(low, dim1 + 1), _np.random.randint(low, dim2 + 1))


def rand_ndarray(shape, stype="default", density=None, dtype=None, ctx=None):
    from .ndarray import array
    if stype != "default":
        raise ValueError("only dense ('default') storage is supported, got %r" % (stype,))
    return array(_np.random.uniform(-1, 1, size=shape), ctx=ctx or default_context(), dtype=dtype or _np.float32)


def check_numeric_gradient(fn, inputs, head_grad=None, eps=1e-3, rtol=1e-2, atol=1e-4, dtype=_np.float64):
    """Compares autograd gradients of fn (NDArrays -> one NDArray) with central differences.

    inputs: NDArrays or numpy arrays; computed in `dtype` (float64 by default for accuracy).
    """
    from . import autograd
    from .ndarray import array
    base = [_as_numpy(x).astype(dtype) for x in inputs]
    xs = [array(b, dtype=dtype) for b in base]
    for x in xs:
        x.attach_grad()
    with autograd.record():
        y = fn(*xs)
    hg = _np.random.uniform(-1, 1, size=y.shape).astype(dtype) if head_grad is None else _as_numpy(head_grad)
    y.backward(array(hg, dtype=dtype))
    analytic = [x.grad.asnumpy() for x in xs]
    for k, b in enumerate(base):
        numeric = _np.zeros_like(b)
        flat = b.reshape(-1)
        for i in range(flat.size):
            orig = flat[i]
            flat[i] = orig + eps
            plus = (_as_numpy(fn(*[array(v, dtype=dtype) for v in base])) * hg).sum()
            flat[i] = orig - eps
            minus = (_as_numpy(fn(*[array(v, dtype=dtype) for v in base])) * hg).sum()
            flat[i] = orig
            numeric.reshape(-1)[i] = (plus - minus) / (2 * eps)
        assert_almost_equal(analytic[k], numeric, rtol=rtol, atol=atol,
                            names=("autograd gradient of input %d" % k, "numeric gradient"))
