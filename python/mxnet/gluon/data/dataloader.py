"""DataLoader: batches of a Dataset, built in this process or by worker processes.

With num_workers > 0 the batches are built by forked worker processes (the engine stops its
threads around fork() and restarts them in the child with MXNET_MP_WORKER_NTHREADS CPU
workers). A worker hands its batch back as raw array bytes over a pipe and the main process
turns them into NDArrays again, so the batches are identical to the num_workers=0 ones and
come back in sampler order.
"""
import multiprocessing
import multiprocessing.pool

import numpy as np

from ... import ndarray as nd
from ...context import cpu_pinned
from .sampler import BatchSampler, RandomSampler, SequentialSampler

__all__ = ["DataLoader", "default_batchify_fn", "default_mp_batchify_fn"]


def default_batchify_fn(data):
    """Stacks samples into a batch: NDArrays with stack, tuples element-wise, anything else
    through NumPy (keeping its dtype)."""
    if isinstance(data[0], nd.NDArray):
        return nd.stack(*data)
    if isinstance(data[0], tuple):
        return [default_batchify_fn(list(i)) for i in zip(*data)]
    data = np.asarray(data)
    return nd.array(data, dtype=data.dtype)


default_mp_batchify_fn = default_batchify_fn


class _Packed(object):
    """An NDArray on its way between processes: its bytes, shape and dtype."""
    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array


def _pack(obj):
    if isinstance(obj, nd.NDArray):
        return _Packed(obj.asnumpy())
    if isinstance(obj, list):
        return [_pack(o) for o in obj]
    if isinstance(obj, tuple):
        return tuple(_pack(o) for o in obj)
    return obj


def _unpack(obj):
    if isinstance(obj, _Packed):
        return nd.array(obj.array, dtype=obj.array.dtype)
    if isinstance(obj, list):
        return [_unpack(o) for o in obj]
    if isinstance(obj, tuple):
        return tuple(_unpack(o) for o in obj)
    return obj


def _as_in_context(data, ctx):
    if isinstance(data, nd.NDArray):
        return data.as_in_context(ctx)
    if isinstance(data, (list, tuple)):
        return type(data)(_as_in_context(d, ctx) for d in data)
    return data


# Set in each worker by the pool initializer (inherited through fork, never pickled).
_worker_dataset = None
_worker_batchify = None


def _worker_init(dataset, batchify_fn):
    global _worker_dataset, _worker_batchify  # pylint: disable=global-statement
    _worker_dataset = dataset
    _worker_batchify = batchify_fn


def _worker_fn(indices):
    batch = _worker_batchify([_worker_dataset[i] for i in indices])
    return _pack(batch)


def _thread_fn(dataset, batchify_fn, indices):
    return batchify_fn([dataset[i] for i in indices])


class DataLoader(object):
    """Iterates over a Dataset in mini-batches.

    batch_size/shuffle/sampler/last_batch build a BatchSampler unless batch_sampler is given;
    last_batch is 'keep' (default), 'discard' or 'rollover'. batchify_fn merges a list of
    samples (default_batchify_fn by default). num_workers > 0 uses that many worker processes
    (threads with thread_pool=True), keeping up to `prefetch` batches in flight (default
    2 * num_workers). pin_memory copies batches to cpu_pinned(pin_device_id).
    """

    def __init__(self, dataset, batch_size=None, shuffle=False, sampler=None, last_batch=None,
                 batch_sampler=None, batchify_fn=None, num_workers=0, pin_memory=False,
                 pin_device_id=0, prefetch=None, thread_pool=False, timeout=120):
        self._dataset = dataset
        self._pin_memory = pin_memory
        self._pin_device_id = pin_device_id
        self._thread_pool = thread_pool
        self._timeout = timeout
        if batch_sampler is None:
            if batch_size is None:
                raise ValueError("batch_size must be specified unless batch_sampler is "
                                 "specified")
            if sampler is None:
                sampler = RandomSampler(len(dataset)) if shuffle else \
                    SequentialSampler(len(dataset))
            elif shuffle:
                raise ValueError("shuffle must not be specified if sampler is specified")
            batch_sampler = BatchSampler(sampler, batch_size,
                                         last_batch if last_batch else "keep")
        elif batch_size is not None or shuffle or sampler is not None or last_batch is not None:
            raise ValueError("batch_size, shuffle, sampler and last_batch must not be specified "
                             "if batch_sampler is specified.")
        self._batch_sampler = batch_sampler
        if num_workers < 0:
            raise ValueError("num_workers must be >= 0, got %d" % num_workers)
        self._num_workers = num_workers
        self._prefetch = max(0, int(prefetch) if prefetch is not None else 2 * num_workers)
        self._batchify_fn = batchify_fn if batchify_fn is not None else default_batchify_fn
        self._pool = None
        if num_workers > 0:
            if thread_pool:
                self._pool = multiprocessing.pool.ThreadPool(num_workers)
            else:
                ctx = multiprocessing.get_context("fork")
                self._pool = ctx.Pool(num_workers, initializer=_worker_init,
                                      initargs=(self._dataset, self._batchify_fn))

    def _pin(self, batch):
        if self._pin_memory:
            return _as_in_context(batch, cpu_pinned(self._pin_device_id))
        return batch

    def __iter__(self):
        if self._num_workers == 0:
            return self._same_process_iter()
        return self._worker_iter()

    def _same_process_iter(self):
        for batch in self._batch_sampler:
            yield self._pin(self._batchify_fn([self._dataset[idx] for idx in batch]))

    def _submit(self, indices):
        if self._thread_pool:
            return self._pool.apply_async(_thread_fn, (self._dataset, self._batchify_fn, indices))
        return self._pool.apply_async(_worker_fn, (indices,))

    def _worker_iter(self):
        pending = []
        batches = iter(self._batch_sampler)
        in_flight = max(self._prefetch, 1)
        for _ in range(in_flight):
            indices = next(batches, None)
            if indices is None:
                break
            pending.append(self._submit(indices))
        while pending:
            result = pending.pop(0)
            indices = next(batches, None)
            if indices is not None:
                pending.append(self._submit(indices))
            try:
                batch = result.get(self._timeout)
            except multiprocessing.TimeoutError:
                raise RuntimeError("DataLoader worker timed out after %s seconds waiting for a "
                                   "batch" % self._timeout) from None
            if not self._thread_pool:
                batch = _unpack(batch)
            yield self._pin(batch)

    def __len__(self):
        return len(self._batch_sampler)

    def __del__(self):
        pool = getattr(self, "_pool", None)
        if pool is not None:
            self._pool = None
            try:
                pool.terminate()
            except Exception:  # pylint: disable=broad-except
                pass
