"""DataLoader: batches of a Dataset, built in this process or by worker processes.

With num_workers > 0 the batches are built by forked worker processes (the engine stops its
threads around fork() and restarts them in the child with MXNET_MP_WORKER_NTHREADS CPU
workers). Each worker has its own pair of pipes: the main thread sends it batch indices and
reads back the batch as raw array bytes, which it turns into NDArrays again, so the batches
are identical to the num_workers=0 ones and come back in sampler order. No helper threads run
in the main process: on a machine whose cores the training step already keeps busy, thread
switches and GIL handoffs there cost more than building the batch in-process would.
"""
import collections
import multiprocessing
import multiprocessing.pool
import os
import threading
import time
import traceback
import weakref

try:
    import fcntl
except ImportError:  # not on Windows
    fcntl = None

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
    if isinstance(obj, _Packed):
        return obj
    if isinstance(obj, nd.NDArray):
        return _Packed(obj.asnumpy())
    if isinstance(obj, list):
        return [_pack(o) for o in obj]
    if isinstance(obj, tuple):
        return tuple(_pack(o) for o in obj)
    return obj


def _packed_default_batchify(data):
    """default_batchify_fn as a worker runs it: the same arrays, already packed, without the
    NDArray round trip for samples that are not NDArrays."""
    if isinstance(data[0], nd.NDArray):
        return _Packed(nd.stack(*data).asnumpy())
    if isinstance(data[0], tuple):
        return [_packed_default_batchify(list(i)) for i in zip(*data)]
    return _Packed(np.asarray(data))


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


class _RemoteError(Exception):
    """The traceback of an exception raised in a DataLoader worker process."""

    def __str__(self):
        return "\n\nin the DataLoader worker:\n" + self.args[0]


def _worker_loop(dataset, batchify_fn, tasks, results, parent_pid):
    """A worker process: (key, indices) in, (key, ok, packed batch or exception) out, in order."""
    for pool in list(_live_pools):
        pool.close_in_child(tasks, results)
    if batchify_fn is default_batchify_fn:
        batchify_fn = _packed_default_batchify
    while True:
        try:
            while not tasks.poll(1.0):
                if os.getppid() != parent_pid:  # the main process is gone
                    return
            task = tasks.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        key, indices = task
        try:
            reply = (key, True, _pack(batchify_fn([dataset[i] for i in indices])))
        except Exception as err:  # pylint: disable=broad-except
            reply = (key, False, (err, traceback.format_exc()))
        try:
            results.send(reply)
        except (BrokenPipeError, EOFError, OSError):
            return
        except Exception:  # pylint: disable=broad-except
            # The batch or the exception does not pickle: send its story instead.
            text = reply[2][1] if not reply[1] else traceback.format_exc()
            try:
                results.send((key, False, (None, text)))
            except Exception:  # pylint: disable=broad-except
                return


_live_pools = weakref.WeakSet()


class _WorkerPool(object):
    """Forked worker processes, each fed through its own pipe pair.

    The main thread writes the tasks and reads the results itself: no helper threads in this
    process, so a batch costs no thread switch or GIL handoff here. Tasks go round-robin and
    each worker answers in order, so a result is always read from the worker that has it.
    """

    def __init__(self, num_workers, dataset, batchify_fn):
        ctx = multiprocessing.get_context("fork")
        self._pid = os.getpid()
        self._conns = []
        self._procs = []
        self._next_worker = 0
        self._next_key = 0
        self._stash = {}
        self._waiting = set()
        self._discard = set()
        self._lock = threading.Lock()
        _live_pools.add(self)
        try:
            for _ in range(num_workers):
                task_r, task_w = ctx.Pipe(duplex=False)
                res_r, res_w = ctx.Pipe(duplex=False)
                _grow_pipe(res_w)
                proc = ctx.Process(target=_worker_loop, daemon=True,
                                   args=(dataset, batchify_fn, task_r, res_w, self._pid))
                self._conns.append((task_w, res_r))
                proc.start()
                self._procs.append(proc)
                task_r.close()
                res_w.close()
        except BaseException:
            self.close()
            raise

    def close_in_child(self, own_tasks, own_results):
        """In a freshly forked worker: drop this pool's main-process pipe ends (so that the
        workers see end-of-file when the main process goes) and forget its processes."""
        for task_w, res_r in self._conns:
            for conn in (task_w, res_r):
                if conn is not own_tasks and conn is not own_results:
                    try:
                        conn.close()
                    except OSError:
                        pass
        self._conns = []
        self._procs = []
        self._pid = None

    def submit(self, indices):
        """Sends one batch's indices to the next worker; returns its ticket."""
        with self._lock:
            worker = self._next_worker
            self._next_worker = (worker + 1) % len(self._conns)
            key = self._next_key
            self._next_key += 1
            try:
                self._conns[worker][0].send((key, indices))
            except (BrokenPipeError, EOFError, OSError):
                raise self._died(worker) from None
            self._waiting.add(key)
            return key, worker

    def get(self, ticket, timeout):
        """The batch of `ticket`; multiprocessing.TimeoutError after `timeout` seconds."""
        key, worker = ticket
        with self._lock:
            res_r = self._conns[worker][1]
            deadline = None if timeout is None else time.monotonic() + timeout
            while key not in self._stash:
                remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
                if not res_r.poll(remaining):
                    raise multiprocessing.TimeoutError()
                try:
                    got = res_r.recv()
                except (EOFError, OSError):
                    raise self._died(worker) from None
                self._waiting.discard(got[0])
                if got[0] in self._discard:
                    self._discard.discard(got[0])
                else:
                    self._stash[got[0]] = got
            _, ok, payload = self._stash.pop(key)
        if not ok:
            err, text = payload
            if err is None:
                raise RuntimeError("DataLoader worker failed:\n" + text)
            raise err from _RemoteError(text)
        return payload

    def _died(self, worker):
        proc = self._procs[worker]
        proc.join(0.1)
        code = proc.exitcode
        how = "" if code is None else (" (killed by signal %d)" % -code if code < 0 else
                                       " (exit status %d)" % code)
        return RuntimeError("DataLoader worker %d (pid %s) exited unexpectedly%s" % (
            worker, proc.pid, how))

    def forget(self, ticket):
        """A ticket whose batch is no longer wanted (an iterator stopped early)."""
        with self._lock:
            if self._stash.pop(ticket[0], None) is None and ticket[0] in self._waiting:
                self._discard.add(ticket[0])

    def close(self):
        """Stops the workers (only in the process that started them)."""
        if self._pid != os.getpid():
            return
        self._pid = None
        for task_w, res_r in self._conns:
            try:
                task_w.send(None)
            except Exception:  # pylint: disable=broad-except
                pass
            # A worker blocked on sending an unread batch sees a broken pipe and stops.
            res_r.close()
            task_w.close()
        for proc in self._procs:
            proc.join(0.5)
            if proc.is_alive():
                proc.terminate()
                proc.join(0.5)
        self._conns = []
        self._procs = []


def _grow_pipe(conn):
    """Room in the result pipe for a few batches, so that workers can run ahead of the reader
    (Linux; elsewhere the default size stays)."""
    setpipe = getattr(fcntl, "F_SETPIPE_SZ", None) if fcntl is not None else None
    if setpipe is None:
        return
    for size in (1 << 20, 1 << 18):
        try:
            fcntl.fcntl(conn.fileno(), setpipe, size)
            return
        except OSError:
            continue


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
                self._pool = _WorkerPool(num_workers, self._dataset, self._batchify_fn)

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
        return self._pool.submit(indices)

    def _fetch(self, ticket):
        try:
            if self._thread_pool:
                return ticket.get(self._timeout)
            return _unpack(self._pool.get(ticket, self._timeout))
        except multiprocessing.TimeoutError:
            raise RuntimeError("DataLoader worker timed out after %s seconds waiting for a "
                               "batch" % self._timeout) from None

    def _worker_iter(self):
        pending = collections.deque()
        batches = iter(self._batch_sampler)
        in_flight = max(self._prefetch, 1)
        try:
            for _ in range(in_flight):
                indices = next(batches, None)
                if indices is None:
                    break
                pending.append(self._submit(indices))
            while pending:
                indices = next(batches, None)
                if indices is not None:
                    pending.append(self._submit(indices))
                batch = self._fetch(pending[0])
                pending.popleft()
                yield self._pin(batch)
        finally:
            if not self._thread_pool and self._pool is not None:
                for ticket in pending:
                    self._pool.forget(ticket)

    def __len__(self):
        return len(self._batch_sampler)

    def __del__(self):
        pool = getattr(self, "_pool", None)
        if pool is not None:
            self._pool = None
            try:
                if self._thread_pool:
                    pool.terminate()
                else:
                    pool.close()
            except Exception:  # pylint: disable=broad-except
                pass
