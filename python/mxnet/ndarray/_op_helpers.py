"""mx.nd functions and NDArray methods that 1.x writes in Python over registered ops:
split_v2 (over _split_v2), onehot_encode (over one_hot), slice_assign / slice_assign_scalar
(over _slice_assign / _slice_assign_scalar, writing the array in place) and as_nd_ndarray."""
from numbers import Integral

from .ndarray import NDArray
from .register import invoke_by_name

__all__ = ["split_v2", "onehot_encode"]


def split_v2(ary, indices_or_sections, axis=0, squeeze_axis=False):
    """Splits `ary` along `axis`: an int n gives n equal pieces (n must divide the axis); a tuple
    of indices gives the pieces between consecutive indices, starting at 0 and ending at the
    end of the axis (pieces may be empty). Returns a list of NDArrays (one NDArray for a single
    piece); squeeze_axis drops the split axis from pieces of length 1."""
    if isinstance(indices_or_sections, Integral) and not isinstance(indices_or_sections, bool):
        sections, indices = int(indices_or_sections), ()
    elif isinstance(indices_or_sections, tuple):
        sections, indices = 0, (0,) + tuple(int(i) for i in indices_or_sections)
    else:
        raise ValueError("split_v2: indices_or_sections must be an int or a tuple of ints, got %s"
                         % type(indices_or_sections).__name__)
    return invoke_by_name("_split_v2", (ary,), dict(indices=indices, axis=axis, squeeze_axis=squeeze_axis,
                                                    sections=sections))


def onehot_encode(indices, out):
    """Writes the one-hot rows of `indices` (1-D, one row per index, truncated to integers) into
    the 2-D array `out`, whose second axis gives the depth, and returns out. An index outside
    [0, depth) gives a row of zeros."""
    if not isinstance(indices, NDArray) or not isinstance(out, NDArray):
        raise TypeError("onehot_encode: indices and out must be NDArrays")
    if len(indices.shape) != 1 or len(out.shape) != 2 or indices.shape[0] != out.shape[0]:
        raise ValueError("onehot_encode: needs 1-D indices of length n and a 2-D out of shape (n, depth), "
                         "got indices %s and out %s" % (indices.shape, out.shape))
    return invoke_by_name("one_hot", (indices,), dict(depth=out.shape[1], dtype=out.dtype, out=out))


def _slice_assign(self, rhs, begin, end, step):
    """self[begin:end:step] = rhs (an NDArray), in place; returns self."""
    return invoke_by_name("_slice_assign", (self, rhs), dict(begin=begin, end=end, step=step, out=self))


def _slice_assign_scalar(self, value, begin, end, step):
    """self[begin:end:step] = value (a number), in place; returns self."""
    return invoke_by_name("_slice_assign_scalar", (self,), dict(scalar=value, begin=begin, end=end, step=step,
                                                               out=self))


def _as_nd_ndarray(self):
    """The array itself: it is a classic NDArray already."""
    return self


def _split_v2_method(self, *args, **kwargs):
    return split_v2(self, *args, **kwargs)


def install(cls):
    """Adds 1.x's methods over these helpers to NDArray."""
    cls.slice_assign = _slice_assign
    cls.slice_assign_scalar = _slice_assign_scalar
    cls.as_nd_ndarray = _as_nd_ndarray
    cls.split_v2 = _split_v2_method
