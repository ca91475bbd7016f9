"""mx.sym.random: the 1.x sampling functions over the registered _random_* / _sample_* ops.

Scalar distribution parameters make a _random_<dist> node; Symbol parameters a _sample_<dist>
node that draws `shape` samples per parameter element.
"""
from ..base import _Null, numeric_types  # noqa: F401 (1.x exposes numeric_types here)
from .register import create
from .symbol import Symbol

__all__ = ["uniform", "normal", "randn", "randint", "exponential", "gamma", "poisson", "negative_binomial",
           "generalized_negative_binomial", "multinomial", "shuffle", "uniform_like", "normal_like", "gamma_like",
           "exponential_like", "poisson_like", "negative_binomial_like", "generalized_negative_binomial_like"]


def _random(op, sample_op, params, shape, dtype, kwargs):
    symbols = [v for v in params.values() if isinstance(v, Symbol)]
    if symbols:
        if len(symbols) != len(params):
            raise ValueError("distribution parameters must be all scalars or all Symbols")
        return create(sample_op, sample_op.lower(), tuple(params.values()), dict(shape=shape, dtype=dtype, **kwargs))
    return create(op, op.lower(), (), dict(params, shape=shape, dtype=dtype, **kwargs))


def uniform(low=0, high=1, shape=_Null, dtype=_Null, **kwargs):
    return _random("_random_uniform", "_sample_uniform", {"low": low, "high": high}, shape, dtype, kwargs)


def normal(loc=0, scale=1, shape=_Null, dtype=_Null, **kwargs):
    return _random("_random_normal", "_sample_normal", {"loc": loc, "scale": scale}, shape, dtype, kwargs)


def randn(*shape, **kwargs):
    loc = kwargs.pop("loc", 0)
    scale = kwargs.pop("scale", 1)
    return normal(loc, scale, shape, **kwargs)


def randint(low, high, shape=_Null, dtype=_Null, **kwargs):
    return create("_random_randint", "_random_randint", (), dict(low=low, high=high, shape=shape, dtype=dtype,
                                                                 **kwargs))


def exponential(scale=1, shape=_Null, dtype=_Null, **kwargs):
    return _random("_random_exponential", "_sample_exponential", {"lam": 1.0 / scale}, shape, dtype, kwargs)


def gamma(alpha=1, beta=1, shape=_Null, dtype=_Null, **kwargs):
    return _random("_random_gamma", "_sample_gamma", {"alpha": alpha, "beta": beta}, shape, dtype, kwargs)


def poisson(lam=1, shape=_Null, dtype=_Null, **kwargs):
    return _random("_random_poisson", "_sample_poisson", {"lam": lam}, shape, dtype, kwargs)


def negative_binomial(k=1, p=1, shape=_Null, dtype=_Null, **kwargs):
    return _random("_random_negative_binomial", "_sample_negative_binomial", {"k": k, "p": p}, shape, dtype, kwargs)


def generalized_negative_binomial(mu=1, alpha=1, shape=_Null, dtype=_Null, **kwargs):
    return _random("_random_generalized_negative_binomial", "_sample_generalized_negative_binomial",
                   {"mu": mu, "alpha": alpha}, shape, dtype, kwargs)


def multinomial(data, shape=_Null, get_prob=False, dtype="int32", **kwargs):
    return create("_sample_multinomial", "_sample_multinomial", (data,),
                  dict(shape=shape, get_prob=get_prob, dtype=dtype, **kwargs))


def shuffle(data, **kwargs):
    return create("_shuffle", "_shuffle", (data,), kwargs)


# Samplers shaped (and typed) like `data`; a left-out data becomes a variable, as for any op.
def _like(dist, data, params, name, attr, kwargs):
    return create("_random_%s_like" % dist, "%s_like" % dist, (data,) if data is not None else (),
                  dict(params, name=name, attr=attr, **kwargs))


def uniform_like(data=None, low=_Null, high=_Null, name=None, attr=None, out=None, **kwargs):
    return _like("uniform", data, {"low": low, "high": high}, name, attr, kwargs)


def normal_like(data=None, loc=_Null, scale=_Null, name=None, attr=None, out=None, **kwargs):
    return _like("normal", data, {"loc": loc, "scale": scale}, name, attr, kwargs)


def gamma_like(data=None, alpha=_Null, beta=_Null, name=None, attr=None, out=None, **kwargs):
    return _like("gamma", data, {"alpha": alpha, "beta": beta}, name, attr, kwargs)


def exponential_like(data=None, lam=_Null, name=None, attr=None, out=None, **kwargs):
    return _like("exponential", data, {"lam": lam}, name, attr, kwargs)


def poisson_like(data=None, lam=_Null, name=None, attr=None, out=None, **kwargs):
    return _like("poisson", data, {"lam": lam}, name, attr, kwargs)


def negative_binomial_like(data=None, k=_Null, p=_Null, name=None, attr=None, out=None, **kwargs):
    return _like("negative_binomial", data, {"k": k, "p": p}, name, attr, kwargs)


def generalized_negative_binomial_like(data=None, mu=_Null, alpha=_Null, name=None, attr=None, out=None, **kwargs):
    return _like("generalized_negative_binomial", data, {"mu": mu, "alpha": alpha}, name, attr, kwargs)
