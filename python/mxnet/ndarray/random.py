"""mx.nd.random: thin wrappers over the registered _random_* / _sample_* ops."""
from ..base import _Null, numeric_types  # noqa: F401 (1.x exposes numeric_types here)
from ..context import current_context  # noqa: F401 (1.x exposes current_context here)
from .ndarray import NDArray
from .register import invoke_by_name

__all__ = ["uniform", "normal", "randn", "randint", "exponential", "gamma", "poisson", "negative_binomial",
           "generalized_negative_binomial", "multinomial", "shuffle", "uniform_like", "normal_like", "gamma_like",
           "exponential_like", "poisson_like", "negative_binomial_like", "generalized_negative_binomial_like"]


def _random(op, sample_op, params, shape, dtype, ctx, out, kwargs):
    arrays = [v for v in params.values() if isinstance(v, NDArray)]
    if arrays:
        if len(arrays) != len(params):
            raise ValueError("distribution parameters must be all scalars or all NDArrays")
        return invoke_by_name(sample_op, tuple(params.values()), dict(shape=shape, dtype=dtype, out=out, **kwargs))
    return invoke_by_name(op, (), dict(params, shape=_default_shape(shape, out), dtype=dtype, ctx=ctx, out=out,
                                       **kwargs))


def _default_shape(shape, out):
    """1.x's samplers with scalar parameters draw one value, shape (1,), when given neither a
    shape nor an out."""
    return (1,) if shape is _Null and out is None else shape


def uniform(low=0, high=1, shape=_Null, dtype=_Null, ctx=None, out=None, **kwargs):
    return _random("_random_uniform", "_sample_uniform", {"low": low, "high": high}, shape, dtype, ctx, out, kwargs)


def normal(loc=0, scale=1, shape=_Null, dtype=_Null, ctx=None, out=None, **kwargs):
    return _random("_random_normal", "_sample_normal", {"loc": loc, "scale": scale}, shape, dtype, ctx, out, kwargs)


def randn(*shape, **kwargs):
    loc = kwargs.pop("loc", 0)
    scale = kwargs.pop("scale", 1)
    return normal(loc, scale, shape, **kwargs)


def randint(low, high, shape=_Null, dtype=_Null, ctx=None, out=None, **kwargs):
    return invoke_by_name("_random_randint", (), dict(low=low, high=high, shape=_default_shape(shape, out),
                                                      dtype=dtype, ctx=ctx, out=out, **kwargs))


def exponential(scale=1, shape=_Null, dtype=_Null, ctx=None, out=None, **kwargs):
    return _random("_random_exponential", "_sample_exponential", {"lam": 1.0 / scale}, shape, dtype, ctx, out,
                   kwargs)


def gamma(alpha=1, beta=1, shape=_Null, dtype=_Null, ctx=None, out=None, **kwargs):
    return _random("_random_gamma", "_sample_gamma", {"alpha": alpha, "beta": beta}, shape, dtype, ctx, out, kwargs)


def poisson(lam=1, shape=_Null, dtype=_Null, ctx=None, out=None, **kwargs):
    return _random("_random_poisson", "_sample_poisson", {"lam": lam}, shape, dtype, ctx, out, kwargs)


def negative_binomial(k=1, p=1, shape=_Null, dtype=_Null, ctx=None, out=None, **kwargs):
    """Failures before the k-th success, success probability p; NDArray k and p draw `shape`
    samples per element (_sample_negative_binomial)."""
    return _random("_random_negative_binomial", "_sample_negative_binomial", {"k": k, "p": p}, shape, dtype, ctx,
                   out, kwargs)


def generalized_negative_binomial(mu=1, alpha=1, shape=_Null, dtype=_Null, ctx=None, out=None, **kwargs):
    """Mean mu, variance mu + alpha * mu**2; NDArray mu and alpha draw `shape` samples per element."""
    return _random("_random_generalized_negative_binomial", "_sample_generalized_negative_binomial",
                   {"mu": mu, "alpha": alpha}, shape, dtype, ctx, out, kwargs)


def multinomial(data, shape=_Null, get_prob=False, out=None, dtype="int32", **kwargs):
    return invoke_by_name("_sample_multinomial", (data,), dict(shape=shape, get_prob=get_prob, out=out,
                                                               dtype=dtype, **kwargs))


def shuffle(data, **kwargs):
    return invoke_by_name("_shuffle", (data,), kwargs)


# Samplers shaped (and typed, and placed) like `data`; parameters left out take the op's defaults.
def _like(op, data, params, out, kwargs):
    return invoke_by_name(op, (data,), dict(params, out=out, **kwargs))


def uniform_like(data=None, low=_Null, high=_Null, out=None, name=None, **kwargs):
    return _like("_random_uniform_like", data, {"low": low, "high": high}, out, kwargs)


def normal_like(data=None, loc=_Null, scale=_Null, out=None, name=None, **kwargs):
    return _like("_random_normal_like", data, {"loc": loc, "scale": scale}, out, kwargs)


def gamma_like(data=None, alpha=_Null, beta=_Null, out=None, name=None, **kwargs):
    return _like("_random_gamma_like", data, {"alpha": alpha, "beta": beta}, out, kwargs)


def exponential_like(data=None, lam=_Null, out=None, name=None, **kwargs):
    return _like("_random_exponential_like", data, {"lam": lam}, out, kwargs)


def poisson_like(data=None, lam=_Null, out=None, name=None, **kwargs):
    return _like("_random_poisson_like", data, {"lam": lam}, out, kwargs)


def negative_binomial_like(data=None, k=_Null, p=_Null, out=None, name=None, **kwargs):
    return _like("_random_negative_binomial_like", data, {"k": k, "p": p}, out, kwargs)


def generalized_negative_binomial_like(data=None, mu=_Null, alpha=_Null, out=None, name=None, **kwargs):
    return _like("_random_generalized_negative_binomial_like", data, {"mu": mu, "alpha": alpha}, out, kwargs)
