"""Samplers: iterables of dataset indices, and BatchSampler grouping them into batches."""
import numpy as np

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "BatchSampler", "IntervalSampler"]


class Sampler(object):
    """Base class: iterating yields indices; len() says how many."""

    def __iter__(self):
        raise NotImplementedError("%s must define __iter__" % self.__class__.__name__)

    def __len__(self):
        raise NotImplementedError("%s must define __len__" % self.__class__.__name__)


class SequentialSampler(Sampler):
    """start, start+1, ..., start+length-1."""

    def __init__(self, length, start=0):
        self._length = length
        self._start = start

    def __iter__(self):
        return iter(range(self._start, self._start + self._length))

    def __len__(self):
        return self._length


class RandomSampler(Sampler):
    """A fresh permutation of range(length) on every pass (NumPy's global generator, so
    np.random.seed makes it reproducible)."""

    def __init__(self, length):
        self._length = length

    def __iter__(self):
        indices = np.arange(self._length)
        np.random.shuffle(indices)
        return iter(indices.tolist())

    def __len__(self):
        return self._length


class IntervalSampler(Sampler):
    """0, k, 2k, ..., then (with rollover) 1, k+1, ... and so on: every index once."""

    def __init__(self, length, interval, rollover=True):
        if interval >= length:
            raise ValueError("Interval {} must be smaller than length {}".format(interval, length))
        self._length = length
        self._interval = interval
        self._rollover = rollover

    def __iter__(self):
        for i in range(self._interval if self._rollover else 1):
            for j in range(i, self._length, self._interval):
                yield j

    def __len__(self):
        return len(list(iter(self)))


class BatchSampler(Sampler):
    """Groups a sampler's indices into lists of batch_size.

    last_batch: 'keep' yields the short last batch, 'discard' drops it, 'rollover' keeps it
    and puts it at the front of the next pass.
    """

    def __init__(self, sampler, batch_size, last_batch="keep"):
        if last_batch not in ("keep", "discard", "rollover"):
            raise ValueError("last_batch must be one of 'keep', 'discard', or 'rollover', but "
                             "got %s" % last_batch)
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1, got %d" % batch_size)
        self._sampler = sampler
        self._batch_size = batch_size
        self._last_batch = last_batch
        self._prev = []

    def __iter__(self):
        batch, self._prev = self._prev, []
        for i in self._sampler:
            batch.append(i)
            if len(batch) == self._batch_size:
                yield batch
                batch = []
        if batch:
            if self._last_batch == "keep":
                yield batch
            elif self._last_batch == "rollover":
                self._prev = batch

    def __len__(self):
        if self._last_batch == "keep":
            return (len(self._sampler) + self._batch_size - 1) // self._batch_size
        if self._last_batch == "discard":
            return len(self._sampler) // self._batch_size
        return (len(self._prev) + len(self._sampler)) // self._batch_size
