"""mx.random: seeding, and the samplers of mx.nd.random."""
import ctypes

from .base import _LIB, check_call
from .context import Context
from .ndarray.random import (uniform, normal, randn, randint, exponential, gamma, poisson,  # noqa: F401
                             negative_binomial, generalized_negative_binomial, multinomial, shuffle)


def seed(seed_state, ctx="all"):
    """Seeds the random streams: every device (ctx='all') or one device."""
    if not isinstance(seed_state, int):
        raise ValueError("seed_state must be int")
    seed_state = ctypes.c_int(int(seed_state))
    if ctx == "all":
        check_call(_LIB.MXRandomSeed(seed_state))
    else:
        ctx = Context(ctx)
        check_call(_LIB.MXRandomSeedContext(seed_state, ctx.device_typeid, ctx.device_id))
