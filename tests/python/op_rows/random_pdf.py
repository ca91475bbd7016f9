"""Rows of the _random_pdf_<dist> operators: densities (probability masses for the discrete
distributions) from their float64 formulas, with math.lgamma; gradients by finite differences
against the op's backward. Parameters follow 1.x's pdf ops: gamma and exponential take rates,
negative_binomial(k, p) counts failures before the k-th success with success probability p.
Discrete samples have no gradient (1.x gives zero), so only their parameters are differentiated."""
import math

import numpy as np

from op_testing import Case
from op_rows._tensor_common import uni

_lgamma = np.vectorize(math.lgamma, otypes=[np.float64])


def _per(param, sample):
    """A parameter of shape P broadcast against samples of shape P + E."""
    return param.reshape(param.shape + (1,) * (sample.ndim - param.ndim))


def _out(lp, is_log):
    return lp if is_log else np.exp(lp)


def ref_uniform(x, low, high, is_log=False):
    return _out(np.zeros_like(x) - np.log(_per(high, x) - _per(low, x)), is_log)


def ref_normal(x, mu, sigma, is_log=False):
    m, s = _per(mu, x), _per(sigma, x)
    return _out(-0.5 * ((x - m) / s) ** 2 - np.log(s) - 0.5 * math.log(2 * math.pi), is_log)


def ref_gamma(x, alpha, beta, is_log=False):
    a, b = _per(alpha, x), _per(beta, x)
    return _out(a * np.log(b) + (a - 1) * np.log(x) - b * x - _lgamma(a), is_log)


def ref_exponential(x, lam, is_log=False):
    lam = _per(lam, x)
    return _out(np.log(lam) - lam * x, is_log)


def ref_poisson(x, lam, is_log=False):
    lam = _per(lam, x)
    return _out(x * np.log(lam) - lam - _lgamma(x + 1), is_log)


def _negbin_lp(x, k, p):
    return _lgamma(x + k) - _lgamma(x + 1) - _lgamma(k) + k * np.log(p) + x * np.log1p(-p)


def ref_negative_binomial(x, k, p, is_log=False):
    return _out(_negbin_lp(x, _per(k, x), _per(p, x)), is_log)


def ref_generalized_negative_binomial(x, mu, alpha, is_log=False):
    m, a = _per(mu, x), _per(alpha, x)
    return _out(_negbin_lp(x, 1 / a, 1 / (1 + a * m)), is_log)


def ref_dirichlet(x, alpha, is_log=False):
    a = alpha.reshape(alpha.shape[:-1] + (1,) * (x.ndim - alpha.ndim) + alpha.shape[-1:])
    lp = _lgamma(a.sum(-1)) - _lgamma(a).sum(-1) + ((a - 1) * np.log(x)).sum(-1)
    return _out(lp, is_log)


def counts(*shape, hi=6):
    """Non-negative integer-valued samples (as floats) for the discrete distributions."""
    return np.floor(uni(*shape, lo=0.0, hi=hi))


def simplex(*shape):
    x = uni(*shape, lo=0.2, hi=1.0)
    return x / x.sum(-1, keepdims=True)


X23 = uni(2, 3, lo=-1.5, hi=1.5)
POS23 = uni(2, 3, lo=0.3, hi=2.5)
CASES = []
for _log in (False, True):
    _tag = "log" if _log else "density"
    _p = {"is_log": _log}
    CASES += [
        Case("_random_pdf_uniform", _tag, [X23, uni(2, lo=-3.0, hi=-2.0), uni(2, lo=2.0, hi=3.0)], _p, ref_uniform,
             grad=(0, 1, 2)),
        Case("_random_pdf_normal", _tag, [X23, uni(2, lo=-0.5, hi=0.5), uni(2, lo=0.5, hi=1.5)], _p, ref_normal,
             grad=(0, 1, 2)),
        Case("_random_pdf_gamma", _tag, [POS23, uni(2, lo=1.5, hi=3.0), uni(2, lo=0.5, hi=2.0)], _p, ref_gamma,
             grad=(0, 1, 2)),
        Case("_random_pdf_exponential", _tag, [POS23, uni(2, lo=0.5, hi=2.0)], _p, ref_exponential, grad=(0, 1)),
        Case("_random_pdf_poisson", _tag, [counts(2, 4), uni(2, lo=0.5, hi=4.0)], _p, ref_poisson, grad=(1,)),
        Case("_random_pdf_negative_binomial", _tag, [counts(2, 4), uni(2, lo=1.0, hi=4.0), uni(2, lo=0.2, hi=0.8)],
             _p, ref_negative_binomial, grad=(1, 2)),
        Case("_random_pdf_generalized_negative_binomial", _tag,
             [counts(2, 4), uni(2, lo=1.0, hi=4.0), uni(2, lo=0.2, hi=0.8)], _p, ref_generalized_negative_binomial,
             grad=(1, 2)),
        Case("_random_pdf_dirichlet", _tag, [simplex(2, 3, 4), uni(2, 4, lo=0.8, hi=3.0)], _p, ref_dirichlet,
             grad=(0, 1)),
    ]
CASES += [
    # one distribution per element of a 2-D parameter array, two trailing sample axes
    Case("_random_pdf_normal", "2d_params_2_sample_axes", [uni(2, 2, 3, 2), uni(2, 2), uni(2, 2, lo=0.5, hi=1.5)],
         {}, ref_normal, grad=(0, 1, 2)),
    # the aliases 1.x exposes at mx.nd's root
    Case("random_pdf_exponential", "alias", [POS23, uni(2, lo=0.5, hi=2.0)], {}, ref_exponential, grad=(0, 1)),
    Case("random_pdf_dirichlet", "alias_one_sample", [simplex(2, 3), uni(2, 3, lo=0.8, hi=3.0)], {}, ref_dirichlet,
         grad=(0, 1)),
]
