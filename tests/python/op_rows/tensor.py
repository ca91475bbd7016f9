"""Rows of the tensor operators that are neither elementwise, broadcast arithmetic, reductions,
dot products nor neural-network layers: shape and layout (Reshape and its special codes,
transpose, slicing, padding, tiling, splitting, diag), indexing (take, pick, gather_nd,
scatter_nd, one_hot, sort / argsort / topk), array creation (_zeros ... _eye) and the CSR
operators. Random sampling, optimizer updates and image transforms have their own modules; the
calls that must fail, for all of them, are here. References are numpy float64 formulas."""

import numpy as np

from op_testing import HALF, ROW_DTYPE, BadCase, Case, op, with_dtypes
from op_rows._tensor_common import distinct, to_shape, uni

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

# Gradients summing many copies per element: the CUDA kernels' block-per-element and
# warp-per-element paths (their own generator, so the rows above and below keep their inputs).
_RG = np.random.RandomState(31)
TRANSPOSE += [
    Case("tile", "many_copies", [_RG.uniform(-1, 1, (2, 3))], {"reps": (8, 5)},
         lambda x, reps: np.tile(x, (8, 5))),
    Case("tile", "large_many_copies", [_RG.uniform(-1, 1, (64, 128))], {"reps": (1, 40)},
         lambda x, reps: np.tile(x, (1, 40))),
    Case("repeat", "many_repeats", [_RG.uniform(-1, 1, (3, 2))], {"repeats": 40, "axis": 0},
         lambda x, repeats, axis: np.repeat(x, 40, 0)),
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
    # duplicate targets: the last write wins (no gradient row: the overwritten values have none)
    Case("scatter_nd", "duplicates_last_wins", [_RG.uniform(-1, 1, 5), np.array([[0, 2, 0, 2, 0], [1, 1, 1, 1, 1]],
                                                                                np.int32)], {"shape": (3, 3)},
         scatter_nd_ref, grad=()),
    # many repeated indices: the gradient adds them up (atomically on a GPU)
    Case("take", "many_repeated_indices", [TAKE_A, np.tile(np.array([3, 0, 3, 1], np.int64), 16)], {}, take_ref),
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


_SORT_TIES = np.random.RandomState(41).randint(0, 7, (2, 3000)).astype(np.float64)
_SORT_LONG = (np.random.RandomState(42).permutation(6000) - 3000) * 0.125  # distinct, exact in float32
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
    # long columns, many ties (order by position throughout), signed zeros (equal, as numpy)
    Case("argsort", "long_rows_ties", [_SORT_TIES], {}, argsort_ref, grad=()),
    Case("argsort", "long_rows_ties_descending", [_SORT_TIES], {"is_ascend": False}, argsort_ref, grad=()),
    Case("sort", "long_column_axis0", [_SORT_LONG.reshape(2000, 3)], {"axis": 0}, sort_ref, grad=()),
    Case("topk", "long_rows_both", [_SORT_LONG.reshape(2, 3000)], {"k": 5, "ret_typ": "both"}, topk_ref, outputs=2,
         grad=()),
    Case("argsort", "signed_zero_ties", [np.array([[0.0, -0.0, 1.0, -0.0, 0.0, -1.0]])], {}, argsort_ref, grad=()),
    Case("argsort", "signed_zero_ties_descending", [np.array([[0.0, -0.0, -1.0, -0.0, 0.0, 1.0]])],
         {"is_ascend": False}, argsort_ref, grad=()),
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
    # rows of 40 values: the data gradient's dot products take a warp each on the GPU
    Case("_sparse_csr_dot_dense", "wide_rhs", [CSR_DATA, CSR_INDICES, CSR_INDPTR, uni(4, 40)], {"shape": (3, 4)},
         csr_dot_ref, grad=(0, 3)),
    Case("_sparse_csr_dot_dense", "at_wide_rhs", [CSR_DATA, CSR_INDICES, CSR_INDPTR, uni(3, 40)],
         {"shape": (3, 4), "transpose_a": True}, csr_dot_ref, grad=(0, 3)),
]

CASES = (RESHAPE + TRANSPOSE + PAD + SPACE + SLICE + JOIN + DIAG + BROADCAST_SHAPE + INDEXING + SORT + INIT
         + SPARSE)

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
    "broadcast_to-expand", "_zeros-2d", "_arange-start_stop_step_repeat", "_eye-rect_upper",
    "take-float_indices_repeated", "tile-many_copies", "scatter_nd-duplicates_last_wins"}]
CASES += with_dtypes(HALF_ROWS, HALF)
