"""Helpers for tests written against MXNet 1.x."""
import contextlib
import os

from .util import getenv, setenv, get_cuda_compute_capability

__all__ = ["environment", "setenv", "getenv", "get_cuda_compute_capability", "assert_almost_equal", "almost_equal", "same",
           "check_numeric_gradient", "rand_ndarray", "rand_shape_nd", "rand_shape_2d", "rand_shape_3d",
           "default_context", "set_default_context"]


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
import numpy as np  # noqa: E402,F811 - `from mxnet.test_utils import *` gives np and mx, as in 1.x

import mxnet as mx  # noqa: E402 - the package object (already being imported)
from .context import Context, current_context  # noqa: E402
from .ndarray import array  # noqa: E402
from .runtime import Features  # noqa: E402

__all__ += ["np", "mx", "Context", "current_context", "array", "Features"]

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
    """Default tolerances of the less precise floating side (as MXNet 1.x picks them)."""
    floats = [d for d in (a.dtype, b.dtype) if d.kind == "f"]
    if floats:
        pairs = [_TOLS.get(_np.dtype(d), (1e-5, 1e-20)) for d in floats]
        r, t = max(p[0] for p in pairs), max(p[1] for p in pairs)
    else:
        r, t = 0, 0
    return (r if rtol is None else rtol), (t if atol is None else atol)


def same(a, b):
    return _np.array_equal(_as_numpy(a), _as_numpy(b))


def almost_equal(a, b, rtol=None, atol=None, equal_nan=False, use_broadcast=True):
    a, b = _as_numpy(a), _as_numpy(b)
    if a.shape != b.shape and not use_broadcast:
        return False
    rtol, atol = _tols(a, b, rtol, atol)
    return _np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


def assert_almost_equal(a, b, rtol=None, atol=None, names=("a", "b"), equal_nan=False, use_broadcast=True,
                        mismatches=(10, 10)):
    """Asserts |a-b| <= atol + rtol*|b| elementwise (NaNs equal with equal_nan).

    Shapes must match, except that with use_broadcast a scalar-shaped side ((), (1,)) is
    broadcast against the other.
    """
    a, b = _as_numpy(a), _as_numpy(b)
    if a.shape != b.shape:
        if use_broadcast and (a.size == 1 or b.size == 1):
            a, b = _np.broadcast_arrays(a, b)
        else:
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


def rand_ndarray(shape, stype="default", density=None, dtype=None, modifier_func=None,
                 shuffle_csr_indices=False, distribution=None, ctx=None):
    """A random array: dense uniform(-1, 1) values for stype 'default'; for 'csr' the
    rand_sparse_ndarray generator (density, distribution 'uniform'/'powerlaw', modifier_func)."""
    if stype == "default":
        values = _np.random.uniform(-1, 1, size=shape)
        if modifier_func is not None:
            values = assign_each(values, modifier_func)
        return array(values, ctx=ctx or default_context(), dtype=dtype or _np.float32)
    from ._test_utils_arrays import rand_sparse_ndarray
    arr, _ = rand_sparse_ndarray(shape, stype, density=density, dtype=dtype, distribution=distribution,
                                 modifier_func=modifier_func, shuffle_csr_indices=shuffle_csr_indices, ctx=ctx)
    return arr


def _check_numeric_gradient_fn(fn, inputs, head_grad=None, eps=1e-3, rtol=1e-2, atol=1e-4, dtype=_np.float64):
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


# ---- MXNet 1.x's symbolic helpers and the rest of its public test_utils ----

__all__ += ["default_dtype", "get_rtol", "get_atol", "get_etol", "get_tolerance",
            "random_arrays", "random_uniform_arrays", "random_sample", "np_reduce",
            "find_max_violation", "checkShapes", "almost_equal_ignore_nan",
            "assert_almost_equal_ignore_nan", "assert_almost_equal_with_err",
            "assert_exception", "retry", "simple_forward", "numeric_grad",
            "check_symbolic_forward", "check_symbolic_backward", "check_speed",
            "check_consistency", "list_gpus", "get_mnist", "set_env_var", "same_array",
            "rand_coord_2d", "assign_each", "assign_each2", "compare_ndarray_tuple",
            "compare_optimizer", "collapse_sum_like", "is_cd_run", "effective_dtype",
            "gen_buckets_probs_with_ppf", "mean_check", "var_check", "chi_square_check",
            "verify_generator", "new_matrix_with_real_eigvals_2d",
            "new_matrix_with_real_eigvals_nd", "new_sym_matrix_with_real_eigvals_2d",
            "new_sym_matrix_with_real_eigvals_nd", "new_orthonormal_matrix_2d"]

# MXNet 1.x's default tolerances by dtype (get_rtol / get_atol with None); 0 for exact types.
_EXACT_DTYPES = (_np.bool_, _np.int8, _np.uint8, _np.int32, _np.uint32, _np.int64, _np.uint64)
_RTOLS_1X = {_np.dtype(_np.float16): 1e-2, _np.dtype(_np.float32): 1e-4,
             _np.dtype(_np.float64): 1e-5}
_ATOLS_1X = {_np.dtype(_np.float16): 1e-1, _np.dtype(_np.float32): 1e-3,
             _np.dtype(_np.float64): 1e-20}


def default_rtols():
    """{dtype: default relative tolerance} (float16 1e-2, float32 1e-4, float64 1e-5; 0 for
    bool and integers)."""
    table = {_np.dtype(d): 0 for d in _EXACT_DTYPES}
    table.update(_RTOLS_1X)
    return table


def default_atols():
    """{dtype: default absolute tolerance} (float16 1e-1, float32 1e-3, float64 1e-20; 0 for
    bool and integers)."""
    table = {_np.dtype(d): 0 for d in _EXACT_DTYPES}
    table.update(_ATOLS_1X)
    return table


def default_numeric_eps():
    """{dtype: finite-difference step}: powers of two, so adding the step drops no bits."""
    return {_np.dtype(_np.float16): 2.0 ** -6, _np.dtype(_np.float32): 2.0 ** -9,
            _np.dtype(_np.float64): 2.0 ** -14}


def default_dtype():
    """The dtype tests create arrays in (float32)."""
    return _np.float32


def _dtype_of(x):
    if x is None:
        return _np.dtype(_np.float64)
    if hasattr(x, "dtype") and not isinstance(x, type):
        return _np.dtype(x.dtype)
    return _np.dtype(x)


def get_rtol(rtol=None, dtype=_np.dtype(_np.float64)):
    """rtol, or MXNet 1.x's default relative tolerance for dtype (0 for integers/bool)."""
    if rtol is not None:
        return rtol
    return _RTOLS_1X.get(_dtype_of(dtype), 0)


def get_atol(atol=None, dtype=_np.dtype(_np.float64)):
    """atol, or MXNet 1.x's default absolute tolerance for dtype (0 for integers/bool)."""
    if atol is not None:
        return atol
    return _ATOLS_1X.get(_dtype_of(dtype), 0)


def get_etol(etol=None):
    """Allowed fraction of mismatching elements (0 unless given)."""
    return 0 if etol is None else etol


def get_tolerance(dat, tol, default_tol):
    """The tolerance for comparing `dat`: tol when it is a number; else tol's entry for dat's
    dtype (tol a dict); else default_tol's entry (a dict by dtype) or default_tol itself."""
    if tol is not None and not isinstance(tol, dict):
        return tol
    dtype = effective_dtype(dat)
    if isinstance(tol, dict) and dtype in tol:
        return tol[dtype]
    if isinstance(default_tol, dict):
        if dtype not in default_tol:
            raise KeyError("get_tolerance: no default tolerance for dtype %s" % dtype)
        return default_tol[dtype]
    return default_tol


def get_tols(x, y, rtol, atol):
    """(rtol, atol) for comparing x and y: the given values, else the larger default of the
    two sides' dtypes (numbers count as numpy scalars)."""
    x = _np.array(x) if isinstance(x, (int, float, complex, _np.number)) else x
    y = _np.array(y) if isinstance(y, (int, float, complex, _np.number)) else y
    return (max(get_tolerance(x, rtol, default_rtols()), get_tolerance(y, rtol, default_rtols())),
            max(get_tolerance(x, atol, default_atols()), get_tolerance(y, atol, default_atols())))


def random_arrays(*shapes):
    """Standard-normal float32 arrays (a scalar for shape ()); one array when one shape."""
    arrays = [_np.array(_np.random.randn(), dtype=default_dtype()) if len(s) == 0
              else _np.random.randn(*s).astype(default_dtype()) for s in shapes]
    return arrays[0] if len(arrays) == 1 else arrays


def random_uniform_arrays(*shapes, **kwargs):
    """Uniform arrays in [low, high) (kwargs low=0, high=1, dtype=float32)."""
    low, high = kwargs.pop("low", 0.0), kwargs.pop("high", 1.0)
    dtype = kwargs.pop("dtype", default_dtype())
    if kwargs:
        raise TypeError("unexpected keyword arguments %s" % sorted(kwargs))
    arrays = [_np.random.uniform(low, high, size=s).astype(dtype) for s in shapes]
    return arrays[0] if len(arrays) == 1 else arrays


def random_sample(population, k):
    """k distinct elements of population, in random order."""
    import random as _random
    return _random.sample(list(population), k)


def np_reduce(dat, axis, keepdims, numpy_reduce_func):
    """numpy_reduce_func applied axis by axis (axis: int, tuple or None)."""
    if isinstance(axis, int):
        axis = [axis]
    elif axis is None:
        axis = list(range(dat.ndim))
    else:
        axis = list(axis)
    ret = dat
    for i in reversed(sorted(a % dat.ndim for a in axis)):
        ret = numpy_reduce_func(ret, axis=i)
    if keepdims:
        shape = list(dat.shape)
        for i in axis:
            shape[i % dat.ndim] = 1
        ret = ret.reshape(tuple(shape))
    return ret


def find_max_violation(a, b, rtol=None, atol=None):
    """(index, violation) of the element worst outside |a-b| <= atol + rtol*|b|."""
    a, b = _as_numpy(a), _as_numpy(b)
    dt = _np.result_type(a.dtype, b.dtype)
    rtol, atol = get_rtol(rtol, dt), get_atol(atol, dt)
    diff = _np.abs(a.astype(_np.float64) - b.astype(_np.float64))
    tol = atol + rtol * _np.abs(b.astype(_np.float64))
    violation = diff / (tol + 1e-20)
    loc = _np.unravel_index(_np.nanargmax(violation), violation.shape) if violation.size else ()
    return loc, (_np.nanmax(violation) if violation.size else 0.0)


def checkShapes(a, b):
    """Raises AssertionError when the shapes differ."""
    if _np.shape(a) != _np.shape(b):
        raise AssertionError("shape mismatch %s vs %s" % (_np.shape(a), _np.shape(b)))


def almost_equal_ignore_nan(a, b, rtol=None, atol=None):
    """almost_equal where positions that are NaN in either array are ignored."""
    a, b = _np.copy(_as_numpy(a)), _np.copy(_as_numpy(b))
    nan_mask = _np.logical_or(_np.isnan(a), _np.isnan(b))
    a[nan_mask] = 0
    b[nan_mask] = 0
    return almost_equal(a, b, rtol, atol)


def locationError(a, b, index, names, maxError=False):  # noqa: N802 - 1.x's name
    """The text naming one mismatch: its index and both values."""
    return "Location of %serror: %s, %s=%.8f, %s=%.8f" % (
        "maximum " if maxError else "", str(index), names[0], a[index], names[1], b[index])


def assert_allclose(a, b, rtol=1e-07, atol=0, equal_nan=True):
    """assert_almost_equal with numpy.testing.assert_allclose's defaults."""
    assert_almost_equal(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


def assert_almost_equal_ignore_nan(a, b, rtol=None, atol=None, names=("a", "b")):
    """assert_almost_equal where positions that are NaN in either array are ignored."""
    a, b = _np.copy(_as_numpy(a)), _np.copy(_as_numpy(b))
    nan_mask = _np.logical_or(_np.isnan(a), _np.isnan(b))
    a[nan_mask] = 0
    b[nan_mask] = 0
    assert_almost_equal(a, b, rtol, atol, names)


def assert_almost_equal_with_err(a, b, rtol=None, atol=None, etol=None, names=("a", "b"),
                                 equal_nan=False, mismatches=(10, 10)):
    """Passes when at most a fraction etol of the elements are outside the tolerances."""
    etol = get_etol(etol)
    if etol <= 0:
        assert_almost_equal(a, b, rtol=rtol, atol=atol, names=names, equal_nan=equal_nan,
                            mismatches=mismatches)
        return
    a, b = _as_numpy(a), _as_numpy(b)
    rtol, atol = _tols(a, b, rtol, atol)
    close = _np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    frac = 1.0 - float(close.mean()) if close.size else 0.0
    if frac > etol:
        raise AssertionError("%.4f of the elements of %s and %s differ (rtol=%g, atol=%g), "
                             "more than etol=%g" % (frac, names[0], names[1], rtol, atol, etol))


def assert_exception(f, exception_type, *args, **kwargs):
    """Asserts that f(*args, **kwargs) raises exception_type."""
    try:
        f(*args, **kwargs)
    except exception_type:
        return
    raise AssertionError("%s did not raise %s" % (getattr(f, "__name__", f),
                                                  exception_type.__name__))


def retry(n):
    """Decorator: reruns a flaky test up to n times, re-raising the last AssertionError."""
    if n < 1:
        raise ValueError("retry needs n >= 1")

    def decorate(f):
        import functools

        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            for i in range(n):
                try:
                    return f(*args, **kwargs)
                except AssertionError:
                    if i == n - 1:
                        raise
        return wrapper
    return decorate


def same_array(array1, array2):
    """True when two NDArrays share memory (writing one changes the other)."""
    array1[:] += 1
    if not same(array1.asnumpy(), array2.asnumpy()):
        array1[:] -= 1
        return False
    array1[:] -= 1
    return same(array1.asnumpy(), array2.asnumpy())


def set_env_var(key, val, default_val=""):
    """Sets an environment variable (also in the runtime) and returns its previous value."""
    prev = os.environ.get(key, default_val)
    setenv(key, val)
    return prev


def list_gpus():
    """Indices of the GPUs this runtime sees."""
    from .context import num_gpus
    return list(range(num_gpus()))


def is_aarch64_run():
    """Whether this machine is an aarch64 one."""
    import platform
    return platform.machine() == "aarch64"


def has_tvm_ops():
    """Whether the library has TVM-generated operators (the TVM_OP build feature; on a GPU
    context also compute capability 5.3 or newer)."""
    if not Features().is_enabled("TVM_OP"):
        return False
    ctx = current_context()
    if ctx.device_type == "gpu":
        from .util import get_cuda_compute_capability
        return get_cuda_compute_capability(ctx) >= 53
    return True


def is_op_runnable():
    """Whether the current context can run every operator: always on CPU; on a GPU unless the
    TVM operators are built and the GPU is older than compute capability 5.3."""
    ctx = current_context()
    if ctx.device_type != "gpu" or not Features().is_enabled("TVM_OP"):
        return True
    from .util import get_cuda_compute_capability
    return get_cuda_compute_capability(ctx) >= 53


@contextlib.contextmanager
def discard_stderr():
    """with discard_stderr(): ... discards what the block writes to stderr: file descriptor 2
    (the library's C++ messages) and sys.stderr, also when the latter is not descriptor 2."""
    import sys
    sys.stderr.flush()
    saved_fd = os.dup(2)
    saved_stream = sys.stderr
    with open(os.devnull, "w") as sink:
        try:
            os.dup2(sink.fileno(), 2)
            sys.stderr = sink
            yield
        finally:
            sys.stderr = saved_stream
            os.dup2(saved_fd, 2)
            os.close(saved_fd)


def is_cd_run():
    """Whether this is a continuous-delivery run (CD_JOB=1)."""
    return os.environ.get("CD_JOB", "0") == "1"


def effective_dtype(dat):
    """The dtype whose precision the array's computations effectively have (its own dtype on
    the kernels of this runtime, which do not trim float32 inputs to TF32)."""
    if isinstance(dat, (type, _np.dtype, str)):
        return _np.dtype(dat)
    dtype = getattr(dat, "dtype", None)
    return _np.dtype(dtype) if dtype is not None else _np.dtype(_as_numpy(dat).dtype)


def rand_coord_2d(x_low, x_high, y_low, y_high):
    """A random (x, y) integer pair in [low, high]."""
    return _np.random.randint(x_low, x_high + 1), _np.random.randint(y_low, y_high + 1)


def assign_each(the_input, function):
    """numpy: function applied to each element (None: a copy)."""
    if function is None:
        return _np.array(the_input)
    return _np.vectorize(function)(the_input)


def assign_each2(input1, input2, function):
    """numpy: function applied to each pair of elements (None: a copy of input1)."""
    if function is None:
        return _np.array(input1)
    return _np.vectorize(function)(input1, input2)


def compare_ndarray_tuple(t1, t2, rtol=None, atol=None):
    """assert_almost_equal on (nested tuples of) arrays; None entries are skipped."""
    if t1 is None or t2 is None:
        return
    if isinstance(t1, tuple):
        for s1, s2 in zip(t1, t2):
            compare_ndarray_tuple(s1, s2, rtol, atol)
    else:
        assert_almost_equal(t1, t2, rtol=rtol, atol=atol)


def compare_optimizer(opt1, opt2, shape, dtype, w_stype="default", g_stype="default",
                      rtol=1e-4, atol=1e-5, compare_states=True):
    """Runs one update of two optimizers from the same weight/gradient and compares them."""
    from .ndarray import array
    if w_stype != "default" or g_stype != "default":
        raise ValueError("only dense storage is supported")
    w = _np.random.uniform(-1, 1, size=shape).astype(dtype)
    g = _np.random.uniform(-1, 1, size=shape).astype(dtype)
    w1, w2 = array(w, dtype=dtype), array(w, dtype=dtype)
    g1, g2 = array(g, dtype=dtype), array(g, dtype=dtype)
    s1 = opt1.create_state_multi_precision(0, w1)
    s2 = opt2.create_state_multi_precision(0, w2)
    if compare_states:
        compare_ndarray_tuple(s1, s2)
    opt1.update_multi_precision(0, w1, g1, s1)
    opt2.update_multi_precision(0, w2, g2, s2)
    if compare_states:
        compare_ndarray_tuple(s1, s2, rtol=rtol, atol=atol)
    assert_almost_equal(w1, w2, rtol=rtol, atol=atol)


def collapse_sum_like(a, shape):
    """Sums a (numpy) down to `shape` along the broadcast axes."""
    a = _np.asarray(a)
    assert len(a.shape) >= len(shape)
    if _np.prod(shape) == 0 or a.size == 0:
        return _np.zeros(shape, dtype=a.dtype)
    axes = []
    lead = len(a.shape) - len(shape)
    for i in range(len(a.shape)):
        if i < lead or shape[i - lead] == 1 and a.shape[i] != 1:
            axes.append(i)
    return _np.sum(a, axis=tuple(axes)).reshape(shape)


def get_mnist(path=None):
    """MNIST as a dict (train_data, train_label, test_data, test_label), images float32 in
    [0, 1] shaped (N, 1, 28, 28), from local idx files (see gluon.data.vision.MNIST)."""
    from .gluon.data.vision import MNIST
    out = {}
    for train, prefix in ((True, "train"), (False, "test")):
        ds = MNIST(root=path, train=train)
        images = ds._data.asnumpy().reshape(-1, 1, 28, 28).astype(_np.float32) / 255
        out[prefix + "_data"] = images
        out[prefix + "_label"] = _np.asarray(ds._label, dtype=_np.float32)
    return out


# ---- random-generator checks -------------------------------------------------------------
def gen_buckets_probs_with_ppf(ppf, nbuckets):
    """nbuckets equal-probability buckets [(low, high)] from a percent-point function."""
    probs = [1.0 / nbuckets] * nbuckets
    buckets = [(ppf(i / float(nbuckets)), ppf((i + 1) / float(nbuckets)))
               for i in range(nbuckets)]
    return buckets, probs


def mean_check(generator, mu, sigma, nsamples=1000000):
    """Whether the sample mean is within 3 standard errors of mu."""
    samples = _np.array(generator(nsamples))
    return abs(samples.mean() - mu) < 3 * sigma / _np.sqrt(nsamples)


def var_check(generator, sigma, nsamples=1000000):
    """Whether the sample variance is within 3 standard errors of sigma^2."""
    samples = _np.array(generator(nsamples))
    return abs(samples.var() - sigma ** 2) < 3 * _np.sqrt(2 * sigma ** 4 / (nsamples - 1))


def chi_square_check(generator, buckets, probs, nsamples=1000000):
    """(p-value, observed counts, expected probabilities) of a chi-square goodness-of-fit
    test of generator's samples against the buckets (needs scipy)."""
    try:
        import scipy.stats as ss
    except ImportError as err:
        raise ImportError("chi_square_check needs scipy") from err
    samples = _np.array(generator(nsamples)).reshape(-1)
    if isinstance(buckets[0], (list, tuple)):
        counts = _np.array([_np.sum((samples >= lo) & (samples < hi)) for lo, hi in buckets])
    else:
        counts = _np.array([_np.sum(samples == b) for b in buckets])
    expected = _np.array(probs) * nsamples
    _, p = ss.chisquare(f_obs=counts, f_exp=expected)
    return p, counts, probs


def verify_generator(generator, buckets, probs, nsamples=1000000, nrepeat=5,
                     success_rate=0.2, alpha=0.05):
    """Repeats chi_square_check; fails when fewer than success_rate of the runs pass."""
    results = [chi_square_check(generator, buckets, probs, nsamples)[0] for _ in range(nrepeat)]
    passed = sum(p > alpha for p in results)
    if passed < success_rate * nrepeat:
        raise AssertionError("Generator test fails, Chi-square p=%s" % results)
    return results


# ---- matrices for linear-algebra tests -------------------------------------------------------
def new_orthonormal_matrix_2d(n):
    """A random n x n orthonormal matrix."""
    q, _ = _np.linalg.qr(_np.random.uniform(-1.0, 1.0, (n, n)))
    return q


def new_matrix_with_real_eigvals_2d(n):
    """A random n x n matrix with real eigenvalues (Q D Q^-1)."""
    q = new_orthonormal_matrix_2d(n)
    d = _np.diag(_np.random.uniform(-1.0, 1.0, n))
    return q.dot(d).dot(q.T)


def new_matrix_with_real_eigvals_nd(shape):
    """Matrices with real eigenvalues, batched over the leading dims of shape."""
    n = shape[-1]
    flat = [new_matrix_with_real_eigvals_2d(n) for _ in range(int(_np.prod(shape[:-2])))]
    return _np.array(flat).reshape(shape)


def new_sym_matrix_with_real_eigvals_2d(n):
    """A random symmetric n x n matrix."""
    a = new_matrix_with_real_eigvals_2d(n)
    return (a + a.T) / 2


def new_sym_matrix_with_real_eigvals_nd(shape):
    """Symmetric matrices, batched over the leading dims of shape."""
    n = shape[-1]
    flat = [new_sym_matrix_with_real_eigvals_2d(n) for _ in range(int(_np.prod(shape[:-2])))]
    return _np.array(flat).reshape(shape)


# Helpers in their own files, which read the ones above, are looked up on first use, so that
# neither module imports the other while loading (and mx.io/mx.symbol are loaded by then).
_SYMBOLIC_CHECKS = ("simple_forward", "check_symbolic_forward", "check_symbolic_backward",
                    "numeric_grad", "check_numeric_gradient", "check_speed", "check_consistency",
                    "same_symbol_structure", "check_gluon_hybridize_consistency")
_ARRAY_GENERATORS = ("rand_sparse_ndarray", "create_sparse_array", "create_sparse_array_zd",
                     "shuffle_csr_column_indices", "create_2d_tensor", "create_vector",
                     "get_identity_mat", "get_identity_mat_batch")
_DATA_HELPERS = ("download", "download_model", "get_mnist_pkl", "get_mnist_ubyte", "get_cifar10",
                 "get_mnist_iterator", "get_zip_data", "get_bz2_data", "get_im2rec_path", "DummyIter")
_LAZY = dict([(n, "_symbolic_checks") for n in _SYMBOLIC_CHECKS] +
             [(n, "_test_utils_arrays") for n in _ARRAY_GENERATORS] +
             [(n, "_test_utils_data") for n in _DATA_HELPERS] + [("Symbol", "symbol")])
__all__ += ["default_rtols", "default_atols", "default_numeric_eps", "get_tols", "locationError",
            "assert_allclose", "is_aarch64_run", "has_tvm_ops", "is_op_runnable", "discard_stderr"]
__all__ += sorted(set(_LAZY) - set(__all__))


def __getattr__(name):
    if name in _LAZY:
        import importlib
        return getattr(importlib.import_module("." + _LAZY[name], __package__), name)
    raise AttributeError("module 'mxnet.test_utils' has no attribute '%s'" % name)


def __dir__():
    return sorted(list(globals()) + list(_LAZY))
