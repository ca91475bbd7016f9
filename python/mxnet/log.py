"""Loggers with glog-style, level-coloured lines (MXNet 1.x `mx.log`).

`get_logger(name, filename, filemode, level)` returns the named logger with one handler
added on first use (a file handler when filename is given, else stderr) whose lines read
`W1127 21:01:40 1234 file.py:func:12] message`; later calls return the same logger.
"""
import logging
import sys
import time
import warnings

from logging import CRITICAL, DEBUG, ERROR, INFO, NOTSET, WARNING  # noqa: F401 - 1.x re-exports them

__all__ = ["get_logger", "getLogger", "CRITICAL", "DEBUG", "ERROR", "INFO", "NOTSET", "WARNING"]

_COLOURS = {CRITICAL: "\x1b[35m", ERROR: "\x1b[31m", WARNING: "\x1b[31m", INFO: "\x1b[32m", DEBUG: "\x1b[34m"}
_LETTERS = {CRITICAL: "C", ERROR: "E", WARNING: "W", INFO: "I", DEBUG: "D"}


class _Formatter(logging.Formatter):
    """Prefixes each line with the level's letter, the time, the process and the call site."""

    def __init__(self, colored=True):
        super(_Formatter, self).__init__()
        self.colored = colored

    def format(self, record):
        prefix = "%s%s %d %s:%s:%d]" % (_LETTERS.get(record.levelno, "U"),
                                        time.strftime("%m%d %H:%M:%S", time.localtime(record.created)),
                                        record.process, record.pathname, record.funcName, record.lineno)
        if self.colored:
            prefix = _COLOURS.get(record.levelno, "") + prefix + "\x1b[0m"
        text = prefix + " " + record.getMessage()
        if record.exc_info:
            text += "\n" + self.formatException(record.exc_info)
        return text


def get_logger(name=None, filename=None, filemode=None, level=WARNING):
    """The logger `name` (root when None); the first call adds its handler and sets its level."""
    logger = logging.getLogger(name)
    if name is not None and not getattr(logger, "_mxnet_handler_added", False):
        logger._mxnet_handler_added = True
        if filename:
            handler = logging.FileHandler(filename, filemode or "a")
            handler.setFormatter(_Formatter(colored=False))
        else:
            handler = logging.StreamHandler(sys.stderr)
            handler.setFormatter(_Formatter())
        logger.addHandler(handler)
        logger.setLevel(level)
    return logger


def getLogger(name=None, filename=None, filemode=None, level=WARNING):  # pylint: disable=invalid-name
    """Deprecated spelling of get_logger."""
    warnings.warn("getLogger is deprecated, use get_logger instead", DeprecationWarning, stacklevel=2)
    return get_logger(name, filename, filemode, level)
