"""Data iterators (mx.io)."""
from .data_iter import DataDesc, DataBatch, DataIter  # noqa: F401
from .ndarray_iter import NDArrayIter  # noqa: F401
from .c_iter import MXDataIter  # noqa: F401
from .prefetching_iter import PrefetchingIter  # noqa: F401
from .resize_iter import ResizeIter  # noqa: F401
from . import c_iter as _c_iter

# mx.io.CSVIter, mx.io.MNISTIter, ...: one function per iterator the library registers.
_c_iter.populate(globals())
