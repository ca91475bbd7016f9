"""Rows for the reductions (sum ... argmin, norm) and dot / batch_dot. References are float64
numpy formulas; gradients are checked against central differences of them."""
import numpy as np

from op_testing import Case
from op_rows.elemwise import ALL, F, I32, _away, _distinct, _ints, _u

CASES = []

# ---------------------------------------------------------------------------------------
# reductions (sum_axis, max_axis, min_axis are aliases of sum, max, min)


def _axes(axis, ndim, exclude):
    if axis is None or axis == ():
        red = tuple(range(ndim)) if not exclude else ()
    else:
        axis = (axis,) if np.isscalar(axis) else tuple(axis)
        axis = tuple(a % ndim for a in axis)
        red = tuple(a for a in range(ndim) if (a not in axis) == exclude)
    return red


def _reducer(fn):
    """fn(x, axes) over the reduced axes; legacy shape: a full reduction gives (1,)."""
    def ref(x, axis=None, keepdims=False, exclude=False, **_):
        red = _axes(axis, x.ndim, exclude)
        out = fn(x, red) if red else x.copy()
        if keepdims:
            out = np.reshape(out, [1 if i in red else d for i, d in enumerate(x.shape)])
        else:
            out = np.reshape(out, [d for i, d in enumerate(x.shape) if i not in red] or [1])
        return out
    return ref


def _norm(x, axes, ord=2):
    if ord == 1:
        return np.abs(x).sum(axis=axes)
    return np.sqrt((x * x).sum(axis=axes))


REDUCE = {
    "sum": (_reducer(lambda x, a: x.sum(axis=a)), lambda s: _u(s, -2, 2)),
    "mean": (_reducer(lambda x, a: x.mean(axis=a)), lambda s: _u(s, -2, 2)),
    "prod": (_reducer(lambda x, a: x.prod(axis=a)), lambda s: _away(s, -1.6, 1.6, gap=0.5)),
    "nansum": (_reducer(lambda x, a: np.nansum(x, axis=a)), lambda s: _u(s, -2, 2)),
    "nanprod": (_reducer(lambda x, a: np.nanprod(x, axis=a)), lambda s: _away(s, -1.6, 1.6, gap=0.5)),
    "max": (_reducer(lambda x, a: x.max(axis=a)), lambda s: _distinct(s)),
    "min": (_reducer(lambda x, a: x.min(axis=a)), lambda s: _distinct(s)),
    "norm": (_reducer(_norm), lambda s: _away(s, -2, 2)),
}
_REDUCE_VARIANTS = [
    ("all", {}),
    ("axis0", {"axis": 0}),
    ("axis_neg1_keepdims", {"axis": -1, "keepdims": True}),
    ("axes_0_2", {"axis": (0, 2)}),
    ("exclude_axis1", {"axis": 1, "exclude": True}),
    ("all_keepdims", {"keepdims": True}),
    ("empty_axis_tuple", {"axis": ()}),
]
for _name, (_ref, _make) in REDUCE.items():
    for _vname, _params in _REDUCE_VARIANTS:
        if _name == "norm" and "exclude" in _params:
            continue
        CASES.append(Case(_name, _vname, [_make((2, 3, 4))], _params, _ref,
                          dtypes=ALL if _vname in ("all", "axis0") else F))

_with_nan = _u((3, 4), -2, 2)
_with_nan[0, 1] = _with_nan[2, 3] = _with_nan[1, 0] = np.nan
_with_nan_prod = _away((3, 4), -1.6, 1.6, gap=0.5)
_with_nan_prod[0, 1] = _with_nan_prod[2, 2] = np.nan
CASES += [
    Case("nansum", "nan_inputs", [_with_nan], {}, REDUCE["nansum"][0], dtypes=ALL),
    Case("nansum", "nan_inputs_axis1", [_with_nan], {"axis": 1}, REDUCE["nansum"][0], dtypes=ALL),
    Case("nanprod", "nan_inputs", [_with_nan_prod], {}, REDUCE["nanprod"][0], dtypes=F),
    Case("nanprod", "nan_inputs_axis0", [_with_nan_prod], {"axis": 0}, REDUCE["nanprod"][0], dtypes=ALL),
    Case("norm", "ord1_axis1", [_away((3, 4), -2, 2)], {"ord": 1, "axis": 1},
         lambda x, ord, axis: np.abs(x).sum(axis=1), dtypes=ALL),
    Case("norm", "ord1_all", [_away((3, 4), -2, 2)], {"ord": 1},
         lambda x, ord: np.abs(x).sum().reshape(1), dtypes=F),
    Case("norm", "ord2_axis0_keepdims", [_away((3, 4), -2, 2)], {"ord": 2, "axis": 0, "keepdims": True},
         lambda x, ord, axis, keepdims: np.sqrt((x * x).sum(axis=0, keepdims=True)), dtypes=F),
    Case("norm", "ord2_axes_1_2", [_away((2, 3, 4), -2, 2)], {"ord": 2, "axis": (1, 2)},
         lambda x, ord, axis: np.sqrt((x * x).sum(axis=(1, 2))), dtypes=F),
    Case("sum", "large_1d", [_u((3001,), 0, 1)], {}, lambda x: x.sum().reshape(1), dtypes=ALL),
    Case("sum", "large_axis0", [_u((257, 9), 0, 1)], {"axis": 0}, lambda x, axis: x.sum(axis=0), dtypes=ALL),
    Case("mean", "large_axis1", [_u((5, 700), -1, 1)], {"axis": 1}, lambda x, axis: x.mean(axis=1), dtypes=F),
    Case("mean", "large_half", [_u((1000,), 0, 1)], {}, lambda x: x.mean().reshape(1), grad=(),
         dtypes=("float16", "bfloat16")),
    Case("max", "rank1", [_distinct((9,))], {}, lambda x: x.max().reshape(1), dtypes=ALL),
    Case("sum", "int32", [_ints((3, 4), -20, 20)], {"axis": 1}, lambda x, axis: x.sum(axis=1), grad=(), dtypes=I32),
    Case("sum", "int32_all", [_ints((3, 4), -20, 20)], {}, lambda x: x.sum().reshape(1), grad=(), dtypes=I32),
    Case("prod", "int32", [_ints((3, 4), -3, 4)], {"axis": 0}, lambda x, axis: x.astype(np.int64).prod(axis=0),
         grad=(), dtypes=I32),
    Case("max", "int32", [_ints((3, 4), -20, 20)], {"axis": 1}, lambda x, axis: x.max(axis=1), grad=(), dtypes=I32),
    Case("min", "int32_keepdims", [_ints((3, 4), -20, 20)], {"axis": 0, "keepdims": True},
         lambda x, axis, keepdims: x.min(axis=0, keepdims=True), grad=(), dtypes=I32),
    # reduced axes that do not merge (two reduced dims around a kept one), and their gradient
    Case("sum", "axes_0_2_around_kept", [_u((3, 4, 5), -2, 2)], {"axis": (0, 2)}, lambda x, axis: x.sum(axis=(0, 2)), dtypes=F),
    Case("mean", "axes_0_2_exclude_keepdims", [_u((2, 5, 3, 4), -2, 2)], {"axis": (1, 2), "exclude": True,
                                                                            "keepdims": True},
         lambda x, axis, exclude, keepdims: x.mean(axis=(0, 3), keepdims=True), dtypes=F),
    # long reductions of few outputs (the CUDA kernels cut them into chunks merged by a second pass)
    Case("sum", "long_1d", [_u((40000,), 0, 1)], {}, lambda x: x.sum().reshape(1), grad=(), dtypes=F),
    Case("nansum", "long_axis0_columns", [_u((6000, 3), -1, 1)], {"axis": 0}, lambda x, axis: x.sum(axis=0),
         grad=(), dtypes=F),
    Case("max", "long_1d", [_distinct((30000,))], {}, lambda x: x.max().reshape(1), grad=(), dtypes=F),
    Case("norm", "long_rows", [_u((2, 20000), -1, 1)], {"axis": 1}, lambda x, axis: np.sqrt((x * x).sum(axis=1)),
         grad=(), dtypes=F),
]


def _argref(fn):
    def ref(x, axis=None, keepdims=False):
        if axis is None:
            return np.array([fn(x.reshape(-1))], np.float64)
        out = fn(x, axis=axis).astype(np.float64)
        return np.expand_dims(out, axis) if keepdims else out
    return ref


_first_max = np.array([[1.0, 3.0, 3.0, 0.5], [2.0, 2.0, -1.0, 2.0], [0.0, 0.0, 0.0, 0.0]])
for _name, _fn in (("argmax", np.argmax), ("argmin", np.argmin)):
    CASES += [
        Case(_name, "all", [_distinct((3, 4))], {}, _argref(_fn), dtypes=ALL),
        Case(_name, "axis1", [_distinct((3, 4), 1)], {"axis": 1}, _argref(_fn), dtypes=ALL),
        Case(_name, "axis0_keepdims", [_distinct((3, 4), 2)], {"axis": 0, "keepdims": True}, _argref(_fn),
             dtypes=F),
        Case(_name, "axis_neg1_rank3", [_distinct((2, 3, 4), 3)], {"axis": -1}, _argref(_fn), dtypes=F),
        Case(_name, "first_occurrence", [_first_max], {"axis": 1}, _argref(_fn), grad=(), dtypes=ALL),
        Case(_name, "int32", [_ints((3, 5), -20, 20)], {"axis": 1}, _argref(_fn), grad=(), dtypes=I32),
    ]

# Long runs with the extreme repeated far apart: the first occurrence wins across chunks.
_ties_far = np.zeros(30000)
_ties_far[[17001, 7003, 29999]] = 5.0
_ties_far[[12000, 25001]] = -5.0
_ties_cols = np.zeros((5000, 3))
_ties_cols[[4000, 1500], 1] = 2.0
_ties_cols[[3000, 200], 2] = -2.0
for _name, _fn in (("argmax", np.argmax), ("argmin", np.argmin)):
    CASES += [
        Case(_name, "long_ties", [_ties_far], {}, _argref(_fn), grad=(), dtypes=F),
        Case(_name, "long_ties_axis0", [_ties_cols], {"axis": 0}, _argref(_fn), grad=(), dtypes=F),
    ]

# ---------------------------------------------------------------------------------------
# dot / batch_dot


def _dot_ref(a, b, transpose_a=False, transpose_b=False, **_):
    if a.ndim == 1 and b.ndim == 1:
        return np.array([(a * b).sum()])
    ka, kb = (0 if transpose_a else a.ndim - 1), (b.ndim - 1 if transpose_b else 0)
    return np.tensordot(a, b, axes=([ka], [kb]))


def _batch_dot_ref(a, b, transpose_a=False, transpose_b=False, **_):
    if transpose_a:
        a = np.swapaxes(a, -1, -2)
    if transpose_b:
        b = np.swapaxes(b, -1, -2)
    return np.einsum("...ik,...kj->...ij", a, b)


_DOT = [
    ("2d", (3, 4), (4, 5), {}),
    ("2d_transpose_a", (4, 3), (4, 5), {"transpose_a": True}),
    ("2d_transpose_b", (3, 4), (5, 4), {"transpose_b": True}),
    ("2d_transpose_both", (4, 3), (5, 4), {"transpose_a": True, "transpose_b": True}),
    ("1d_1d", (6,), (6,), {}),
    ("2d_1d", (3, 4), (4,), {}),
    ("1d_2d", (4,), (4, 5), {}),
    ("3d_2d", (2, 3, 4), (4, 5), {}),
    ("2d_3d", (3, 4), (4, 2, 5), {}),
    ("3d_transpose_a", (4, 2, 3), (4, 5), {"transpose_a": True}),
    ("3d_transpose_b", (2, 3), (5, 2, 3), {"transpose_b": True}),
    ("1x1", (1, 1), (1, 1), {}),
]
for _vname, _sa, _sb, _params in _DOT:
    CASES.append(Case("dot", _vname, [_u(_sa, -1, 1, 1), _u(_sb, -1, 1, 2)], _params, _dot_ref, grad=(0, 1),
                      dtypes=ALL if _vname in ("2d", "2d_transpose_b", "1d_1d") else F))
CASES += [
    Case("dot", "larger", [_u((17, 33), -1, 1, 1), _u((33, 9), -1, 1, 2)], {}, _dot_ref, grad=(0, 1), dtypes=ALL),
    Case("dot", "int32", [_ints((2, 3), -5, 5, 1), _ints((3, 4), -5, 5, 2)], {}, _dot_ref, grad=(), dtypes=I32),
]

_BATCH_DOT = [
    ("3d", (2, 3, 4), (2, 4, 5), {}),
    ("transpose_a", (2, 4, 3), (2, 4, 5), {"transpose_a": True}),
    ("transpose_b", (2, 3, 4), (2, 5, 4), {"transpose_b": True}),
    ("transpose_both", (2, 4, 3), (2, 5, 4), {"transpose_a": True, "transpose_b": True}),
    ("4d", (2, 2, 3, 4), (2, 2, 4, 3), {}),
    ("batch1", (1, 3, 4), (1, 4, 2), {}),
]
for _vname, _sa, _sb, _params in _BATCH_DOT:
    CASES.append(Case("batch_dot", _vname, [_u(_sa, -1, 1, 1), _u(_sb, -1, 1, 2)], _params, _batch_dot_ref,
                      grad=(0, 1), dtypes=ALL if _vname in ("3d", "transpose_b") else F))
# Integer dot / batch_dot over several 16 x 16 output tiles and contraction steps (the CUDA
# kernels' tiled integer GEMM), with transposes and a batch.
CASES += [
    Case("dot", "int32_tiles_transpose_both", [_ints((35, 20), -5, 5, 3), _ints((18, 35), -5, 5, 4)],
         {"transpose_a": True, "transpose_b": True}, _dot_ref, grad=(), dtypes=I32),
    Case("batch_dot", "int32_tiles", [_ints((3, 17, 20), -5, 5, 5), _ints((3, 20, 19), -5, 5, 6)], {},
         _batch_dot_ref, grad=(), dtypes=I32),
    Case("batch_dot", "uint8_transpose_a", [_ints((2, 4, 3), 0, 4, 7, np.uint8), _ints((2, 4, 5), 0, 4, 8, np.uint8)],
         {"transpose_a": True}, _batch_dot_ref, grad=(), dtypes=("uint8",)),
]
