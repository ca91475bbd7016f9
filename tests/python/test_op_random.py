"""Random ops: moments and chi-square goodness of fit at fixed seeds, shapes and dtypes,
reproducibility (same seed, any thread count, engine or MXNET_CPU_PARALLEL_RAND_COPY),
multinomial log-probabilities and their gradient, shuffle, bad parameters."""
import math

import numpy as np
import pytest

import mxnet as mx
from op_testing import op

N = 200000


def _moments(x):
    x = np.asarray(x, dtype=np.float64)
    return x.mean(), x.var()


def _close(got, want, rel, what):
    assert abs(got - want) <= rel * max(abs(want), 1.0), "%s: got %g, expected %g" % (what, got, want)


# name, params, mean, variance (independent closed forms)
MOMENTS = [
    ("_random_uniform", dict(low=-2, high=3), 0.5, 25 / 12.0),
    ("_random_normal", dict(loc=1.5, scale=2), 1.5, 4.0),
    ("_random_gamma", dict(alpha=0.4, beta=2), 0.8, 1.6),
    ("_random_gamma", dict(alpha=5, beta=0.5), 2.5, 1.25),
    ("_random_exponential", dict(lam=4), 0.25, 1 / 16.0),
    ("_random_poisson", dict(lam=3), 3.0, 3.0),
    ("_random_poisson", dict(lam=150), 150.0, 150.0),
    ("_random_negative_binomial", dict(k=3, p=0.4), 3 * 0.6 / 0.4, 3 * 0.6 / 0.16),
    ("_random_generalized_negative_binomial", dict(mu=2, alpha=0.5), 2.0, 2 + 0.5 * 4),
    ("_random_generalized_negative_binomial", dict(mu=2, alpha=0), 2.0, 2.0),
    ("_random_randint", dict(low=-4, high=6), 0.5, (10 ** 2 - 1) / 12.0),
]


@pytest.mark.parametrize("name,params,mean,var", MOMENTS)
def test_scalar_sampler_moments(name, params, mean, var):
    mx.random.seed(123)
    x = op(name)(shape=(N,), **params).asnumpy()
    m, v = _moments(x)
    # 6 standard errors of the mean; variance within 5%
    assert abs(m - mean) < 6 * math.sqrt(var / N), (m, mean)
    _close(v, var, 0.05, "variance")


def _chi_square(counts, probs):
    expected = probs * counts.sum()
    return float(((counts - expected) ** 2 / expected).sum())


def _chi_square_limit(df):
    # Wilson-Hilferty 99.99% quantile of chi-square(df)
    z = 3.719
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


def test_uniform_chi_square():
    mx.random.seed(7)
    x = op("_random_uniform")(low=0, high=1, shape=(N,)).asnumpy()
    assert x.min() >= 0 and x.max() < 1
    counts = np.histogram(x, bins=50, range=(0, 1))[0]
    assert _chi_square(counts, np.full(50, 1 / 50.0)) < _chi_square_limit(49)


def test_randint_chi_square_and_range():
    mx.random.seed(8)
    x = op("_random_randint")(low=-3, high=5, shape=(N,)).asnumpy()
    assert x.dtype == np.int32 and x.min() == -3 and x.max() == 4
    counts = np.bincount(x + 3, minlength=8)
    assert _chi_square(counts, np.full(8, 1 / 8.0)) < _chi_square_limit(7)
    y = op("_random_randint")(low=0, high=2 ** 40, shape=(1000,), dtype="int64").asnumpy()
    assert y.dtype == np.int64 and y.max() > 2 ** 39


@pytest.mark.parametrize("lam", [0.7, 4.0, 25.0])
def test_poisson_chi_square(lam):
    mx.random.seed(9)
    x = op("_random_poisson")(lam=lam, shape=(N,)).asnumpy().astype(np.int64)
    kmax = int(lam + 6 * math.sqrt(lam) + 3)
    k = np.arange(kmax)
    pmf = np.exp(k * math.log(lam) - lam - np.array([math.lgamma(i + 1) for i in k]))
    counts = np.bincount(np.minimum(x, kmax - 1), minlength=kmax).astype(np.float64)
    probs = np.append(pmf[:-1], 1 - pmf[:-1].sum())
    keep = probs * N >= 5  # chi-square needs enough expected counts per bin
    counts = np.append(counts[keep], counts[~keep].sum())
    probs = np.append(probs[keep], probs[~keep].sum())
    assert _chi_square(counts, probs) < _chi_square_limit(len(counts) - 1)


def test_normal_tail_fractions():
    mx.random.seed(10)
    x = op("_random_normal")(loc=0, scale=1, shape=(N,), dtype="float64").asnumpy()
    edges = np.array([-np.inf, -2, -1, 0, 1, 2, np.inf])
    cdf = np.array([0.5 * (1 + math.erf(e / math.sqrt(2))) if np.isfinite(e) else (0.0 if e < 0 else 1.0)
                    for e in edges])
    counts = np.histogram(x, bins=edges)[0]
    assert _chi_square(counts, np.diff(cdf)) < _chi_square_limit(5)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_output_dtypes_and_out(dtype):
    x = op("_random_uniform")(shape=(3, 4), dtype=dtype)
    assert x.shape == (3, 4) and x.dtype == np.dtype(dtype)
    out = mx.nd.zeros((5,), dtype=dtype)
    op("_random_normal")(out=out)  # shape and dtype from the given output
    assert out.dtype == np.dtype(dtype) and np.all(out.asnumpy() != 0)
    assert mx.nd.random.uniform(shape=(2,)).dtype == np.float32


def test_aliases_and_frontend():
    mx.random.seed(3)
    a = mx.nd.random.uniform(1, 2, shape=(50,)).asnumpy()
    mx.random.seed(3)
    b = mx.nd.uniform(low=1, high=2, shape=(50,)).asnumpy()
    mx.random.seed(3)
    c = mx.nd.random_uniform(low=1, high=2, shape=(50,)).asnumpy()
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, c)
    assert mx.nd.random.randn(2, 3).shape == (2, 3)
    e = mx.nd.random.exponential(scale=2, shape=(N,)).asnumpy()
    assert abs(e.mean() - 2) < 0.05


@pytest.mark.parametrize("name,params", [("_random_uniform_like", dict(low=2, high=3)),
                                         ("_random_normal_like", dict(loc=5, scale=0.1)),
                                         ("_random_gamma_like", dict(alpha=2, beta=1)),
                                         ("_random_exponential_like", dict(lam=2)),
                                         ("_random_poisson_like", dict(lam=2)),
                                         ("_random_negative_binomial_like", dict(k=2, p=0.5)),
                                         ("_random_generalized_negative_binomial_like", dict(mu=2, alpha=1))])
def test_like_variants(name, params):
    data = mx.nd.zeros((4, 5), dtype="float64")
    y = op(name)(data, **params)
    assert y.shape == (4, 5) and y.dtype == np.float64
    if name == "_random_uniform_like":
        assert y.asnumpy().min() >= 2 and y.asnumpy().max() < 3


ROWS = [
    ("_sample_uniform", [[0, 10, -1], [1, 20, 1]], lambda lo, hi: ((lo + hi) / 2, (hi - lo) ** 2 / 12)),
    ("_sample_normal", [[0, 5, -3], [1, 0.5, 2]], lambda mu, s: (mu, s * s)),
    ("_sample_gamma", [[0.5, 2, 9], [1, 3, 0.5]], lambda a, b: (a * b, a * b * b)),
    ("_sample_exponential", [[1, 4, 0.5]], lambda lam: (1 / lam, 1 / lam ** 2)),
    ("_sample_poisson", [[0.5, 4, 40]], lambda lam: (lam, lam)),
    ("_sample_negative_binomial", [[1, 3, 5], [0.5, 0.4, 0.9]], lambda k, p: (k * (1 - p) / p, k * (1 - p) / p ** 2)),
    ("_sample_generalized_negative_binomial", [[1, 3, 5], [0.5, 0, 2]],
     lambda mu, al: (mu, mu + al * mu * mu)),
]


@pytest.mark.parametrize("name,params,moments", ROWS)
def test_per_row_samplers(name, params, moments):
    mx.random.seed(11)
    arrays = [mx.nd.array(p) for p in params]
    per_row = 40000
    out = op(name)(*arrays, shape=(per_row,))
    assert out.shape == (3, per_row) and out.dtype == np.float32
    x = out.asnumpy()
    for j in range(3):
        mean, var = moments(*[float(p[j]) for p in params])
        m, v = _moments(x[j])
        assert abs(m - mean) < 6 * math.sqrt(var / per_row) + 1e-9, (j, m, mean)
        _close(v, var, 0.06, "%s row %d variance" % (name, j))


def test_per_row_shapes_and_dtypes():
    lo = mx.nd.zeros((2, 3), dtype="float64")
    hi = mx.nd.ones((2, 3), dtype="float64")
    assert op("_sample_uniform")(lo, hi).shape == (2, 3)
    assert op("_sample_uniform")(lo, hi, shape=(4, 5)).shape == (2, 3, 4, 5)
    assert op("_sample_uniform")(lo, hi, shape=4, dtype="float16").dtype == np.float16
    # mx.nd.random switches to _sample_* when parameters are arrays
    assert mx.nd.random.normal(mx.nd.zeros((3,)), mx.nd.ones((3,)), shape=(2,)).shape == (3, 2)


def test_multinomial_distribution_and_shapes():
    mx.random.seed(12)
    probs = np.array([[0.1, 0.2, 0.3, 0.4], [0.7, 0.0, 0.0, 0.3]])
    s = op("_sample_multinomial")(mx.nd.array(probs), shape=(N // 2,)).asnumpy()
    assert s.shape == (2, N // 2) and s.dtype == np.int32
    for r in range(2):
        counts = np.bincount(s[r], minlength=4).astype(np.float64)
        nz = probs[r] > 0
        assert counts[~nz].sum() == 0
        assert _chi_square(counts[nz], probs[r][nz]) < _chi_square_limit(int(nz.sum()) - 1)
    assert op("_sample_multinomial")(mx.nd.array([0.5, 0.5])).shape == (1,)
    assert op("_sample_multinomial")(mx.nd.array([0.5, 0.5]), shape=(2, 3)).shape == (2, 3)
    assert op("_sample_multinomial")(mx.nd.array(probs), dtype="float64").dtype == np.float64
    assert mx.nd.random.multinomial(mx.nd.array(probs)).shape == (2,)


def test_multinomial_log_prob_and_gradient():
    probs = np.array([[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]])
    p = mx.nd.array(probs, dtype="float64")
    p.attach_grad()
    head = np.array([[1.0, 2.0, 0.5, -1.0], [0.25, 1.5, 3.0, 2.0]])
    with mx.autograd.record():
        s, lp = op("_sample_multinomial")(p, shape=(4,), get_prob=True)
    lp.backward(mx.nd.array(head, dtype="float64"))
    s = s.asnumpy()
    np.testing.assert_allclose(lp.asnumpy(), np.log(np.take_along_axis(probs, s, axis=1)), rtol=1e-12)
    expect = np.zeros_like(probs)
    for r in range(2):
        for t in range(4):
            expect[r, s[r, t]] += head[r, t] / probs[r, s[r, t]]
    np.testing.assert_allclose(p.grad.asnumpy(), expect, rtol=1e-12)


def test_shuffle():
    mx.random.seed(13)
    x = np.arange(60, dtype=np.float32).reshape(20, 3)
    y = op("_shuffle")(mx.nd.array(x)).asnumpy()
    assert not np.array_equal(x, y)
    # a permutation of whole rows
    np.testing.assert_array_equal(np.sort(y[:, 0]), x[:, 0])
    np.testing.assert_array_equal(y[:, 1:] - y[:, :1], x[:, 1:] - x[:, :1])
    z = mx.nd.array(x)
    mx.nd.random.shuffle(z, out=z)
    np.testing.assert_array_equal(np.sort(z.asnumpy(), axis=0), x)
    # every position is reachable: 3 elements, 6 orders, all seen
    seen = {tuple(op("_shuffle")(mx.nd.array([0, 1, 2])).asnumpy()) for _ in range(200)}
    assert len(seen) == 6
    assert op("_shuffle")(mx.nd.array([5.0])).asnumpy()[0] == 5.0


def test_seed_reproducibility():
    def draw():
        return [op("_random_uniform")(shape=(100,)).asnumpy(), op("_random_gamma")(alpha=0.5, shape=(100,)).asnumpy(),
                op("_shuffle")(mx.nd.arange(50)).asnumpy(),
                op("_sample_multinomial")(mx.nd.array([0.3, 0.7]), shape=(20,)).asnumpy()]
    mx.random.seed(99)
    a = draw()
    mx.random.seed(99)
    b = draw()
    mx.random.seed(100)
    c = draw()
    for x, y, z in zip(a, b, c):
        np.testing.assert_array_equal(x, y)
        assert not np.array_equal(x, z)
    # consecutive calls give fresh numbers
    assert not np.array_equal(a[0], op("_random_uniform")(shape=(100,)).asnumpy())
    mx.random.seed(99, ctx=mx.cpu(0))
    np.testing.assert_array_equal(op("_random_uniform")(shape=(100,)).asnumpy(), a[0])


_STREAM_PROGRAM = r"""
import hashlib, mxnet as mx
mx.random.seed(2024)
I = mx.nd._internal
outs = [I._random_uniform(shape=(50000,)), I._random_normal(shape=(50000,), dtype='float64'),
        I._random_gamma(alpha=0.3, shape=(20000,)), I._random_poisson(lam=30, shape=(20000,)),
        I._random_randint(low=0, high=1000, shape=(20000,)),
        I._sample_normal(mx.nd.zeros((100,)), mx.nd.ones((100,)), shape=(500,)),
        I._sample_multinomial(mx.nd.ones((100, 7)) / 7, shape=(300,)), I._shuffle(mx.nd.arange(5000))]
print(hashlib.sha256(b"".join(o.asnumpy().tobytes() for o in outs)).hexdigest())
"""


def test_streams_independent_of_threads_engine_and_copies(run_python):
    digests = set()
    for env in [dict(OMP_NUM_THREADS="1"), dict(OMP_NUM_THREADS="4", MXNET_CPU_PARALLEL_SIZE="1000"),
                dict(MXNET_ENGINE_TYPE="NaiveEngine"), dict(MXNET_ENGINE_TYPE="ThreadedEngine"),
                dict(MXNET_ENGINE_TYPE="ThreadedEnginePerDevice", MXNET_CPU_WORKER_NTHREADS="3"),
                dict(MXNET_CPU_PARALLEL_RAND_COPY="4")]:
        res = run_python(_STREAM_PROGRAM, **env)
        assert res.returncode == 0, res.stderr
        digests.add(res.stdout.strip().splitlines()[-1])
    assert len(digests) == 1, digests


BAD = [
    ("_random_uniform", [], dict(low=2, high=1, shape=(2,)), "_random_uniform.*low"),
    ("_random_uniform", [], dict(shape=(2,), dtype="int32"), "_random_uniform"),
    ("_random_uniform", [], dict(), "_random_uniform.*shape"),
    ("_random_normal", [], dict(scale=0, shape=(2,)), "_random_normal.*scale"),
    ("_random_gamma", [], dict(alpha=-1, shape=(2,)), "_random_gamma.*alpha"),
    ("_random_exponential", [], dict(lam=0, shape=(2,)), "_random_exponential.*lam"),
    ("_random_poisson", [], dict(lam=-0.5, shape=(2,)), "_random_poisson.*lam"),
    ("_random_negative_binomial", [], dict(k=2, p=1.5, shape=(2,)), "_random_negative_binomial"),
    ("_random_generalized_negative_binomial", [], dict(mu=-1, shape=(2,)), "_random_generalized_negative"),
    ("_random_randint", [], dict(low=3, high=3, shape=(2,)), "_random_randint.*low"),
    ("_random_randint", [], dict(low=0, shape=(2,)), "_random_randint.*high"),
    ("_random_normal_like", [np.zeros(2)], dict(scale=-1), "_random_normal_like.*scale"),
    ("_sample_normal", [[0, 0], [1, -1]], dict(), "_sample_normal.*sigma.*element 1"),
    ("_sample_uniform", [[0, 0], [1, 1, 1]], dict(), "_sample_uniform.*same shape"),
    ("_sample_gamma", [[1.0], [0.0]], dict(), "_sample_gamma.*beta"),
    ("_sample_poisson", [[np.nan]], dict(), "_sample_poisson.*lam"),
    ("_sample_multinomial", [[0.5, -0.1]], dict(), "_sample_multinomial.*non-negative"),
    ("_sample_multinomial", [[0.0, 0.0]], dict(), "_sample_multinomial.*sums to 0"),
    ("_shuffle", [], dict(), "_shuffle"),
]


@pytest.mark.parametrize("name,inputs,params,match", BAD)
def test_bad_inputs(name, inputs, params, match):
    arrays = [mx.nd.array(np.asarray(a, dtype=np.float64)) for a in inputs]
    with pytest.raises(mx.base.MXNetError, match=match):
        op(name)(*arrays, **params).asnumpy()
    assert op("_random_uniform")(shape=(1,)).asnumpy()[0] < 1.0


def test_integer_probabilities_rejected():
    with pytest.raises(mx.base.MXNetError, match="_sample_multinomial.*floating point"):
        op("_sample_multinomial")(mx.nd.array([1, 2], dtype="int32")).asnumpy()
