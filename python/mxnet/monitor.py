"""Monitor (mx.mon / mx.monitor): statistics of executor outputs and arguments every N batches.

Installed on executors (Module.install_monitor), it receives every op output through the
executor's monitor callback while active; tic() activates it on every interval-th batch and
toc() adds the arguments and returns (batch, name, text) rows.
"""
import ctypes
import logging
import math
import re

from .base import NDArrayHandle

__all__ = ["Monitor"]


def _default_stat(x):
    """Root mean square of the array: ||x||_2 / sqrt(size)."""
    from . import ndarray as nd
    return nd.norm(x) / math.sqrt(max(x.size, 1))


def _as_ndarray(array):
    from .ndarray import NDArray
    if isinstance(array, NDArray):
        return array
    if isinstance(array, int):
        array = ctypes.c_void_p(array)
    return NDArray(ctypes.cast(array, NDArrayHandle), writable=False)


class Monitor(object):
    """Collects stat_func of the outputs (and, at toc, arguments) whose names match pattern."""

    def __init__(self, interval, stat_func=None, pattern=".*", sort=False, monitor_all=False):
        self.stat_func = stat_func or _default_stat
        self.interval = interval
        self.activated = False
        self.queue = []
        self.step = 0
        self.exes = []
        self.re_prog = re.compile(pattern)
        self.sort = sort
        self.monitor_all = monitor_all

        def stat_helper(name, array, *_):
            array = _as_ndarray(array)  # takes ownership of the handle, so wrap it first
            if not self.activated:
                return
            if isinstance(name, bytes):
                name = name.decode("utf-8")
            if not self.re_prog.match(name):
                return
            self.queue.append((self.step, name, self.stat_func(array)))
        self.stat_helper = stat_helper

    def install(self, exe):
        """Registers the callback on an executor."""
        exe.set_monitor_callback(self.stat_helper, self.monitor_all)
        self.exes.append(exe)

    def _wait_args(self):
        for exe in self.exes:
            for array in list(exe.arg_arrays) + list(exe.aux_arrays):
                array.wait_to_read()

    def tic(self):
        """Start of a batch: activates collection every `interval` batches."""
        if self.step % self.interval == 0:
            self._wait_args()
            self.queue = []
            self.activated = True
        self.step += 1

    def toc(self):
        """End of a batch: returns the collected (step, name, text) rows and deactivates."""
        if not self.activated:
            return []
        self._wait_args()
        for exe in self.exes:
            for name, array in exe.arg_dict.items():
                if self.re_prog.match(name):
                    self.queue.append((self.step, name, self.stat_func(array)))
        self.activated = False
        rows = []
        queue = sorted(self.queue, key=lambda x: x[1]) if self.sort else self.queue
        for step, name, values in queue:
            if not isinstance(values, (list, tuple)):
                values = [values]
            text = ""
            for v in values:
                if hasattr(v, "asnumpy"):
                    text += (str(v.asscalar()) if v.shape == (1,) else str(v.asnumpy())) + "\t"
                else:
                    text += str(v) + "\t"
            rows.append((step, name, text))
        self.queue = []
        return rows

    def toc_print(self):
        """toc() and log each row."""
        for step, name, text in self.toc():
            logging.info("Batch: {:7d} {:30s} {:s}".format(step, name, text))
