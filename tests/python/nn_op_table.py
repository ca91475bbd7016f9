"""Table-driven checks for the NN operators (in the spirit of PyTorch's OpInfo): each row
names an op, its inputs, its parameters and a numpy reference; generic tests compare the
forward with the reference and autograd's gradients with central finite differences of
the *reference* (so expectations never come from our kernels).

float32 rows run the oneDNN path where it applies; float64 always runs the plain kernels.
MXNET_ONEDNN_ENABLED is read once at load, so `plain_path_rerun(__file__)` gives a test
module a test that re-runs its rows in a subprocess with MXNET_ONEDNN_ENABLED=0."""
import copy
import os
import subprocess
import sys

import numpy as np
import pytest

import mxnet as mx

FWD_TOL = {"float32": (2e-4, 2e-5), "float64": (1e-9, 1e-10),
           "float16": (1e-2, 1e-2), "bfloat16": (3e-2, 3e-2)}
GRAD_TOL = {"float32": (2e-3, 2e-4), "float64": (1e-6, 1e-8), "float16": (3e-2, 3e-2), "bfloat16": (8e-2, 8e-2)}
HALF = ("float16", "bfloat16")
# A parameter value replaced by the row's dtype (ops with a dtype parameter, e.g. Embedding).
ROW_DTYPE = "<row dtype>"


def _params(case, dtype):
    return {k: (dtype if v == ROW_DTYPE else v) for k, v in case.params.items()}


class Case:
    """One op/parameter combination.

    inputs: numpy arrays (float inputs are cast to the row's dtype; integer arrays and
    the indices in `const` keep their values and are never differentiated).
    ref(*float64 inputs, **params) -> the first output, or a list when `outputs` > 1.
    grad: input indices whose gradients are checked (empty: forward only).
    train: run under autograd train mode (BatchNorm batch statistics, Dropout)."""

    def __init__(self, op, name, inputs, params, ref, grad=(0,), train=False, const=(), outputs=1,
                 dtypes=("float32", "float64"), fwd_tol=None, grad_tol=None, eps=1e-6, f32_inputs=()):
        self.op, self.name, self.inputs, self.params, self.ref = op, name, inputs, params, ref
        self.grad, self.train, self.const, self.outputs, self.dtypes = grad, train, const, outputs, dtypes
        self.fwd_tol, self.grad_tol, self.eps = fwd_tol or {}, grad_tol or {}, eps
        self.f32_inputs = f32_inputs  # stay float32 for half-typed data (BatchNorm's gamma, beta, stats)

    @property
    def id(self):
        return "%s-%s" % (self.op, self.name)


def with_dtypes(cases, dtypes):
    """The same rows run in other dtypes (half types: forward and gradients, loose tolerances)."""
    out = []
    for c in cases:
        d = copy.copy(c)
        d.dtypes = dtypes
        out.append(d)
    return out


def ids(cases):
    return [c.id for c in cases]


def fwd_params(cases):
    return [pytest.param(c, d, id="%s-%s" % (c.id, d)) for c in cases for d in c.dtypes]


def grad_params(cases):
    return [pytest.param(c, d, id="%s-%s" % (c.id, d)) for c in cases if c.grad for d in c.dtypes
            if d in GRAD_TOL]


def _to_nd(case, i, a, dtype):
    if dtype in HALF and i in case.f32_inputs:
        dtype = "float32"
    if i in case.const or not np.issubdtype(np.asarray(a).dtype, np.floating):
        return mx.nd.array(a, dtype=np.asarray(a).dtype if i not in case.const else dtype)
    if dtype == "bfloat16":
        return mx.nd.array(np.asarray(a, np.float32)).astype("bfloat16")
    return mx.nd.array(a, dtype=dtype)


def _rounded(case, i, a, dtype):
    if dtype in HALF and i in case.f32_inputs:
        dtype = "float32"
    a = np.asarray(a)
    if i in case.const or not np.issubdtype(a.dtype, np.floating):
        return a
    if dtype == "bfloat16":
        return mx.nd.array(a.astype(np.float32)).astype("bfloat16").astype("float32").asnumpy().astype(np.float64)
    return a.astype(dtype).astype(np.float64)


def _np(a):
    return a.astype("float32").asnumpy() if "bfloat16" in str(a.dtype) else a.asnumpy()


def _call(case, arrays, dtype):
    fn = getattr(mx.nd, case.op)
    if case.train:
        with mx.autograd.train_mode():
            return fn(*arrays, **_params(case, dtype))
    with mx.autograd.predict_mode():
        return fn(*arrays, **_params(case, dtype))


def _outputs(res, n):
    res = res if isinstance(res, (list, tuple)) else [res]
    return list(res[:n])


def check_forward(case, dtype):
    arrays = [_to_nd(case, i, a, dtype) for i, a in enumerate(case.inputs)]
    got = _outputs(_call(case, arrays, dtype), case.outputs)
    ref_in = [_rounded(case, i, a, dtype) for i, a in enumerate(case.inputs)]
    want = case.ref(*ref_in, **_params(case, dtype))
    want = want if isinstance(want, (list, tuple)) else [want]
    rtol, atol = case.fwd_tol.get(dtype, FWD_TOL[dtype])
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == np.shape(w), (g.shape, np.shape(w))
        np.testing.assert_allclose(_np(g).astype(np.float64), w, rtol=rtol, atol=atol)


def _scalar_objective(case, arrays64, head, dtype):
    out = case.ref(*arrays64, **_params(case, dtype))
    out = out[0] if isinstance(out, (list, tuple)) else out
    return float((np.asarray(out, np.float64) * head).sum())


def numeric_grad(case, base, k, head, dtype):
    """d(sum(ref * head))/d input k by central differences (per element when small, else
    along 6 random directions, returned as (directions, derivatives))."""
    eps = case.eps
    x = np.array(base[k], np.float64)
    def at(xk):
        args = list(base)
        args[k] = xk
        return _scalar_objective(case, args, head, dtype)
    if x.size <= 400:
        g = np.zeros_like(x)
        flat = g.reshape(-1)
        for i in range(x.size):
            xp, xm = x.copy(), x.copy()
            xp.reshape(-1)[i] += eps
            xm.reshape(-1)[i] -= eps
            flat[i] = (at(xp) - at(xm)) / (2 * eps)
        return g, None
    rng = np.random.RandomState(k)
    dirs = [rng.randn(*x.shape) for _ in range(6)]
    return None, (dirs, [(at(x + eps * d) - at(x - eps * d)) / (2 * eps) for d in dirs])


def check_grad(case, dtype):
    arrays = [_to_nd(case, i, a, dtype) for i, a in enumerate(case.inputs)]
    for k in case.grad:
        arrays[k].attach_grad()
    rec = mx.autograd.record(train_mode=case.train)
    with rec:
        out = _outputs(_call(case, arrays, dtype), 1)[0]
    head = _rounded(case, -1, np.random.RandomState(7).uniform(0.5, 1.5, out.shape), dtype)
    out.backward(_to_nd(case, -1, head, dtype), train_mode=case.train)
    base = [_rounded(case, i, a, dtype) for i, a in enumerate(case.inputs)]
    rtol, atol = case.grad_tol.get(dtype, GRAD_TOL[dtype])
    for k in case.grad:
        got = _np(arrays[k].grad).astype(np.float64)
        full, dirs = numeric_grad(case, base, k, head, dtype)
        if full is not None:
            np.testing.assert_allclose(got, full, rtol=rtol, atol=atol, err_msg="gradient of input %d" % k)
        else:
            for d, want in zip(*dirs):
                scale = max(1.0, np.abs(got).sum() ** 0.5)
                np.testing.assert_allclose((got * d).sum(), want, rtol=rtol, atol=atol * scale,
                                           err_msg="directional gradient of input %d" % k)


def check_error(call, *needles):
    with pytest.raises(mx.base.MXNetError) as e:
        res = call()
        for r in res if isinstance(res, (list, tuple)) else [res]:
            r.wait_to_read()
    for n in needles:
        assert n in str(e.value), (n, str(e.value))


def plain_path_rerun(path):
    """A test re-running the module at `path` with MXNET_ONEDNN_ENABLED=0 (the plain kernels)."""
    def test_plain_path_passes_the_same_rows():
        if os.environ.get("MXNET_ONEDNN_ENABLED") == "0":
            pytest.skip("this process is the plain-path run")
        here = os.path.dirname(os.path.abspath(path))
        pypath = [os.path.join(here, "..", "..", "python")] + [os.path.abspath(p) for p in
                                                               os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
        env = dict(os.environ, MXNET_ONEDNN_ENABLED="0", PYTHONPATH=os.pathsep.join(pypath))
        res = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", path,
                              "-k", "not plain_path"], env=env, capture_output=True, text=True, timeout=600,
                             cwd=here)
        assert res.returncode == 0, res.stdout[-6000:] + res.stderr[-2000:]
    return test_plain_path_passes_the_same_rows
