"""What the tensor row modules (tensor, random_sampling, optimizer_updates, image) share: one seeded
generator and the input makers."""
import numpy as np

R = np.random.RandomState(20240)


def uni(*shape, lo=-1.0, hi=1.0):
    return R.uniform(lo, hi, shape)


def distinct(*shape, spacing=0.1):
    """Values at least `spacing` apart (orderings stay put under finite differences)."""
    n = int(np.prod(shape))
    return (R.permutation(n) * spacing - n * spacing / 2).reshape(shape)


def to_shape(shape):
    return lambda x, **_: x.reshape(shape)
