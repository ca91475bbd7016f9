"""Shared helpers of the operator tests: numpy-referenced forward checks and gradients
checked against central finite differences, computed independently of autograd."""
import os
import subprocess
import sys

import numpy as np

import mxnet as mx

# Per-dtype tolerances (rtol, atol) for comparing in float32/float64.
TOL = {
    "float64": (1e-10, 1e-12),
    "float32": (1e-5, 1e-6),
    "float16": (2e-3, 2e-3),
    "bfloat16": (1.6e-2, 1.6e-2),
}


def to_nd(x, dtype):
    """numpy -> NDArray of `dtype` (bfloat16 via a cast, numpy has no bfloat16)."""
    if dtype == "bfloat16":
        return mx.nd.array(np.asarray(x, np.float32)).astype("bfloat16")
    return mx.nd.array(np.asarray(x), dtype=dtype)


def to_np(a):
    """NDArray -> numpy, bfloat16 read through float32."""
    if str(a.dtype) in ("bfloat16", "<class 'bfloat16'>") or getattr(a.dtype, "__name__", "") == "bfloat16":
        return a.astype("float32").asnumpy()
    return a.asnumpy()


def rounded(x, dtype):
    """x as the dtype represents it, in float64 (the reference sees the same inputs)."""
    if dtype == "bfloat16":
        return to_np(to_nd(x, "bfloat16")).astype(np.float64)
    return np.asarray(x).astype(dtype).astype(np.float64)


def numeric_grads(fn, arrays, head, eps=1e-6):
    """d(sum(fn(arrays) * head))/d arrays by central differences, in float64."""
    grads = []
    for k, base in enumerate(arrays):
        g = np.zeros_like(base, dtype=np.float64)
        flat = base.reshape(-1)
        for i in range(flat.size):
            vals = []
            for d in (eps, -eps):
                pert = [a.copy() for a in arrays]
                pert[k].reshape(-1)[i] += d
                out = fn(*[mx.nd.array(p, dtype="float64") for p in pert]).asnumpy()
                vals.append(float((out * head).sum()))
            g.reshape(-1)[i] = (vals[0] - vals[1]) / (2 * eps)
        grads.append(g)
    return grads


def check_grad(fn, arrays, rtol=1e-5, atol=1e-6, eps=1e-6, seed=0):
    """Autograd gradients of fn at `arrays` (float64) vs finite differences."""
    arrays = [np.asarray(a, dtype=np.float64) for a in arrays]
    xs = [mx.nd.array(a, dtype="float64") for a in arrays]
    for x in xs:
        x.attach_grad()
    with mx.autograd.record():
        y = fn(*xs)
    head = np.random.RandomState(seed).uniform(0.5, 1.5, y.shape)
    y.backward(mx.nd.array(head, dtype="float64"))
    expected = numeric_grads(fn, arrays, head, eps)
    for x, e in zip(xs, expected):
        np.testing.assert_allclose(x.grad.asnumpy(), e, rtol=rtol, atol=atol)


def op(name):
    """The generated function of a registered op (underscore names live in nd._internal)."""
    if hasattr(mx.nd, name):
        return getattr(mx.nd, name)
    return getattr(mx.nd._internal, name)


def run_onednn_verbose(code, **extra_env):
    """Runs `code` in a fresh interpreter with oneDNN's verbose log on (and oneDNN enabled, plus
    extra_env); returns its stdout: the log lines interleaved with what the code printed."""
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, ONEDNN_VERBOSE="1", MXNET_ONEDNN_ENABLED="1", **extra_env)
    env["PYTHONPATH"] = os.pathsep.join([here, os.path.join(here, "..", "..", "python"), env.get("PYTHONPATH", "")])
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120,
                         cwd=here)
    assert res.returncode == 0, res.stderr
    return res.stdout


def onednn_execs(text):
    """The primitive executions of a verbose log, each split into its comma-separated fields."""
    return [line.split(",") for line in text.splitlines() if line.startswith("onednn_verbose,exec")]
