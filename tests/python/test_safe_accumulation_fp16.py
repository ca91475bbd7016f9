"""MXNET_SAFE_ACCUMULATION and float16 reductions. Off (0), sums, means and norms of float16 are
computed as MXNet 1.x computes them in the storage type: compensated (Kahan) sums with every
step rounded to float16, so 100,000 x 0.1 sums to 9992 (not a sum stalled at 256), a mean
divided by the count as float16, a 2-norm of scaled squares. On (1, the default), they accumulate
in float32 and are within one float16 step of 1.x. Each setting runs in a subprocess (the variable
is read when the library loads); expected values come from a numpy float16 emulation of 1.x's
rule and from the float64 sum, and, when installed, from MXNet 1.9.1 under the same setting."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from peer_oracle import PEER_PYTHON, needs_peer, peer_env

# Run by each runtime: prints a JSON dict of results (float16 values as floats).
SCRIPT = textwrap.dedent("""
    import json, numpy as np, mxnet as mx
    rs = np.random.RandomState(0)
    f = lambda a: np.asarray(a.asnumpy(), dtype=np.float64).ravel().tolist()
    x = mx.nd.full((100000,), 0.1, dtype='float16')
    u = mx.nd.array(rs.uniform(0, 1, (100000,)), dtype='float16')
    nan = rs.uniform(0, 1, (5000,)); nan[::7] = np.nan
    out = {
        'sum': f(x.sum()), 'mean': f(x.mean()),
        'sum_axis1': f(mx.nd.full((4, 100000), 0.1, dtype='float16').sum(axis=1)),
        'sum_axis0': f(mx.nd.full((100000, 3), 0.1, dtype='float16').sum(axis=0)),
        'sum_axis01': f(mx.nd.full((50, 2000, 2), 0.1, dtype='float16').sum(axis=(0, 1))),
        'mean_axis0': f(mx.nd.full((3000, 3), 0.1, dtype='float16').mean(axis=0)),
        'mean_small': f(u[:3000].mean()),
        'sum_uniform': f(u.sum()),
        'nansum': f(mx.nd.nansum(mx.nd.array(nan, dtype='float16'))),
        'norm': f(mx.nd.norm(mx.nd.full((10000,), 0.1, dtype='float16'))),
        'sum_keepdims': f(mx.nd.full((2, 30000), 0.1, dtype='float16').sum(axis=1, keepdims=True)),
        'sum_float32': f(mx.nd.full((100000,), 0.1).sum()),
    }
    print('RESULT' + json.dumps(out))
""")


def _run(python, safe, peer=False):
    env = peer_env() if peer else {k: v for k, v in os.environ.items() if not k.startswith("MXNET_SAFE")}
    env["MXNET_SAFE_ACCUMULATION"] = str(safe)
    proc = subprocess.run([python, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    line = [l for l in proc.stdout.splitlines() if l.startswith("RESULT")][-1]
    return {k: np.array(v) for k, v in json.loads(line[len("RESULT"):]).items()}


@pytest.fixture(scope="module")
def ours():
    return {safe: _run(sys.executable, safe) for safe in (0, 1)}


@pytest.fixture(scope="module")
def peer():
    return {safe: _run(PEER_PYTHON, safe, peer=True) for safe in (0, 1)}


H = np.float16


def kahan16(values):
    """1.x's storage-type sum: compensated, every step rounded to float16."""
    s, c = H(0), H(0)
    for v in np.asarray(values, dtype=H):
        y = H(v - c)
        t = H(s + y)
        c = H(0) if np.isinf(t) else H(H(t - s) - y)
        s = t
    return float(s)


def nrm2_16(values):
    """1.x's storage-type 2-norm: sum of squares scaled by the largest magnitude so far."""
    ssq, scale = H(0), H(0)
    for v in np.asarray(values, dtype=H):
        if v == 0:
            continue
        a = H(abs(v))
        if scale < a:
            r = H(scale / a)
            ssq, scale = H(H(1) + H(H(ssq * r) * r)), a
        else:
            r = H(a / scale)
            ssq = H(ssq + H(r * r))
    return float(H(scale * H(np.sqrt(np.float32(ssq)))))


def _inputs():
    rs = np.random.RandomState(0)
    u = rs.uniform(0, 1, (100000,)).astype(H)
    nan = rs.uniform(0, 1, (5000,))
    nan[::7] = np.nan
    return u, nan.astype(H)


def _exact(values, mean=False):
    s = np.asarray(values, dtype=H).astype(np.float64)
    s = s[~np.isnan(s)]
    return s.mean() if mean else s.sum()


def _ulp(v):
    return float(np.spacing(H(abs(v))))


def test_storage_type_reductions_follow_1x_rule(ours):
    r = ours[0]
    u, nan = _inputs()
    tenth = np.full(100000, 0.1, dtype=H)
    assert r["sum"][0] == kahan16(tenth) == 9992.0  # about 10,000, not a sum stalled at 256
    np.testing.assert_array_equal(r["sum_axis1"], [9992.0] * 4)
    np.testing.assert_array_equal(r["sum_axis0"], [9992.0] * 3)
    np.testing.assert_array_equal(r["sum_axis01"], [kahan16(np.full(100000, 0.1, dtype=H))] * 2)
    np.testing.assert_array_equal(r["sum_keepdims"], [kahan16(np.full(30000, 0.1, dtype=H))] * 2)
    # The mean divides by the count as float16: 100,000 overflows to inf, as in 1.x.
    with np.errstate(over="ignore"):
        assert r["mean"][0] == float(H(H(9992.0) / H(100000))) == 0.0
    np.testing.assert_array_equal(r["mean_axis0"], [float(H(H(kahan16(tenth[:3000])) / H(3000)))] * 3)
    assert r["mean_small"][0] == float(H(H(kahan16(u[:3000])) / H(3000)))
    assert r["sum_uniform"][0] == kahan16(u)
    assert r["nansum"][0] == kahan16(nan[~np.isnan(nan)])
    assert r["norm"][0] == nrm2_16(np.full(10000, 0.1, dtype=H))
    assert abs(r["sum_float32"][0] - 10000.0) < 0.01


def test_safe_reductions_are_accurate(ours):
    r = ours[1]
    u, nan = _inputs()
    tenth = np.full(100000, 0.1, dtype=H)
    for key, exact in [("sum", _exact(tenth)), ("sum_uniform", _exact(u)), ("nansum", _exact(nan)),
                       ("mean", _exact(tenth, mean=True)), ("mean_small", _exact(u[:3000], mean=True)),
                       ("norm", np.sqrt(_exact(np.full(10000, 0.1, dtype=H) ** 2)))]:
        assert abs(r[key][0] - exact) <= _ulp(exact), key
    np.testing.assert_allclose(r["sum_axis0"], [_exact(tenth)] * 3, atol=_ulp(1e4))
    np.testing.assert_allclose(r["sum_axis1"], [_exact(tenth)] * 4, atol=_ulp(1e4))


@needs_peer
@pytest.mark.parametrize("safe", [0, 1])
def test_reductions_match_mxnet191(ours, peer, safe):
    mine, theirs = ours[safe], peer[safe]
    assert sorted(mine) == sorted(theirs)
    for key in sorted(mine):
        if key == "sum_float32":  # float32 sums are not float16's concern: within float32 rounding
            np.testing.assert_allclose(mine[key], theirs[key], rtol=3e-7)
        elif safe == 0:  # the same float16 arithmetic: identical results
            np.testing.assert_array_equal(mine[key], theirs[key], err_msg=key)
        elif key == "mean":
            # 1.x divides by the count as float16 in both settings (inf past 65504, so 0 here);
            # the safe mode divides in float32 and gives the true mean.
            assert theirs[key][0] == 0.0 and abs(mine[key][0] - 0.1) <= _ulp(0.1)
        else:  # within float16 rounding of 1.x
            tol = np.array([_ulp(v) for v in theirs[key]])
            assert np.all(np.abs(mine[key] - theirs[key]) <= tol), (key, mine[key], theirs[key])
