"""Rows whose inputs are held in a oneDNN blocked layout (Case.blocked: each is handed over as
the output of a 1x1 identity Convolution, exact, which a oneDNN build leaves in its blocked
format, nChw8c/nChw16c). They reach the kernels that read
blocked inputs themselves (same_layout of the element-wise ops, share_ograd of the equal-shape
broadcast_add/sub gradients, Concat's onednn), forced against the plain reference by the
harness like every other row. Without oneDNN the inputs are plain and the rows still check
the reference kernel.

The references are the same numpy formulas as the plain rows."""
import numpy as np


from op_rows.elemwise import BINARY, COMPARE, _elemwise_name, _pair
from op_testing import Case

F32 = ("float32",)


def _blocked_case(op, name, inputs, params, ref, blocked=None, grad=(), outputs=1):
    blocked = blocked or [True] * len(inputs)
    return Case(op, "blocked_" + name, inputs, params, ref, grad=grad, dtypes=F32, outputs=outputs,
                blocked=tuple(i for i, b in enumerate(blocked) if b))


def _u(shape, lo, hi, seed):
    return np.random.RandomState(seed).uniform(lo, hi, shape)


# 16 channels: oneDNN keeps a dense blocked format (no padded channels) for the convolution.
S = (2, 16, 3, 3)
A, B = _u(S, -2, 2, 1), _u(S, -2, 2, 2)
G = _u(S, -2, 2, 3)

# Every position-wise op on two inputs in one blocked format: same-shape, broadcast of equal
# shapes, array-scalar (and the reversed forms).
_SCALAR_NAMES = {"add": "plus", "sub": "minus"}
_REVERSED = ("sub", "div", "mod", "power")
# name: (scalar, input maker): inputs where f(x, scalar) and f(scalar, x) are smooth and defined
_SCALAR_INPUTS = {
    "div": (0.5, lambda: _pair("div", S, S, 5)[1]),  # away from 0 (rdiv divides by x)
    "mod": (2.5, lambda: _pair("mod", S, S, 5)[1] * 1.25),  # x in {1.25, -2.5}: no ties either way
    "power": (1.5, lambda: _pair("power", S, S, 5)[0]),  # positive bases and exponents
    "maximum": (0.25, lambda: _pair("maximum", S, S, 5)[0]),
    "minimum": (0.25, lambda: _pair("minimum", S, S, 5)[0]),
}

CASES = []
for _kind, _ref in sorted(list(BINARY.items()) + list(COMPARE.items())):
    _a, _b = _pair(_kind, S, S, seed=5)
    CASES.append(_blocked_case(_elemwise_name(_kind), "3x3", [_a, _b], {}, _ref))
    CASES.append(_blocked_case("broadcast_" + _kind, "same_shape", [_a, _b], {}, _ref))
    _s, _make = _SCALAR_INPUTS.get(_kind, (0.75, lambda: _a))
    _name = "_%s_scalar" % _SCALAR_NAMES.get(_kind, _kind)
    CASES.append(_blocked_case(_name, "3x3", [_make()], {"scalar": _s},
                               lambda x, scalar, _r=_ref: _r(x, np.full_like(x, scalar))))
    if _kind in _REVERSED:
        CASES.append(_blocked_case("_r" + _name[1:], "3x3", [_make()], {"scalar": _s},
                                   lambda x, scalar, _r=_ref: _r(np.full_like(x, scalar), x)))

CASES += [
    _blocked_case("elemwise_add", "gradient", [A, B], {}, lambda a, b: a + b, grad=(0, 1)),
    # the residual add of ResNet with its gradient
    _blocked_case("broadcast_add", "gradient", [A, B], {}, lambda a, b: a + b, grad=(0, 1)),
    _blocked_case("broadcast_sub", "gradient", [A, B], {}, lambda a, b: a - b, grad=(0, 1)),
    # their gradients called directly with a blocked output gradient (a oneDNN backward's), which
    # is handed on to the gradients equal to it; lhs and rhs are not read
    _blocked_case("_backward_broadcast_add", "ograd", [G, A, B], {}, lambda g, a, b: [g, g], outputs=2),
    _blocked_case("_backward_broadcast_sub", "ograd", [G, A, B], {}, lambda g, a, b: [g, -g], outputs=2),
    _blocked_case("_backward_broadcast_add", "ograd_plain_inputs", [G, A, B], {}, lambda g, a, b: [g, g],
                  blocked=[True, False, False], outputs=2),
    _blocked_case("_backward_broadcast_sub", "inputs_only", [G, A, B], {}, lambda g, a, b: [g, -g],
                  blocked=[False, True, True], outputs=2),
    # one input blocked, the other plain: the plain reference runs
    _blocked_case("broadcast_add", "mixed", [A, B], {}, lambda a, b: a + b, blocked=[True, False]),
    _blocked_case("clip", "3x3", [A], {"a_min": -0.5, "a_max": 0.8},
                  lambda x, a_min, a_max: np.clip(x, a_min, a_max)),
    # Concat of the branches of an Inception block: all blocked (channel blocks copied as rows),
    # blocked with plain, and along another axis
    _blocked_case("Concat", "channels", [A, B], {"dim": 1, "num_args": 2},
                  lambda a, b, dim, num_args: np.concatenate([a, b], axis=1)),
    _blocked_case("Concat", "channels_with_plain", [A, B], {"dim": 1, "num_args": 2},
                  lambda a, b, dim, num_args: np.concatenate([a, b], axis=1), blocked=[True, False]),
    _blocked_case("Concat", "batch", [A, B], {"dim": 0, "num_args": 2},
                  lambda a, b, dim, num_args: np.concatenate([a, b], axis=0)),
]
