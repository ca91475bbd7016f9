"""The listening point of a Gluon trace (gluon/trace.py) inside the NDArray layer.

While a hybridized block records the operators of one call, STATE.recorder is its recorder on
that thread; the NDArray functions that make arrays (imperative_invoke, reshape and the other
views) or read their values report to it. Elsewhere it is None and costs one attribute read.
"""
import threading


class _State(threading.local):
    recorder = None


STATE = _State()


def report_view(source, method, args, result):
    """A view `result = source.<method>(*args)` was made (MXNDArrayReshape64 and the like)."""
    recorder = STATE.recorder
    if recorder is not None:
        recorder.view(source, method, args, result)
    return result


def report_value_read(what):
    """Array values reached Python: a trace cannot replay what depends on them."""
    recorder = STATE.recorder
    if recorder is not None:
        recorder.abandon("the block reads array values (%s)" % what)
