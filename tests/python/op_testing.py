"""Shared helpers of the operator tests (in the spirit of PyTorch's OpInfo).

A `Case` row names a registered op, its inputs, its parameters and a numpy reference (or, for
ops without one such as random sampling, a property `check`); generic checks compare the
forward with the reference and autograd's gradients with central finite differences of the
*reference*, so expectations never come from the runtime. A `BadCase` row is a call that
must raise MXNetError naming what is wrong.

Tolerances: one table per purpose (forward, gradient) per dtype. bfloat16 has its own oracle:
`bf16_round` rounds float32 to bfloat16 (round-to-nearest-even on the bits, written in numpy),
used both to build the exact bfloat16 values fed to the runtime and the values the reference
sees; its tolerances follow from rounding the output once (2^-8 relative) times a small
factor, so a float32-accumulated reduction rounded once passes and one missing a term fails.
"""
import copy
import os
import subprocess
import sys

import numpy as np
import pytest

import mxnet as mx

# --------------------------------------------------------------------------------------------
# Tolerances (rtol, atol), compared in float64.

BF16_EPS = 2.0 ** -8   # unit roundoff of bfloat16 (8 significant bits): half an ulp, relative
F16_EPS = 2.0 ** -11   # unit roundoff of float16

FWD_TOL = {
    # float parameters (eps, alpha, scalars) are held in float32 by many ops: ~1e-9 in float64
    "float64": (1e-9, 1e-10),
    "float32": (1e-5, 1e-6),
    # the output rounded once (1 unit roundoff) plus float32 work before it: 4 units for
    # float16, 2 units (1 bfloat16 ulp) for bfloat16
    "float16": (4 * F16_EPS, 4 * F16_EPS),
    "bfloat16": (2 * BF16_EPS, 2 * BF16_EPS),
}
GRAD_TOL = {
    "float64": (1e-6, 1e-8),
    "float32": (2e-3, 2e-4),
    "float16": (3e-2, 3e-2),
    "bfloat16": (8e-2, 8e-2),
}
HALF = ("float16", "bfloat16")
FLOATS = ("float32", "float64", "float16", "bfloat16")
# A parameter value replaced by the row's dtype (ops with a dtype parameter, e.g. Embedding, _zeros).
ROW_DTYPE = "<row dtype>"


# --------------------------------------------------------------------------------------------
# bfloat16 oracle

def bf16_bits(x):
    """float32 -> the uint16 bits of bfloat16, round-to-nearest-even; NaN stays a (quiet) NaN of
    the same sign, infinities stay infinite, values past the largest finite round to inf."""
    f = np.array(x, dtype=np.float32)
    b = f.reshape(-1).view(np.uint32).astype(np.uint64).reshape(f.shape)
    lsb = (b >> 16) & 1
    r = ((b + 0x7FFF + lsb) >> 16) & 0xFFFF
    nan = np.isnan(f)
    r = np.where(nan, ((b >> 16) | 0x0040) & 0xFFFF, r)
    return r.astype(np.uint16)


def bf16_from_bits(bits):
    """uint16 bfloat16 bits -> float32 values (exact)."""
    b = np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16
    return b.reshape(-1).view(np.float32).reshape(b.shape)


def bf16_round(x):
    """x rounded to bfloat16 through float32 (the oracle), as float32."""
    return bf16_from_bits(bf16_bits(np.asarray(x, dtype=np.float64).astype(np.float32)))


def _is_bf16(dtype):
    return "bfloat16" in str(dtype) or getattr(dtype, "__name__", "") == "bfloat16"


def to_nd(x, dtype):
    """numpy -> NDArray of `dtype`. bfloat16 arrays hold the oracle's values: exact bfloat16
    numbers, so the runtime's float32 -> bfloat16 cast has nothing to round."""
    if _is_bf16(dtype):
        return mx.nd.array(bf16_round(x), dtype="float32").astype("bfloat16")
    return mx.nd.array(np.asarray(x), dtype=dtype)


def to_np(a):
    """NDArray -> numpy, bfloat16 read through float32 (exact)."""
    if _is_bf16(a.dtype):
        return a.astype("float32").asnumpy()
    return a.asnumpy()


def rounded(x, dtype):
    """x as the dtype represents it, in float64 (the reference sees the same inputs)."""
    if _is_bf16(dtype):
        return bf16_round(x).astype(np.float64)
    return np.asarray(x).astype(dtype).astype(np.float64)


# --------------------------------------------------------------------------------------------
# Resolving an op by its registered name

_NAMESPACES = ("", "_internal", "contrib", "image", "random", "sparse", "linalg", "op")


def op(name):
    """The callable of a registered op: its generated function where one of mx.nd's namespaces
    holds the generated function of exactly this op, else a generic invoke by name (any
    registered name, alias or not, works either way)."""
    from mxnet import _registry
    from mxnet.ndarray import register
    info = _registry.info_by_name(name)  # raises MXNetError when no such op is registered
    for ns in _NAMESPACES:
        mod = getattr(mx.nd, ns, None) if ns else mx.nd
        if mod is None:
            continue
        for attr in (name, _short_name(name)):
            fn = getattr(mod, attr, None) if attr else None
            if fn is not None and getattr(fn, "__doc__", None) == info.doc and callable(fn):
                return fn

    def invoke(*args, **kwargs):
        return register.invoke_by_name(name, args, kwargs)
    invoke.__name__ = name
    return invoke


def _short_name(name):
    from mxnet import _registry
    for prefix in _registry.SUBMODULE_PREFIXES:
        if name.startswith(prefix):
            return name[len(prefix):]
    return None


# --------------------------------------------------------------------------------------------
# Rows

class Case:
    """One op/parameter combination.

    op: the registered op name (e.g. "Convolution", "_plus_scalar", "_random_uniform").
    inputs: numpy arrays (float inputs are cast to the row's dtype; integer arrays and the
    indices in `const` keep their values and are never differentiated); [] for init ops,
    whose arguments are all in params (ROW_DTYPE stands for the row's dtype).
    ref(*float64 inputs, **params) -> the first output, or a list when `outputs` > 1.
    check(outputs_np_list, inputs_np_list, **params): for ops without a numpy reference (random
    sampling): asserts properties (range, moments within statistical bounds); ref stays None.
    grad: input indices whose gradients are checked (empty: forward only; rows without ref
    have no gradient check).
    grad_ref(inputs_float64_list, head, **params) -> the gradients of the case.grad inputs, for ops
    whose backward is defined by the op rather than as the derivative of the forward (loss
    heads such as SoftmaxOutput, MakeLoss, BlockGrad); checked in place of finite differences.
    train: run under autograd train mode (BatchNorm batch statistics, Dropout).
    seed: mx.random.seed before each call (rows whose op draws random numbers).
    accum: how many products each output accumulates (a convolution's C/groups * kernel size):
    float32/float64 forward tolerances grow with its square root; half types round the
    float32-accumulated result once and keep theirs.
    blocked: indices of 4-D float32 inputs that reach the op in oneDNN's blocked layout (the
    output of an identity 1x1 convolution), for implementations that read such layouts."""

    def __init__(self, op, name, inputs, params, ref=None, grad=(0,), train=False, const=(), outputs=1,
                 dtypes=("float32", "float64"), fwd_tol=None, grad_tol=None, eps=1e-6, f32_inputs=(),
                 check=None, seed=None, accum=1, grad_ref=None, blocked=()):
        if ref is None and check is None:
            raise ValueError("Case %s-%s needs ref or check" % (op, name))
        self.op, self.name, self.inputs, self.params, self.ref = op, name, list(inputs), params, ref
        self.check = check
        self.grad_ref = grad_ref
        self.grad = tuple(grad) if ((ref is not None or grad_ref is not None) and inputs) else ()
        self.train, self.const, self.outputs, self.dtypes = train, const, outputs, dtypes
        self.fwd_tol, self.grad_tol, self.eps = fwd_tol or {}, grad_tol or {}, eps
        self.f32_inputs = f32_inputs  # stay float32 for half-typed data (BatchNorm's gamma, beta, stats)
        self.seed = seed if seed is not None else (0 if check is not None else None)
        self.accum = accum
        self.blocked = tuple(blocked)

    @property
    def id(self):
        return "%s-%s" % (self.op, self.name)

    def tol(self, dtype, grad=False):
        table, own = (GRAD_TOL, self.grad_tol) if grad else (FWD_TOL, self.fwd_tol)
        if dtype in own:
            return own[dtype]
        rtol, atol = table.get(dtype, (0.0, 0.0))
        if not grad and dtype in ("float32", "float64") and self.accum > 1:
            f = float(np.sqrt(self.accum))
            rtol, atol = rtol * f, atol * f
        return rtol, atol

    def __repr__(self):
        return "Case(%s)" % self.id


class BadCase:
    """A call that must raise MXNetError whose message holds every needle.
    inputs: numpy arrays (dtype kept) or NDArrays."""

    def __init__(self, op, name, inputs, params, needles):
        self.op, self.name, self.inputs, self.params = op, name, list(inputs), params
        self.needles = (needles,) if isinstance(needles, str) else tuple(needles)

    @property
    def id(self):
        return "%s-%s" % (self.op, self.name)

    def __repr__(self):
        return "BadCase(%s)" % self.id


def with_dtypes(cases, dtypes):
    """The same rows run in other dtypes (half types: forward and gradients)."""
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


def bad_params(bad):
    return [pytest.param(b, id=b.id) for b in bad]


def row_params(case, dtype):
    return {k: (dtype if isinstance(v, str) and v == ROW_DTYPE else v) for k, v in case.params.items()}


def _input_dtype(case, i, dtype):
    return "float32" if dtype in HALF and i in case.f32_inputs else dtype


def case_nd(case, i, a, dtype):
    """Input i of a row as the NDArray the runtime gets."""
    if isinstance(a, mx.nd.NDArray):
        return a
    dtype = _input_dtype(case, i, dtype)
    a = np.asarray(a)
    if i in case.const:
        return to_nd(a, dtype) if np.issubdtype(a.dtype, np.floating) else mx.nd.array(a, dtype=dtype)
    if not np.issubdtype(a.dtype, np.floating):
        return mx.nd.array(a, dtype=a.dtype)
    return to_nd(a, dtype)


def case_ref_input(case, i, a, dtype):
    """Input i of a row as the reference sees it (float64 of the values the runtime gets)."""
    if isinstance(a, mx.nd.NDArray):
        return to_np(a).astype(np.float64)
    dtype = _input_dtype(case, i, dtype)
    a = np.asarray(a)
    if i in case.const or not np.issubdtype(a.dtype, np.floating):
        return a
    return rounded(a, dtype)


def to_blocked(x):
    """x (N, C, H, W float32) with the same values, held in oneDNN's blocked layout when this
    build has oneDNN: the output of a 1x1 convolution with identity weights (exact: each output
    is one product by 1 plus zeros), which the convolution leaves in its own format."""
    c = x.shape[1]
    eye = mx.nd.array(np.eye(c, dtype=np.float32).reshape(c, c, 1, 1))
    with mx.autograd.pause(), mx.autograd.predict_mode():
        return mx.nd.Convolution(x, eye, kernel=(1, 1), num_filter=c, no_bias=True)


def case_arrays(case, dtype):
    arrays = [case_nd(case, i, a, dtype) for i, a in enumerate(case.inputs)]
    for i in case.blocked:
        if dtype == "float32" and arrays[i].ndim == 4:
            arrays[i] = to_blocked(arrays[i])
    return arrays


def case_ref_inputs(case, dtype):
    return [case_ref_input(case, i, a, dtype) for i, a in enumerate(case.inputs)]


def call_case(case, arrays, dtype):
    """Runs the row's op on `arrays` in the row's mode; returns the list of its outputs (the
    first case.outputs of them)."""
    fn = op(case.op)
    if case.seed is not None:
        mx.random.seed(case.seed)
    mode = mx.autograd.train_mode() if case.train else mx.autograd.predict_mode()
    with mode:
        res = fn(*arrays, **row_params(case, dtype))
    return _outputs(res, case.outputs)


def _outputs(res, n):
    res = res if isinstance(res, (list, tuple)) else [res]
    return list(res[:n])


def compare(got, want, rtol, atol, what=""):
    """got (NDArray or numpy) vs want (numpy) in float64: shapes equal, values within tolerance."""
    g = to_np(got) if isinstance(got, mx.nd.NDArray) else np.asarray(got)
    assert g.shape == np.shape(want), (what, g.shape, np.shape(want))
    w = np.asarray(want)
    if g.dtype == np.bool_ or w.dtype == np.bool_ or (np.issubdtype(w.dtype, np.integer)
                                                      and np.issubdtype(g.dtype, np.integer)):
        np.testing.assert_array_equal(g, w, err_msg=what)
        return
    np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=rtol, atol=atol, err_msg=what)


def check_forward(case, dtype):
    """The row's forward vs its numpy reference (or its property check)."""
    got = call_case(case, case_arrays(case, dtype), dtype)
    ref_in = case_ref_inputs(case, dtype)
    if case.ref is None:
        case.check([to_np(g).astype(np.float64) for g in got], ref_in, **row_params(case, dtype))
        return got
    want = case.ref(*ref_in, **row_params(case, dtype))
    want = list(want) if isinstance(want, (list, tuple)) else [want]
    rtol, atol = case.tol(dtype)
    assert len(got) == len(want), (len(got), len(want))
    for k, (g, w) in enumerate(zip(got, want)):
        compare(g, w, rtol, atol, "%s %s output %d" % (case.id, dtype, k))
    return got


def _scalar_objective(case, arrays64, head, dtype):
    out = case.ref(*arrays64, **row_params(case, dtype))
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


def head_for(case, shape, dtype):
    """The output gradient used by a row's gradient checks (rounded to the row's dtype)."""
    return rounded(np.random.RandomState(7).uniform(0.5, 1.5, shape), _input_dtype(case, -1, dtype))


def case_grads(case, dtype):
    """Autograd gradients of the row's first output (weighted by head_for) w.r.t. case.grad inputs:
    (list of numpy gradients, head)."""
    arrays = case_arrays(case, dtype)
    for k in case.grad:
        arrays[k].attach_grad()
    with mx.autograd.record(train_mode=case.train):
        out = call_case(case, arrays, dtype)[0]
    head = head_for(case, out.shape, dtype)
    out.backward(case_nd(case, -1, head, dtype), train_mode=case.train)
    return [to_np(arrays[k].grad).astype(np.float64) for k in case.grad], head


def check_grad(case, dtype, *args, **kwargs):
    """Autograd gradients vs central finite differences of the reference.

    check_grad(case, dtype): a Case row. check_grad(fn, arrays, rtol=, atol=, eps=, seed=): fn of
    float64 NDArrays, differences taken through fn itself in float64."""
    if not isinstance(case, Case):
        return check_fn_grad(case, dtype, *args, **kwargs)
    got_all, head = case_grads(case, dtype)
    base = case_ref_inputs(case, dtype)
    rtol, atol = case.tol(dtype, grad=True)
    if case.grad_ref is not None:
        want_all = case.grad_ref(base, head, **row_params(case, dtype))
        for k, got, want in zip(case.grad, got_all, want_all):
            compare(got, want, rtol, atol, "%s %s gradient of input %d" % (case.id, dtype, k))
        return
    for k, got in zip(case.grad, got_all):
        full, dirs = numeric_grad(case, base, k, head, dtype)
        if full is not None:
            np.testing.assert_allclose(got, full, rtol=rtol, atol=atol, err_msg="gradient of input %d" % k)
        else:
            for d, want in zip(*dirs):
                scale = max(1.0, np.abs(got).sum() ** 0.5)
                np.testing.assert_allclose((got * d).sum(), want, rtol=rtol, atol=atol * scale,
                                           err_msg="directional gradient of input %d" % k)


def numeric_grads(fn, arrays, head, eps=1e-6):
    """d(sum(fn(arrays) * head))/d arrays by central differences, fn run in float64."""
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


def check_fn_grad(fn, arrays, rtol=1e-5, atol=1e-6, eps=1e-6, seed=0):
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


def _wait_all(res):
    for r in res if isinstance(res, (list, tuple)) else [res]:
        if isinstance(r, mx.nd.NDArray):
            r.wait_to_read()


def check_error(call, *needles):
    """check_error(bad_case) or check_error(callable, *needles): the call raises MXNetError (at
    the call or at the next wait) whose message holds every needle."""
    if isinstance(call, BadCase):
        bad = call
        needles = bad.needles

        def call():
            arrays = [a if isinstance(a, mx.nd.NDArray) else mx.nd.array(np.asarray(a), dtype=np.asarray(a).dtype)
                      for a in bad.inputs]
            return op(bad.op)(*arrays, **bad.params)
    with pytest.raises(mx.base.MXNetError) as e:
        _wait_all(call())
    for n in needles:
        assert n in str(e.value), (n, str(e.value))


# --------------------------------------------------------------------------------------------
# Subprocess helpers

def plain_path_rerun(path):
    """A test re-running the module at `path` with MXNET_ONEDNN_ENABLED=0 (the plain kernels).
    Where the runtime has mx.kernels, test_op_harness.py forces every implementation (the plain
    reference included) in process on every row, and this test skips."""
    def test_plain_path_passes_the_same_rows():
        if hasattr(mx, "kernels"):
            pytest.skip("test_op_harness.py forces every kernel implementation against the reference in process")
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
