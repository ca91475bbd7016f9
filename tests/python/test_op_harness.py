"""One harness over every op and every kernel: the rows of tests/python/op_rows/ run forward
against their numpy reference (or property check), gradients against finite differences (or
the op's defined gradient), bad inputs against the expected MXNetError, and every kernel
implementation of each op forced in turn against the plain reference kernel on the same
samples. Coverage tests fail when a registered op has no row, or when an implementation in
an op's kernel list is reached by no sample."""
import collections
import functools

import numpy as np
import pytest

import mxnet as mx
from mxnet import _registry
import op_rows
from op_testing import (bad_params, case_arrays, case_grads, call_case, check_error, check_forward, check_grad,
                        compare, fwd_params, grad_params, row_params, to_np, case_ref_inputs)

CASES = op_rows.all_cases()
BAD = op_rows.all_bad()

HAS_KERNELS = hasattr(mx, "kernels")
NO_KERNELS = "mx.kernels (per-op kernel implementation lists) is not in this build yet"

# Registered public ops that cannot have a row, each with the reason.
WAIVED = {
    "_CachedOp": "runs a whole graph (CachedOp); covered by tests/python/test_cached_op*.py",
    "_CustomFunction": "runs a Python autograd.Function; covered by tests/python/test_autograd*.py",
}


# ---------------------------------------------------------------------------------------------
# The registry: canonical names (aliases resolve to the op they name)

@functools.lru_cache(maxsize=None)
def canonical(name):
    return _registry.op_info(_registry.op_handle(name)).name


@functools.lru_cache(maxsize=None)
def names_of(op_name):
    """Every registered name (the op's own and its aliases) of the op `op_name` names."""
    c = canonical(op_name)
    return {n for n in _registry.list_op_names() if canonical(n) == c}


def backward_names(op_name):
    """The names a backward op of `op_name` is registered under (`_backward_<name>`, with the
    leading underscore of an internal name dropped: _plus_scalar -> _backward_plus_scalar)."""
    out = set()
    for n in names_of(op_name):
        out.add("_backward_" + n)
        if n.startswith("_"):
            out.add("_backward_" + n[1:])
    return out


def registered_ops():
    """Canonical name of every registered op the 1.x front ends expose."""
    return sorted({canonical(n) for n in _registry.list_op_names()})


# ---------------------------------------------------------------------------------------------
# Forward, gradient, bad input

@pytest.mark.parametrize("case,dtype", fwd_params(CASES))
def test_forward(case, dtype):
    check_forward(case, dtype)


@pytest.mark.parametrize("case,dtype", grad_params(CASES))
def test_gradient(case, dtype):
    check_grad(case, dtype)


@pytest.mark.parametrize("bad", bad_params(BAD))
def test_bad_input(bad):
    check_error(bad)


def test_rows_are_well_formed():
    seen = collections.Counter((c.op, c.name, tuple(c.dtypes)) for c in CASES)
    dup = [k for k, n in seen.items() if n > 1]
    assert not dup, "rows named twice: %s" % dup
    for c in CASES:
        canonical(c.op)  # raises MXNetError naming an op that is not registered
        assert (c.ref is None) != (c.check is None), c.id


# ---------------------------------------------------------------------------------------------
# Every implementation: forced, against the forced plain reference

def _run_row(case, dtype, arrays=None):
    """Forward outputs (and gradients when the row has them) of one row, as numpy."""
    arrays = case_arrays(case, dtype) if arrays is None else arrays
    outs = [to_np(o).astype(np.float64) for o in call_case(case, arrays, dtype)]
    grads = case_grads(case, dtype)[0] if case.grad else []
    mx.nd.waitall()
    return outs, grads


def _ops_of_row(case, dtype):
    """The ops a row runs (from a trace of an unforced run), its own op first. The inputs are made
    before the trace: ops that only prepare them (a blocked layout's convolution) are not the row's."""
    with mx.kernels.trace() as prep:
        arrays = case_arrays(case, dtype)
    preparing = {op_name for op_name, _ in prep.records} - {canonical(case.op)}
    with mx.kernels.trace() as t:
        _run_row(case, dtype, arrays)
    ops = [canonical(case.op)]
    if case.grad:
        registered = set(_registry.list_op_names())
        ops += sorted(b for b in backward_names(case.op) if b in registered)
    for op_name, _ in t.records:
        if op_name not in ops and op_name not in preparing:
            ops.append(op_name)
    return ops, list(t.records)


def _does_not_accept(err):
    return "does not accept" in str(err)


def _force_and_compare(case, dtype, reached):
    """For each op the row runs and each implementation of it: the row forced to it vs forced
    to "reference". Returns the pairs (op, impl) compared; adds what ran to `reached`."""
    ops, records = _ops_of_row(case, dtype)
    reached.update(records)
    compared = []
    for op_name in ops:
        impls = mx.kernels.implementations(op_name)
        for impl in impls:
            if impl == "reference":
                continue
            try:
                with mx.kernels.trace() as t:
                    with mx.kernels.force({op_name: impl}):
                        got = _run_row(case, dtype)
            except mx.base.MXNetError as e:
                if _does_not_accept(e):
                    continue
                raise
            reached.update(t.records)
            assert (op_name, impl) in t.records, "forcing %s:%s ran %s" % (op_name, impl, t.records)
            with mx.kernels.trace() as t:
                with mx.kernels.force({op_name: "reference"}):
                    want = _run_row(case, dtype)
            reached.update(t.records)
            _compare_runs(case, dtype, got, want, "%s:%s" % (op_name, impl))
            compared.append((op_name, impl))
    return compared


def _compare_runs(case, dtype, got, want, what):
    if case.ref is None:  # a property check: each run must pass it on its own
        ins = case_ref_inputs(case, dtype)
        case.check(got[0], ins, **row_params(case, dtype))
        return
    rtol, atol = case.tol(dtype)
    for k, (g, w) in enumerate(zip(got[0], want[0])):
        compare(g, w, rtol, atol, "%s %s %s output %d" % (case.id, dtype, what, k))
    rtol, atol = case.tol(dtype, grad=True)
    for k, (g, w) in zip(case.grad, zip(got[1], want[1])):
        compare(g, w, rtol, atol, "%s %s %s gradient of input %d" % (case.id, dtype, what, k))


@pytest.fixture(scope="module")
def forced_runs():
    """Every row and dtype forced through every implementation of every op it runs: the
    implementations reached (op, impl) and the failures, keyed by row."""
    if not HAS_KERNELS:
        pytest.skip(NO_KERNELS)
    reached, failures = set(), {}
    for case in CASES:
        for dtype in case.dtypes:
            try:
                _force_and_compare(case, dtype, reached)
            except Exception as e:  # reported per row by test_every_implementation_matches_reference
                failures["%s-%s" % (case.id, dtype)] = "%s: %s" % (type(e).__name__, e)
    return reached, failures


@pytest.mark.skipif(not HAS_KERNELS, reason=NO_KERNELS)
@pytest.mark.parametrize("case,dtype", fwd_params(CASES))
def test_every_implementation_matches_reference(case, dtype, forced_runs):
    failure = forced_runs[1].get("%s-%s" % (case.id, dtype))
    assert failure is None, failure


# ---------------------------------------------------------------------------------------------
# Coverage

def test_every_registered_op_has_a_row():
    ops = registered_ops()
    rowed = {canonical(c.op) for c in CASES}
    public = [o for o in ops if not o.startswith("_backward_")]
    stale = sorted(set(WAIVED) - set(ops))
    assert not stale, "waivers for ops that are not registered: %s" % stale
    missing = [o for o in public if o not in rowed and o not in WAIVED]
    print("ops with rows: %d of %d (%d waived); missing %d" % (len(set(public) & rowed), len(public),
                                                                len(WAIVED), len(missing)))
    assert not missing, "%d registered ops have no row in tests/python/op_rows/: %s" % (len(missing), missing)


def _grad_reached_backward_ops():
    """The `_backward_*` ops that the gradient rows run (by trace when mx.kernels exists, else the
    `_backward_<op>` name of each row op with gradients)."""
    reached = set()
    if HAS_KERNELS:
        for case in CASES:
            if not case.grad:
                continue
            for dtype in case.dtypes:
                with mx.kernels.trace() as t:
                    case_grads(case, dtype)
                    mx.nd.waitall()
                reached.update(op for op, _ in t.records if op.startswith("_backward_"))
        return reached
    return {b for op_name in {canonical(c.op) for c in CASES if c.grad} for b in backward_names(op_name)}


def test_every_backward_op_is_reached_by_a_gradient_row():
    waived = {b for w in WAIVED for b in backward_names(w)}
    backward = [o for o in registered_ops() if o.startswith("_backward_") and o not in waived]
    reached = _grad_reached_backward_ops()
    missing = [o for o in backward if o not in reached]
    print("backward ops reached by gradient rows: %d of %d" % (len(backward) - len(missing), len(backward)))
    assert not missing, "%d backward ops reached by no gradient row: %s" % (len(missing), missing)


@pytest.mark.skipif(not HAS_KERNELS, reason=NO_KERNELS)
def test_every_implementation_is_reached_by_a_sample(forced_runs):
    reached = forced_runs[0]
    unreached = []
    total = 0
    for op_name in registered_ops():
        for impl in mx.kernels.implementations(op_name):
            total += 1
            if (op_name, impl) not in reached:
                unreached.append("%s:%s" % (op_name, impl))
    print("implementations reached: %d of %d" % (total - len(unreached), total))
    assert not unreached, "%d implementations no sample reaches: %s" % (len(unreached), unreached)


# ---------------------------------------------------------------------------------------------
# The bfloat16 oracle itself

def test_bf16_oracle_rounds_to_nearest_even_on_the_bits():
    from op_testing import bf16_bits, bf16_round
    one = 1.0
    cases = [
        (one, 0x3F80), (-2.0, 0xC000), (0.0, 0x0000), (-0.0, 0x8000),
        (one + 2 ** -8, 0x3F80),             # halfway, even below: down
        (one + 3 * 2 ** -8, 0x3F82),         # halfway, odd below: up
        (one + 2 ** -8 + 2 ** -20, 0x3F81),  # past halfway: up
        (np.inf, 0x7F80), (-np.inf, 0xFF80),
        (3.3895313892515355e38, 0x7F7F),     # largest finite bfloat16
        (np.finfo(np.float32).max, 0x7F80),  # rounds past it: inf
    ]
    # float32 subnormals, made from their bits (the process may flush subnormal arithmetic)
    sub = np.array([0x000116C2, 0x00008000, 0x00018000, 0x807FFFFF], np.uint32).view(np.float32)
    cases += [(sub[0], 0x0001), (sub[1], 0x0000), (sub[2], 0x0002), (sub[3], 0x8080)]
    for v, bits in cases:
        assert int(bf16_bits(np.float32(v))) == bits, (v, hex(int(bf16_bits(np.float32(v)))), hex(bits))
    nan = bf16_bits(np.array([np.nan, -np.nan], np.float32))
    assert np.isnan(bf16_round([np.nan])).all() and (nan[0] & 0x7F80) == 0x7F80 and (nan[0] & 0x7F) != 0
    assert nan[1] & 0x8000


def test_runtime_bf16_cast_agrees_with_the_oracle():
    from op_testing import bf16_round
    x = np.random.RandomState(3).randn(4096).astype(np.float32) * np.float32(10.0) ** \
        np.random.RandomState(4).randint(-30, 30, 4096)
    x[:4] = [1 + 2 ** -8, 1 + 3 * 2 ** -8, np.inf, -np.inf]
    got = mx.nd.array(x, dtype="float32").astype("bfloat16").astype("float32").asnumpy()
    np.testing.assert_array_equal(got, bf16_round(x))
