"""Rows of shape_array / size_array (an array's shape and size as int64 arrays) and _split_v2
(the op behind mx.nd.split_v2: equal sections, or pieces between indices)."""
import numpy as np

from op_testing import BadCase, Case
from op_rows._tensor_common import uni


def pieces(x, indices, axis, squeeze_axis=False, sections=0):
    """numpy's split at the piece starts (a first start above 0 drops what lies before it)."""
    starts = list(indices) if sections == 0 else [x.shape[axis] // sections * i for i in range(sections)]
    parts = np.split(x, starts[1:], axis=axis)
    parts[0] = np.take(x, range(starts[0], starts[1] if len(starts) > 1 else x.shape[axis]), axis=axis)
    return [np.squeeze(p, axis) for p in parts] if squeeze_axis else parts


CASES = [
    # int64 outputs that do not depend on the values: no gradient rows
    Case("shape_array", "3d", [uni(2, 3, 4)], {}, lambda x: np.array(x.shape, np.int64), grad=()),
    Case("shape_array", "1d", [uni(5)], {}, lambda x: np.array(x.shape, np.int64), grad=()),
    Case("size_array", "3d", [uni(2, 3, 4)], {}, lambda x: np.array([x.size], np.int64), grad=()),
    Case("_split_v2", "indices", [uni(2, 10)], {"indices": (0, 2, 5), "axis": 1}, pieces, outputs=3),
    Case("_split_v2", "empty_pieces", [uni(10, 2)], {"indices": (0, 3, 3), "axis": 0}, pieces, outputs=3),
    Case("_split_v2", "start_after_0", [uni(2, 3, 6)], {"indices": (1, 4), "axis": -1}, pieces, outputs=2),
    Case("_split_v2", "sections", [uni(2, 6, 2)], {"indices": (), "sections": 3, "axis": 1}, pieces, outputs=3),
    Case("_split_v2", "squeeze_axis", [uni(2, 3)], {"indices": (), "sections": 2, "axis": 0, "squeeze_axis": True},
         pieces, outputs=2),
]

BAD = [
    BadCase("_split_v2", "uneven_sections", [np.zeros((2, 10))], {"indices": (), "sections": 3, "axis": 1},
            ["_split_v2", "sections=3", "evenly divide"]),
    BadCase("_split_v2", "decreasing_indices", [np.zeros((2, 10))], {"indices": (0, 5, 2), "axis": 1},
            ["_split_v2", "non-decreasing"]),
    BadCase("_split_v2", "index_past_end", [np.zeros((2, 10))], {"indices": (0, 11), "axis": 1},
            ["_split_v2", "axis of length 10"]),
    BadCase("_split_v2", "squeeze_long_piece", [np.zeros((4, 3))], {"indices": (), "sections": 2, "axis": 0,
                                                                   "squeeze_axis": True},
            ["_split_v2", "squeeze_axis", "length 2"]),
    BadCase("_random_pdf_normal", "sample_shape_mismatch", [np.zeros((3, 2)), np.zeros(2), np.ones(2)], {},
            ["_random_pdf_normal", "must start with the parameters' shape"]),
    BadCase("_random_pdf_dirichlet", "categories_mismatch", [np.full((2, 3), 0.3), np.ones((2, 4))], {},
            ["_random_pdf_dirichlet", "number of categories"]),
    BadCase("_random_pdf_poisson", "integer_inputs", [np.zeros(2, np.int32), np.ones(2, np.int32)], {},
            ["_random_pdf_poisson", "floating-point"]),
]
