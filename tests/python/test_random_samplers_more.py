"""mx.nd.random's negative binomial samplers, the *_like samplers, the sample_* aliases with
NDArray parameters, and the random_pdf_* densities with their gradients.

Sample statistics are checked against each distribution's mean and variance within 5
standard errors of the estimate; densities against float64 numpy/math formulas; gradients
against central finite differences of those formulas; and, where the MXNet 1.9.1 peer is
installed, densities and gradients against it."""
import json
import math
import textwrap

import numpy as np
import pytest

import mxnet as mx
from peer_oracle import needs_peer, run_peer

nd = mx.nd

N = 200000  # samples per statistic


def negbin_moments(k, p):
    """Failures before the k-th success, success probability p: mean, variance, 4th central moment."""
    mean, var = k * (1 - p) / p, k * (1 - p) / p ** 2
    return mean, var, var * var * (3 + 6 / k + p * p / (k * (1 - p)))


def gen_negbin_moments(mu, alpha):
    if alpha == 0:
        return mu, mu, mu * (1 + 3 * mu)
    return negbin_moments(1 / alpha, 1 / (1 + alpha * mu))


def assert_moments(x, mean, var, mu4, what):
    x = np.asarray(x, np.float64).ravel()
    n = x.size
    assert abs(x.mean() - mean) <= 5 * math.sqrt(var / n), (what, "mean", x.mean(), mean)
    assert abs(x.var() - var) <= 5 * math.sqrt(max(mu4 - var * var, 0.0) / n) + 1e-12, (what, "var", x.var(), var)


# ---- samplers -------------------------------------------------------------------------------

@pytest.mark.parametrize("k,p", [(3.0, 0.4), (1.0, 0.8), (0.5, 0.3)])
def test_negative_binomial_moments(k, p):
    x = nd.random.negative_binomial(k=k, p=p, shape=(N,)).asnumpy()
    assert x.dtype == np.float32 and x.shape == (N,)
    assert np.all(x >= 0) and np.all(x == np.round(x))
    assert_moments(x, *negbin_moments(k, p), what=("nb", k, p))


@pytest.mark.parametrize("mu,alpha", [(2.0, 0.3), (3.0, 0.0), (0.5, 2.0)])
def test_generalized_negative_binomial_moments(mu, alpha):
    x = nd.random.generalized_negative_binomial(mu=mu, alpha=alpha, shape=(N,), dtype="float64").asnumpy()
    assert x.dtype == np.float64
    assert np.all(x >= 0) and np.all(x == np.round(x))
    assert_moments(x, *gen_negbin_moments(mu, alpha), what=("gnb", mu, alpha))


def test_scalar_parameters_without_shape_draw_one_value():
    assert nd.random.negative_binomial().shape == (1,)
    assert nd.random.generalized_negative_binomial(2.0, 0.5).shape == (1,)


def test_ndarray_parameters_dispatch_to_sample_ops():
    k, p = nd.array([2.0, 5.0]), nd.array([0.25, 0.75])
    x = nd.random.negative_binomial(k, p, shape=(N // 2,))
    assert x.shape == (2, N // 2)
    for j in range(2):
        assert_moments(x[j].asnumpy(), *negbin_moments(k.asnumpy()[j], p.asnumpy()[j]), what=("nb row", j))
    mu, alpha = nd.array([[1.0], [4.0]]), nd.array([[0.5], [0.125]])
    y = nd.random.generalized_negative_binomial(mu, alpha, shape=(3, 4))
    assert y.shape == (2, 1, 3, 4)
    with pytest.raises(ValueError, match="all scalars or all NDArrays"):
        nd.random.negative_binomial(k, 0.5)


@pytest.mark.parametrize("dist,params", [
    ("uniform", (nd.array([0.0, -2.0]), nd.array([1.0, 4.0]))),
    ("normal", (nd.array([0.0, 3.0]), nd.array([1.0, 0.5]))),
    ("gamma", (nd.array([1.0, 3.0]), nd.array([2.0, 0.5]))),
    ("exponential", (nd.array([1.0, 4.0]),)),
    ("poisson", (nd.array([1.0, 10.0]),)),
    ("negative_binomial", (nd.array([2.0, 5.0]), nd.array([0.25, 0.75]))),
    ("generalized_negative_binomial", (nd.array([1.0, 4.0]), nd.array([0.5, 0.125]))),
])
def test_sample_aliases_are_the_sample_ops(dist, params):
    """mx.nd.sample_<dist> (1.x's alias of _sample_<dist>): output shape = parameter shape + shape."""
    fn = getattr(nd, "sample_" + dist)
    assert fn is not None and getattr(mx.sym, "sample_" + dist) is not None
    mx.random.seed(11)
    a = fn(*params, shape=(3, 4))
    mx.random.seed(11)
    b = getattr(nd._internal, "_sample_" + dist)(*params, shape=(3, 4))
    assert a.shape == (2, 3, 4) and a.dtype == np.float32
    np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    assert fn(*params, shape=(2,), dtype="float64").dtype == np.float64


LIKE = [("uniform_like", {"low": -1.0, "high": 3.0}, (1.0, 16.0 / 12, 256.0 / 80)),
        ("normal_like", {"loc": 1.5, "scale": 2.0}, (1.5, 4.0, 48.0)),
        ("gamma_like", {"alpha": 2.5, "beta": 0.8}, (2.0, 1.6, (3 + 6 / 2.5) * 1.6 ** 2)),
        ("exponential_like", {"lam": 2.0}, (0.5, 0.25, 9 / 16.0)),
        ("poisson_like", {"lam": 4.0}, (4.0, 4.0, 4.0 * 13)),
        ("negative_binomial_like", {"k": 3.0, "p": 0.4}, negbin_moments(3.0, 0.4)),
        ("generalized_negative_binomial_like", {"mu": 2.0, "alpha": 0.3}, gen_negbin_moments(2.0, 0.3))]


@pytest.mark.parametrize("name,params,moments", LIKE, ids=[n for n, _, _ in LIKE])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_like_samplers(name, params, moments, dtype):
    data = nd.zeros((400, N // 400), dtype=dtype)
    x = getattr(nd.random, name)(data, **params)
    assert x.shape == data.shape and x.dtype == np.dtype(dtype) and x.context == data.context
    assert_moments(x.asnumpy(), *moments, what=name)
    out = nd.zeros((3, 2), dtype=dtype)
    assert getattr(nd.random, name)(out, out=out, **params) is out
    sym = getattr(mx.sym.random, name)(mx.sym.var("d"), **params)
    assert sym.infer_shape(d=(3, 2))[1] == [(3, 2)]


def test_like_samplers_take_the_op_defaults():
    x = nd.random.uniform_like(nd.zeros((N,))).asnumpy()
    assert 0.0 <= x.min() and x.max() <= 1.0
    assert_moments(x, 0.5, 1 / 12.0, 1 / 80.0, "uniform_like defaults")


@pytest.mark.parametrize("draw", [
    lambda: nd.random.negative_binomial(3, 0.4, shape=(50,)),
    lambda: nd.random.generalized_negative_binomial(nd.array([1.0, 2.0]), nd.array([0.5, 0.0]), shape=(20,)),
    lambda: nd.random.gamma_like(nd.zeros((5, 6)), alpha=2.0),
    lambda: nd.random.poisson_like(nd.zeros((40,)), lam=3.0),
    lambda: nd.sample_gamma(nd.array([1.0, 2.0]), nd.array([1.0, 3.0]), shape=(7,)),
], ids=["negative_binomial", "gnb_ndarray", "gamma_like", "poisson_like", "sample_gamma"])
def test_seed_makes_draws_reproducible(draw):
    mx.random.seed(1234)
    a = draw().asnumpy()
    b = draw().asnumpy()
    mx.random.seed(1234)
    c = draw().asnumpy()
    np.testing.assert_array_equal(a, c)
    assert not np.array_equal(a, b)


def test_random_namespace_helpers():
    assert nd.random.current_context() == mx.current_context()
    assert nd.random.numeric_types == mx.base.numeric_types
    for name in ("negative_binomial", "generalized_negative_binomial") + tuple(n for n, _, _ in LIKE):
        assert name in nd.random.__all__ and name in mx.sym.random.__all__


def test_symbol_negative_binomial_nodes():
    s = mx.sym.random.negative_binomial(k=2, p=0.5, shape=(3,))
    assert json.loads(s.tojson())["nodes"][-1]["op"] == "_random_negative_binomial"
    t = mx.sym.random.generalized_negative_binomial(mx.sym.var("m"), mx.sym.var("a"), shape=(4,))
    assert json.loads(t.tojson())["nodes"][-1]["op"] == "_sample_generalized_negative_binomial"
    assert t.infer_shape(m=(2,), a=(2,))[1] == [(2, 4)]


# ---- densities ------------------------------------------------------------------------------

def lgamma(x):
    return np.vectorize(math.lgamma, otypes=[np.float64])(x)


def col(p):
    return p[:, None]


def lp_negbin(x, k, p):
    return lgamma(x + k) - lgamma(x + 1) - lgamma(k) + k * np.log(p) + x * np.log1p(-p)


# name -> (log density of (sample, *params) with params of shape (2,) and samples (2, n), inputs,
#          indices of the inputs with a gradient: discrete samples have none)
PDF = {
    "uniform": (lambda x, lo, hi: np.zeros_like(x) - np.log(col(hi) - col(lo)),
                [[[0.3, 0.9, 0.1], [-1.0, 2.5, 0.0]], [0.0, -2.0], [1.0, 3.0]], (0, 1, 2)),
    "normal": (lambda x, m, s: -0.5 * ((x - col(m)) / col(s)) ** 2 - np.log(col(s)) - 0.5 * math.log(2 * math.pi),
               [[[0.5, -1.0, 2.0], [1.0, 3.0, 0.0]], [0.2, 1.0], [1.5, 2.0]], (0, 1, 2)),
    "gamma": (lambda x, a, b: col(a) * np.log(col(b)) + (col(a) - 1) * np.log(x) - col(b) * x - lgamma(col(a)),
              [[[0.5, 2.0, 1.2], [0.3, 4.0, 2.2]], [2.2, 0.7], [1.5, 0.4]], (0, 1, 2)),
    "exponential": (lambda x, lam: np.log(col(lam)) - col(lam) * x,
                    [[[0.5, 2.0, 0.1], [1.0, 0.2, 3.0]], [1.5, 0.3]], (0, 1)),
    "poisson": (lambda x, lam: x * np.log(col(lam)) - col(lam) - lgamma(x + 1),
                [[[0.0, 2.0, 5.0], [1.0, 3.0, 7.0]], [1.5, 4.0]], (1,)),
    "negative_binomial": (lambda x, k, p: lp_negbin(x, col(k), col(p)),
                          [[[0.0, 2.0, 5.0], [1.0, 3.0, 7.0]], [2.5, 1.0], [0.3, 0.6]], (1, 2)),
    "generalized_negative_binomial": (
        lambda x, mu, a: lp_negbin(x, 1 / col(a), 1 / (1 + col(a) * col(mu))),
        [[[0.0, 2.0, 5.0], [1.0, 3.0, 7.0]], [2.5, 1.0], [0.3, 1.5]], (1, 2)),
}


def pdf_call(name, arrays, is_log):
    return getattr(nd, "random_pdf_" + name)(*arrays, is_log=is_log)


@pytest.mark.parametrize("is_log", [False, True])
@pytest.mark.parametrize("name", sorted(PDF))
def test_pdf_values(name, is_log):
    lp, inputs, _ = PDF[name]
    ins = [np.array(v, np.float64) for v in inputs]
    want = lp(*ins)
    want = want if is_log else np.exp(want)
    got = pdf_call(name, [nd.array(v, dtype="float64") for v in ins], is_log)
    assert got.shape == ins[0].shape and got.dtype == np.float64
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-10, atol=1e-12)
    got32 = pdf_call(name, [nd.array(v) for v in ins], is_log)
    assert got32.dtype == np.float32
    np.testing.assert_allclose(got32.asnumpy(), want, rtol=2e-5, atol=1e-6)


def numeric_grads(f, ins, indices, eps=1e-6):
    out = []
    for i in range(len(ins)):
        g = np.zeros_like(ins[i])
        if i in indices:
            for j in np.ndindex(*ins[i].shape):
                hi = [a.copy() for a in ins]
                lo = [a.copy() for a in ins]
                hi[i][j] += eps
                lo[i][j] -= eps
                g[j] = (f(*hi).sum() - f(*lo).sum()) / (2 * eps)
        out.append(g)
    return out


def autograd_grads(call, ins):
    arrays = [nd.array(v, dtype="float64") for v in ins]
    for a in arrays:
        a.attach_grad()
    with mx.autograd.record():
        y = call(arrays)
    y.backward()
    return [a.grad.asnumpy() for a in arrays]


@pytest.mark.parametrize("is_log", [False, True])
@pytest.mark.parametrize("name", sorted(PDF))
def test_pdf_gradients(name, is_log):
    """Discrete samples get zero gradients (as in 1.x); the rest match finite differences."""
    lp, inputs, diff = PDF[name]
    ins = [np.array(v, np.float64) for v in inputs]
    f = lp if is_log else (lambda *a: np.exp(lp(*a)))
    want = numeric_grads(f, ins, diff)
    got = autograd_grads(lambda a: pdf_call(name, a, is_log), ins)
    for i, (g, w) in enumerate(zip(got, want)):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-8, err_msg="%s input %d" % (name, i))


def dirichlet_lp(x, a):
    a = a[:, None, :]
    return lgamma(a.sum(-1)) - lgamma(a).sum(-1) + ((a - 1) * np.log(x)).sum(-1)


DIR_X = np.array([[[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]], [[0.6, 0.3, 0.1], [0.3, 0.3, 0.4]]])
DIR_A = np.array([[1.0, 2.0, 3.0], [0.7, 1.5, 2.5]])


@pytest.mark.parametrize("is_log", [False, True])
def test_pdf_dirichlet(is_log):
    want = dirichlet_lp(DIR_X, DIR_A)
    f = dirichlet_lp if is_log else (lambda x, a: np.exp(dirichlet_lp(x, a)))
    got = nd.random_pdf_dirichlet(nd.array(DIR_X, dtype="float64"), nd.array(DIR_A, dtype="float64"), is_log=is_log)
    assert got.shape == (2, 2)
    np.testing.assert_allclose(got.asnumpy(), want if is_log else np.exp(want), rtol=1e-10)
    grads = autograd_grads(lambda a: nd.random_pdf_dirichlet(*a, is_log=is_log), [DIR_X, DIR_A])
    for g, w in zip(grads, numeric_grads(f, [DIR_X, DIR_A], (0, 1))):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-8)
    # 1.x's worked value: Gamma(6) / (Gamma(1) Gamma(2) Gamma(3)) * 0.3 * 0.5**2 = 4.5
    one = nd.random_pdf_dirichlet(nd.array([[0.2, 0.3, 0.5]]), nd.array([1.0, 2.0, 3.0]))
    assert one.shape == (1,) and abs(one.asscalar() - 4.5) < 1e-5


def test_pdf_generalized_negative_binomial_alpha_zero_is_poisson():
    """alpha = 0 is the Poisson limit (1.x gives NaN); its alpha-gradient is the limit of the
    finite difference as alpha -> 0+ ((x - mu)^2 - x) / 2 per sample."""
    x, mu = np.array([[0.0, 2.0, 5.0]]), np.array([2.5])
    got = nd.random_pdf_generalized_negative_binomial(nd.array(x, dtype="float64"), nd.array(mu, dtype="float64"),
                                                      nd.array([0.0], dtype="float64"), is_log=True)
    np.testing.assert_allclose(got.asnumpy(), x * np.log(2.5) - 2.5 - lgamma(x + 1), rtol=1e-12)
    grads = autograd_grads(lambda a: nd.random_pdf_generalized_negative_binomial(*a, is_log=True),
                           [x, mu, np.array([0.0])])
    # one-sided differences from the Poisson value, Richardson-extrapolated (error O(h^2));
    # smaller h loses the digits to cancellation in lgamma(x + 1/h)
    lp, h = PDF["generalized_negative_binomial"][0], 1e-3
    at0 = (x * np.log(2.5) - 2.5 - lgamma(x + 1)).sum()

    def slope(step):
        return (lp(x, mu, np.array([step])).sum() - at0) / step
    np.testing.assert_allclose(grads[2], [2 * slope(h) - slope(2 * h)], rtol=1e-4)
    np.testing.assert_allclose(grads[2], [(((x - 2.5) ** 2 - x) / 2).sum()], rtol=1e-12)
    np.testing.assert_allclose(grads[1], [(x / 2.5 - 1).sum()], rtol=1e-12)


def test_pdf_shape_and_type_rules():
    s = mx.sym.random_pdf_normal(mx.sym.var("s"), mx.sym.var("m"), mx.sym.var("g"))
    assert s.list_arguments() == ["s", "m", "g"]
    assert s.infer_shape(s=(2, 3, 4), m=(2,), g=(2,))[1] == [(2, 3, 4)]
    d = mx.sym.random_pdf_dirichlet(mx.sym.var("s"), mx.sym.var("a"))
    assert d.infer_shape(s=(2, 5, 3), a=(2, 3))[1] == [(2, 5)]
    assert nd.random_pdf_normal(nd.ones((2,), dtype="float16"), nd.ones((2,), dtype="float16"),
                                nd.ones((2,), dtype="float16")).dtype == np.float16
    with pytest.raises(mx.MXNetError, match="must start with the parameters' shape"):
        nd.random_pdf_normal(nd.ones((3, 2)), nd.ones((2,)), nd.ones((2,)))
    with pytest.raises(mx.MXNetError, match="floating-point"):
        nd.random_pdf_poisson(nd.ones((2,), dtype="int32"), nd.ones((2,), dtype="int32"))
    with pytest.raises(mx.MXNetError, match="number of categories"):
        nd.random_pdf_dirichlet(nd.ones((2, 3)), nd.ones((2, 4)))


def test_pdf_in_a_graph_matches_imperative():
    x, m, g = (mx.sym.var(n) for n in "xmg")
    sym = mx.sym.random_pdf_gamma(x, m, g, is_log=True)
    vals = {"x": nd.array([[0.5, 1.5]]), "m": nd.array([2.0]), "g": nd.array([1.5])}
    exe = sym.bind(mx.cpu(), dict(vals), args_grad={k: nd.zeros(v.shape) for k, v in vals.items()})
    exe.forward(is_train=True)
    exe.backward(nd.ones((1, 2)))
    grads = autograd_grads(lambda a: nd.random_pdf_gamma(*a, is_log=True), [v.asnumpy() for v in vals.values()])
    np.testing.assert_allclose(exe.outputs[0].asnumpy(),
                               nd.random_pdf_gamma(*vals.values(), is_log=True).asnumpy(), rtol=1e-6)
    for k, want in zip("xmg", grads):
        np.testing.assert_allclose(exe.grad_dict[k].asnumpy(), want, rtol=1e-5)


@needs_peer
def test_pdf_values_and_gradients_agree_with_mxnet191():
    cases = {n: (inputs, diff) for n, (_, inputs, diff) in PDF.items()}
    cases["dirichlet"] = ([DIR_X.tolist(), DIR_A.tolist()], (0, 1))
    script = textwrap.dedent("""
        import json, sys
        import mxnet as mx
        cases = json.loads(sys.argv[1])
        res = {}
        for name, (inputs, _) in cases.items():
            for is_log in (False, True):
                arrays = [mx.nd.array(v, dtype="float64") for v in inputs]
                for a in arrays:
                    a.attach_grad()
                with mx.autograd.record():
                    y = getattr(mx.nd, "random_pdf_" + name)(*arrays, is_log=is_log)
                y.backward()
                res["%s-%d" % (name, is_log)] = [y.asnumpy().tolist()] + [a.grad.asnumpy().tolist() for a in arrays]
        print(json.dumps(res))
    """)
    out = run_peer(script, args=[json.dumps(cases)], check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    peer = json.loads(out.stdout.strip().splitlines()[-1])
    for name, (inputs, _) in cases.items():
        for is_log in (False, True):
            ins = [np.array(v, np.float64) for v in inputs]
            ours = autograd_grads(lambda a: getattr(nd, "random_pdf_" + name)(*a, is_log=is_log), ins)
            value = getattr(nd, "random_pdf_" + name)(*[nd.array(v, dtype="float64") for v in ins], is_log=is_log)
            theirs = peer["%s-%d" % (name, is_log)]
            np.testing.assert_allclose(value.asnumpy(), theirs[0], rtol=1e-6, err_msg=name)
            for i, (g, t) in enumerate(zip(ours, theirs[1:])):
                np.testing.assert_allclose(g, t, rtol=1e-6, atol=1e-10, err_msg="%s input %d" % (name, i))
