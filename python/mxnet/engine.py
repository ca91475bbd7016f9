"""Engine controls: per-thread imperative bulking."""
import contextlib
import ctypes

from .base import _LIB, check_call

__all__ = ["set_bulk_size", "bulk"]


def set_bulk_size(size):
    """Sets how many consecutive ops pushed by this thread are grouped into one engine op.

    Bulking lowers the per-op cost of many small imperative ops; 0 turns it off (the default).

    Parameters
    ----------
    size : int
        Maximum number of ops in one bulk, >= 0.

    Returns
    -------
    int
        The previous bulk size of this thread.
    """
    prev = ctypes.c_int()
    check_call(_LIB.MXEngineSetBulkSize(ctypes.c_int(int(size)), ctypes.byref(prev)))
    return prev.value


@contextlib.contextmanager
def bulk(size):
    """Bulks up to `size` ops inside the with-block, then restores the previous size.

    Example
    -------
    >>> with mx.engine.bulk(10):
    ...     x = mx.nd.ones((10,))
    ...     x *= 2
    """
    prev = set_bulk_size(size)
    try:
        yield
    finally:
        set_bulk_size(prev)
