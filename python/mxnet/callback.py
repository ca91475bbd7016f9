"""Callbacks for Module.fit (mx.callback).

Batch-end callbacks take one BatchEndParam (epoch, nbatch, eval_metric, locals); epoch-end
callbacks take (epoch, symbol, arg_params, aux_params).
"""
import logging
import math
import time

from .model import save_checkpoint

__all__ = ["module_checkpoint", "do_checkpoint", "log_train_metric", "Speedometer",
           "ProgressBar", "LogValidationMetricsCallback"]


def _every(period):
    return max(1, int(period))


def module_checkpoint(mod, prefix, period=1, save_optimizer_states=False):
    """Epoch-end callback: mod.save_checkpoint(prefix, epoch + 1, ...) every `period` epochs."""
    period = _every(period)

    def _callback(iter_no, sym=None, arg=None, aux=None):
        if (iter_no + 1) % period == 0:
            mod.save_checkpoint(prefix, iter_no + 1, save_optimizer_states)
    return _callback


def do_checkpoint(prefix, period=1):
    """Epoch-end callback: save_checkpoint(prefix, epoch + 1, ...) every `period` epochs."""
    period = _every(period)

    def _callback(iter_no, sym, arg, aux):
        if (iter_no + 1) % period == 0:
            save_checkpoint(prefix, iter_no + 1, sym, arg, aux)
    return _callback


def log_train_metric(period, auto_reset=False):
    """Batch-end callback: logs the training metric every `period` batches."""
    period = _every(period)

    def _callback(param):
        if param.nbatch % period != 0 or param.eval_metric is None:
            return
        for name, value in param.eval_metric.get_name_value():
            logging.info("Iter[%d] Batch[%d] Train-%s=%f", param.epoch, param.nbatch, name, value)
        if auto_reset:
            param.eval_metric.reset_local()
    return _callback


class Speedometer(object):
    """Batch-end callback: logs throughput (and the metric) every `frequent` batches.

    With auto_reset the metric's local counters are reset after each report, so each line
    shows the metric over the batches since the previous one.
    """

    def __init__(self, batch_size, frequent=50, auto_reset=True):
        self.batch_size = batch_size
        self.frequent = frequent
        self.auto_reset = auto_reset
        self.init = False
        self.tic = 0.0
        self.last_count = 0

    def __call__(self, param):
        count = param.nbatch
        if count < self.last_count:  # a new epoch began
            self.init = False
        self.last_count = count
        if not self.init:
            self.init = True
            self.tic = time.time()
            return
        if count % self.frequent != 0:
            return
        elapsed = time.time() - self.tic
        speed = self.frequent * self.batch_size / elapsed if elapsed > 0 else float("inf")
        if param.eval_metric is None:
            logging.info("Iter[%d] Batch [%d]\tSpeed: %.2f samples/sec", param.epoch, count, speed)
        else:
            name_value = param.eval_metric.get_name_value()
            if self.auto_reset:
                param.eval_metric.reset_local()
                first = count - self.frequent
            else:
                first = 0
            msg = "Epoch[%d] Batch [%d-%d]\tSpeed: %.2f samples/sec" + "\t%s=%f" * len(name_value)
            flat = [x for pair in name_value for x in pair]
            logging.info(msg, param.epoch, first, count, speed, *flat)
        self.tic = time.time()


class ProgressBar(object):
    """Batch-end callback: a text progress bar of nbatch out of `total` batches."""

    def __init__(self, total, length=80):
        self.bar_len = length
        self.total = total

    def __call__(self, param):
        count = param.nbatch
        frac = count / float(self.total) if self.total else 1.0
        filled = int(round(self.bar_len * frac))
        percents = int(math.ceil(100.0 * frac))
        bar = "=" * filled + "-" * (self.bar_len - filled)
        logging.info("[%s] %s%s\r", bar, percents, "%")


class LogValidationMetricsCallback(object):
    """Evaluation-end callback: logs each validation metric."""

    def __call__(self, param):
        if not param.eval_metric:
            return
        for name, value in param.eval_metric.get_name_value():
            logging.info("Epoch[%d] Validation-%s=%f", param.epoch, name, value)

