"""ResizeIter: gives a fixed number of batches per epoch from any iterator, restarting it when
it runs out."""
from .data_iter import WrappingIter

__all__ = ["ResizeIter"]


class ResizeIter(WrappingIter):
    """Makes an epoch of `data_iter` exactly `size` batches long: when the inner iterator ends
    early it is reset and continues; reset() stops early otherwise. With reset_internal=False,
    reset() leaves the inner iterator where it is, so the next epoch continues from there.
    """

    def __init__(self, data_iter, size, reset_internal=True):
        super(ResizeIter, self).__init__()
        self.data_iter = data_iter
        self.size = size
        self.reset_internal = reset_internal
        self.cur = 0
        self.current_batch = None
        self.provide_data = data_iter.provide_data
        self.provide_label = data_iter.provide_label
        self.batch_size = data_iter.batch_size
        if hasattr(data_iter, "default_bucket_key"):
            self.default_bucket_key = data_iter.default_bucket_key

    def reset(self):
        self.cur = 0
        if self.reset_internal:
            self.data_iter.reset()

    def iter_next(self):
        if self.cur == self.size:
            return False
        try:
            self.current_batch = self.data_iter.next()
        except StopIteration:
            self.data_iter.reset()
            self.current_batch = self.data_iter.next()
        self.cur += 1
        return True
