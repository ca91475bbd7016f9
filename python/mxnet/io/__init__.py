"""Data iterators (mx.io)."""
from .data_iter import DataDesc, DataBatch, DataIter  # noqa: F401
from .ndarray_iter import NDArrayIter  # noqa: F401
