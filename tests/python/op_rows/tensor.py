"""Rows of the tensor operators that are neither elementwise, broadcast arithmetic, reductions,
dot products nor neural-network layers: shape and layout (Reshape and its special codes,
transpose, slicing, padding, tiling, splitting, diag), indexing (take, pick, gather_nd,
scatter_nd, one_hot, sort / argsort / topk), array creation (_zeros ... _eye), random sampling
(property checks), optimizer updates (numpy float64 forms of MXNet 1.x's update rules), image
transforms (_image_*, _cvimresize, _cvcopyMakeBorder) and the CSR operators.

References are numpy float64 formulas. Random ops have no reference: their `check` verifies
shape, range and the first two moments against the distribution's definition (5 standard
errors of the estimate). Optimizer updates mutate their state inputs: the `-states` rows run the
op on fresh arrays and compare the mutated states with the same numpy rule."""
import colorsys
import inspect
import math

import numpy as np

import mxnet as mx
from op_testing import FWD_TOL, HALF, ROW_DTYPE, BadCase, Case, op, with_dtypes

R = np.random.RandomState(20240)


def uni(*shape, lo=-1.0, hi=1.0):
    return R.uniform(lo, hi, shape)


def distinct(*shape, spacing=0.1):
    """Values at least `spacing` apart (orderings stay put under finite differences)."""
    n = int(np.prod(shape))
    return (R.permutation(n) * spacing - n * spacing / 2).reshape(shape)


def to_shape(shape):
    return lambda x, **_: x.reshape(shape)


# --------------------------------------------------------------------------------------------
# Shape and layout

X234 = uni(2, 3, 4)
X2131 = uni(2, 1, 3, 1)

RESHAPE = [
    Case("Reshape", "positive_and_0", [X234], {"shape": (4, 0, 2)}, to_shape((4, 3, 2))),
    Case("Reshape", "minus1_then_0", [X234], {"shape": (-1, 0)}, to_shape((8, 3))),
    Case("Reshape", "0_then_minus1", [X234], {"shape": (0, -1)}, to_shape((2, 12))),
    Case("Reshape", "minus2_all", [X234], {"shape": (-2,)}, to_shape((2, 3, 4))),
    Case("Reshape", "minus2_then_ones", [X234], {"shape": (-2, 1, 1)}, to_shape((2, 3, 4, 1, 1))),
    Case("Reshape", "keep_then_minus2", [X234], {"shape": (2, -2)}, to_shape((2, 3, 4))),
    Case("Reshape", "minus3_merge", [X234], {"shape": (-3, 4)}, to_shape((6, 4))),
    Case("Reshape", "0_minus3", [X234], {"shape": (0, -3)}, to_shape((2, 12))),
    Case("Reshape", "minus4_split", [X234], {"shape": (-4, 1, 2, -2)}, to_shape((1, 2, 3, 4))),
    Case("Reshape", "minus4_infer", [X234], {"shape": (2, -4, -1, 3, -2)}, to_shape((2, 1, 3, 4))),
    # reverse: the codes are matched from the right: 0 copies the last dim (4), -1 takes the rest
    Case("Reshape", "reverse", [X234], {"shape": (-1, 0), "reverse": True}, to_shape((6, 4))),
    Case("Reshape", "reverse_0_0", [uni(10, 5, 4)], {"shape": (-1, 0), "reverse": True}, to_shape((50, 4))),
    Case("reshape", "alias", [X234], {"shape": (3, -1)}, to_shape((3, 8))),
    Case("reshape_like", "to_rhs_shape", [uni(2, 6), uni(3, 4)], {}, lambda a, b: a.reshape(b.shape)),
    Case("Flatten", "3d", [X234], {}, to_shape((2, 12))),
    Case("flatten", "4d", [uni(2, 2, 1, 3)], {}, to_shape((2, 6))),
    Case("expand_dims", "axis1", [X234], {"axis": 1}, lambda x, axis: np.expand_dims(x, axis)),
    Case("expand_dims", "axis_last", [X234], {"axis": -1}, lambda x, axis: np.expand_dims(x, 3)),
    Case("expand_dims", "axis_end", [X234], {"axis": 3}, lambda x, axis: np.expand_dims(x, 3)),
    Case("squeeze", "all", [X2131], {}, lambda x: x.reshape(2, 3)),
    Case("squeeze", "axis1", [X2131], {"axis": (1,)}, lambda x, axis: x.reshape(2, 3, 1)),
    Case("squeeze", "axes_1_3", [X2131], {"axis": (1, 3)}, lambda x, axis: x.reshape(2, 3)),
    Case("squeeze", "negative_axis", [X2131], {"axis": (-1,)}, lambda x, axis: x.reshape(2, 1, 3)),
    # legacy arrays have no 0-d: squeezing every axis of (1, 1) leaves (1,)
    Case("squeeze", "to_one", [uni(1, 1)], {}, lambda x: x.reshape(1)),
]

TRANSPOSE = [
    Case("transpose", "default_reverses", [X234], {}, lambda x: x.transpose()),
    Case("transpose", "axes", [X234], {"axes": (1, 0, 2)}, lambda x, axes: x.transpose(1, 0, 2)),
    Case("transpose", "negative_axes", [X234], {"axes": (-1, 0, 1)}, lambda x, axes: x.transpose(2, 0, 1)),
    Case("transpose", "4d", [uni(2, 3, 2, 2)], {"axes": (0, 2, 3, 1)}, lambda x, axes: x.transpose(0, 2, 3, 1)),
    Case("SwapAxis", "0_2", [X234], {"dim1": 0, "dim2": 2}, lambda x, dim1, dim2: np.swapaxes(x, 0, 2)),
    Case("swapaxes", "negative", [X234], {"dim1": 1, "dim2": -1}, lambda x, dim1, dim2: np.swapaxes(x, 1, 2)),
    Case("reverse", "axis0", [X234], {"axis": (0,)}, lambda x, axis: x[::-1]),
    Case("reverse", "axis_last", [X234], {"axis": (-1,)}, lambda x, axis: x[..., ::-1]),
    Case("flip", "two_axes", [X234], {"axis": (0, 2)}, lambda x, axis: x[::-1, :, ::-1]),
    Case("tile", "reps_longer", [uni(2, 3)], {"reps": (2, 1, 3)}, lambda x, reps: np.tile(x, (2, 1, 3))),
    Case("tile", "reps_shorter", [X234], {"reps": (2,)}, lambda x, reps: np.tile(x, (1, 1, 2))),
    Case("tile", "reps_same", [uni(2, 3)], {"reps": (3, 2)}, lambda x, reps: np.tile(x, (3, 2))),
    Case("repeat", "axis1", [uni(2, 3)], {"repeats": 2, "axis": 1}, lambda x, repeats, axis: np.repeat(x, 2, 1)),
    Case("repeat", "flattened", [uni(2, 3)], {"repeats": 3}, lambda x, repeats: np.repeat(x.ravel(), 3)),
    Case("repeat", "negative_axis", [X234], {"repeats": 2, "axis": -1},
         lambda x, repeats, axis: np.repeat(x, 2, 2)),
]


def pad_ref(x, mode, pad_width, constant_value=0.0):
    w = [(pad_width[2 * i], pad_width[2 * i + 1]) for i in range(x.ndim)]
    if mode == "constant":
        return np.pad(x, w, mode="constant", constant_values=constant_value)
    return np.pad(x, w, mode={"edge": "edge", "reflect": "reflect"}[mode])


X4 = uni(1, 2, 3, 3)
PW4 = (0, 0, 0, 0, 1, 2, 2, 1)
PAD = [
    Case("Pad", "constant", [X4], {"mode": "constant", "pad_width": PW4, "constant_value": 1.5}, pad_ref),
    Case("Pad", "constant_default_0", [X4], {"mode": "constant", "pad_width": PW4}, pad_ref),
    Case("Pad", "edge", [X4], {"mode": "edge", "pad_width": PW4}, pad_ref),
    Case("Pad", "reflect", [X4], {"mode": "reflect", "pad_width": PW4}, pad_ref),
    Case("pad", "edge_5d", [uni(1, 2, 2, 3, 2)], {"mode": "edge", "pad_width": (0, 0, 0, 0, 1, 1, 0, 2, 1, 0)},
         pad_ref),
    Case("pad", "reflect_5d", [uni(1, 1, 3, 3, 4)], {"mode": "reflect", "pad_width": (0, 0, 0, 0, 2, 1, 1, 2, 3, 3)},
         pad_ref),
]


def depth_to_space_ref(x, block_size):
    n, c, h, w = x.shape
    b = block_size
    y = x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    return y.reshape(n, c // (b * b), h * b, w * b)


def space_to_depth_ref(x, block_size):
    n, c, h, w = x.shape
    b = block_size
    y = x.reshape(n, c, h // b, b, w // b, b).transpose(0, 3, 5, 1, 2, 4)
    return y.reshape(n, c * b * b, h // b, w // b)


SPACE = [
    Case("depth_to_space", "b2", [uni(1, 8, 2, 3)], {"block_size": 2}, depth_to_space_ref),
    Case("depth_to_space", "b3_batch", [uni(2, 9, 1, 2)], {"block_size": 3}, depth_to_space_ref),
    Case("space_to_depth", "b2", [uni(1, 2, 4, 6)], {"block_size": 2}, space_to_depth_ref),
    Case("space_to_depth", "b3_batch", [uni(2, 1, 3, 6)], {"block_size": 3}, space_to_depth_ref),
]


def slice_ref(x, begin, end, step=None, **_):
    idx = []
    for i in range(len(begin)):
        st = step[i] if step else None
        idx.append(slice(begin[i], end[i], st))
    return x[tuple(idx)]


def slice_assign_ref(lhs, rhs, begin, end, step=None):
    out = lhs.copy()
    out[tuple(slice(begin[i], end[i], step[i] if step else None) for i in range(len(begin)))] = rhs
    return out


def slice_assign_scalar_ref(x, scalar, begin, end, step=None):
    out = x.copy()
    out[tuple(slice(begin[i], end[i], step[i] if step else None) for i in range(len(begin)))] = scalar
    return out


X345 = uni(3, 4, 5)
SLICE = [
    Case("slice", "basic", [X345], {"begin": (0, 1), "end": (2, 3)}, slice_ref),
    Case("slice", "all_axes_step", [X345], {"begin": (0, 0, 0), "end": (3, 4, 5), "step": (2, 1, 2)}, slice_ref),
    Case("slice", "negative_step", [X345], {"begin": (None, 3), "end": (None, 0), "step": (1, -1)}, slice_ref),
    Case("slice", "reverse_axis", [X345], {"begin": (None,), "end": (None,), "step": (-1,)}, slice_ref),
    Case("slice", "negative_begin", [X345], {"begin": (-2, None, -3), "end": (None, -1, None)}, slice_ref),
    Case("slice", "end_clamped", [X345], {"begin": (1,), "end": (10,)}, slice_ref),
    Case("slice", "begin_past_end_is_empty", [X345], {"begin": (2, 0), "end": (1, 4)}, slice_ref, grad=()),
    Case("crop", "alias", [X345], {"begin": (1, 0, 2), "end": (3, 2, 5)}, slice_ref),
    Case("_npi_slice", "alias", [X345], {"begin": (0, 1), "end": (3, None), "step": (2, 2)}, slice_ref),
    Case("slice_axis", "axis1", [X345], {"axis": 1, "begin": 1, "end": 3},
         lambda x, axis, begin, end: x[:, 1:3]),
    Case("slice_axis", "end_none", [X345], {"axis": -1, "begin": -3, "end": None},
         lambda x, axis, begin, end: x[..., -3:]),
    Case("slice_axis", "negative_end", [X345], {"axis": 0, "begin": 0, "end": -1},
         lambda x, axis, begin, end: x[:-1]),
    Case("slice_like", "all_axes", [X345, uni(2, 3, 5)], {}, lambda x, like: x[:2, :3, :5]),
    Case("slice_like", "axis1", [X345, uni(1, 2)], {"axes": (1,)}, lambda x, like, axes: x[:, :2]),
    Case("slice_like", "axes_0_last", [X345, uni(2, 1, 4)], {"axes": (0, -1)}, lambda x, like, axes: x[:2, :, :4]),
    Case("_slice_assign", "basic", [uni(3, 4), uni(2, 2)], {"begin": (0, 1), "end": (2, 3)}, slice_assign_ref,
         grad=(0, 1)),
    Case("_slice_assign", "step", [uni(4, 5), uni(2, 3)], {"begin": (None, 0), "end": (None, 5), "step": (2, 2)},
         slice_assign_ref, grad=(0, 1)),
    Case("_crop_assign", "alias", [uni(3, 4, 2), uni(3, 1, 2)], {"begin": (0, 2), "end": (3, 3)}, slice_assign_ref,
         grad=(0, 1)),
    Case("_slice_assign_scalar", "rows", [uni(3, 4)], {"scalar": 2.5, "begin": (1,), "end": (3,)},
         slice_assign_scalar_ref),
    Case("_crop_assign_scalar", "step", [uni(4, 5)], {"scalar": -1.0, "begin": (0, 4), "end": (4, 0),
                                                      "step": (3, -2)}, slice_assign_scalar_ref),
]

S1, S2, S3 = uni(2, 3), uni(2, 3), uni(2, 3)
JOIN = [
    Case("stack", "axis1", [S1, S2, S3], {"num_args": 3, "axis": 1},
         lambda a, b, c, num_args, axis: np.stack([a, b, c], 1), grad=(0, 1, 2)),
    Case("stack", "axis_last", [S1, S2], {"num_args": 2, "axis": -1},
         lambda a, b, num_args, axis: np.stack([a, b], -1), grad=(0, 1)),
    Case("_npi_stack", "alias", [S1, S2], {"num_args": 2, "axis": 0},
         lambda a, b, num_args, axis: np.stack([a, b], 0), grad=(0, 1)),
    Case("_npi_concatenate", "alias", [S1, uni(2, 2)], {"num_args": 2, "dim": 1},
         lambda a, b, num_args, dim: np.concatenate([a, b], 1), grad=(0, 1)),
    Case("SliceChannel", "three", [uni(2, 6, 2)], {"num_outputs": 3, "axis": 1},
         lambda x, num_outputs, axis: np.split(x, 3, axis=1), outputs=3),
    Case("SliceChannel", "squeeze_axis", [uni(2, 3, 2)], {"num_outputs": 3, "axis": 1, "squeeze_axis": True},
         lambda x, num_outputs, axis, squeeze_axis: [x[:, i] for i in range(3)], outputs=3),
    Case("split", "negative_axis", [uni(2, 2, 4)], {"num_outputs": 2, "axis": -1},
         lambda x, num_outputs, axis: np.split(x, 2, axis=-1), outputs=2),
    Case("split", "default_axis1", [uni(2, 4)], {"num_outputs": 4},
         lambda x, num_outputs: np.split(x, 4, axis=1), outputs=4),
]

DIAG = [
    Case("diag", "2d", [uni(3, 4)], {}, lambda x: np.diagonal(x)),
    Case("diag", "2d_above", [uni(3, 4)], {"k": 1}, lambda x, k: np.diagonal(x, 1)),
    Case("diag", "2d_below", [uni(4, 3)], {"k": -2}, lambda x, k: np.diagonal(x, -2)),
    Case("diag", "1d_to_matrix", [uni(3)], {}, lambda x: np.diag(x)),
    Case("diag", "1d_offset", [uni(3)], {"k": -1}, lambda x, k: np.diag(x, -1)),
    Case("diag", "3d_axes", [X234], {"k": 1, "axis1": 1, "axis2": 2},
         lambda x, k, axis1, axis2: np.diagonal(x, 1, 1, 2)),
    Case("diag", "3d_axes_swapped", [X234], {"axis1": 2, "axis2": 0},
         lambda x, axis1, axis2: np.diagonal(x, 0, 2, 0)),
]

BROADCAST_SHAPE = [
    Case("broadcast_to", "expand", [uni(1, 3)], {"shape": (4, 3)}, lambda x, shape: np.broadcast_to(x, shape)),
    Case("broadcast_to", "zero_keeps", [uni(2, 1, 3)], {"shape": (0, 4, 0)},
         lambda x, shape: np.broadcast_to(x, (2, 4, 3))),
    Case("broadcast_axis", "axis1", [uni(2, 1, 3)], {"axis": (1,), "size": (4,)},
         lambda x, axis, size: np.broadcast_to(x, (2, 4, 3))),
    Case("broadcast_like", "to_rhs", [uni(1, 3), uni(4, 3)], {}, lambda a, b: np.broadcast_to(a, b.shape)),
]

# --------------------------------------------------------------------------------------------
# Indexing


def take_ref(a, indices, axis=0, mode="clip"):
    return np.take(a, np.asarray(indices).astype(np.int64), axis=axis, mode=mode)


def pick_ref(x, index, axis=-1, keepdims=False, mode="clip"):
    ax = axis % x.ndim
    idx = np.asarray(index).astype(np.int64)
    n = x.shape[ax]
    idx = np.mod(idx, n) if mode == "wrap" else np.clip(idx, 0, n - 1)
    idx = idx.reshape(x.shape[:ax] + (1,) + x.shape[ax + 1:])
    out = np.take_along_axis(x, idx, axis=ax)
    return out if keepdims else out.squeeze(ax)


def gather_nd_ref(data, indices):
    return data[tuple(np.asarray(indices).astype(np.int64))]


def scatter_nd_ref(data, indices, shape):
    out = np.zeros(shape)
    out[tuple(np.asarray(indices).astype(np.int64))] = data
    return out


def one_hot_ref(indices, depth, on_value=1.0, off_value=0.0, dtype=None):
    idx = np.asarray(indices).astype(np.int64)
    hit = idx[..., None] == np.arange(depth)
    return np.where(hit, on_value, off_value)


TAKE_A = uni(5, 3)
INDEXING = [
    Case("take", "int32_indices", [TAKE_A, np.array([[0, 4], [2, 1]], np.int32)], {}, take_ref),
    Case("take", "float_indices_repeated", [TAKE_A, np.array([0.0, 3.0, 3.0, 1.0])], {}, take_ref, const=(1,)),
    Case("take", "clip", [TAKE_A, np.array([-1, 7, 2], np.int64)], {"mode": "clip"}, take_ref),
    Case("take", "wrap", [TAKE_A, np.array([-1, 7, 2, -6], np.int64)], {"mode": "wrap"}, take_ref),
    Case("take", "raise_in_range", [TAKE_A, np.array([4, 0], np.int64)], {"mode": "raise"}, take_ref),
    Case("take", "axis1", [uni(2, 4, 3), np.array([3, 0, 3], np.int32)], {"axis": 1}, take_ref),
    Case("take", "axis_last_2d_indices", [uni(2, 4, 3), np.array([[2, 0], [1, 1]], np.int32)], {"axis": -1},
         take_ref),
    Case("pick", "axis1", [uni(3, 4), np.array([0.0, 3.0, 1.0])], {"axis": 1}, pick_ref, const=(1,)),
    Case("pick", "keepdims", [uni(3, 4), np.array([2, 0, 1], np.int32)], {"axis": 1, "keepdims": True}, pick_ref),
    Case("pick", "axis0", [uni(3, 4), np.array([2, 0, 1, 1], np.int64)], {"axis": 0}, pick_ref),
    Case("pick", "default_axis_last", [X234, np.array([[0, 3, 1], [2, 2, 0]], np.int32)], {}, pick_ref),
    Case("pick", "middle_axis", [X234, np.array([[0, 2, 1, 1], [2, 0, 0, 1]], np.int32)], {"axis": 1}, pick_ref),
    Case("pick", "clip", [uni(3, 4), np.array([-1, 4, 1], np.int32)], {"axis": 1}, pick_ref),
    Case("pick", "wrap", [uni(3, 4), np.array([-1, 4, 6], np.int32)], {"axis": 1, "mode": "wrap"}, pick_ref),
    Case("gather_nd", "two_axes", [uni(3, 4, 2), np.array([[0, 2, 1, 2], [1, 3, 0, 3]], np.int32)], {},
         gather_nd_ref),
    Case("gather_nd", "one_axis_slices", [uni(3, 4, 2), np.array([[2, 0]], np.int64)], {}, gather_nd_ref),
    Case("gather_nd", "all_axes", [uni(3, 4, 2), np.array([[0, 2, 1], [3, 0, 1], [1, 1, 0]], np.int32)], {},
         gather_nd_ref),
    Case("gather_nd", "negative_indices", [uni(3, 4), np.array([[-1, 0], [0, -1]], np.int32)], {}, gather_nd_ref),
    Case("gather_nd", "float_indices", [uni(3, 4), np.array([[2.0, 0.0, 1.0], [1.0, 3.0, 0.0]])], {},
         gather_nd_ref, const=(1,)),
    Case("scatter_nd", "elements", [uni(4), np.array([[0, 2, 1, 2], [1, 0, 2, 2]], np.int32)], {"shape": (3, 3)},
         scatter_nd_ref),
    Case("scatter_nd", "rows", [uni(2, 3), np.array([[2, 0]], np.int64)], {"shape": (4, 3)}, scatter_nd_ref),
    Case("one_hot", "basic", [np.array([[1, 0], [3, 2]], np.int32)], {"depth": 4, "dtype": ROW_DTYPE},
         one_hot_ref, grad=()),
    Case("one_hot", "on_off_values", [np.array([2, 0, 1], np.int64)],
         {"depth": 3, "on_value": 2.5, "off_value": -1.0, "dtype": ROW_DTYPE}, one_hot_ref, grad=()),
    # indices outside [0, depth) give a row of off_value (as MXNet 1.x)
    Case("one_hot", "out_of_range_all_off", [np.array([-1, 4, 1], np.int32)], {"depth": 4, "dtype": ROW_DTYPE},
         one_hot_ref, grad=()),
    Case("one_hot", "float_indices", [np.array([1.0, 0.0, 2.0])], {"depth": 3}, one_hot_ref, const=(0,), grad=()),
]


def sort_ref(x, axis=-1, is_ascend=True):
    if axis is None:
        x, axis = x.ravel(), 0
    s = np.sort(x, axis=axis)
    return s if is_ascend else np.flip(s, axis)


def argsort_ref(x, axis=-1, is_ascend=True, dtype="float32"):
    if axis is None:
        x, axis = x.ravel(), 0
    return np.argsort(x if is_ascend else -x, axis=axis, kind="stable").astype(np.float64)


def topk_ref(x, axis=-1, k=1, ret_typ="indices", is_ascend=False, dtype="float32"):
    if axis is None:
        x, axis = x.ravel(), 0
    ax = axis % x.ndim
    order = np.argsort(x if is_ascend else -x, axis=ax, kind="stable")
    idx = np.take(order, np.arange(k), axis=ax)
    vals = np.take_along_axis(x, idx, axis=ax)
    if ret_typ == "value":
        return vals
    if ret_typ == "indices":
        return idx.astype(np.float64)
    if ret_typ == "both":
        return [vals, idx.astype(np.float64)]
    mask = np.zeros_like(x)
    np.put_along_axis(mask, idx, 1.0, axis=ax)
    return mask


XS = distinct(3, 5)
XS3 = distinct(2, 3, 4)
SORT = [
    Case("sort", "last_axis", [XS], {}, sort_ref),
    Case("sort", "descending", [XS], {"is_ascend": False}, sort_ref),
    Case("sort", "axis0", [XS3], {"axis": 0}, sort_ref),
    Case("sort", "middle_axis_descending", [XS3], {"axis": 1, "is_ascend": False}, sort_ref),
    Case("sort", "flattened", [XS], {"axis": None}, sort_ref),
    Case("argsort", "last_axis", [XS], {}, argsort_ref, grad=()),
    Case("argsort", "descending_axis0", [XS3], {"axis": 0, "is_ascend": False}, argsort_ref, grad=()),
    Case("argsort", "int32", [XS], {"dtype": "int32"}, argsort_ref, grad=()),
    Case("argsort", "flattened", [XS], {"axis": None}, argsort_ref, grad=()),
    # ties are ordered by position (a stable sort)
    Case("argsort", "ties", [np.array([[1.0, 0.0, 1.0, 0.0, 1.0]])], {}, argsort_ref, grad=()),
    Case("topk", "indices_default", [XS], {}, topk_ref, grad=()),
    Case("topk", "value", [XS], {"k": 2, "ret_typ": "value"}, topk_ref),
    Case("topk", "value_ascending_axis0", [XS3], {"k": 2, "axis": 0, "ret_typ": "value", "is_ascend": True},
         topk_ref),
    Case("topk", "indices_int64", [XS3], {"k": 3, "axis": 1, "dtype": "int64"}, topk_ref, grad=()),
    Case("topk", "both", [XS], {"k": 3, "ret_typ": "both"}, topk_ref, outputs=2),
    Case("topk", "mask", [XS3], {"k": 2, "ret_typ": "mask"}, topk_ref, grad=()),
    Case("topk", "flattened", [XS], {"k": 4, "axis": None, "ret_typ": "value"}, topk_ref),
    Case("topk", "k0_sorts_all", [XS], {"k": 0, "ret_typ": "value"},
         lambda x, k, ret_typ: -np.sort(-x, axis=-1)),
]

# --------------------------------------------------------------------------------------------
# Array creation (no inputs: everything in params)


def empty_check(outs, ins, shape, dtype=None, **_):
    assert len(outs) == 1 and outs[0].shape == tuple(shape), (outs[0].shape, shape)
    got = op("_empty")(shape=shape, dtype=dtype or "float32").dtype
    assert np.dtype(got) == np.dtype(dtype or "float32"), got


INIT = [
    Case("_zeros", "2d", [], {"shape": (2, 3), "dtype": ROW_DTYPE}, lambda shape, dtype: np.zeros(shape)),
    Case("_zeros", "default_dtype", [], {"shape": (4,)}, lambda shape: np.zeros(shape), dtypes=("float32",)),
    Case("_ones", "3d", [], {"shape": (2, 1, 3), "dtype": ROW_DTYPE}, lambda shape, dtype: np.ones(shape)),
    Case("_full", "value", [], {"shape": (3, 2), "value": -2.5, "dtype": ROW_DTYPE},
         lambda shape, value, dtype: np.full(shape, value)),
    Case("_empty", "shape_dtype", [], {"shape": (2, 5), "dtype": ROW_DTYPE}, check=empty_check),
    Case("_empty", "int32", [], {"shape": (3,), "dtype": "int32"}, check=empty_check, dtypes=("float32",)),
    Case("_arange", "start_stop_step_repeat", [], {"start": 1.0, "stop": 7.0, "step": 1.5, "repeat": 2,
                                                   "dtype": ROW_DTYPE},
         lambda start, stop, step, repeat, dtype: np.repeat(np.arange(1.0, 7.0, 1.5), 2)),
    Case("_arange", "stop_only_start", [], {"start": 5.0, "dtype": ROW_DTYPE},
         lambda start, dtype: np.arange(5.0)),
    Case("_arange", "negative_step", [], {"start": 3.0, "stop": -1.0, "step": -0.5, "dtype": ROW_DTYPE},
         lambda start, stop, step, dtype: np.arange(3.0, -1.0, -0.5)),
    Case("_linspace", "endpoint", [], {"start": -1.0, "stop": 2.0, "num": 7, "dtype": ROW_DTYPE},
         lambda start, stop, num, dtype: np.linspace(-1.0, 2.0, 7)),
    Case("_linspace", "no_endpoint", [], {"start": 0.0, "stop": 1.0, "num": 4, "endpoint": False,
                                          "dtype": ROW_DTYPE},
         lambda start, stop, num, endpoint, dtype: np.linspace(0.0, 1.0, 4, endpoint=False)),
    Case("_linspace", "one_point", [], {"start": 3.0, "stop": 9.0, "num": 1, "dtype": ROW_DTYPE},
         lambda start, stop, num, dtype: np.linspace(3.0, 9.0, 1)),
    Case("_eye", "square", [], {"N": 3, "dtype": ROW_DTYPE}, lambda N, dtype: np.eye(3)),
    Case("_eye", "rect_upper", [], {"N": 3, "M": 4, "k": 1, "dtype": ROW_DTYPE},
         lambda N, M, k, dtype: np.eye(3, 4, k=1)),
    Case("_eye", "lower", [], {"N": 4, "M": 3, "k": -2, "dtype": ROW_DTYPE},
         lambda N, M, k, dtype: np.eye(4, 3, k=-2)),
]

# --------------------------------------------------------------------------------------------
# Random sampling: property checks. Moments of each distribution (mean, variance, central 4th
# moment) from its definition; the sample mean and variance must lie within 5 standard errors.

NS = 100000  # samples per distribution


def within_5se(x, mean, var, mu4, what=""):
    x = np.asarray(x, np.float64).ravel()
    n = x.size
    m = x.mean()
    assert abs(m - mean) <= 5 * math.sqrt(var / n) + 1e-12, (what, "mean", m, mean)
    v = x.var()
    se_v = math.sqrt(max(mu4 - var * var, 0.0) / n) + 5 * math.sqrt(var / n) * abs(m - mean)
    assert abs(v - var) <= 5 * se_v + 1e-12, (what, "variance", v, var)


def integral(x, what=""):
    assert np.all(x == np.round(x)), (what, "non-integer samples")


def m_uniform(a, b):
    return (a + b) / 2, (b - a) ** 2 / 12, (b - a) ** 4 / 80


def m_normal(mu, sigma):
    return mu, sigma ** 2, 3 * sigma ** 4


def m_gamma(alpha, beta):  # shape alpha, scale beta
    var = alpha * beta * beta
    return alpha * beta, var, (3 + 6 / alpha) * var * var


def m_exponential(lam):  # rate lam
    return 1 / lam, 1 / lam ** 2, 9 / lam ** 4


def m_poisson(lam):
    return lam, lam, lam * (1 + 3 * lam)


def m_negbin(k, p):
    """Failures before the k-th success, success probability p (MXNet's negative_binomial)."""
    mean, var = k * (1 - p) / p, k * (1 - p) / p ** 2
    return mean, var, var * var * (3 + 6 / k + p * p / (k * (1 - p)))


def m_gen_negbin(mu, alpha):
    """Mean mu, variance mu + alpha mu^2: a negative binomial with k = 1/alpha, p = 1/(1 + alpha mu)."""
    if alpha == 0:
        return m_poisson(mu)
    return m_negbin(1 / alpha, 1 / (1 + alpha * mu))


def m_randint(low, high):
    n = high - low
    return (low + high - 1) / 2, (n * n - 1) / 12, (n * n - 1) * (3 * n * n - 7) / 240


# name -> (moments, support check, names of the parameters in op order, integer-valued)
DISTS = {
    # [low, high); a float32 draw just below high may round to high
    "uniform": (m_uniform, lambda x, a, b: np.all((x >= a) & (x <= b)), ("low", "high"), False),
    "normal": (m_normal, lambda x, mu, s: np.all(np.isfinite(x)), ("loc", "scale"), False),
    "gamma": (m_gamma, lambda x, a, b: np.all(x > 0), ("alpha", "beta"), False),
    "exponential": (m_exponential, lambda x, lam: np.all(x >= 0), ("lam",), False),
    "poisson": (m_poisson, lambda x, lam: np.all(x >= 0), ("lam",), True),
    "negative_binomial": (m_negbin, lambda x, k, p: np.all(x >= 0), ("k", "p"), True),
    "generalized_negative_binomial": (m_gen_negbin, lambda x, mu, a: np.all(x >= 0), ("mu", "alpha"), True),
}
# the parameter defaults of the scalar samplers (_random_<dist>)
DEFAULT_ARGS = {"uniform": (0.0, 1.0), "normal": (0.0, 1.0), "gamma": (1.0, 1.0), "exponential": (1.0,),
                "poisson": (1.0,), "negative_binomial": (1.0, 1.0), "generalized_negative_binomial": (1.0, 1.0)}


def check_samples(dist, x, args, what):
    moments, support, _, discrete = DISTS[dist]
    assert support(x, *args), (what, "samples outside the support", x.min(), x.max())
    if discrete:
        integral(x, what)
    within_5se(x, *moments(*args), what=what)


def out_dtype(op_name, inputs, params):
    """The dtype of the op's output for these inputs and params (one more call)."""
    arrays = [mx.nd.array(a, dtype=d) for a, d in inputs]
    res = op(op_name)(*arrays, **params)
    res = res[0] if isinstance(res, (list, tuple)) else res
    return np.dtype(res.dtype)


def random_check(dist, shape):
    def check(outs, ins, **p):
        x = outs[0]
        assert x.shape == shape, (x.shape, shape)
        args = [p.get(n, DEFAULT_ARGS[dist][i]) for i, n in enumerate(DISTS[dist][2])]
        check_samples(dist, x, args, "_random_" + dist)
        want = p.get("dtype") or "float32"
        assert out_dtype("_random_" + dist, [], p) == np.dtype(want)
    return check


def random_like_check(dist, dtype):
    def check(outs, ins, **p):
        x = outs[0]
        assert x.shape == ins[0].shape, (x.shape, ins[0].shape)
        args = [p.get(n, DEFAULT_ARGS[dist][i]) for i, n in enumerate(DISTS[dist][2])]
        check_samples(dist, x, args, "_random_%s_like" % dist)
        assert out_dtype("_random_%s_like" % dist, [(ins[0], dtype)], p) == np.dtype(dtype)
    return check


def sample_check(dist, extra):
    def check(outs, ins, **p):
        x = outs[0]
        assert x.shape == ins[0].shape + extra, (x.shape, ins[0].shape, extra)
        for j in np.ndindex(*ins[0].shape):
            check_samples(dist, x[j], [a[j] for a in ins], "_sample_%s%s" % (dist, j))
    return check


def randint_check(outs, ins, low, high, shape, dtype="int32"):
    x = outs[0]
    assert x.shape == tuple(shape)
    assert np.all((x >= low) & (x < high)), (x.min(), x.max())
    integral(x, "randint")
    assert set(np.unique(x).astype(int)) == set(range(int(low), int(high))), "some values never drawn"
    within_5se(x, *m_randint(low, high), what="randint")
    assert out_dtype("_random_randint", [], dict(low=low, high=high, shape=(2,), dtype=dtype)) == np.dtype(dtype)


RANDOM_SHAPE = (100, NS // 100)
RANDOM_PARAMS = {
    "uniform": [{"low": -1.0, "high": 3.0}, {}],
    "normal": [{"loc": 1.5, "scale": 2.0}, {}],
    "gamma": [{"alpha": 2.5, "beta": 0.8}, {"alpha": 0.5, "beta": 2.0}],
    "exponential": [{"lam": 2.0}],
    "poisson": [{"lam": 4.0}, {"lam": 30.0}, {"lam": 0.5}],
    "negative_binomial": [{"k": 3, "p": 0.4}, {"k": 1, "p": 0.8}],
    "generalized_negative_binomial": [{"mu": 2.0, "alpha": 0.3}, {"mu": 3.0, "alpha": 0.0}],
}
RANDOM = []
for _dist, _plist in RANDOM_PARAMS.items():
    for _i, _p in enumerate(_plist):
        _name = "_".join("%s%s" % kv for kv in _p.items()) or "defaults"
        RANDOM.append(Case("_random_" + _dist, _name, [], dict(_p, shape=RANDOM_SHAPE, dtype=ROW_DTYPE),
                           check=random_check(_dist, RANDOM_SHAPE)))
        if _i == 0:
            for _d in ("float32", "float64"):
                RANDOM.append(Case("_random_%s_like" % _dist, _name, [np.zeros(RANDOM_SHAPE)], _p,
                                   check=random_like_check(_dist, _d), dtypes=(_d,)))
RANDOM += [
    Case("_random_uniform", "default_dtype_float32", [], {"low": 0.0, "high": 2.0, "shape": RANDOM_SHAPE},
         check=random_check("uniform", RANDOM_SHAPE), dtypes=("float32",)),
    Case("_random_uniform", "float16", [], {"low": -2.0, "high": 1.0, "shape": RANDOM_SHAPE, "dtype": ROW_DTYPE},
         check=random_check("uniform", RANDOM_SHAPE), dtypes=("float16",)),
    Case("_random_normal", "float16", [], {"loc": -1.0, "scale": 0.5, "shape": RANDOM_SHAPE, "dtype": ROW_DTYPE},
         check=random_check("normal", RANDOM_SHAPE), dtypes=("float16",)),
    Case("_random_randint", "int32", [], {"low": -3, "high": 5, "shape": (NS,), "dtype": "int32"},
         check=randint_check, dtypes=("float32",)),
    Case("_random_randint", "int64", [], {"low": 10, "high": 13, "shape": (NS,), "dtype": "int64"},
         check=randint_check, dtypes=("float32",)),
    Case("_random_randint", "default_dtype_int32", [], {"low": 0, "high": 2, "shape": (NS,)},
         check=randint_check, dtypes=("float32",)),
]

SAMPLE_PARAMS = {
    "uniform": [np.array([0.0, -2.0]), np.array([1.0, 4.0])],
    "normal": [np.array([0.0, 3.0]), np.array([1.0, 0.5])],
    "gamma": [np.array([1.0, 3.0]), np.array([2.0, 0.5])],
    "exponential": [np.array([1.0, 4.0])],
    "poisson": [np.array([1.0, 10.0])],
    "negative_binomial": [np.array([2.0, 5.0]), np.array([0.25, 0.75])],
    "generalized_negative_binomial": [np.array([1.0, 4.0]), np.array([0.5, 0.125])],
}
SAMPLE = []
for _dist, _args in SAMPLE_PARAMS.items():
    SAMPLE.append(Case("_sample_" + _dist, "two_rows", _args, {"shape": (NS // 2,)},
                       check=sample_check(_dist, (NS // 2,))))
SAMPLE += [
    Case("_sample_uniform", "2d_params", [np.array([[0.0, 1.0], [2.0, -1.0]]), np.array([[0.5, 2.0], [6.0, 0.0]])],
         {"shape": (2500,)}, check=sample_check("uniform", (2500,))),
    Case("_sample_normal", "matrix_per_param", [np.array([-1.0, 1.0]), np.array([0.5, 2.0])], {"shape": (50, 100)},
         check=sample_check("normal", (50, 100))),
    Case("_sample_exponential", "float64_output", [np.array([0.5, 2.0])], {"shape": (5000,), "dtype": "float64"},
         check=sample_check("exponential", (5000,))),
]

P_MULTI = np.array([[0.1, 0.2, 0.3, 0.4], [0.5, 0.0, 0.25, 0.25]])


def multinomial_check(outs, ins, shape=(), get_prob=False, dtype="int32"):
    probs = ins[0] / ins[0].sum(-1, keepdims=True)
    x = outs[0]
    assert x.shape == ins[0].shape[:-1] + tuple(shape), x.shape
    integral(x, "multinomial")
    for r in range(probs.shape[0]):
        s = x[r].ravel().astype(np.int64)
        assert s.min() >= 0 and s.max() < probs.shape[1]
        n = s.size
        for c, pc in enumerate(probs[r]):
            count = np.sum(s == c)
            assert abs(count - n * pc) <= 5 * math.sqrt(n * pc * (1 - pc)) + 1e-9, (r, c, count, n * pc)
    if get_prob:
        lp = outs[1]
        rows = np.arange(probs.shape[0]).reshape((-1,) + (1,) * len(shape))
        want = np.log(ins[0][rows, x.astype(np.int64)])
        np.testing.assert_allclose(lp, want, rtol=1e-5, atol=1e-6)
        multinomial_log_prob_grad_check(ins[0], shape)


def multinomial_log_prob_grad_check(probs, shape):
    """The gradient through the log probabilities (REINFORCE): d sum(head * log p[draw]) / d p[r, j]
    = sum of head over the draws of row r that picked j, divided by p[r, j]."""
    data = mx.nd.array(probs, dtype="float64")
    data.attach_grad()
    with mx.autograd.record():
        draws, lp = op("_sample_multinomial")(data, shape=shape, get_prob=True)
    head = np.random.RandomState(5).uniform(0.5, 1.5, lp.shape)
    lp.backward(mx.nd.array(head, dtype="float64"))
    s = draws.asnumpy().astype(np.int64).reshape(probs.shape[0], -1)
    h = head.reshape(probs.shape[0], -1)
    want = np.zeros(probs.shape)
    for r in range(probs.shape[0]):
        np.add.at(want[r], s[r], h[r] / probs[r, s[r]])
    np.testing.assert_allclose(data.grad.asnumpy(), want, rtol=1e-9, atol=1e-12)


def shuffle_check(outs, ins, **_):
    x, y = ins[0], outs[0]
    assert y.shape == x.shape
    rows_x = sorted(map(tuple, x.reshape(x.shape[0], -1)))
    rows_y = sorted(map(tuple, y.reshape(y.shape[0], -1)))
    assert rows_x == rows_y, "the rows are not a permutation of the input rows"
    assert not np.array_equal(x, y), "identity permutation (probability 1/n!)"


SAMPLE += [
    Case("_sample_multinomial", "rows", [P_MULTI], {"shape": (NS // 2,)}, check=multinomial_check),
    Case("_sample_multinomial", "get_prob", [P_MULTI], {"shape": (40, 100), "get_prob": True},
         check=multinomial_check, outputs=2),
    # the draws themselves carry no gradient (only the log probabilities do, checked above)
    Case("_sample_multinomial", "draws_have_zero_gradient", [P_MULTI], {"shape": (6,), "get_prob": True},
         check=multinomial_check, outputs=2, grad=(0,), grad_ref=lambda ins, head, **p: [np.zeros_like(ins[0])]),
    Case("_sample_multinomial", "trailing_zero", [np.array([[0.75, 0.25, 0.0]])], {"shape": (4000,)},
         check=multinomial_check),
    Case("_shuffle", "rows", [np.arange(60 * 3, dtype=np.float64).reshape(60, 3)], {}, check=shuffle_check),
    Case("_shuffle", "1d", [np.arange(500, dtype=np.float64)], {}, check=shuffle_check),
    Case("shuffle", "alias_3d", [np.arange(40 * 2 * 2, dtype=np.float64).reshape(40, 2, 2)], {},
         check=shuffle_check),
]

# --------------------------------------------------------------------------------------------
# Optimizer updates: MXNet 1.x's rules in float64. Each rule returns (new weight, then the new
# value of every mutated state in input order). clip(x, c) with c < 0 means no clipping. The
# scalar hyper-parameters (lr, wd, momentum, betas, ...) are float32 parameters in MXNet 1.x: the
# rules see them rounded to float32, the arithmetic is float64.


def float32_params(rule):
    def f32(v):
        if isinstance(v, float):
            return float(np.float32(v))
        if isinstance(v, (tuple, list)) and all(isinstance(e, float) for e in v):
            return type(v)(float(np.float32(e)) for e in v)
        return v

    defaults = {k: v.default for k, v in inspect.signature(rule).parameters.items()
                if v.default is not inspect.Parameter.empty}

    def wrapped(*arrays, **p):
        return rule(*arrays, **{k: f32(v) for k, v in dict(defaults, **p).items()})
    return wrapped


def clip(g, c):
    return np.clip(g, -c, c) if c >= 0 else g


@float32_params
def sgd_rule(w, g, lr, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0, lazy_update=True):
    return ((1 - lr * wd) * w - lr * clip(rescale_grad * g, clip_gradient),)


@float32_params
def sgd_mom_rule(w, g, mom, lr, momentum=0.0, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0, lazy_update=True):
    mom = momentum * mom - lr * wd * w - lr * clip(rescale_grad * g, clip_gradient)
    return w + mom, mom


@float32_params
def nag_rule(w, g, mom, lr, momentum=0.0, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0):
    """MXNet 1.x's NAG: the momentum state holds the lr-scaled step (mom = momentum*mom - lr*g')."""
    gg = clip(rescale_grad * g, clip_gradient) + wd * w
    m1 = momentum * mom
    return w - m1 + (momentum + 1) * (m1 - lr * gg), m1 - lr * gg


def mp_sgd_rule(w, g, w32, **p):
    (new,) = sgd_rule(w32, g, **p)
    return new, new


def mp_sgd_mom_rule(w, g, mom, w32, **p):
    new, mom = sgd_mom_rule(w32, g, mom, **p)
    return new, mom, new


def mp_nag_rule(w, g, mom, w32, **p):
    """MXNet 1.9.1's mp kernel updates the momentum after the master weight, so the momentum's
    weight-decay term sees the new master weight (nag_rule run again from it gives that term)."""
    new, _ = nag_rule(w32, g, mom, **p)
    _, mom = nag_rule(new, g, mom, **p)
    return new, mom, new


def multi_rule(single, group):
    def rule(*arrays, lrs, wds, num_weights, momentum=None, **p):
        if momentum is not None:
            p["momentum"] = momentum
        out = []
        for i in range(num_weights):
            out.append(single(*arrays[i * group:(i + 1) * group], lr=lrs[i], wd=wds[i], **p)[0])
        return out
    return rule


@float32_params
def adam_rule(w, g, mean, var, lr, beta1=0.9, beta2=0.999, epsilon=1e-8, wd=0.0, rescale_grad=1.0,
              clip_gradient=-1.0, lazy_update=True):
    gg = clip(rescale_grad * g + wd * w, clip_gradient)
    mean = beta1 * mean + (1 - beta1) * gg
    var = beta2 * var + (1 - beta2) * gg * gg
    return w - lr * mean / (np.sqrt(var) + epsilon), mean, var


@float32_params
def adamw_rule(w, g, mean, var, rescale_grad, lr, eta, beta1=0.9, beta2=0.999, epsilon=1e-8, wd=0.0,
               clip_gradient=-1.0):
    scale = float(np.asarray(rescale_grad).ravel()[0])  # an input array, not a float32 parameter
    if not np.isfinite(scale) or scale == 0:  # a loss-scaler overflow: the step is skipped
        return w, mean, var
    gg = clip(scale * g, clip_gradient)
    mean = beta1 * mean + (1 - beta1) * gg
    var = beta2 * var + (1 - beta2) * gg * gg
    return w - eta * (lr * mean / (np.sqrt(var) + epsilon) + wd * w), mean, var


def mp_adamw_rule(w, g, mean, var, w32, rescale_grad, **p):
    new, mean, var = adamw_rule(w32, g, mean, var, rescale_grad, **p)
    return new, mean, var, new


@float32_params
def rmsprop_rule(w, g, n, lr, gamma1=0.95, epsilon=1e-8, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0,
                 clip_weights=-1.0):
    gg = clip(rescale_grad * g + wd * w, clip_gradient)
    n = (1 - gamma1) * gg * gg + gamma1 * n
    return clip(w - lr * gg / np.sqrt(n + epsilon), clip_weights), n


@float32_params
def rmspropalex_rule(w, g, n, gm, delta, lr, gamma1=0.95, gamma2=0.9, epsilon=1e-8, wd=0.0, rescale_grad=1.0,
                     clip_gradient=-1.0, clip_weights=-1.0):
    gg = clip(rescale_grad * g + wd * w, clip_gradient)
    n = (1 - gamma1) * gg * gg + gamma1 * n
    gm = (1 - gamma1) * gg + gamma1 * gm
    delta = gamma2 * delta - lr * gg / np.sqrt(n - gm * gm + epsilon)
    return clip(w + delta, clip_weights), n, gm, delta


@float32_params
def ftrl_rule(w, g, z, n, lr, lamda1=0.01, beta=1.0, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0):
    gg = clip(rescale_grad * g, clip_gradient)
    z = z + gg - (np.sqrt(n + gg * gg) - np.sqrt(n)) * w / lr
    n = n + gg * gg
    w = np.where(np.abs(z) > lamda1, (np.sign(z) * lamda1 - z) / ((beta + np.sqrt(n)) / lr + wd), 0.0)
    return w, z, n


@float32_params
def signsgd_rule(w, g, lr, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0):
    return ((1 - lr * wd) * w - lr * np.sign(g),)


@float32_params
def signum_rule(w, g, mom, lr, momentum=0.0, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0, wd_lh=0.0):
    mom = momentum * mom - (1 - momentum) * wd * w - (1 - momentum) * clip(rescale_grad * g, clip_gradient)
    return (1 - lr * wd_lh) * w + lr * np.sign(mom), mom


@float32_params
def lamb1_rule(w, g, mean, var, t, wd, beta1=0.9, beta2=0.999, epsilon=1e-6, bias_correction=True,
               rescale_grad=1.0, clip_gradient=-1.0):
    gg = clip(rescale_grad * g, clip_gradient)
    mean = beta1 * mean + (1 - beta1) * gg
    var = beta2 * var + (1 - beta2) * gg * gg
    mh, vh = (mean / (1 - beta1 ** t), var / (1 - beta2 ** t)) if bias_correction else (mean, var)
    return mh / (np.sqrt(vh) + epsilon) + wd * w, mean, var


@float32_params
def lamb2_rule(w, g, r1, r2, lr, lower_bound=-1.0, upper_bound=-1.0):
    r1, r2 = float(r1.ravel()[0]), float(r2.ravel()[0])
    if lower_bound > 0:
        r1 = max(r1, lower_bound)
    if upper_bound > 0:
        r1 = min(r1, upper_bound)
    ratio = 1.0 if r1 == 0 or r2 == 0 else r1 / r2
    return (w - lr * ratio * g,)


def first(rule):
    return lambda *a, **p: rule(*a, **p)[0]


def states_check(op_name, rule, mutated, dtype, f32=()):
    """Runs the op on fresh arrays of the row's dtype and compares the weight it returns and the
    states it mutated (input indices `mutated`, in the rule's order) with the numpy rule."""
    def check(outs, ins, **p):
        dts = ["float32" if (dtype in HALF and i in f32) else dtype for i in range(len(ins))]
        arrays = [mx.nd.array(a, dtype=d) for a, d in zip(ins, dts)]
        before = [a.asnumpy().astype(np.float64) for a in arrays]
        res = op(op_name)(*arrays, **p)
        res = res[0] if isinstance(res, (list, tuple)) else res
        want = rule(*before, **p)
        rtol, atol = FWD_TOL[dtype]
        np.testing.assert_allclose(res.asnumpy().astype(np.float64), want[0], rtol=rtol, atol=atol,
                                   err_msg="%s weight" % op_name)
        for k, i in enumerate(mutated):
            rtol, atol = FWD_TOL[dts[i]]
            np.testing.assert_allclose(arrays[i].asnumpy().astype(np.float64), want[k + 1], rtol=rtol, atol=atol,
                                       err_msg="%s state input %d" % (op_name, i))
    return check


def W(*shape):
    return uni(*shape, lo=-2.0, hi=2.0)


def G(*shape):
    """Gradients at least 0.05 away from 0 (sign-based rules stay well defined)."""
    r = uni(*shape)
    return np.sign(r) * (0.05 + np.abs(r))


def POS(*shape, lo=0.1, hi=1.0):
    return uni(*shape, lo=lo, hi=hi)


SH = (3, 4)
OPTIM_SPECS = [
    # (op, name, inputs, params, rule, mutated state indices, f32 inputs, dtypes)
    ("sgd_update", "plain", [W(*SH), G(*SH)], {"lr": 0.1}, sgd_rule, (), (), None),
    ("sgd_update", "wd_rescale_clip", [W(*SH), G(*SH) * 3], {"lr": 0.05, "wd": 0.1, "rescale_grad": 0.5,
                                                             "clip_gradient": 0.4}, sgd_rule, (), (), None),
    ("sgd_mom_update", "momentum_wd", [W(*SH), G(*SH), uni(*SH)], {"lr": 0.1, "momentum": 0.9, "wd": 0.01},
     sgd_mom_rule, (2,), (), None),
    ("sgd_mom_update", "clip", [W(*SH), G(*SH) * 4, uni(*SH)],
     {"lr": 0.2, "momentum": 0.5, "rescale_grad": 2.0, "clip_gradient": 1.0}, sgd_mom_rule, (2,), (), None),
    ("mp_sgd_update", "fp16_master", [W(*SH), G(*SH), W(*SH)], {"lr": 0.1, "wd": 0.05}, mp_sgd_rule, (2,), (2,),
     ("float16", "float32")),
    ("mp_sgd_mom_update", "fp16_master", [W(*SH), G(*SH), uni(*SH), W(*SH)],
     {"lr": 0.1, "momentum": 0.9, "wd": 0.01, "clip_gradient": 0.5}, mp_sgd_mom_rule, (2, 3), (2, 3),
     ("float16", "float32")),
    ("nag_mom_update", "momentum_wd", [W(*SH), G(*SH), uni(*SH)], {"lr": 0.1, "momentum": 0.9, "wd": 0.01},
     nag_rule, (2,), (), None),
    ("nag_mom_update", "rescale_clip", [W(*SH), G(*SH) * 3, uni(*SH)],
     {"lr": 0.05, "momentum": 0.8, "rescale_grad": 0.5, "clip_gradient": 0.6, "wd": 0.1}, nag_rule, (2,), (), None),
    ("mp_nag_mom_update", "fp16_master", [W(*SH), G(*SH), uni(*SH), W(*SH)],
     {"lr": 0.1, "momentum": 0.9, "wd": 0.01}, mp_nag_rule, (2, 3), (2, 3), ("float16", "float32")),
    ("adam_update", "defaults", [W(*SH), G(*SH), uni(*SH) * 0.1, POS(*SH) * 0.1], {"lr": 0.01}, adam_rule, (2, 3),
     (), None),
    ("adam_update", "wd_rescale_clip", [W(*SH), G(*SH) * 3, uni(*SH) * 0.1, POS(*SH) * 0.1],
     {"lr": 0.05, "beta1": 0.8, "beta2": 0.99, "epsilon": 1e-4, "wd": 0.1, "rescale_grad": 0.5,
      "clip_gradient": 0.7}, adam_rule, (2, 3), (), None),
    ("_adamw_update", "basic", [W(*SH), G(*SH), uni(*SH) * 0.1, POS(*SH) * 0.1, np.array([0.5])],
     {"lr": 0.01, "eta": 0.5, "wd": 0.1}, adamw_rule, (2, 3), (), None),
    ("_adamw_update", "clip", [W(*SH), G(*SH) * 3, uni(*SH) * 0.1, POS(*SH) * 0.1, np.array([2.0])],
     {"lr": 0.02, "eta": 1.0, "wd": 0.01, "beta1": 0.7, "beta2": 0.9, "epsilon": 1e-5, "clip_gradient": 1.5},
     adamw_rule, (2, 3), (), None),
    ("_adamw_update", "nan_scale_skips", [W(*SH), G(*SH), uni(*SH) * 0.1, POS(*SH) * 0.1, np.array([np.nan])],
     {"lr": 0.01, "eta": 1.0, "wd": 0.1}, adamw_rule, (2, 3), (), None),
    # MXNet 1.x takes rescale_grad as float32 whatever the weight's dtype
    ("_adamw_update", "float32_scale", [W(*SH), G(*SH), uni(*SH) * 0.1, POS(*SH) * 0.1,
                                        mx.nd.array([0.25], dtype="float32")],
     {"lr": 0.01, "eta": 1.0, "wd": 0.1}, adamw_rule, (), (), ("float64", "float32")),
    ("_contrib_adamw_update", "alias", [W(*SH), G(*SH), uni(*SH) * 0.1, POS(*SH) * 0.1, np.array([1.0])],
     {"lr": 0.01, "eta": 1.0}, adamw_rule, (2, 3), (), None),
    ("_mp_adamw_update", "fp16_master", [W(*SH), G(*SH), uni(*SH) * 0.1, POS(*SH) * 0.1, W(*SH), np.array([0.5])],
     {"lr": 0.01, "eta": 0.5, "wd": 0.1}, mp_adamw_rule, (2, 3, 4), (2, 3, 4, 5), ("float16", "float32")),
    ("_contrib_mp_adamw_update", "alias",
     [W(*SH), G(*SH), uni(*SH) * 0.1, POS(*SH) * 0.1, W(*SH), np.array([1.0])],
     {"lr": 0.01, "eta": 1.0, "wd": 0.05}, mp_adamw_rule, (2, 3, 4), (2, 3, 4, 5), ("float16",)),
    ("rmsprop_update", "defaults", [W(*SH), G(*SH), POS(*SH)], {"lr": 0.01}, rmsprop_rule, (2,), (), None),
    ("rmsprop_update", "wd_clip_weights", [W(*SH), G(*SH) * 3, POS(*SH)],
     {"lr": 0.5, "gamma1": 0.9, "epsilon": 1e-3, "wd": 0.1, "rescale_grad": 0.5, "clip_gradient": 1.0,
      "clip_weights": 1.5}, rmsprop_rule, (2,), (), None),
    ("rmspropalex_update", "defaults", [W(*SH), G(*SH), POS(*SH, lo=1.0, hi=2.0), uni(*SH) * 0.3, uni(*SH) * 0.1],
     {"lr": 0.01}, rmspropalex_rule, (2, 3, 4), (), None),
    ("rmspropalex_update", "wd_clip", [W(*SH), G(*SH) * 3, POS(*SH, lo=1.0, hi=2.0), uni(*SH) * 0.3,
                                       uni(*SH) * 0.1],
     {"lr": 0.3, "gamma1": 0.9, "gamma2": 0.8, "epsilon": 1e-4, "wd": 0.05, "rescale_grad": 0.5,
      "clip_gradient": 1.0, "clip_weights": 1.2}, rmspropalex_rule, (2, 3, 4), (), None),
    ("ftrl_update", "defaults", [W(*SH), G(*SH), uni(*SH), POS(*SH)], {"lr": 0.1}, ftrl_rule, (2, 3), (), None),
    ("ftrl_update", "l1_wd_clip", [W(*SH), G(*SH) * 3, uni(*SH), POS(*SH)],
     {"lr": 0.2, "lamda1": 0.3, "beta": 0.5, "wd": 0.1, "rescale_grad": 0.5, "clip_gradient": 1.0}, ftrl_rule,
     (2, 3), (), None),
    ("signsgd_update", "wd", [W(*SH), G(*SH)], {"lr": 0.1, "wd": 0.1}, signsgd_rule, (), (), None),
    # rescaling by a positive factor and clipping never change a sign
    ("signsgd_update", "rescale_clip", [W(*SH), G(*SH)], {"lr": 0.05, "rescale_grad": 3.0, "clip_gradient": 0.01},
     signsgd_rule, (), (), None),
    ("signum_update", "momentum_wd_lh", [W(*SH), G(*SH), uni(*SH)],
     {"lr": 0.1, "momentum": 0.9, "wd": 0.1, "wd_lh": 0.01}, signum_rule, (2,), (), None),
    ("signum_update", "no_momentum_clip", [W(*SH), G(*SH) * 3, uni(*SH)],
     {"lr": 0.1, "rescale_grad": 0.5, "clip_gradient": 0.5}, signum_rule, (2,), (), None),
    ("lamb_update_phase1", "bias_correction", [W(*SH), G(*SH), uni(*SH) * 0.1, POS(*SH) * 0.1],
     {"t": 3, "wd": 0.01}, lamb1_rule, (2, 3), (), None),
    ("lamb_update_phase1", "no_bias_correction_clip", [W(*SH), G(*SH) * 3, uni(*SH) * 0.1, POS(*SH) * 0.1],
     {"t": 1, "wd": 0.1, "beta1": 0.8, "beta2": 0.9, "epsilon": 1e-4, "bias_correction": False,
      "rescale_grad": 0.5, "clip_gradient": 1.0}, lamb1_rule, (2, 3), (), None),
    ("lamb_update_phase2", "ratio", [W(*SH), G(*SH), np.array([2.0]), np.array([0.5])], {"lr": 0.01},
     lamb2_rule, (), (), None),
    ("lamb_update_phase2", "bounds", [W(*SH), G(*SH), np.array([5.0]), np.array([0.5])],
     {"lr": 0.01, "lower_bound": 0.5, "upper_bound": 3.0}, lamb2_rule, (), (), None),
    ("lamb_update_phase2", "zero_norm_ratio_1", [W(*SH), G(*SH), np.array([0.0]), np.array([0.5])], {"lr": 0.01},
     lamb2_rule, (), (), None),
]

OPTIM = []
for _op, _name, _inputs, _params, _rule, _mut, _f32, _dtypes in OPTIM_SPECS:
    _dts = _dtypes or ("float32", "float64")
    OPTIM.append(Case(_op, _name, _inputs, _params, first(_rule), grad=(), f32_inputs=_f32, dtypes=_dts))
    if _mut:
        for _d in _dts:
            OPTIM.append(Case(_op, "%s-states" % _name, _inputs, _params,
                              check=states_check(_op, _rule, _mut, _d, _f32), f32_inputs=_f32, dtypes=(_d,)))

MW = [W(2, 3), G(2, 3), W(4), G(4)]
MWM = [W(2, 3), G(2, 3), uni(2, 3), W(4), G(4), uni(4)]
MWP = [W(2, 3), G(2, 3), W(2, 3), W(4), G(4), W(4)]
MWMP = [W(2, 3), G(2, 3), uni(2, 3), W(2, 3), W(4), G(4), uni(4), W(4)]
OPTIM += [
    Case("multi_sgd_update", "two_weights", MW, {"lrs": (0.1, 0.2), "wds": (0.01, 0.0), "num_weights": 2,
                                                 "rescale_grad": 0.5, "clip_gradient": 0.3},
         multi_rule(sgd_rule, 2), grad=(), outputs=2),
    Case("multi_sgd_mom_update", "two_weights", MWM, {"lrs": (0.1, 0.05), "wds": (0.0, 0.1), "momentum": 0.9,
                                                      "num_weights": 2},
         multi_rule(sgd_mom_rule, 3), grad=(), outputs=2),
    Case("multi_mp_sgd_update", "two_weights", MWP, {"lrs": (0.1, 0.2), "wds": (0.01, 0.02), "num_weights": 2},
         multi_rule(mp_sgd_rule, 3), grad=(), outputs=2, f32_inputs=(2, 5), dtypes=("float16", "float32")),
    Case("multi_mp_sgd_mom_update", "two_weights", MWMP,
         {"lrs": (0.1, 0.2), "wds": (0.01, 0.0), "momentum": 0.5, "num_weights": 2, "clip_gradient": 0.8},
         multi_rule(mp_sgd_mom_rule, 4), grad=(), outputs=2, f32_inputs=(2, 3, 6, 7),
         dtypes=("float16", "float32")),
    Case("multi_sgd_update", "one_weight", [W(5), G(5)], {"lrs": (0.3,), "wds": (0.1,), "num_weights": 1},
         multi_rule(sgd_rule, 2), grad=()),
]


def multi_states_check(op_name, single, group, mutated, dtype, f32=()):
    """Mutated states of a multi-tensor update: every weight's states follow the single rule."""
    def rule(*arrays, lrs, wds, num_weights, momentum=None, **p):
        if momentum is not None:
            p["momentum"] = momentum
        res = [single(*arrays[i * group:(i + 1) * group], lr=lrs[i], wd=wds[i], **p) for i in range(num_weights)]
        return [res[0][0]] + [r[1 + k] for r in res for k in range(len(mutated))]
    all_mutated = tuple(i * group + m for i in range(2) for m in mutated)
    return states_check(op_name, rule, all_mutated, dtype, f32)


for _d in ("float32", "float64"):
    OPTIM.append(Case("multi_sgd_mom_update", "states", MWM,
                      {"lrs": (0.1, 0.05), "wds": (0.0, 0.1), "momentum": 0.9, "num_weights": 2},
                      check=multi_states_check("multi_sgd_mom_update", sgd_mom_rule, 3, (2,), _d), dtypes=(_d,)))
for _d in ("float16", "float32"):
    OPTIM.append(Case("multi_mp_sgd_update", "states", MWP,
                      {"lrs": (0.1, 0.2), "wds": (0.01, 0.02), "num_weights": 2},
                      check=multi_states_check("multi_mp_sgd_update", mp_sgd_rule, 3, (2,), _d, (2, 5)),
                      f32_inputs=(2, 5), dtypes=(_d,)))
    OPTIM.append(Case("multi_mp_sgd_mom_update", "states", MWMP,
                      {"lrs": (0.1, 0.2), "wds": (0.01, 0.0), "momentum": 0.5, "num_weights": 2,
                       "clip_gradient": 0.8},
                      check=multi_states_check("multi_mp_sgd_mom_update", mp_sgd_mom_rule, 4, (2, 3), _d,
                                               (2, 3, 6, 7)),
                      f32_inputs=(2, 3, 6, 7), dtypes=(_d,)))

# --------------------------------------------------------------------------------------------
# Image operators (HWC images / NHWC batches unless noted)

IMG = R.uniform(0, 255, (4, 5, 3))
IMGS = R.uniform(0, 255, (2, 4, 5, 3))
IMG_U8 = R.randint(0, 256, (4, 5, 3)).astype(np.uint8)
LUMA = np.array([0.299, 0.587, 0.114])
EIGVAL = np.array([55.46, 4.794, 1.148])
EIGVEC = np.array([[-0.5675, 0.7192, 0.4009], [-0.5808, -0.0045, -0.8140], [-0.5836, -0.6948, 0.4203]])


def to_tensor_ref(x):
    x = np.asarray(x, np.float64) / 255.0
    return x.transpose(2, 0, 1) if x.ndim == 3 else x.transpose(0, 3, 1, 2)


def normalize_ref(x, mean=(0.0,), std=(1.0,)):
    c = x.shape[-3]
    m = np.broadcast_to(np.asarray(mean, np.float64), (c,)).reshape(c, 1, 1)
    s = np.broadcast_to(np.asarray(std, np.float64), (c,)).reshape(c, 1, 1)
    return (x - m) / s


def crop_ref(x, x0, y0, width, height):
    if x.ndim == 3:
        return x[y0:y0 + height, x0:x0 + width]
    return x[:, y0:y0 + height, x0:x0 + width]


def resize_coords(o, n, nearest):
    """OpenCV's source coordinates for output index 0..o-1 over n input pixels: nearest takes
    floor(i * n / o); linear samples at (i + 0.5) * n / o - 0.5, clamped to the edge pixels."""
    if nearest:
        i0 = np.minimum(np.floor(np.arange(o) * n / o).astype(np.int64), n - 1)
        return i0, i0, np.zeros(o)
    s = (np.arange(o) + 0.5) * n / o - 0.5
    i0 = np.floor(s).astype(np.int64)
    f = s - i0
    f = np.where(i0 < 0, 0.0, f)
    i0 = np.maximum(i0, 0)
    f = np.where(i0 >= n - 1, 0.0, f)
    i0 = np.minimum(i0, n - 1)
    return i0, np.minimum(i0 + 1, n - 1), f


def resize_hwc(img, oh, ow, nearest):
    img = np.asarray(img, np.float64)
    y0, y1, fy = resize_coords(oh, img.shape[0], nearest)
    x0, x1, fx = resize_coords(ow, img.shape[1], nearest)
    rows = img[y0] * (1 - fy)[:, None, None] + img[y1] * fy[:, None, None]
    return rows[:, x0] * (1 - fx)[None, :, None] + rows[:, x1] * fx[None, :, None]


def image_resize_ref(x, size, keep_ratio=False, interp=1):
    h, w = x.shape[-3], x.shape[-2]
    if len(size) == 2:
        ow, oh = size
    elif keep_ratio:
        s = size[0]
        oh, ow = (s, w * s // h) if h < w else (h * s // w, s)
    else:
        oh = ow = size[0]
    if x.ndim == 3:
        return resize_hwc(x, oh, ow, interp == 0)
    return np.stack([resize_hwc(i, oh, ow, interp == 0) for i in x])


def cvimresize_ref(x, w, h, interp=1):
    return resize_hwc(x, h, w, interp == 0)


def border_ref(x, top, bot, left, right, type=0, value=0.0, values=()):
    pw = ((top, bot), (left, right))
    if type == 0:
        fill = list(values) + [value] * (x.shape[2] - len(values)) if values else [value] * x.shape[2]
        return np.stack([np.pad(x[..., c], pw, mode="constant", constant_values=fill[c])
                         for c in range(x.shape[2])], -1)
    mode = {1: "edge", 2: "symmetric", 3: "wrap", 4: "reflect"}[type]
    return np.pad(x, pw + ((0, 0),), mode=mode)


def per_image(fn):
    """Applies fn(HWC image) to each image of an HWC image or NHWC batch."""
    def ref(x, **p):
        return fn(x, **p) if x.ndim == 3 else np.stack([fn(i, **p) for i in x])
    return ref


def brightness_ref(x, min_factor, max_factor):
    return x * min_factor


def contrast_img(x, min_factor, max_factor):
    f = min_factor
    gray_mean = (x @ LUMA).mean()
    return x * f + gray_mean * (1 - f)


def saturation_img(x, min_factor, max_factor):
    f = min_factor
    gray = (x @ LUMA)[..., None]
    return x * f + gray * (1 - f)


def hue_img(x, min_factor, max_factor):
    """Rotates each pixel's hue by min_factor turns in HLS space (colorsys, float64)."""
    out = np.empty_like(x)
    for idx in np.ndindex(*x.shape[:-1]):
        h, l, s = colorsys.rgb_to_hls(*(x[idx] / 255.0))
        out[idx] = np.array(colorsys.hls_to_rgb((h + min_factor) % 1.0, l, s)) * 255.0
    return out


def lighting_shift(alpha):
    return EIGVEC @ (np.asarray(alpha, np.float64) * EIGVAL)


def adjust_lighting_ref(x, alpha):
    return x + lighting_shift(alpha)


def u8_saturate_trunc(v):
    return np.trunc(np.clip(v, 0, 255)).astype(np.uint8)


def image_flip_check(axis_hw):
    """Each image of the batch is either unchanged or mirrored; about half are mirrored."""
    def check(outs, ins, **_):
        x, y = ins[0], outs[0]
        assert y.shape == x.shape
        if x.ndim == 3:
            x, y = x[None], y[None]
        flipped = 0
        for a, b in zip(x, y):
            if np.array_equal(a, b):
                continue
            assert np.array_equal(np.flip(a, axis_hw), b), "an image is neither kept nor mirrored"
            flipped += 1
        n = x.shape[0]
        if n > 1:
            assert abs(flipped - n / 2) <= 5 * math.sqrt(n / 4), (flipped, n)
    return check


def factor_check(lo, hi, blend):
    """Each image is blend(image, f) for one f in [lo, hi]; the f's are about uniform."""
    def check(outs, ins, **_):
        x, y = ins[0], outs[0]
        fs = []
        for a, b in zip(x, y):
            # blend is affine in f: b = blend(a, 0) + f * (blend(a, 1) - blend(a, 0))
            b0, b1 = blend(a, 0.0), blend(a, 1.0)
            d = (b1 - b0).ravel()
            f = float(np.dot((b - b0).ravel(), d) / np.dot(d, d))
            np.testing.assert_allclose(b, blend(a, f), rtol=1e-4, atol=1e-3)
            assert lo - 1e-5 <= f <= hi + 1e-5, (f, lo, hi)
            fs.append(f)
        if hi > lo and len(fs) > 1:
            within_5se(np.array(fs), *m_uniform(lo, hi), what="factors")
    return check


def hue_preserving_check(outs, ins, **_):
    """A hue rotation keeps every pixel's HLS lightness (max + min) and chroma (max - min)."""
    x, y = ins[0], outs[0]
    assert y.shape == x.shape
    np.testing.assert_allclose(y.max(-1) + y.min(-1), x.max(-1) + x.min(-1), rtol=1e-4, atol=1e-2)
    np.testing.assert_allclose(y.max(-1) - y.min(-1), x.max(-1) - x.min(-1), rtol=1e-4, atol=1e-2)
    assert not np.allclose(x, y), "no image changed"


def random_lighting_check(outs, ins, alpha_std=0.05):
    """Each image is shifted by a constant RGB vector E @ (alpha * eigval); the recovered alphas
    are N(0, alpha_std) draws."""
    x, y = ins[0], outs[0]
    shifts = (y - x).reshape(x.shape[0], -1, 3)
    np.testing.assert_allclose(shifts, np.broadcast_to(shifts[:, :1], shifts.shape), rtol=1e-4, atol=1e-3)
    alphas = np.linalg.solve(EIGVEC * EIGVAL, shifts[:, 0].T).T
    within_5se(alphas, 0.0, alpha_std ** 2, 3 * alpha_std ** 4, what="lighting alphas")


BATCH = R.uniform(1, 255, (200, 3, 4, 3))


def jitter(**amounts):
    """_image_random_color_jitter's parameters (MXNet 1.x requires all four)."""
    return dict(dict(brightness=0.0, contrast=0.0, saturation=0.0, hue=0.0), **amounts)

IMAGE = [
    Case("_image_to_tensor", "uint8", [IMG_U8], {}, to_tensor_ref, grad=(), dtypes=("float32",)),
    Case("_image_to_tensor", "float_batch", [IMGS], {}, to_tensor_ref, grad=(), dtypes=("float32",)),
    Case("_image_normalize", "per_channel", [uni(3, 4, 5)], {"mean": (0.5, 0.25, -1.0), "std": (0.5, 2.0, 4.0)},
         normalize_ref),
    Case("_image_normalize", "batch_one_value", [uni(2, 3, 2, 2)], {"mean": (0.5,), "std": (0.25,)}, normalize_ref),
    Case("_image_normalize", "defaults", [uni(4, 2, 3)], {}, normalize_ref),
    Case("_image_flip_left_right", "image", [uni(4, 5, 3)], {}, lambda x: x[:, ::-1]),
    Case("_image_flip_left_right", "batch", [uni(2, 4, 5, 3)], {}, lambda x: x[:, :, ::-1]),
    Case("_image_flip_top_bottom", "image", [uni(4, 5, 3)], {}, lambda x: x[::-1]),
    Case("_image_flip_top_bottom", "batch_uint8", [R.randint(0, 256, (2, 3, 2, 1)).astype(np.uint8)], {},
         lambda x: x[:, ::-1], grad=()),
    Case("_image_random_flip_left_right", "batch", [BATCH], {}, check=image_flip_check(1)),
    Case("_image_random_flip_left_right", "image", [IMG], {}, check=image_flip_check(1)),
    Case("_image_random_flip_top_bottom", "batch", [BATCH], {}, check=image_flip_check(0)),
    Case("_image_crop", "image", [IMG], {"x": 1, "y": 2, "width": 3, "height": 2},
         lambda a, x, y, width, height: crop_ref(a, x, y, width, height), grad=()),
    Case("_image_crop", "batch_uint8", [R.randint(0, 256, (2, 4, 5, 3)).astype(np.uint8)],
         {"x": 0, "y": 1, "width": 5, "height": 3},
         lambda a, x, y, width, height: crop_ref(a, x, y, width, height), grad=()),
    # OpenCV's linear resize keeps its interpolation weights in float32 whatever the dtype (MXNet 1.x
    # resizes through OpenCV too), so float64 results carry float32-weight rounding.
    Case("_image_resize", "bilinear_wh", [uni(4, 6, 2, lo=0, hi=1)], {"size": (5, 3)}, image_resize_ref, grad=(),
         fwd_tol={"float64": (1e-6, 1e-7)}),
    Case("_image_resize", "bilinear_upscale_batch", [uni(2, 2, 3, 3, lo=0, hi=1)], {"size": (5, 4), "interp": 1},
         image_resize_ref, grad=(), fwd_tol={"float64": (1e-6, 1e-7)}),
    Case("_image_resize", "nearest", [uni(4, 6, 3)], {"size": (4, 7), "interp": 0}, image_resize_ref, grad=()),
    Case("_image_resize", "nearest_uint8", [IMG_U8], {"size": (3, 6), "interp": 0}, image_resize_ref, grad=()),
    Case("_image_resize", "square_size", [uni(4, 6, 1, lo=0, hi=1)], {"size": (3,), "interp": 0},
         image_resize_ref, grad=()),
    Case("_image_resize", "keep_ratio", [uni(4, 6, 1, lo=0, hi=1)], {"size": (3,), "keep_ratio": True,
                                                                     "interp": 0}, image_resize_ref, grad=()),
    Case("_cvimresize", "bilinear", [uni(4, 6, 3, lo=0, hi=1)], {"w": 4, "h": 7}, cvimresize_ref, grad=(),
         fwd_tol={"float64": (1e-6, 1e-7)}),
    Case("_cvimresize", "nearest_uint8", [IMG_U8], {"w": 7, "h": 2, "interp": 0}, cvimresize_ref, grad=()),
    Case("_cvcopyMakeBorder", "constant", [uni(3, 4, 2)], {"top": 1, "bot": 2, "left": 2, "right": 1,
                                                           "value": 7.0}, border_ref, grad=()),
    Case("_cvcopyMakeBorder", "constant_per_channel", [uni(3, 4, 2)],
         {"top": 2, "bot": 0, "left": 1, "right": 1, "values": (1.5, -2.0)}, border_ref, grad=()),
    Case("_cvcopyMakeBorder", "replicate", [uni(3, 4, 2)], {"top": 1, "bot": 2, "left": 2, "right": 1, "type": 1},
         border_ref, grad=()),
    Case("_cvcopyMakeBorder", "reflect", [uni(3, 4, 2)], {"top": 1, "bot": 2, "left": 2, "right": 3, "type": 2},
         border_ref, grad=()),
    Case("_cvcopyMakeBorder", "wrap", [uni(3, 4, 1)], {"top": 2, "bot": 1, "left": 3, "right": 1, "type": 3},
         border_ref, grad=()),
    Case("_cvcopyMakeBorder", "reflect101", [IMG_U8], {"top": 1, "bot": 2, "left": 2, "right": 3, "type": 4},
         border_ref, grad=()),
    # fixed factors (min_factor == max_factor) make the random colour ops deterministic. The colour
    # ops work in float32 (as MXNet 1.x does, float64 images included): float32 rows for the
    # deterministic forms.
    Case("_image_random_brightness", "fixed", [IMGS], {"min_factor": 0.5, "max_factor": 0.5}, brightness_ref,
         grad=(), dtypes=("float32",)),
    Case("_image_random_brightness", "uint8_saturates", [IMG_U8], {"min_factor": 1.7, "max_factor": 1.7},
         lambda x, min_factor, max_factor: u8_saturate_trunc(x * 1.7), grad=()),
    Case("_image_random_brightness", "range", [BATCH], {"min_factor": 0.5, "max_factor": 1.5},
         check=factor_check(0.5, 1.5, lambda a, f: a * f)),
    Case("_image_random_contrast", "fixed", [IMGS], {"min_factor": 0.5, "max_factor": 0.5},
         per_image(contrast_img), grad=(), dtypes=("float32",)),
    Case("_image_random_contrast", "range", [BATCH], {"min_factor": 0.2, "max_factor": 1.8},
         check=factor_check(0.2, 1.8, lambda a, f: contrast_img(a, f, f))),
    Case("_image_random_saturation", "fixed", [IMGS], {"min_factor": 0.3, "max_factor": 0.3},
         per_image(saturation_img), grad=(), dtypes=("float32",)),
    Case("_image_random_saturation", "range", [BATCH], {"min_factor": 0.0, "max_factor": 2.0},
         check=factor_check(0.0, 2.0, lambda a, f: saturation_img(a, f, f))),
    # the hue work is float32 (as MXNet 1.x): float32 rows only
    Case("_image_random_hue", "quarter_turn", [IMGS], {"min_factor": 0.25, "max_factor": 0.25},
         per_image(hue_img), grad=(), dtypes=("float32",), fwd_tol={"float32": (1e-4, 1e-3)}),
    Case("_image_random_hue", "range", [BATCH], {"min_factor": 0.1, "max_factor": 0.9},
         check=hue_preserving_check, dtypes=("float32",)),
    Case("_image_random_color_jitter", "all_zero_is_identity", [IMGS], jitter(), lambda x, **_: x, grad=(),
         dtypes=("float32",)),
    Case("_image_random_color_jitter", "brightness_only", [BATCH], jitter(brightness=0.4),
         check=factor_check(0.6, 1.4, lambda a, f: a * f)),
    Case("_image_random_color_jitter", "saturation_only", [BATCH], jitter(saturation=0.5),
         check=factor_check(0.5, 1.5, lambda a, f: saturation_img(a, f, f))),
    Case("_image_random_color_jitter", "hue_only", [BATCH], jitter(hue=0.3), check=hue_preserving_check,
         dtypes=("float32",)),
    # the principal components are float32 constants (as MXNet 1.x): float32 rows only
    Case("_image_adjust_lighting", "image", [IMG], {"alpha": (0.1, -0.2, 0.05)}, adjust_lighting_ref, grad=(),
         dtypes=("float32",)),
    Case("_image_adjust_lighting", "batch", [IMGS], {"alpha": (-1.0, 0.5, 2.0)}, adjust_lighting_ref, grad=(),
         dtypes=("float32",)),
    Case("_image_random_lighting", "alphas", [BATCH], {"alpha_std": 0.2}, check=random_lighting_check,
         dtypes=("float32",)),
    Case("_image_random_lighting", "default_std", [BATCH], {}, check=random_lighting_check, dtypes=("float32",)),
]

# --------------------------------------------------------------------------------------------
# CSR operators: a CSR matrix as (data, indices, indptr) plus its dense shape

CSR_DENSE = np.array([[0.0, 1.5, 0.0, -2.0], [0.0, 0.0, 0.0, 0.0], [3.0, 0.0, 0.5, 0.0]])
CSR_DATA = np.array([1.5, -2.0, 3.0, 0.5])
CSR_INDICES = np.array([1, 3, 0, 2], np.int64)
CSR_INDPTR = np.array([0, 2, 2, 4], np.int64)


def csr_dense(data, indices, indptr, shape):
    out = np.zeros(shape)
    for r in range(shape[0]):
        for j in range(int(indptr[r]), int(indptr[r + 1])):
            out[r, int(indices[j])] += data[j]
    return out


def csr_dot_ref(data, indices, indptr, rhs, shape, transpose_a=False):
    a = csr_dense(data, indices, indptr, shape)
    return np.tensordot(a.T if transpose_a else a, rhs, axes=(1, 0))


SPARSE = [
    Case("_sparse_csr_to_dense", "empty_row", [CSR_DATA, CSR_INDICES, CSR_INDPTR], {"shape": (3, 4)},
         lambda data, indices, indptr, shape: csr_dense(data, indices, indptr, shape)),
    Case("_sparse_csr_to_dense", "unsorted_columns", [np.array([1.0, 2.0, 3.0]), np.array([2, 0, 1], np.int64),
                                                      np.array([0, 2, 3], np.int64)], {"shape": (2, 3)},
         lambda data, indices, indptr, shape: csr_dense(data, indices, indptr, shape)),
    Case("_sparse_csr_dot_dense", "a_dot_b", [CSR_DATA, CSR_INDICES, CSR_INDPTR, uni(4, 2)], {"shape": (3, 4)},
         csr_dot_ref, grad=(0, 3)),
    Case("_sparse_csr_dot_dense", "at_dot_b", [CSR_DATA, CSR_INDICES, CSR_INDPTR, uni(3, 2)],
         {"shape": (3, 4), "transpose_a": True}, csr_dot_ref, grad=(0, 3)),
    Case("_sparse_csr_dot_dense", "vector_rhs", [CSR_DATA, CSR_INDICES, CSR_INDPTR, uni(4)], {"shape": (3, 4)},
         csr_dot_ref, grad=(0, 3)),
    Case("_sparse_csr_dot_dense", "3d_rhs", [CSR_DATA, CSR_INDICES, CSR_INDPTR, uni(3, 2, 2)],
         {"shape": (3, 4), "transpose_a": True}, csr_dot_ref, grad=(0, 3)),
]

CASES = (RESHAPE + TRANSPOSE + PAD + SPACE + SLICE + JOIN + DIAG + BROADCAST_SHAPE + INDEXING + SORT + INIT
         + RANDOM + SAMPLE + OPTIM + IMAGE + SPARSE)

# --------------------------------------------------------------------------------------------
# Calls that must fail, naming what is wrong

F23 = np.zeros((2, 3))
F234 = np.zeros((2, 3, 4))
I32 = np.int32
I64 = np.int64
CSR3 = [np.array([1.0, 2.0]), np.array([0, 1], I64), np.array([0, 1, 2], I64)]
BAD = [
    BadCase("Reshape", "size_mismatch", [F23], {"shape": (4, 2)},
            ["Reshape", "cannot reshape array of shape (2, 3) into shape (4, 2)", "sizes differ"]),
    BadCase("Reshape", "0_past_last_dim", [F23], {"shape": (0, 0, 0)}, ["0 refers past the last input dimension"]),
    BadCase("Reshape", "two_minus1", [F23], {"shape": (-1, -1)}, ["Reshape", "more than one -1"]),
    BadCase("Reshape", "minus1_not_inferable", [F23], {"shape": (-1, 4)}, ["Reshape", "-1 cannot be inferred"]),
    BadCase("Reshape", "minus4_mismatch", [F23], {"shape": (-4, 4, -1, 3)},
            ["-4 split does not match the input dimension"]),
    BadCase("reshape_like", "size_mismatch", [F23, np.zeros((4, 2))], {},
            ["reshape_like", "lhs of shape (2, 3)", "rhs of shape (4, 2)"]),
    BadCase("expand_dims", "axis_out_of_range", [F23], {"axis": 3}, ["expand_dims", "axis 3 out of range"]),
    BadCase("squeeze", "axis_not_one", [F23], {"axis": (0,)}, ["squeeze", "size 2 not equal to one"]),
    BadCase("transpose", "repeated_axis", [F234], {"axes": (0, 0, 1)}, ["transpose", "repeated axis", "(0, 0, 1)"]),
    BadCase("transpose", "axes_length", [F234], {"axes": (0, 1)}, ["transpose", "axes (0, 1) do not match",
                                                                   "(2, 3, 4)"]),
    BadCase("transpose", "axis_out_of_bounds", [F234], {"axes": (0, 1, 3)}, ["transpose", "axis 3 is out of bounds"]),
    BadCase("SwapAxis", "axis_out_of_bounds", [F23], {"dim1": 0, "dim2": 2}, ["SwapAxis", "axis 2 is out of bounds"]),
    BadCase("reverse", "axis_out_of_bounds", [F23], {"axis": (2,)}, ["reverse", "axis 2 is out of bounds"]),
    BadCase("repeat", "axis_out_of_bounds", [F23], {"repeats": 2, "axis": 2}, ["repeat", "axis 2 is out of bounds"]),
    BadCase("Pad", "reflect_too_wide", [np.zeros((1, 1, 2, 2))],
            {"mode": "reflect", "pad_width": (0, 0, 0, 0, 2, 2, 0, 0)}, ["Pad", "reflect padding", "smaller than"]),
    BadCase("Pad", "pad_width_length", [np.zeros((1, 1, 2, 2))], {"mode": "constant", "pad_width": (0, 0, 1, 1)},
            ["Pad", "pad_width (0, 0, 1, 1)", "2 entries per axis"]),
    BadCase("depth_to_space", "channels_not_divisible", [np.zeros((1, 3, 2, 2))], {"block_size": 2},
            ["depth_to_space", "channels 3", "block_size^2 = 4"]),
    BadCase("space_to_depth", "spatial_not_divisible", [np.zeros((1, 1, 3, 4))], {"block_size": 2},
            ["space_to_depth", "not divisible by block_size 2"]),
    BadCase("depth_to_space", "not_4d", [F23], {"block_size": 2}, ["depth_to_space", "4-D", "(2, 3)"]),
    BadCase("slice_axis", "begin_beyond_end", [F23], {"axis": 1, "begin": 2, "end": 1},
            ["slice_axis", "begin=2, end=1", "not a valid range of axis 1"]),
    BadCase("slice", "too_many_axes", [F23], {"begin": (0, 0, 0), "end": (1, 1, 1)},
            ["slice", "begin (0, 0, 0)", "more entries than the input of shape (2, 3)"]),
    BadCase("slice", "zero_step", [F23], {"begin": (0,), "end": (1,), "step": (0,)}, ["slice", "must not contain 0"]),
    BadCase("slice_like", "larger_than_data", [F23, np.zeros((3, 3))], {}, ["slice_like", "along axis 0"]),
    BadCase("_slice_assign", "rhs_shape", [F23, np.zeros((2, 2))], {"begin": (0, 0), "end": (1, 2)},
            ["_slice_assign", "rhs", "(1, 2)", "(2, 2)"]),
    BadCase("stack", "shape_mismatch", [F23, np.zeros((3, 2))], {"num_args": 2},
            ["stack", "same shape", "(2, 3), (3, 2)"]),
    BadCase("SliceChannel", "uneven_split", [F23], {"num_outputs": 2, "axis": 1},
            ["SliceChannel", "num_outputs=2", "evenly divide axis 1"]),
    BadCase("diag", "same_axes", [F234], {"axis1": 1, "axis2": 1}, ["diag", "axis1 and axis2", "same axis"]),
    BadCase("take", "axis_out_of_bounds", [F23, np.array([0], I32)], {"axis": 2}, ["take", "axis 2 is out of bounds"]),
    BadCase("take", "raise_out_of_range", [F23, np.array([0, 5], I32)], {"mode": "raise"},
            ["take", "index 5 is out of bounds", "size 2"]),
    BadCase("pick", "index_shape", [F23, np.array([0, 1, 2], I32)], {"axis": 1},
            ["pick", "index of shape (3,)", "expected (2,)"]),
    BadCase("gather_nd", "index_out_of_range", [F23, np.array([[0, 3]], I32)], {},
            ["gather_nd", "index 3 is out of bounds", "size 2"]),
    BadCase("gather_nd", "too_many_index_rows", [F23, np.array([[0], [1], [1]], I32)], {},
            ["gather_nd", "indices of shape (3, 1)", "rank of data"]),
    BadCase("scatter_nd", "missing_shape", [np.zeros(2), np.array([[0, 1]], I32)], {},
            ["scatter_nd", "shape is required"]),
    BadCase("scatter_nd", "index_out_of_range", [np.zeros(2), np.array([[0, 5]], I32)], {"shape": (3,)},
            ["scatter_nd", "index 5 is out of bounds"]),
    BadCase("one_hot", "negative_depth", [np.array([1, 2], I32)], {"depth": -1}, ["one_hot", "depth", "-1"]),
    BadCase("topk", "k_too_large", [F23], {"k": 4}, ["topk", "k=4", "3 elements"]),
    BadCase("sort", "axis_out_of_bounds", [F23], {"axis": 2}, ["sort", "axis 2 is out of bounds"]),
    BadCase("_zeros", "no_shape", [], {}, ["_zeros", "shape parameter is required"]),
    BadCase("_full", "no_value", [], {"shape": (2,)}, ["_full", "value"]),
    BadCase("_arange", "zero_step", [], {"start": 0.0, "stop": 5.0, "step": 0.0}, ["_arange", "step must not be 0"]),
    BadCase("_linspace", "negative_num", [], {"start": 0.0, "stop": 1.0, "num": -1}, ["_linspace", "num"]),
    BadCase("_random_uniform", "low_above_high", [], {"low": 2.0, "high": 1.0, "shape": (2,)},
            ["_random_uniform", "low must be <= high", "low=2", "high=1"]),
    BadCase("_random_normal", "negative_scale", [], {"scale": -1.0, "shape": (2,)},
            ["_random_normal", "scale (sigma) must be > 0"]),
    BadCase("_random_randint", "empty_range", [], {"low": 3, "high": 3, "shape": (2,)},
            ["_random_randint", "low must be < high"]),
    BadCase("_sample_normal", "negative_sigma_element", [np.zeros(2), np.array([1.0, -1.0])], {"shape": (3,)},
            ["_sample_normal", "sigma", "at element 1"]),
    BadCase("_sample_uniform", "parameter_shapes", [np.zeros(2), np.ones(3)], {},
            ["_sample_uniform", "same shape", "(2,), (3,)"]),
    BadCase("_sample_multinomial", "negative_probability", [np.array([[0.5, -0.5]])], {},
            ["_sample_multinomial", "non-negative", "-0.5", "row 0"]),
    BadCase("_sample_multinomial", "zero_row", [np.array([[0.0, 0.0]])], {},
            ["_sample_multinomial", "row 0", "sums to 0"]),
    BadCase("sgd_update", "grad_shape", [F23, np.zeros((3, 2))], {"lr": 0.1},
            ["sgd_update", "grad has shape (3, 2)", "weight has shape (2, 3)"]),
    BadCase("sgd_mom_update", "mom_shape", [F23, F23, np.zeros((2, 2))], {"lr": 0.1},
            ["sgd_mom_update", "mom has shape (2, 2)"]),
    BadCase("mp_sgd_update", "master_not_float32", [np.zeros((2, 3), np.float16)] * 3, {"lr": 0.1},
            ["mp_sgd_update", "weight32 must be float32", "float16"]),
    BadCase("multi_sgd_update", "lrs_length", [F23, F23, F23, F23],
            {"lrs": (0.1,), "wds": (0.0, 0.0), "num_weights": 2}, ["multi_sgd_update", "num_weights=2", "got 1"]),
    BadCase("adam_update", "missing_state", [F23, F23, F23], {"lr": 0.1}, ["adam_update", "expected 4 inputs",
                                                                          "got 3"]),
    BadCase("lamb_update_phase1", "t_zero", [F23, F23, F23, F23], {"t": 0, "wd": 0.0}, ["lamb_update_phase1", "t"]),
    BadCase("_image_to_tensor", "not_an_image", [F23], {}, ["_image_to_tensor", "(H, W, C)", "(2, 3)"]),
    BadCase("_image_normalize", "mean_count", [np.zeros((3, 2, 2))], {"mean": (0.0, 1.0), "std": (1.0,)},
            ["_image_normalize", "mean has 2 values for 3 channels"]),
    BadCase("_image_normalize", "zero_std", [np.zeros((3, 2, 2))], {"std": (0.0,)},
            ["_image_normalize", "std must not be 0"]),
    BadCase("_image_crop", "window_outside", [np.zeros((4, 5, 3))], {"x": 3, "y": 0, "width": 3, "height": 2},
            ["_image_crop", "does not fit", "height 4 and width 5"]),
    BadCase("_image_resize", "bad_interp", [np.zeros((4, 5, 3))], {"size": (2, 3), "interp": 7},
            ["_image_resize", "interp 7 is not available"]),
    BadCase("_image_adjust_lighting", "alpha_count", [np.zeros((4, 5, 3))], {"alpha": (0.1, 0.2)},
            ["_image_adjust_lighting", "alpha needs 3 values"]),
    BadCase("_image_random_contrast", "not_rgb", [np.zeros((4, 5, 1))], {"min_factor": 0.5, "max_factor": 0.5},
            ["_image_random_contrast", "3 channels", "(4, 5, 1)"]),
    BadCase("_image_random_brightness", "min_above_max", [np.zeros((4, 5, 3))], {"min_factor": 1.5, "max_factor": 0.5},
            ["_image_random_brightness", "min_factor 1.5 is larger than max_factor 0.5"]),
    BadCase("_cvimresize", "batch", [np.zeros((2, 4, 5, 3))], {"w": 2, "h": 2}, ["_cvimresize", "(H, W, C)"]),
    BadCase("_cvcopyMakeBorder", "bad_type", [np.zeros((4, 5, 3))], {"top": 1, "bot": 1, "left": 1, "right": 1,
                                                                    "type": 7}, ["_cvcopyMakeBorder", "type"]),
    BadCase("_sparse_csr_to_dense", "column_out_of_range", [np.array([1.0, 2.0]), np.array([0, 5], I64),
                                                            np.array([0, 1, 2], I64)], {"shape": (2, 3)},
            ["_sparse_csr_to_dense", "column index 5", "out of range [0, 3)"]),
    BadCase("_sparse_csr_to_dense", "indptr_decreasing", [np.array([1.0, 2.0]), np.array([0, 1], I64),
                                                          np.array([0, 2, 1], I64)], {"shape": (2, 3)},
            ["_sparse_csr_to_dense", "indptr must be non-decreasing"]),
    BadCase("_sparse_csr_dot_dense", "rhs_rows", CSR3 + [np.zeros((4, 2))], {"shape": (2, 3)},
            ["_sparse_csr_dot_dense", "3 rows", "got (4, 2)"]),
]

# Data movement is exact in every dtype: a selection of the layout and indexing rows in half types.
HALF_ROWS = [c for c in CASES if c.id in {
    "Reshape-minus4_infer", "transpose-axes", "SwapAxis-0_2", "flip-two_axes", "tile-reps_longer",
    "repeat-axis1", "Pad-constant", "Pad-edge", "Pad-reflect", "depth_to_space-b2", "space_to_depth-b2",
    "slice-negative_step", "slice_axis-axis1", "slice_like-axis1", "_slice_assign-basic", "stack-axis1",
    "SliceChannel-three", "diag-2d_above", "take-int32_indices", "pick-axis1", "gather_nd-two_axes",
    "scatter_nd-elements", "one_hot-on_off_values", "sort-last_axis", "topk-both", "argsort-last_axis",
    "broadcast_to-expand", "_zeros-2d", "_arange-start_stop_step_repeat", "_eye-rect_upper"}]
CASES += with_dtypes(HALF_ROWS, HALF)
