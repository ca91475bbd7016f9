"""The compiled fast path (mxnet._fastpath) and its selection.

The compiled path and the ctypes binding must be indistinguishable: same results, same errors,
same argument binding. Each case runs here (the path this process chose) and, through the
`_ctypes_*` twins of the package, on the ctypes path in the same process; the selection rules
(MXNET_ENABLE_CYTHON / MXNET_ENFORCE_CYTHON, Features' CYTHON) run in child processes.
"""
import os
import shutil
import subprocess
import sys
import threading

import numpy as np
import pytest

import mxnet as mx
from mxnet import _fast, _registry
from mxnet.ndarray import register

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
needs_fast = pytest.mark.skipif(_fast.module is None, reason="compiled path not loaded: %s" % _fast.reason)


def _ctypes_call(op_name, *args, **kwargs):
    """The op called through the ctypes path (register._call), whatever this process uses."""
    return register._call(_registry.info_by_name(op_name), args, dict(kwargs))


def _child(code, **env):
    full = dict(os.environ)
    full.update(PYTHONPATH=os.path.join(REPO, "python"),
                MXNET_LIBRARY_PATH=full.get("MXNET_LIBRARY_PATH", os.path.join(REPO, "build", "libmxnet.so")))
    full.update(env)
    return subprocess.run([sys.executable, "-c", code], env=full, capture_output=True, text=True, timeout=300)


# ---------------------------------------------------------------- selection

@needs_fast
def test_features_report_the_path_in_use():
    assert mx.runtime.Features().is_enabled("CYTHON")
    r = _child("import mxnet as mx; print(mx.runtime.Features().is_enabled('CYTHON'), mx._fast.reason)",
               MXNET_ENABLE_CYTHON="0")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[0] == "False" and "MXNET_ENABLE_CYTHON=0" in r.stdout


def test_enforce_without_the_module_fails_the_import(tmp_path):
    # A library folder without the compiled module beside it (the package folder has none).
    lib = tmp_path / "libmxnet.so"
    shutil.copy(os.environ.get("MXNET_LIBRARY_PATH", os.path.join(REPO, "build", "libmxnet.so")), lib)
    r = _child("import mxnet", MXNET_LIBRARY_PATH=str(lib), MXNET_ENABLE_CYTHON="1", MXNET_ENFORCE_CYTHON="1")
    assert r.returncode != 0
    assert "Cython Module cannot be loaded but MXNET_ENFORCE_CYTHON=1" in r.stderr
    r = _child("import mxnet as mx; print(mx.runtime.Features().is_enabled('CYTHON'), (mx.nd.ones((2,)) + 1).sum())",
               MXNET_LIBRARY_PATH=str(lib))
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[0] == "False" and "4." in r.stdout


@needs_fast
def test_enforce_with_the_module_imports():
    r = _child("import mxnet as mx; print(mx.runtime.Features().is_enabled('CYTHON'))", MXNET_ENABLE_CYTHON="1",
               MXNET_ENFORCE_CYTHON="1")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "True"


@needs_fast
def test_generated_functions_are_compiled_and_keep_their_metadata():
    assert type(mx.nd.relu).__name__ == "OpFunction"
    assert mx.nd.relu.__name__ == "relu" and mx.nd.relu.__module__ == "mxnet.ndarray"
    assert "relu" in mx.nd.relu.__doc__.lower() or "rectified" in mx.nd.relu.__doc__.lower()
    assert mx.nd.contrib.__dict__  # submodules filled as before
    # Placed on a class it binds like a function.
    class Holder(object):
        act = mx.nd.relu
    holder = Holder()
    assert holder.act.__self__ is holder and Holder.act is mx.nd.relu


# ---------------------------------------------------------------- same results as ctypes

CASES = [
    ("relu", lambda: ([mx.nd.array([-1.0, 0.5, 2.0])], {})),
    ("Convolution", lambda: ([mx.nd.array(np.arange(16.0).reshape(1, 1, 4, 4)), mx.nd.ones((2, 1, 3, 3))],
                             {"kernel": (3, 3), "num_filter": 2, "no_bias": True})),
    ("FullyConnected", lambda: ([], {"data": mx.nd.ones((2, 3)), "weight": mx.nd.ones((4, 3)),
                                     "bias": mx.nd.array([1.0, 2.0, 3.0, 4.0]), "num_hidden": 4})),
    ("FullyConnected", lambda: ([mx.nd.ones((2, 3)), mx.nd.ones((4, 3)), None], {"num_hidden": 4, "no_bias": True})),
    ("concat", lambda: ([mx.nd.ones((1, 2)), mx.nd.zeros((1, 2))], {"dim": 0})),
    ("add_n", lambda: ([[mx.nd.ones((2,)), mx.nd.ones((2,)), mx.nd.ones((2,))]], {})),
    ("sum", lambda: ([mx.nd.array([[1.0, 2.0], [3.0, 4.0]])], {"axis": 1, "keepdims": True})),
    ("cast", lambda: ([mx.nd.array([1.5, 2.5])], {"dtype": np.int32})),
    ("cast", lambda: ([mx.nd.array([1.5, 2.5])], {"dtype": "float16"})),
    ("clip", lambda: ([mx.nd.array([-3.0, 0.5, 3.0]), np.float32(-1.0), 1.0], {})),
    ("zeros_like", lambda: ([mx.nd.ones((2, 2))], {})),
    ("_zeros", lambda: ([], {"shape": (2, 3)})),
    ("_full", lambda: ([], {"shape": (2,), "value": 7.0, "ctx": mx.cpu(0), "dtype": np.float64})),
    ("split", lambda: ([mx.nd.array(np.arange(6.0))], {"num_outputs": 3, "axis": 0})),
    ("topk", lambda: ([mx.nd.array([3.0, 1.0, 2.0])], {"k": 2, "ret_typ": "both"})),
    ("Reshape", lambda: ([mx.nd.ones((2, 3))], {"shape": (3, 2), "name": "ignored"})),
    ("sum", lambda: ([mx.nd.ones((2, 3))], {"axis": mx.base._Null})),
]


def _as_list(r):
    return [a.asnumpy() for a in (r if isinstance(r, list) else [r])]


@pytest.mark.parametrize("name,make", CASES, ids=["%s-%d" % (c[0], i) for i, c in enumerate(CASES)])
def test_results_match_the_ctypes_path(name, make):
    args, kwargs = make()
    mine = getattr(mx.nd._internal if name.startswith("_") else mx.nd, name)(*args, **kwargs)
    theirs = _ctypes_call(name, *args, **kwargs)
    for a, b in zip(_as_list(mine), _as_list(theirs)):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)


def _error(fn):
    try:
        fn()
    except Exception as err:  # noqa: BLE001 - the class and text are what is compared
        return type(err), str(err).splitlines()[0]
    return None


ERRORS = [
    ("too many positional", lambda call: call("relu", mx.nd.ones((1,)), 1, 2, 3)),
    ("input twice", lambda call: call("relu", mx.nd.ones((1,)), data=mx.nd.ones((1,)))),
    ("parameter twice", lambda call: call("sum", mx.nd.ones((1,)), 0, axis=0)),
    ("numpy input", lambda call: call("relu", np.ones(2))),
    ("bad parameter value", lambda call: call("sum", mx.nd.ones((2,)), axis="x")),
    ("wrong input count", lambda call: call("FullyConnected", mx.nd.ones((2, 3)), num_hidden=2)),
    ("out not an array", lambda call: call("relu", mx.nd.ones((1,)), out=3)),
    ("shape mismatch", lambda call: call("elemwise_add", mx.nd.ones((2,)), mx.nd.ones((3,)))),
]


@pytest.mark.parametrize("label,case", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_match_the_ctypes_path(label, case):
    mine = _error(lambda: case(lambda n, *a, **k: getattr(mx.nd, n)(*a, **k)))
    theirs = _error(lambda: case(_ctypes_call))
    assert mine is not None and theirs is not None
    assert mine[0] is theirs[0], (mine, theirs)
    assert mine[1] == theirs[1]


def test_out_and_inplace_arithmetic():
    a, b = mx.nd.array([1.0, 2.0]), mx.nd.array([10.0, 20.0])
    out = mx.nd.zeros((2,))
    assert mx.nd.elemwise_add(a, b, out=out) is out
    np.testing.assert_array_equal(out.asnumpy(), [11.0, 22.0])
    outs = [mx.nd.zeros((1,)), mx.nd.zeros((1,))]
    assert mx.nd.split(a, num_outputs=2, axis=0, out=outs) is outs
    np.testing.assert_array_equal([o.asscalar() for o in outs], [1.0, 2.0])
    a += b
    a *= 2
    np.testing.assert_array_equal(a.asnumpy(), [22.0, 44.0])


@pytest.mark.parametrize("op", ["__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
                                "__rtruediv__", "__pow__", "__rpow__", "__mod__", "__rmod__", "__eq__", "__ne__",
                                "__gt__", "__ge__", "__lt__", "__le__"])
@pytest.mark.parametrize("other", ["array", "broadcast", "int", "float", "np.float32", "numpy", "bool"])
def test_arithmetic_matches_numpy(op, other):
    x_np = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=np.float32)
    others = {"array": np.array([[2.0, 3.0, 1.5], [0.5, 4.0, 2.0]], dtype=np.float32),
              "broadcast": np.array([2.0, 3.0, 1.5], dtype=np.float32), "int": 3, "float": 1.5,
              "np.float32": np.float32(2.5), "numpy": np.array([[2.0], [3.0]], dtype=np.float32), "bool": True}
    o = others[other]
    o_mx = mx.nd.array(o) if other in ("array", "broadcast") else o
    got = getattr(mx.nd.array(x_np), op)(o_mx)
    want = getattr(x_np.astype(np.float64), op)(np.asarray(o, dtype=np.float64) if other != "bool" else 1.0)
    got = got.asnumpy() if isinstance(got, mx.nd.NDArray) else np.asarray(got)
    np.testing.assert_allclose(got, np.asarray(want, dtype=np.float64), rtol=1e-6)


def test_csr_operands_take_the_python_path():
    csr = mx.nd.sparse.csr_matrix(np.array([[0.0, 1.0], [2.0, 0.0]], dtype=np.float32))
    dense = mx.nd.ones((2, 2))
    np.testing.assert_array_equal((dense + csr).asnumpy(), [[1.0, 2.0], [3.0, 1.0]])
    r = mx.nd.relu(csr)
    r = r.tostype("default") if r.stype != "default" else r
    np.testing.assert_array_equal(r.asnumpy(), [[0.0, 1.0], [2.0, 0.0]])


def test_zero_input_ops_use_the_current_context():
    with mx.Context("cpu", 1):
        z = mx.nd.zeros((2,)) + 0
        assert z.context == mx.cpu(1)
        assert mx.nd._internal._zeros(shape=(1,)).context == mx.cpu(1)


def test_no_reference_leaks():
    a, b = mx.nd.ones((3,)), mx.nd.ones((3,))
    kernel = (3, 3)
    x, w = mx.nd.ones((1, 1, 4, 4)), mx.nd.ones((1, 1, 3, 3))
    def refs():
        return [sys.getrefcount(o) for o in (a, b, kernel, x, w, mx.nd.relu)]
    for _ in range(10):
        a + b, mx.nd.relu(a), mx.nd.Convolution(x, w, kernel=kernel, num_filter=1, no_bias=True)
    before = refs()
    for _ in range(1000):
        a + b, a * 2.0, 2.0 - a, mx.nd.relu(a), mx.nd.Convolution(x, w, kernel=kernel, num_filter=1, no_bias=True)
        try:
            mx.nd.relu(a, b, c=3)
        except TypeError:
            pass
    assert refs() == before


def test_many_threads_share_one_array():
    base = mx.nd.array(np.arange(100.0, dtype=np.float32))
    errors, results = [], {}

    def work(t):
        try:
            acc = base * 0
            for i in range(200):
                acc = acc + base * float(t) - mx.nd.relu(base) * 0.5
            results[t] = acc.asnumpy()
        except Exception as err:  # noqa: BLE001
            errors.append(err)
    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors
    ref = np.arange(100.0)
    for t in range(8):
        np.testing.assert_allclose(results[t], 200 * (ref * t - 0.5 * ref), rtol=1e-5)


def test_array_helpers_match_ctypes():
    x = mx.nd.array(np.arange(12, dtype=np.float64).reshape(3, 4), dtype=np.float64)
    assert x.shape == (3, 4) and x.dtype == np.float64
    np.testing.assert_array_equal(x.asnumpy(), np.arange(12).reshape(3, 4))
    e = mx.nd.empty((0, 5))
    assert e.shape == (0, 5) and e.asnumpy().shape == (0, 5)
    with pytest.raises(ValueError):
        mx.nd.zeros((2, -3))


@needs_fast
def test_handles_are_read_directly_on_this_python():
    # The compiled path reads ctypes handles without the buffer protocol after checking the
    # layout on a known value; on CPython 3.8-3.12 that check passes.
    assert _fast.module.direct_handles()
    a = mx.nd.array([1.0, 2.0])
    np.testing.assert_array_equal((a + a).asnumpy(), [2.0, 4.0])


def test_calls_beyond_the_stack_lists_take_the_python_binding():
    # More keyword parameters than the compiled path keeps on its stack (64): same result.
    x = mx.nd.array([-1.0, 3.0])
    attrs = {"__attr%d__" % i: str(i) for i in range(70)}
    np.testing.assert_array_equal(mx.nd.relu(x, **attrs).asnumpy(), [0.0, 3.0])
    # A variadic op with more inputs than the stack holds (16).
    many = [mx.nd.ones((2,)) * i for i in range(20)]
    np.testing.assert_array_equal(mx.nd.add_n(*many).asnumpy(), [190.0, 190.0])
