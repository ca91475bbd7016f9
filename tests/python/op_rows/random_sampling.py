"""Rows of the random sampling operators: no numpy reference; each `check` verifies shape, range and
the first two moments against the distribution's definition (5 standard errors of the estimate)."""
import math

import numpy as np

import mxnet as mx
from op_testing import ROW_DTYPE, Case, op

# --------------------------------------------------------------------------------------------
# Random sampling: property checks. Moments of each distribution (mean, variance, central 4th
# moment) from its definition; the sample mean and variance must lie within 5 standard errors.

NS = 100000  # samples per distribution


def within_5se(x, mean, var, mu4, what=""):
    x = np.asarray(x, np.float64).ravel()
    n = x.size
    m = x.mean()
    assert abs(m - mean) <= 5 * math.sqrt(var / n) + 1e-12, (what, "mean", m, mean)
    v = x.var()
    se_v = math.sqrt(max(mu4 - var * var, 0.0) / n) + 5 * math.sqrt(var / n) * abs(m - mean)
    assert abs(v - var) <= 5 * se_v + 1e-12, (what, "variance", v, var)


def integral(x, what=""):
    assert np.all(x == np.round(x)), (what, "non-integer samples")


def m_uniform(a, b):
    return (a + b) / 2, (b - a) ** 2 / 12, (b - a) ** 4 / 80


def m_normal(mu, sigma):
    return mu, sigma ** 2, 3 * sigma ** 4


def m_gamma(alpha, beta):  # shape alpha, scale beta
    var = alpha * beta * beta
    return alpha * beta, var, (3 + 6 / alpha) * var * var


def m_exponential(lam):  # rate lam
    return 1 / lam, 1 / lam ** 2, 9 / lam ** 4


def m_poisson(lam):
    return lam, lam, lam * (1 + 3 * lam)


def m_negbin(k, p):
    """Failures before the k-th success, success probability p (MXNet's negative_binomial)."""
    mean, var = k * (1 - p) / p, k * (1 - p) / p ** 2
    return mean, var, var * var * (3 + 6 / k + p * p / (k * (1 - p)))


def m_gen_negbin(mu, alpha):
    """Mean mu, variance mu + alpha mu^2: a negative binomial with k = 1/alpha, p = 1/(1 + alpha mu)."""
    if alpha == 0:
        return m_poisson(mu)
    return m_negbin(1 / alpha, 1 / (1 + alpha * mu))


def m_randint(low, high):
    n = high - low
    return (low + high - 1) / 2, (n * n - 1) / 12, (n * n - 1) * (3 * n * n - 7) / 240


# name -> (moments, support check, names of the parameters in op order, integer-valued)
DISTS = {
    # [low, high); a float32 draw just below high may round to high
    "uniform": (m_uniform, lambda x, a, b: np.all((x >= a) & (x <= b)), ("low", "high"), False),
    "normal": (m_normal, lambda x, mu, s: np.all(np.isfinite(x)), ("loc", "scale"), False),
    "gamma": (m_gamma, lambda x, a, b: np.all(x > 0), ("alpha", "beta"), False),
    "exponential": (m_exponential, lambda x, lam: np.all(x >= 0), ("lam",), False),
    "poisson": (m_poisson, lambda x, lam: np.all(x >= 0), ("lam",), True),
    "negative_binomial": (m_negbin, lambda x, k, p: np.all(x >= 0), ("k", "p"), True),
    "generalized_negative_binomial": (m_gen_negbin, lambda x, mu, a: np.all(x >= 0), ("mu", "alpha"), True),
}
# the parameter defaults of the scalar samplers (_random_<dist>)
DEFAULT_ARGS = {"uniform": (0.0, 1.0), "normal": (0.0, 1.0), "gamma": (1.0, 1.0), "exponential": (1.0,),
                "poisson": (1.0,), "negative_binomial": (1.0, 1.0), "generalized_negative_binomial": (1.0, 1.0)}


def check_samples(dist, x, args, what):
    moments, support, _, discrete = DISTS[dist]
    assert support(x, *args), (what, "samples outside the support", x.min(), x.max())
    if discrete:
        integral(x, what)
    within_5se(x, *moments(*args), what=what)


def out_dtype(op_name, inputs, params):
    """The dtype of the op's output for these inputs and params (one more call)."""
    arrays = [mx.nd.array(a, dtype=d) for a, d in inputs]
    res = op(op_name)(*arrays, **params)
    res = res[0] if isinstance(res, (list, tuple)) else res
    return np.dtype(res.dtype)


def random_check(dist, shape):
    def check(outs, ins, **p):
        x = outs[0]
        assert x.shape == shape, (x.shape, shape)
        args = [p.get(n, DEFAULT_ARGS[dist][i]) for i, n in enumerate(DISTS[dist][2])]
        check_samples(dist, x, args, "_random_" + dist)
        want = p.get("dtype") or "float32"
        assert out_dtype("_random_" + dist, [], p) == np.dtype(want)
    return check


def random_like_check(dist, dtype):
    def check(outs, ins, **p):
        x = outs[0]
        assert x.shape == ins[0].shape, (x.shape, ins[0].shape)
        args = [p.get(n, DEFAULT_ARGS[dist][i]) for i, n in enumerate(DISTS[dist][2])]
        check_samples(dist, x, args, "_random_%s_like" % dist)
        assert out_dtype("_random_%s_like" % dist, [(ins[0], dtype)], p) == np.dtype(dtype)
    return check


def sample_check(dist, extra):
    def check(outs, ins, **p):
        x = outs[0]
        assert x.shape == ins[0].shape + extra, (x.shape, ins[0].shape, extra)
        for j in np.ndindex(*ins[0].shape):
            check_samples(dist, x[j], [a[j] for a in ins], "_sample_%s%s" % (dist, j))
    return check


def randint_check(outs, ins, low, high, shape, dtype="int32"):
    x = outs[0]
    assert x.shape == tuple(shape)
    assert np.all((x >= low) & (x < high)), (x.min(), x.max())
    integral(x, "randint")
    assert set(np.unique(x).astype(int)) == set(range(int(low), int(high))), "some values never drawn"
    within_5se(x, *m_randint(low, high), what="randint")
    assert out_dtype("_random_randint", [], dict(low=low, high=high, shape=(2,), dtype=dtype)) == np.dtype(dtype)


RANDOM_SHAPE = (100, NS // 100)
RANDOM_PARAMS = {
    "uniform": [{"low": -1.0, "high": 3.0}, {}],
    "normal": [{"loc": 1.5, "scale": 2.0}, {}],
    "gamma": [{"alpha": 2.5, "beta": 0.8}, {"alpha": 0.5, "beta": 2.0}],
    "exponential": [{"lam": 2.0}],
    "poisson": [{"lam": 4.0}, {"lam": 30.0}, {"lam": 0.5}],
    "negative_binomial": [{"k": 3, "p": 0.4}, {"k": 1, "p": 0.8}],
    "generalized_negative_binomial": [{"mu": 2.0, "alpha": 0.3}, {"mu": 3.0, "alpha": 0.0}],
}
RANDOM = []
for _dist, _plist in RANDOM_PARAMS.items():
    for _i, _p in enumerate(_plist):
        _name = "_".join("%s%s" % kv for kv in _p.items()) or "defaults"
        RANDOM.append(Case("_random_" + _dist, _name, [], dict(_p, shape=RANDOM_SHAPE, dtype=ROW_DTYPE),
                           check=random_check(_dist, RANDOM_SHAPE)))
        if _i == 0:
            for _d in ("float32", "float64"):
                RANDOM.append(Case("_random_%s_like" % _dist, _name, [np.zeros(RANDOM_SHAPE)], _p,
                                   check=random_like_check(_dist, _d), dtypes=(_d,)))
RANDOM += [
    Case("_random_uniform", "default_dtype_float32", [], {"low": 0.0, "high": 2.0, "shape": RANDOM_SHAPE},
         check=random_check("uniform", RANDOM_SHAPE), dtypes=("float32",)),
    Case("_random_uniform", "float16", [], {"low": -2.0, "high": 1.0, "shape": RANDOM_SHAPE, "dtype": ROW_DTYPE},
         check=random_check("uniform", RANDOM_SHAPE), dtypes=("float16",)),
    Case("_random_normal", "float16", [], {"loc": -1.0, "scale": 0.5, "shape": RANDOM_SHAPE, "dtype": ROW_DTYPE},
         check=random_check("normal", RANDOM_SHAPE), dtypes=("float16",)),
    Case("_random_randint", "int32", [], {"low": -3, "high": 5, "shape": (NS,), "dtype": "int32"},
         check=randint_check, dtypes=("float32",)),
    Case("_random_randint", "int64", [], {"low": 10, "high": 13, "shape": (NS,), "dtype": "int64"},
         check=randint_check, dtypes=("float32",)),
    Case("_random_randint", "default_dtype_int32", [], {"low": 0, "high": 2, "shape": (NS,)},
         check=randint_check, dtypes=("float32",)),
]

SAMPLE_PARAMS = {
    "uniform": [np.array([0.0, -2.0]), np.array([1.0, 4.0])],
    "normal": [np.array([0.0, 3.0]), np.array([1.0, 0.5])],
    "gamma": [np.array([1.0, 3.0]), np.array([2.0, 0.5])],
    "exponential": [np.array([1.0, 4.0])],
    "poisson": [np.array([1.0, 10.0])],
    "negative_binomial": [np.array([2.0, 5.0]), np.array([0.25, 0.75])],
    "generalized_negative_binomial": [np.array([1.0, 4.0]), np.array([0.5, 0.125])],
}
SAMPLE = []
for _dist, _args in SAMPLE_PARAMS.items():
    SAMPLE.append(Case("_sample_" + _dist, "two_rows", _args, {"shape": (NS // 2,)},
                       check=sample_check(_dist, (NS // 2,))))
SAMPLE += [
    Case("_sample_uniform", "2d_params", [np.array([[0.0, 1.0], [2.0, -1.0]]), np.array([[0.5, 2.0], [6.0, 0.0]])],
         {"shape": (2500,)}, check=sample_check("uniform", (2500,))),
    Case("_sample_normal", "matrix_per_param", [np.array([-1.0, 1.0]), np.array([0.5, 2.0])], {"shape": (50, 100)},
         check=sample_check("normal", (50, 100))),
    Case("_sample_exponential", "float64_output", [np.array([0.5, 2.0])], {"shape": (5000,), "dtype": "float64"},
         check=sample_check("exponential", (5000,))),
]

P_MULTI = np.array([[0.1, 0.2, 0.3, 0.4], [0.5, 0.0, 0.25, 0.25]])


def multinomial_check(outs, ins, shape=(), get_prob=False, dtype="int32"):
    probs = ins[0] / ins[0].sum(-1, keepdims=True)
    x = outs[0]
    assert x.shape == ins[0].shape[:-1] + tuple(shape), x.shape
    integral(x, "multinomial")
    for r in range(probs.shape[0]):
        s = x[r].ravel().astype(np.int64)
        assert s.min() >= 0 and s.max() < probs.shape[1]
        n = s.size
        for c, pc in enumerate(probs[r]):
            count = np.sum(s == c)
            assert abs(count - n * pc) <= 5 * math.sqrt(n * pc * (1 - pc)) + 1e-9, (r, c, count, n * pc)
    if get_prob:
        lp = outs[1]
        rows = np.arange(probs.shape[0]).reshape((-1,) + (1,) * len(shape))
        want = np.log(ins[0][rows, x.astype(np.int64)])
        np.testing.assert_allclose(lp, want, rtol=1e-5, atol=1e-6)
        multinomial_log_prob_grad_check(ins[0], shape)


def multinomial_log_prob_grad_check(probs, shape):
    """The gradient through the log probabilities (REINFORCE): d sum(head * log p[draw]) / d p[r, j]
    = sum of head over the draws of row r that picked j, divided by p[r, j]."""
    data = mx.nd.array(probs, dtype="float64")
    data.attach_grad()
    with mx.autograd.record():
        draws, lp = op("_sample_multinomial")(data, shape=shape, get_prob=True)
    head = np.random.RandomState(5).uniform(0.5, 1.5, lp.shape)
    lp.backward(mx.nd.array(head, dtype="float64"))
    s = draws.asnumpy().astype(np.int64).reshape(probs.shape[0], -1)
    h = head.reshape(probs.shape[0], -1)
    want = np.zeros(probs.shape)
    for r in range(probs.shape[0]):
        np.add.at(want[r], s[r], h[r] / probs[r, s[r]])
    np.testing.assert_allclose(data.grad.asnumpy(), want, rtol=1e-9, atol=1e-12)


def shuffle_check(outs, ins, **_):
    x, y = ins[0], outs[0]
    assert y.shape == x.shape
    rows_x = sorted(map(tuple, x.reshape(x.shape[0], -1)))
    rows_y = sorted(map(tuple, y.reshape(y.shape[0], -1)))
    assert rows_x == rows_y, "the rows are not a permutation of the input rows"
    assert not np.array_equal(x, y), "identity permutation (probability 1/n!)"


SAMPLE += [
    Case("_sample_multinomial", "rows", [P_MULTI], {"shape": (NS // 2,)}, check=multinomial_check),
    Case("_sample_multinomial", "get_prob", [P_MULTI], {"shape": (40, 100), "get_prob": True},
         check=multinomial_check, outputs=2),
    # the draws themselves carry no gradient (only the log probabilities do, checked above)
    Case("_sample_multinomial", "draws_have_zero_gradient", [P_MULTI], {"shape": (6,), "get_prob": True},
         check=multinomial_check, outputs=2, grad=(0,), grad_ref=lambda ins, head, **p: [np.zeros_like(ins[0])]),
    Case("_sample_multinomial", "trailing_zero", [np.array([[0.75, 0.25, 0.0]])], {"shape": (4000,)},
         check=multinomial_check),
    Case("_shuffle", "rows", [np.arange(60 * 3, dtype=np.float64).reshape(60, 3)], {}, check=shuffle_check),
    Case("_shuffle", "1d", [np.arange(500, dtype=np.float64)], {}, check=shuffle_check),
    Case("shuffle", "alias_3d", [np.arange(40 * 2 * 2, dtype=np.float64).reshape(40, 2, 2)], {},
         check=shuffle_check),
]

CASES = RANDOM + SAMPLE
