"""PrefetchingIter: reads the next batch of one or more iterators on background threads and
joins their batches into one."""
import threading

from .data_iter import DataBatch, DataDesc, WrappingIter

__all__ = ["PrefetchingIter"]


class _Worker(object):
    """One background thread that reads one batch ahead from an iterator. It holds no reference
    to the PrefetchingIter, so dropping that stops it (see PrefetchingIter.__del__)."""

    def __init__(self, it):
        self.iter = it
        self.ready = threading.Event()   # a batch (or the end, or an error) is waiting
        self.taken = threading.Event()   # the consumer wants the next one
        self.batch = None
        self.error = None
        self.running = True
        self.taken.set()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while True:
            self.taken.wait()
            # Cleared before reading, not after: a stop() that lands during the read keeps its
            # wake-up and is seen on the next turn.
            self.taken.clear()
            if not self.running:
                return
            try:
                self.batch, self.error = self.iter.next(), None
            except StopIteration:
                self.batch, self.error = None, None
            except Exception as err:  # pylint: disable=broad-except
                self.batch, self.error = None, err  # re-raised by the consumer
            self.ready.set()

    def wait(self):
        self.ready.wait()

    def request(self):
        self.ready.clear()
        self.taken.set()

    def stop(self):
        self.running = False
        self.taken.set()
        self.thread.join()


class PrefetchingIter(WrappingIter):
    """Prefetches from `iters` (a DataIter or a list of them), one thread each, and returns
    batches whose data and label are the iterators' lists joined in order. pad and index come
    from the first iterator; all must end together.

    rename_data / rename_label: one dict per iterator mapping its names to new ones in
    provide_data / provide_label.
    """

    def __init__(self, iters, rename_data=None, rename_label=None):
        super(PrefetchingIter, self).__init__()
        if not isinstance(iters, list):
            iters = [iters]
        if not iters:
            raise ValueError("PrefetchingIter needs at least one iterator")
        self.n_iter = len(iters)
        self.iters = iters
        self.rename_data = rename_data
        self.rename_label = rename_label
        self.batch_size = self.provide_data[0][1][0]
        self.current_batch = None
        self._workers = [_Worker(it) for it in iters]

    def __del__(self):
        for w in getattr(self, "_workers", []):
            w.stop()

    @staticmethod
    def _renamed(iters, renames, attr):
        out = []
        for i, it in enumerate(iters):
            rename = renames[i] if renames is not None else {}
            for desc in getattr(it, attr):
                if not isinstance(desc, DataDesc):
                    desc = DataDesc(*desc)
                out.append(DataDesc(rename.get(desc.name, desc.name), desc.shape, desc.dtype,
                                    desc.layout))
        return out

    @property
    def provide_data(self):
        return self._renamed(self.iters, self.rename_data, "provide_data")

    @property
    def provide_label(self):
        return self._renamed(self.iters, self.rename_label, "provide_label")

    def reset(self):
        for w in self._workers:
            w.wait()  # let any read in flight finish before rewinding
        for it in self.iters:
            it.reset()
        for w in self._workers:
            w.request()

    def iter_next(self):
        for w in self._workers:
            w.wait()
        for w in self._workers:
            if w.error is not None:
                err, w.error = w.error, None
                w.request()
                raise err
        batches = [w.batch for w in self._workers]
        if batches[0] is None:
            if any(b is not None for b in batches):
                raise RuntimeError("PrefetchingIter: the iterators have different numbers of batches")
            return False
        if any(b is None for b in batches):
            raise RuntimeError("PrefetchingIter: the iterators have different numbers of batches")
        self.current_batch = DataBatch(
            data=sum([list(b.data) for b in batches], []),
            label=sum([list(b.label) if b.label else [] for b in batches], []),
            pad=batches[0].pad, index=batches[0].index,
            provide_data=self.provide_data, provide_label=self.provide_label)
        for w in self._workers:
            w.request()
        return True
