"""Rows for the element-wise operators: unary math, same-shape binary ops, broadcast_* ops,
array-scalar ops, add_n, where and the broadcast moves (broadcast_to/axis/like); reductions and
dot/batch_dot are in reduce_dot.py.

Every reference is a float64 numpy formula; gradients are checked against central
differences of those formulas. Inputs stay away from kinks, jumps and domain edges wherever
a gradient is checked."""
import math

import numpy as np

from op_testing import BadCase, Case

F = ("float32", "float64")
ALL = ("float32", "float64", "float16", "bfloat16")
I32 = ("int32",)


# ---------------------------------------------------------------------------------------
# input helpers


def _u(shape, lo=-1.0, hi=1.0, seed=0):
    return np.random.RandomState(seed).uniform(lo, hi, shape)


def _away(shape, lo, hi, seed=0, points=(0.0,), gap=0.1):
    """Uniform in (lo, hi), nudged at least `gap` away from each of `points`."""
    x = _u(shape, lo, hi, seed)
    for p in points:
        near = np.abs(x - p) < gap
        x = np.where(near, np.where(x >= p, p + gap + 0.5 * gap, p - gap - 0.5 * gap), x)
    return x


def _rint_half_down(x):
    """MXNet's rint: the nearest integer, a tie going down (1.5 -> 1, -1.5 -> -2)."""
    f = np.floor(x)
    return np.where(x - f <= 0.5, f, f + 1)


def _fractional(shape, lo=-3, hi=3, seed=0):
    """Non-integers whose fractional part is in [0.2, 0.4] or [0.6, 0.8] (no ties, no jumps)."""
    rs = np.random.RandomState(seed)
    whole = rs.randint(lo, hi, shape).astype(np.float64)
    frac = rs.choice([0.2, 0.3, 0.4, 0.6, 0.7, 0.8], shape)
    return whole + frac


def _distinct(shape, seed=0, step=0.25):
    """Distinct values (multiples of `step`, exact in every float type) in random order."""
    n = int(np.prod(shape))
    return ((np.random.RandomState(seed).permutation(n) - n // 2) * step).reshape(shape)


def _ties(shape, seed=0):
    """Halves in [-1, 1]: comparisons of two such arrays hit equal pairs."""
    return np.random.RandomState(seed).randint(-2, 3, shape) * 0.5


def _ints(shape, lo, hi, seed=0, dtype=np.int32):
    return np.random.RandomState(seed).randint(lo, hi, shape).astype(dtype)


def _nonzero_ints(shape, lo, hi, seed=0, dtype=np.int32):
    x = _ints(shape, lo, hi, seed, dtype)
    return np.where(x == 0, 1, x).astype(dtype)


# ---------------------------------------------------------------------------------------
# references

_erf = np.vectorize(math.erf)
_gamma = np.vectorize(math.gamma)
_lgamma = np.vectorize(math.lgamma)


def _erfinv(y):
    """Bisection on math.erf (to double precision)."""
    y = np.asarray(y, np.float64)
    lo, hi = np.full_like(y, -6.0), np.full_like(y, 6.0)
    for _ in range(80):
        mid = (lo + hi) / 2
        up = _erf(mid) < y
        lo, hi = np.where(up, mid, lo), np.where(up, hi, mid)
    return (lo + hi) / 2


def _round_half_away(x):
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def _f(cond):
    """1.0 / 0.0 of a boolean array (MXNet comparisons return the input dtype)."""
    return np.asarray(cond).astype(np.float64)


def _pymod(a, b):
    """Python-style modulo (the result has the divisor's sign)."""
    return a - np.floor(a / b) * b


def _bf16(x):
    """float64 -> the nearest bfloat16 (round half to even), as float64."""
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    u = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) << 16
    return u.astype(np.uint32).view(np.float32).astype(np.float64)


def _itrunc_div(a, b):
    """C integer division (toward zero)."""
    a, b = np.asarray(a, np.int64), np.asarray(b, np.int64)
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) != (b < 0), -q, q)


# ---------------------------------------------------------------------------------------
# unary math

# name: (reference, input maker, gradient checked)
UNARY = {
    "abs": (np.abs, lambda s: _away(s, -2, 2), True),
    "sign": (np.sign, lambda s: _away(s, -2, 2), True),  # zero gradient away from 0
    "negative": (np.negative, lambda s: _u(s, -2, 2), True),
    "reciprocal": (lambda x: 1.0 / x, lambda s: _away(s, -2, 2, gap=0.4), True),
    "square": (lambda x: x * x, lambda s: _u(s, -2, 2), True),
    "sqrt": (np.sqrt, lambda s: _u(s, 0.3, 3), True),
    "rsqrt": (lambda x: 1.0 / np.sqrt(x), lambda s: _u(s, 0.3, 3), True),
    "cbrt": (np.cbrt, lambda s: _away(s, -3, 3, gap=0.3), True),
    "rcbrt": (lambda x: 1.0 / np.cbrt(x), lambda s: _away(s, -3, 3, gap=0.3), True),
    "exp": (np.exp, lambda s: _u(s, -2, 2), True),
    "expm1": (np.expm1, lambda s: _u(s, -1, 1), True),
    "log": (np.log, lambda s: _u(s, 0.3, 3), True),
    "log1p": (np.log1p, lambda s: _u(s, -0.5, 2), True),
    "log2": (lambda x: np.log(x) / np.log(2.0), lambda s: _u(s, 0.3, 3), True),
    "log10": (lambda x: np.log(x) / np.log(10.0), lambda s: _u(s, 0.3, 3), True),
    "sin": (np.sin, lambda s: _u(s, -3, 3), True),
    "cos": (np.cos, lambda s: _u(s, -3, 3), True),
    "tan": (np.tan, lambda s: _u(s, -1.2, 1.2), True),
    "arcsin": (np.arcsin, lambda s: _u(s, -0.9, 0.9), True),
    "arccos": (np.arccos, lambda s: _u(s, -0.9, 0.9), True),
    "arctan": (np.arctan, lambda s: _u(s, -3, 3), True),
    "sinh": (lambda x: (np.exp(x) - np.exp(-x)) / 2, lambda s: _u(s, -2, 2), True),
    "cosh": (lambda x: (np.exp(x) + np.exp(-x)) / 2, lambda s: _u(s, -2, 2), True),
    "tanh": (lambda x: (np.exp(2 * x) - 1) / (np.exp(2 * x) + 1), lambda s: _u(s, -2, 2), True),
    "arcsinh": (lambda x: np.log(x + np.sqrt(x * x + 1)), lambda s: _u(s, -3, 3), True),
    "arccosh": (lambda x: np.log(x + np.sqrt(x * x - 1)), lambda s: _u(s, 1.2, 3), True),
    "arctanh": (lambda x: 0.5 * np.log((1 + x) / (1 - x)), lambda s: _u(s, -0.9, 0.9), True),
    "degrees": (lambda x: x * 180.0 / np.pi, lambda s: _u(s, -3, 3), True),
    "radians": (lambda x: x * np.pi / 180.0, lambda s: _u(s, -180, 180), True),
    "sigmoid": (lambda x: 1.0 / (1.0 + np.exp(-x)), lambda s: _u(s, -4, 4), True),
    "softsign": (lambda x: x / (1.0 + np.abs(x)), lambda s: _away(s, -3, 3), True),
    "relu": (lambda x: np.maximum(x, 0.0), lambda s: _away(s, -2, 2), True),
    "erf": (_erf, lambda s: _u(s, -2, 2), True),
    "erfinv": (_erfinv, lambda s: _u(s, -0.9, 0.9), True),
    "gamma": (_gamma, lambda s: _u(s, 0.5, 3.5), True),
    "gammaln": (_lgamma, lambda s: _u(s, 0.5, 4), True),
    # rounding: zero gradient, inputs far from jumps and from .5 ties
    "floor": (np.floor, _fractional, True),
    "ceil": (np.ceil, _fractional, True),
    "round": (_round_half_away, _fractional, True),
    "rint": (_rint_half_down, _fractional, True),
    "fix": (np.trunc, _fractional, True),
    "trunc": (np.trunc, _fractional, True),
    "logical_not": (lambda x: _f(x == 0), lambda s: _ties(s), True),
}

CASES = []

for _name, (_ref, _make, _grad) in sorted(UNARY.items()):
    CASES.append(Case(_name, "3x4", [_make((3, 4))], {}, lambda x, _r=_ref: _r(x),
                      grad=(0,) if _grad else (), dtypes=ALL))

# rank 3 and odd lengths (vector bodies and their tails)
for _name in ("exp", "log", "sin", "cos", "tan", "tanh", "sigmoid", "erf", "sqrt", "abs", "relu", "square"):
    _ref, _make, _ = UNARY[_name]
    CASES.append(Case(_name, "2x3x5", [_make((2, 3, 5))], {}, lambda x, _r=_ref: _r(x), dtypes=F))
    CASES.append(Case(_name, "len67", [_make((67,))], {}, lambda x, _r=_ref: _r(x), dtypes=ALL))

# trig of large arguments: blocks with |x| beyond the float vector form's range take the exact path
_big = _u((1100,), -100, 100, seed=3)
_big[:1024:7] = _u((147,), 8e4, 2e5, seed=4) * np.where(np.arange(147) % 2, 1, -1)
for _name in ("sin", "cos"):
    # float32 only: float64 has no vector form with a limited range
    CASES.append(Case(_name, "large_arguments", [_big], {}, UNARY[_name][0], dtypes=("float32",)))

CASES += [
    Case("round", "halves_away_from_zero", [np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, -3.5])], {},
         _round_half_away, grad=(), dtypes=ALL),
    Case("rint", "halves_down", [np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, -3.5])], {}, _rint_half_down,
         grad=(), dtypes=ALL),
    Case("fix", "negative_toward_zero", [np.array([-2.7, -1.2, -0.3, 0.3, 1.2, 2.7])], {}, np.trunc, grad=(),
         dtypes=ALL),
    Case("sign", "with_zeros", [np.array([-2.0, 0.0, 3.0, -0.5, 0.0])], {}, np.sign, grad=(), dtypes=ALL),
    Case("relu", "with_zeros", [np.array([-2.0, 0.0, 3.0, -0.5])], {}, lambda x: np.maximum(x, 0), grad=(),
         dtypes=ALL),
    Case("logical_not", "floats", [np.array([0.0, 0.5, -2.0, 0.0, 1.0])], {}, lambda x: _f(x == 0), grad=(),
         dtypes=ALL),
    # integer data
    Case("abs", "int32", [_ints((3, 4), -9, 9)], {}, np.abs, grad=(), dtypes=I32),
    Case("negative", "int32", [_ints((3, 4), -9, 9)], {}, np.negative, grad=(), dtypes=I32),
    Case("sign", "int32", [_ints((3, 4), -3, 4)], {}, np.sign, grad=(), dtypes=I32),
    Case("square", "int32", [_ints((3, 4), -9, 9)], {}, lambda x: x.astype(np.int64) ** 2, grad=(), dtypes=I32),
    Case("logical_not", "int32", [_ints((3, 4), -2, 3)], {}, lambda x: _f(x == 0), grad=(), dtypes=I32),
    Case("relu", "int32", [_ints((3, 4), -9, 9)], {}, lambda x: np.maximum(x, 0), grad=(), dtypes=I32),
]

# ---------------------------------------------------------------------------------------
# copies, fills, clip, Cast, BlockGrad

CASES += [
    Case("_copy", "3x4", [_u((3, 4), -2, 2)], {}, lambda x: x.copy(), dtypes=ALL),
    Case("_copy", "int32", [_ints((2, 5), -9, 9)], {}, lambda x: x, grad=(), dtypes=I32),
    Case("ones_like", "3x4", [_u((3, 4), -2, 2)], {}, np.ones_like, dtypes=ALL),
    Case("ones_like", "int32", [_ints((2, 3), -9, 9)], {}, np.ones_like, grad=(), dtypes=I32),
    Case("zeros_like", "3x4", [_u((3, 4), -2, 2)], {}, np.zeros_like, dtypes=ALL),
    Case("zeros_like", "int32", [_ints((2, 3), -9, 9)], {}, np.zeros_like, grad=(), dtypes=I32),
    # the output equals the input; the gradient is zero by definition
    Case("BlockGrad", "3x4", [_u((3, 4), -2, 2)], {}, lambda x: x.copy(), dtypes=ALL,
         grad_ref=lambda inputs, head: [np.zeros_like(inputs[0])]),
    Case("BlockGrad", "int32", [_ints((2, 3), -9, 9)], {}, lambda x: x, grad=(), dtypes=I32),
    Case("clip", "inside_and_outside", [_away((3, 5), -2, 2, points=(-0.5, 0.8), gap=0.1)],
         {"a_min": -0.5, "a_max": 0.8}, lambda x, a_min, a_max: np.clip(x, a_min, a_max), dtypes=ALL),
    Case("clip", "all_inside", [_u((4,), -0.4, 0.4)], {"a_min": -1.0, "a_max": 1.0},
         lambda x, a_min, a_max: np.clip(x, a_min, a_max), dtypes=F),
    Case("clip", "int32", [_ints((3, 4), -9, 9)], {"a_min": -3, "a_max": 4},
         lambda x, a_min, a_max: np.clip(x, a_min, a_max), grad=(), dtypes=I32),
    Case("Cast", "to_float64", [_u((3, 4), -2, 2)], {"dtype": "float64"}, lambda x, dtype: x, dtypes=ALL),
    # the gradient is the output gradient cast back (the derivative of the rounding is taken as 1)
    Case("Cast", "to_float32", [_u((3, 4), -2, 2)], {"dtype": "float32"},
         lambda x, dtype: x.astype(np.float32).astype(np.float64), dtypes=ALL,
         grad_ref=lambda inputs, head, dtype: [head]),
    Case("Cast", "to_float16", [_u((3, 4), -2, 2)], {"dtype": "float16"},
         lambda x, dtype: x.astype(np.float16).astype(np.float64), dtypes=ALL,
         fwd_tol={"float32": (0, 0), "float64": (0, 0)}, grad=()),
    Case("Cast", "to_bfloat16", [_u((3, 4), -2, 2)], {"dtype": "bfloat16"},
         lambda x, dtype: _bf16(x), dtypes=("float32", "bfloat16"),
         fwd_tol={"float32": (0, 0)}, grad=()),
    Case("Cast", "to_int32_truncates", [np.array([-2.7, -1.2, -0.5, 0.0, 0.5, 1.2, 2.7, 100.9])],
         {"dtype": "int32"}, lambda x, dtype: np.trunc(x), grad=(), dtypes=F),
    Case("Cast", "to_uint8", [np.array([0.0, 1.7, 100.2, 255.0])], {"dtype": "uint8"},
         lambda x, dtype: np.trunc(x), grad=(), dtypes=F),
    Case("Cast", "int32_to_float32", [_ints((2, 5), -1000, 1000)], {"dtype": "float32"},
         lambda x, dtype: x.astype(np.float64), grad=(), dtypes=I32),
    Case("Cast", "int32_to_int64", [_ints((2, 5), -1000, 1000)], {"dtype": "int64"},
         lambda x, dtype: x.astype(np.float64), grad=(), dtypes=I32),
]

# ---------------------------------------------------------------------------------------
# same-shape binary ops (canonical names; _plus/_Plus/_add, _minus/_Minus/_sub, _mul/_Mul,
# _div/_Div, _Mod, _Power, _Maximum, ... are aliases of these)


def _mod_pair(sa, sb, seed=0):
    """a with fractional part in [0.2, 0.8], b in {1, -2}: a / b stays away from integers."""
    a = _fractional(sa, -4, 4, seed)
    b = np.random.RandomState(seed + 1).choice([1.0, -2.0], sb)
    return a, b


def _pair(kind, sa, sb, seed=0):
    if kind == "div":
        return _u(sa, -2, 2, seed), _away(sb, -2, 2, seed + 1, gap=0.5)
    if kind == "mod":
        return _mod_pair(sa, sb, seed)
    if kind == "power":
        return _u(sa, 0.5, 2, seed), _u(sb, -1.5, 1.5, seed + 1)
    if kind in ("maximum", "minimum"):  # no ties between the two operands
        a = _distinct(sa, seed, 0.5) + 0.125
        return a, np.broadcast_to(_distinct(sb, seed + 1, 0.5), sb).copy()
    if kind == "hypot":
        return _away(sa, -2, 2, seed), _away(sb, -2, 2, seed + 1)
    if kind in COMPARE:
        return _ties(sa, seed), _ties(sb, seed + 1)
    return _u(sa, -2, 2, seed), _u(sb, -2, 2, seed + 1)


BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "mod": _pymod,
    "power": lambda a, b: np.exp(b * np.log(a)),
    "maximum": lambda a, b: np.where(a > b, a, b),
    "minimum": lambda a, b: np.where(a < b, a, b),
    "hypot": lambda a, b: np.sqrt(a * a + b * b),
}
COMPARE = {
    "equal": lambda a, b: _f(a == b),
    "not_equal": lambda a, b: _f(a != b),
    "greater": lambda a, b: _f(a > b),
    "greater_equal": lambda a, b: _f(a >= b),
    "lesser": lambda a, b: _f(a < b),
    "lesser_equal": lambda a, b: _f(a <= b),
    "logical_and": lambda a, b: _f((a != 0) & (b != 0)),
    "logical_or": lambda a, b: _f((a != 0) | (b != 0)),
    "logical_xor": lambda a, b: _f((a != 0) != (b != 0)),
}


def _elemwise_name(kind):
    return "elemwise_" + kind if kind in ("add", "sub", "mul", "div") else "_" + kind


for _kind, _ref in list(BINARY.items()) + list(COMPARE.items()):
    _diff = _kind in BINARY
    _a, _b = _pair(_kind, (3, 4), (3, 4))
    CASES.append(Case(_elemwise_name(_kind), "3x4", [_a, _b], {}, _ref, grad=(0, 1) if _diff else (),
                      dtypes=ALL))
    _a, _b = _pair(_kind, (2, 3, 5), (2, 3, 5), seed=2)
    CASES.append(Case(_elemwise_name(_kind), "2x3x5", [_a, _b], {}, _ref, grad=(0, 1) if _diff else (),
                      dtypes=F))

# comparisons without ties have a zero gradient that central differences see too
for _kind in ("greater", "lesser_equal", "logical_xor"):
    _a = _distinct((3, 4), 0, 0.5) + 0.125
    _b = _distinct((3, 4), 1, 0.5)
    CASES.append(Case(_elemwise_name(_kind), "no_ties_zero_grad", [_a, _b], {}, COMPARE[_kind], grad=(0, 1),
                      dtypes=F))

# integer arithmetic and comparisons
_ia, _ib = _ints((3, 4), -20, 20, 1), _nonzero_ints((3, 4), -6, 7, 2)
CASES += [
    Case("elemwise_add", "int32", [_ia, _ib], {}, lambda a, b: a + b, grad=(), dtypes=I32),
    Case("elemwise_add", "int64", [_ia.astype(np.int64), _ib.astype(np.int64)], {}, lambda a, b: a + b, grad=(),
         dtypes=("int64",)),
    Case("elemwise_add", "uint8", [_ints((2, 3), 0, 100, 3, np.uint8), _ints((2, 3), 0, 100, 4, np.uint8)], {},
         lambda a, b: a.astype(np.int64) + b, grad=(), dtypes=("uint8",)),
    Case("elemwise_sub", "int32", [_ia, _ib], {}, lambda a, b: a - b, grad=(), dtypes=I32),
    Case("elemwise_mul", "int32", [_ia, _ib], {}, lambda a, b: a.astype(np.int64) * b, grad=(), dtypes=I32),
    Case("elemwise_div", "int32_toward_zero", [_ia, _ib], {}, _itrunc_div, grad=(), dtypes=I32),
    Case("_mod", "int32", [_ia, _ib], {}, lambda a, b: np.mod(a, b), grad=(), dtypes=I32),
    Case("_power", "int32", [_ints((3, 4), -4, 5, 5), _ints((3, 4), 0, 4, 6)], {},
         lambda a, b: a.astype(np.int64) ** b, grad=(), dtypes=I32),
    Case("_maximum", "int32", [_ia, _ib], {}, np.maximum, grad=(), dtypes=I32),
    Case("_minimum", "int32", [_ia, _ib], {}, np.minimum, grad=(), dtypes=I32),
]
_ta, _tb = _ints((3, 4), -2, 3, 7), _ints((3, 4), -2, 3, 8)
for _kind, _ref in COMPARE.items():
    CASES.append(Case(_elemwise_name(_kind), "int32", [_ta, _tb], {}, _ref, grad=(), dtypes=I32))

# ---------------------------------------------------------------------------------------
# broadcast_* (broadcast_plus and broadcast_minus are aliases of broadcast_add / broadcast_sub)

for _kind, _ref in list(BINARY.items()) + list(COMPARE.items()):
    _diff = _kind in BINARY
    _a, _b = _pair(_kind, (3, 1, 4), (2, 1), seed=3)
    CASES.append(Case("broadcast_" + _kind, "3x1x4_2x1", [_a, _b], {}, _ref, grad=(0, 1) if _diff else (),
                      dtypes=ALL))
    _a, _b = _pair(_kind, (3, 4), (3, 4), seed=4)
    CASES.append(Case("broadcast_" + _kind, "same_shape", [_a, _b], {}, _ref, grad=(0, 1) if _diff else (),
                      dtypes=F))

# broadcasting patterns
_PATTERNS = [
    ("row", (3, 4), (1, 4)),
    ("column", (3, 4), (3, 1)),
    ("lower_rank", (2, 3, 4), (4,)),
    ("lower_rank_column", (2, 3, 4), (3, 1)),
    ("size1_vs_matrix", (1,), (3, 4)),
    ("outer", (4, 1), (1, 5)),
    ("both_sides", (2, 1, 3, 1), (1, 4, 1, 2)),
    ("1d_vs_1d_size1", (5,), (1,)),
]
for _kind in ("add", "sub", "mul", "div", "power", "maximum", "hypot", "mod"):
    for _pname, _sa, _sb in _PATTERNS:
        _a, _b = _pair(_kind, _sa, _sb, seed=len(_pname))
        CASES.append(Case("broadcast_" + _kind, _pname, [_a, _b], {}, BINARY[_kind], grad=(0, 1), dtypes=F))
for _kind in ("equal", "greater", "logical_or"):
    for _pname, _sa, _sb in _PATTERNS[:4]:
        _a, _b = _pair(_kind, _sa, _sb, seed=len(_pname))
        CASES.append(Case("broadcast_" + _kind, _pname, [_a, _b], {}, COMPARE[_kind], grad=(), dtypes=F))
CASES += [
    Case("broadcast_add", "column_half", list(_pair("add", (3, 4), (3, 1), 9)), {}, BINARY["add"], grad=(0, 1),
         dtypes=("float16", "bfloat16")),
    Case("broadcast_mul", "outer_half", list(_pair("mul", (4, 1), (1, 5), 9)), {}, BINARY["mul"], grad=(0, 1),
         dtypes=("float16", "bfloat16")),
    Case("broadcast_add", "int32", [_ints((3, 1), -20, 20, 1), _ints((1, 4), -20, 20, 2)], {}, np.add, grad=(),
         dtypes=I32),
    Case("broadcast_sub", "int32", [_ints((2, 3), -20, 20, 1), _ints((3,), -20, 20, 2)], {}, np.subtract,
         grad=(), dtypes=I32),
    Case("broadcast_mul", "int32", [_ints((2, 3), -20, 20, 1), _ints((2, 1), -20, 20, 2)], {}, np.multiply,
         grad=(), dtypes=I32),
    Case("broadcast_div", "int32_toward_zero", [_ints((2, 3), -20, 20, 1), _nonzero_ints((2, 1), -5, 6, 2)], {},
         _itrunc_div, grad=(), dtypes=I32),
    Case("broadcast_mod", "int32", [_ints((2, 3), -20, 20, 1), _nonzero_ints((2, 1), -5, 6, 2)], {}, np.mod,
         grad=(), dtypes=I32),
    Case("broadcast_maximum", "int32", [_ints((2, 3), -20, 20, 1), _ints((3,), -20, 20, 2)], {}, np.maximum,
         grad=(), dtypes=I32),
]
for _kind, _ref in COMPARE.items():
    CASES.append(Case("broadcast_" + _kind, "int32", [_ints((3, 1), -2, 3, 7), _ints((1, 4), -2, 3, 8)], {}, _ref,
                      grad=(), dtypes=I32))

# ---------------------------------------------------------------------------------------
# array-scalar ops: f(x, scalar), and f(scalar, x) for the _r* forms

# name: (reference(x, s), input maker, scalar, gradient checked)
SCALAR = {
    "_plus_scalar": (lambda x, s: x + s, lambda sh: _u(sh, -2, 2), 0.75, True),
    "_minus_scalar": (lambda x, s: x - s, lambda sh: _u(sh, -2, 2), 0.75, True),
    "_rminus_scalar": (lambda x, s: s - x, lambda sh: _u(sh, -2, 2), 0.75, True),
    "_mul_scalar": (lambda x, s: x * s, lambda sh: _u(sh, -2, 2), -1.5, True),
    "_div_scalar": (lambda x, s: x / s, lambda sh: _u(sh, -2, 2), -1.25, True),
    "_rdiv_scalar": (lambda x, s: s / x, lambda sh: _away(sh, -2, 2, gap=0.4), 1.5, True),
    "_mod_scalar": (_pymod, lambda sh: _fractional(sh, -4, 4), 1.0, True),
    "_rmod_scalar": (lambda x, s: _pymod(s, x), lambda sh: np.random.RandomState(0).choice([0.8, -0.8, 1.6], sh),
                     2.0, True),  # 2 / x is never near an integer
    "_power_scalar": (lambda x, s: np.exp(s * np.log(x)), lambda sh: _u(sh, 0.5, 2), 1.5, True),
    "_rpower_scalar": (lambda x, s: np.exp(x * np.log(s)), lambda sh: _u(sh, -2, 2), 1.5, True),
    "_maximum_scalar": (lambda x, s: np.where(x > s, x, s), lambda sh: _away(sh, -2, 2, points=(0.25,)), 0.25,
                        True),
    "_minimum_scalar": (lambda x, s: np.where(x < s, x, s), lambda sh: _away(sh, -2, 2, points=(0.25,)), 0.25,
                        True),
    "_hypot_scalar": (lambda x, s: np.sqrt(x * x + s * s), lambda sh: _u(sh, -2, 2), 1.5, True),
    "_equal_scalar": (lambda x, s: _f(x == s), _ties, 0.5, False),
    "_not_equal_scalar": (lambda x, s: _f(x != s), _ties, 0.5, False),
    "_greater_scalar": (lambda x, s: _f(x > s), _ties, 0.5, False),
    "_greater_equal_scalar": (lambda x, s: _f(x >= s), _ties, 0.5, False),
    "_lesser_scalar": (lambda x, s: _f(x < s), _ties, 0.5, False),
    "_lesser_equal_scalar": (lambda x, s: _f(x <= s), _ties, 0.5, False),
    "_logical_and_scalar": (lambda x, s: _f((x != 0) & (s != 0)), _ties, 2.0, False),
    "_logical_or_scalar": (lambda x, s: _f((x != 0) | (s != 0)), _ties, 0.0, False),
    "_logical_xor_scalar": (lambda x, s: _f((x != 0) != (s != 0)), _ties, 1.0, False),
}

for _name, (_ref, _make, _s, _diff) in SCALAR.items():
    CASES.append(Case(_name, "3x4", [_make((3, 4))], {"scalar": _s}, lambda x, scalar, _r=_ref: _r(x, scalar),
                      grad=(0,) if _diff else (), dtypes=ALL))

CASES += [
    Case("_plus_scalar", "2x3x5", [_u((2, 3, 5), -2, 2)], {"scalar": -0.3},
         lambda x, scalar: x + scalar, dtypes=F),
    Case("_mul_scalar", "zero_scalar", [_u((7,), -2, 2)], {"scalar": 0.0}, lambda x, scalar: x * scalar, dtypes=F),
    Case("_mod_scalar", "negative_divisor", [_fractional((3, 4), -4, 4, seed=2)], {"scalar": -2.0},
         lambda x, scalar: _pymod(x, scalar), dtypes=F),
    Case("_power_scalar", "square", [_u((3, 4), -2, 2)], {"scalar": 2.0}, lambda x, scalar: x * x, dtypes=ALL),
    Case("_power_scalar", "negative_exponent", [_u((3, 4), 0.5, 2)], {"scalar": -0.5},
         lambda x, scalar: 1.0 / np.sqrt(x), dtypes=F),
    Case("_rpower_scalar", "base_below_one", [_u((3, 4), -2, 2)], {"scalar": 0.5},
         lambda x, scalar: np.exp(-x * np.log(2.0)), dtypes=F),
    Case("_logical_and_scalar", "zero_scalar", [_ties((3, 4))], {"scalar": 0.0}, lambda x, scalar: 0 * x,
         grad=(), dtypes=ALL),
    Case("_logical_or_scalar", "nonzero_scalar", [_ties((3, 4))], {"scalar": -3.0},
         lambda x, scalar: np.ones_like(x), grad=(), dtypes=F),
    Case("_greater_scalar", "no_ties_zero_grad", [_away((3, 4), -2, 2, points=(0.5,))], {"scalar": 0.5},
         lambda x, scalar: _f(x > scalar), grad=(0,), dtypes=F),
    # integer data with integral scalars
    Case("_plus_scalar", "int32", [_ints((3, 4), -20, 20)], {"scalar": 3}, lambda x, scalar: x + scalar, grad=(),
         dtypes=I32),
    Case("_rminus_scalar", "int32", [_ints((3, 4), -20, 20)], {"scalar": 3}, lambda x, scalar: scalar - x,
         grad=(), dtypes=I32),
    Case("_mul_scalar", "int32", [_ints((3, 4), -20, 20)], {"scalar": -3}, lambda x, scalar: x * scalar,
         grad=(), dtypes=I32),
    Case("_div_scalar", "int32_toward_zero", [_ints((3, 4), -20, 20)], {"scalar": 3},
         lambda x, scalar: _itrunc_div(x, scalar), grad=(), dtypes=I32),
    Case("_rdiv_scalar", "int32_toward_zero", [_nonzero_ints((3, 4), -8, 8)], {"scalar": 20},
         lambda x, scalar: _itrunc_div(scalar, x), grad=(), dtypes=I32),
    Case("_mod_scalar", "int32", [_ints((3, 4), -20, 20)], {"scalar": 3}, lambda x, scalar: np.mod(x, scalar),
         grad=(), dtypes=I32),
    Case("_rmod_scalar", "int32", [_nonzero_ints((3, 4), -8, 8)], {"scalar": 13},
         lambda x, scalar: np.mod(scalar, x), grad=(), dtypes=I32),
    Case("_power_scalar", "int32", [_ints((3, 4), -5, 6)], {"scalar": 3},
         lambda x, scalar: x.astype(np.int64) ** scalar, grad=(), dtypes=I32),
    Case("_maximum_scalar", "int32", [_ints((3, 4), -20, 20)], {"scalar": 2},
         lambda x, scalar: np.maximum(x, scalar), grad=(), dtypes=I32),
    Case("_equal_scalar", "int32", [_ints((3, 4), -2, 3)], {"scalar": 1}, lambda x, scalar: _f(x == scalar),
         grad=(), dtypes=I32),
    Case("_lesser_scalar", "int32", [_ints((3, 4), -2, 3)], {"scalar": 1}, lambda x, scalar: _f(x < scalar),
         grad=(), dtypes=I32),
    Case("_logical_xor_scalar", "int32", [_ints((3, 4), -2, 3)], {"scalar": 1},
         lambda x, scalar: _f((x != 0) != (scalar != 0)), grad=(), dtypes=I32),
    # MXNet casts the scalar to the array's dtype first: x + int(2.5), x * int(2.5)
    Case("_plus_scalar", "int32_fractional_scalar", [np.array([5, -5, 7, -7], np.int32)], {"scalar": 2.5},
         lambda x, scalar: x + np.trunc(scalar), grad=(), dtypes=I32),
    Case("_mul_scalar", "int32_fractional_scalar", [np.array([5, -5, 7, -7], np.int32)], {"scalar": 2.5},
         lambda x, scalar: x * np.trunc(scalar), grad=(), dtypes=I32),
    Case("_div_scalar", "int32_fractional_scalar", [np.array([5, -5, 7, -7], np.int32)], {"scalar": 2.5},
         lambda x, scalar: _itrunc_div(x, np.trunc(scalar)), grad=(), dtypes=I32),
]

# ---------------------------------------------------------------------------------------
# add_n, where

CASES += [
    Case("add_n", "three", [_u((3, 4), -2, 2, s) for s in range(3)], {"num_args": 3},
         lambda a, b, c, num_args: a + b + c, grad=(0, 1, 2), dtypes=ALL),
    Case("add_n", "one", [_u((2, 5), -2, 2)], {"num_args": 1}, lambda a, num_args: a.copy(), dtypes=F),
    Case("add_n", "five_rank3", [_u((2, 3, 4), -2, 2, s) for s in range(5)], {"num_args": 5},
         lambda *a, num_args: sum(a), grad=(0, 2, 4), dtypes=F),
    Case("add_n", "int32", [_ints((2, 3), -20, 20, s) for s in range(3)], {"num_args": 3},
         lambda a, b, c, num_args: a + b + c, grad=(), dtypes=I32),
    Case("where", "same_shape", [np.array([[1.0, 0.0, -2.0, 0.0], [0.0, 3.0, 0.5, 0.0], [0.0, 0.0, 1.0, 1.0]]),
                                 _u((3, 4), -2, 2, 1), _u((3, 4), -2, 2, 2)], {},
         lambda c, x, y: np.where(c != 0, x, y), grad=(1, 2), dtypes=ALL),
    Case("where", "row_select", [np.array([0.0, 1.0, 1.0]), _u((3, 2, 2), -2, 2, 1), _u((3, 2, 2), -2, 2, 2)], {},
         lambda c, x, y: np.where((c != 0)[:, None, None], x, y), grad=(1, 2), dtypes=ALL),
    Case("where", "int32_condition", [np.array([[1, 0, 2], [0, -1, 0]], np.int32), _u((2, 3), -2, 2, 1),
                                      _u((2, 3), -2, 2, 2)], {},
         lambda c, x, y: np.where(c != 0, x, y), grad=(1, 2), dtypes=F),
    Case("where", "int32_values", [np.array([1, 0, 1, 0], np.int32), _ints((4,), -9, 9, 1), _ints((4,), -9, 9, 2)],
         {}, lambda c, x, y: np.where(c != 0, x, y), grad=(), dtypes=I32),
]

# ---------------------------------------------------------------------------------------
# broadcast_to / broadcast_axis (alias broadcast_axes) / broadcast_like

CASES += [
    Case("broadcast_to", "2x1_to_2x4", [_u((2, 1), -2, 2)], {"shape": (2, 4)},
         lambda x, shape: np.broadcast_to(x, shape).copy(), dtypes=ALL),
    Case("broadcast_to", "zero_keeps_dim", [_u((2, 1), -2, 2)], {"shape": (0, 4)},
         lambda x, shape: np.broadcast_to(x, (2, 4)).copy(), dtypes=F),
    Case("broadcast_to", "rank3_two_axes", [_u((1, 3, 1), -2, 2)], {"shape": (2, 3, 4)},
         lambda x, shape: np.broadcast_to(x, shape).copy(), dtypes=F),
    Case("broadcast_to", "same_shape", [_u((2, 3), -2, 2)], {"shape": (2, 3)},
         lambda x, shape: x.copy(), dtypes=F),
    Case("broadcast_to", "int32", [_ints((1, 3), -9, 9)], {"shape": (2, 3)},
         lambda x, shape: np.broadcast_to(x, shape), grad=(), dtypes=I32),
    Case("broadcast_axis", "one_axis", [_u((2, 1, 3), -2, 2)], {"axis": 1, "size": 4},
         lambda x, axis, size: np.repeat(x, size, axis=axis), dtypes=ALL),
    Case("broadcast_axis", "two_axes", [_u((1, 2, 1), -2, 2)], {"axis": (0, 2), "size": (3, 4)},
         lambda x, axis, size: np.broadcast_to(x, (3, 2, 4)).copy(), dtypes=F),
    Case("broadcast_like", "2x1_like_2x3", [_u((2, 1), -2, 2), _u((2, 3), -2, 2, 1)], {},
         lambda a, b: np.broadcast_to(a, b.shape).copy(), grad=(0, 1), dtypes=ALL),
    Case("broadcast_like", "lower_rank", [_u((3,), -2, 2), _u((2, 4, 3), -2, 2, 1)], {},
         lambda a, b: np.broadcast_to(a, b.shape).copy(), grad=(0, 1), dtypes=F),
    Case("broadcast_like", "1x1_like_3x4", [_u((1, 1), -2, 2), _u((3, 4), -2, 2, 1)], {},
         lambda a, b: np.broadcast_to(a, b.shape).copy(), grad=(0,), dtypes=F),
]


# ---------------------------------------------------------------------------------------
# special values and wide integers

_nan_a = np.array([np.nan, 1.0, np.nan, 2.0, -1.0])
_nan_b = np.array([1.0, np.nan, np.nan, 3.0, -2.0])
_big64 = np.array([2 ** 53 + 1, -(2 ** 53 + 1), 2 ** 62 + 3, -7], np.int64)
CASES += [
    # maximum/minimum propagate NaN from either side (numpy, MXNet)
    Case("_maximum", "nan_propagates", [_nan_a, _nan_b], {}, np.maximum, grad=(), dtypes=F),
    Case("_minimum", "nan_propagates", [_nan_a, _nan_b], {}, np.minimum, grad=(), dtypes=F),
    Case("broadcast_maximum", "nan_propagates", [_nan_a.reshape(5, 1), _nan_b], {}, np.maximum, grad=(), dtypes=F),
    Case("broadcast_minimum", "nan_propagates", [_nan_a.reshape(5, 1), _nan_b], {}, np.minimum, grad=(), dtypes=F),
    Case("_maximum_scalar", "nan_propagates", [_nan_a], {"scalar": 0.0}, lambda x, scalar: np.maximum(x, scalar),
         grad=(), dtypes=F),
    Case("_minimum_scalar", "nan_propagates", [_nan_a], {"scalar": 0.0}, lambda x, scalar: np.minimum(x, scalar),
         grad=(), dtypes=F),
    Case("relu", "nan_propagates", [_nan_a], {}, lambda x: np.maximum(x, 0.0), grad=(), dtypes=F),
    Case("clip", "nan_stays_nan", [_nan_a], {"a_min": 0.0, "a_max": 1.5},
         lambda x, a_min, a_max: np.clip(x, a_min, a_max), grad=(), dtypes=F),
    Case("max", "nan_wins", [np.array([[np.nan, 1.0], [1.0, 2.0]])], {"axis": 1}, lambda x, axis: x.max(axis=1),
         grad=(), dtypes=F),
    Case("elemwise_div", "by_zero", [np.array([1.0, -1.0, 0.0]), np.zeros(3)], {},
         lambda a, b: np.array([np.inf, -np.inf, np.nan]), grad=(), dtypes=F),
    # a_min > a_max: numpy's and MXNet's clip give a_max
    Case("clip", "inverted_bounds", [np.array([-1.0, 0.5, 2.0])], {"a_min": 1.0, "a_max": 0.0},
         lambda x, a_min, a_max: np.minimum(np.maximum(x, a_min), a_max), grad=(), dtypes=F),
    # int64 values beyond 2**53 stay exact
    Case("elemwise_add", "int64_beyond_2_53", [_big64, np.array([1, 1, -1, 1], np.int64)], {},
         lambda a, b: a + b, grad=(), dtypes=("int64",)),
    Case("broadcast_mul", "int64_beyond_2_53", [_big64, np.array([1], np.int64)], {}, lambda a, b: a * b,
         grad=(), dtypes=("int64",)),
    Case("max", "int64_beyond_2_53", [_big64], {}, lambda x: x.max().reshape(1), grad=(), dtypes=("int64",)),
    Case("negative", "int64_beyond_2_53", [_big64], {}, lambda x: -x, grad=(), dtypes=("int64",)),
    Case("relu", "int64_beyond_2_53", [_big64], {}, lambda x: np.maximum(x, 0), grad=(), dtypes=("int64",)),
    Case("_plus_scalar", "int64_beyond_2_53", [_big64], {"scalar": 1}, lambda x, scalar: x + scalar, grad=(),
         dtypes=("int64",)),
    Case("_mul_scalar", "int64_beyond_2_53", [_big64], {"scalar": 1}, lambda x, scalar: x * scalar, grad=(),
         dtypes=("int64",)),
    Case("_equal_scalar", "int64_beyond_2_53", [_big64], {"scalar": 2 ** 53},
         lambda x, scalar: (x == scalar).astype(np.int64), grad=(), dtypes=("int64",)),
    Case("_mod", "int64_beyond_2_53", [_big64, np.array([2 ** 52 + 7, 3, 5, 3], np.int64)], {},
         lambda a, b: np.mod(a, b), grad=(), dtypes=("int64",)),
    Case("clip", "int64_beyond_2_53", [_big64], {"a_min": -2 ** 60, "a_max": 2 ** 60},
         lambda x, a_min, a_max: np.clip(x, a_min, a_max), grad=(), dtypes=("int64",)),
]

# integer arrays with a fractional scalar: MXNet casts the scalar to the array's dtype first
# (toward zero), then computes in that dtype
_frac_x = np.array([5, -5, 7, -7, 0, 9], np.int32)
CASES += [
    Case("_plus_scalar", "int32_fractional_scalar_truncated", [_frac_x], {"scalar": 2.5},
         lambda x, scalar: x + 2, grad=(), dtypes=I32),
    Case("_minus_scalar", "int32_fractional_scalar_truncated", [_frac_x], {"scalar": 2.5},
         lambda x, scalar: x - 2, grad=(), dtypes=I32),
    Case("_rminus_scalar", "int32_fractional_scalar_truncated", [_frac_x], {"scalar": 2.5},
         lambda x, scalar: 2 - x, grad=(), dtypes=I32),
    Case("_mul_scalar", "int32_fractional_scalar_truncated", [_frac_x], {"scalar": 2.5},
         lambda x, scalar: x * 2, grad=(), dtypes=I32),
    Case("_mul_scalar", "int32_negative_fractional_scalar_truncated", [_frac_x], {"scalar": -1.5},
         lambda x, scalar: -x, grad=(), dtypes=I32),
    Case("_div_scalar", "int32_fractional_scalar_truncated", [_frac_x], {"scalar": 2.5},
         lambda x, scalar: _itrunc_div(x, 2), grad=(), dtypes=I32),
    Case("_greater_scalar", "int32_fractional_scalar_truncated", [_frac_x], {"scalar": 5.5},
         lambda x, scalar: _f(x > 5), grad=(), dtypes=I32),
    Case("_equal_scalar", "int32_fractional_scalar_truncated", [_frac_x], {"scalar": 5.5},
         lambda x, scalar: _f(x == 5), grad=(), dtypes=I32),
    Case("clip", "int32_fractional_bounds", [_frac_x], {"a_min": -4.5, "a_max": 6.9},
         lambda x, a_min, a_max: np.clip(x, -4, 6), grad=(), dtypes=I32),
]

# reductions of empty arrays (numpy): a sum of nothing is 0, a product 1, a mean NaN, a norm 0;
# max and min over an empty axis have no identity (BAD below), into an empty output they are fine
_none2, _none = np.zeros((2, 0)), np.zeros((0,))
for _name, _value in (("sum", 0.0), ("nansum", 0.0), ("prod", 1.0), ("nanprod", 1.0), ("mean", np.nan),
                      ("norm", 0.0)):
    CASES += [
        Case(_name, "empty_axis1", [_none2], {"axis": 1}, lambda x, axis, _v=_value: np.full((2,), _v), grad=(),
             dtypes=F),
        Case(_name, "empty_all", [_none], {}, lambda x, _v=_value: np.full((1,), _v), grad=(), dtypes=F),
        Case(_name, "empty_axis0_keepdims", [_none2], {"axis": 0, "keepdims": True},
             lambda x, axis, keepdims: np.zeros((1, 0)), grad=(), dtypes=F),
    ]
CASES += [
    Case("norm", "empty_ord1_axis1", [_none2], {"ord": 1, "axis": 1}, lambda x, ord, axis: np.zeros((2,)), grad=(),
         dtypes=F),
    Case("max", "empty_into_empty_output", [_none2], {"axis": 0}, lambda x, axis: np.zeros((0,)), grad=(), dtypes=F),
    Case("sum", "empty_int32", [np.zeros((3, 0), np.int32)], {"axis": 1}, lambda x, axis: np.zeros((3,)), grad=(),
         dtypes=I32),
]

# ---------------------------------------------------------------------------------------
# gradients summed over long broadcast axes: each of the CUDA kernels' schedules (a warp or a
# block per output with the sum cut into chunks, columns of outputs, two summed axes apart)

CASES += [
    Case("broadcast_add", "sum_long_rows", list(_pair("add", (2, 20000), (2, 1), 11)), {}, BINARY["add"],
         grad=(0, 1), dtypes=F),
    Case("broadcast_mul", "sum_long_columns", list(_pair("mul", (5000, 3), (3,), 12)), {}, BINARY["mul"],
         grad=(0, 1), dtypes=F),
    Case("broadcast_div", "sum_short_rows", list(_pair("div", (300, 40), (300, 1), 13)), {}, BINARY["div"],
         grad=(0, 1), dtypes=F),
    Case("broadcast_sub", "sum_two_axes", list(_pair("sub", (8, 5, 130), (1, 5, 1), 14)), {}, BINARY["sub"],
         grad=(0, 1), dtypes=F),
    Case("broadcast_maximum", "sum_to_scalar", [_away((70, 90), -2, 2, 15, points=(0.25,)), np.array([0.25])], {},
         BINARY["maximum"], grad=(0, 1), dtypes=F),
    Case("broadcast_to", "long_columns", [_u((1, 3), -2, 2)], {"shape": (5000, 3)},
         lambda x, shape: np.broadcast_to(x, shape).copy(), dtypes=F),
    Case("broadcast_axis", "long_rows", [_u((3, 1), -2, 2)], {"axis": 1, "size": 9000},
         lambda x, axis, size: np.repeat(x, size, axis=axis), dtypes=F),
    Case("add_n", "twenty", [_u((3, 7), -2, 2, s) for s in range(20)], {"num_args": 20},
         lambda *a, num_args: sum(a), grad=(0, 17, 19), dtypes=ALL),
]

# ---------------------------------------------------------------------------------------
# bad inputs: the error names the op and what was wrong

_o = np.ones
BAD = [
    BadCase("elemwise_add", "shape_mismatch", [_o((3, 4)), _o((4, 3))], {},
            ["elemwise_add", "same shape", "(3, 4)", "(4, 3)"]),
    BadCase("elemwise_mul", "shape_mismatch", [_o((2, 3)), _o((2, 4))], {},
            ["elemwise_mul", "same shape", "(2, 3)", "(2, 4)"]),
    BadCase("broadcast_add", "incompatible", [_o((3, 4)), _o((2, 4))], {},
            ["broadcast_add", "could not be broadcast", "(3, 4)", "(2, 4)"]),
    BadCase("broadcast_greater", "incompatible", [_o((2, 3, 4)), _o((3, 3))], {},
            ["broadcast_greater", "could not be broadcast", "(2, 3, 4)", "(3, 3)"]),
    BadCase("sum", "axis_out_of_range", [_o((3, 4))], {"axis": 2}, ["sum", "axis 2", "out of bounds", "rank 2"]),
    BadCase("mean", "negative_axis_out_of_range", [_o((3, 4))], {"axis": -3},
            ["mean", "axis -3", "out of bounds", "rank 2"]),
    BadCase("sum", "duplicate_axis", [_o((3, 4))], {"axis": (1, 1)}, ["sum", "duplicate", "axis"]),
    BadCase("argmax", "axis_out_of_range", [_o((3, 4))], {"axis": 2}, ["argmax", "axis 2", "out of bounds"]),
    BadCase("dot", "inner_mismatch", [_o((2, 3)), _o((4, 5))], {}, ["dot", "(2, 3)", "(4, 5)", "not aligned"]),
    BadCase("dot", "transposed_inner_mismatch", [_o((2, 3)), _o((2, 5))], {"transpose_b": True},
            ["dot", "(2, 3)", "(2, 5)", "not aligned"]),
    BadCase("dot", "1d_length_mismatch", [_o((3,)), _o((4,))], {}, ["dot", "(3,)", "(4,)", "not aligned"]),
    BadCase("batch_dot", "inner_mismatch", [_o((2, 3, 4)), _o((2, 5, 6))], {},
            ["batch_dot", "(2, 3, 4)", "(2, 5, 6)", "not aligned"]),
    BadCase("batch_dot", "batch_mismatch", [_o((2, 3, 4)), _o((3, 4, 5))], {},
            ["batch_dot", "batch dims", "(2, 3, 4)", "(3, 4, 5)"]),
    BadCase("batch_dot", "rank2", [_o((3, 4)), _o((4, 5))], {}, ["batch_dot", "(3, 4)", "(4, 5)"]),
    BadCase("where", "xy_shape_mismatch", [_o((2, 3)), _o((2, 3)), _o((3, 2))], {},
            ["where", "same shape", "(2, 3)", "(3, 2)"]),
    BadCase("where", "condition_shape", [_o((3,)), _o((2, 3)), _o((2, 3))], {},
            ["where", "condition", "(3,)", "(2, 3)"]),
    BadCase("broadcast_to", "not_broadcastable", [_o((2, 3))], {"shape": (4, 3)},
            ["broadcast_to", "(2, 3)", "(4, 3)"]),
    BadCase("broadcast_axis", "axis_not_size1", [_o((2, 3))], {"axis": 1, "size": 4},
            ["broadcast_axis", "axis 1", "(2, 3)", "expected 1"]),
    BadCase("broadcast_like", "not_broadcastable", [_o((2, 3)), _o((4, 5))], {},
            ["broadcast_like", "(2, 3)", "(4, 5)"]),
    BadCase("add_n", "shape_mismatch", [_o((2, 3)), _o((2, 3)), _o((3, 2))], {"num_args": 3},
            ["add_n", "(2, 3)", "(3, 2)"]),
    BadCase("add_n", "num_args_mismatch", [_o((2, 3))], {"num_args": 2}, ["add_n", "expected 2 inputs, got 1"]),
    BadCase("norm", "unsupported_ord", [_o((2, 3))], {"ord": 3}, ["norm", "ord"]),
    BadCase("norm", "unsupported_ord_0", [_o((2, 3))], {"ord": 0}, ["norm", "ord must be 1 or 2", "ord=0"]),
    BadCase("max", "empty_axis", [np.zeros((2, 0))], {"axis": 1}, ["max", "empty axis 1", "(2, 0)"]),
    BadCase("min", "empty_all", [np.zeros((0,))], {}, ["min", "empty axis 0"]),
    BadCase("max", "empty_of_three_axes", [np.zeros((2, 0, 3))], {"axis": (1, 2)}, ["max", "empty axis 1"]),
]
