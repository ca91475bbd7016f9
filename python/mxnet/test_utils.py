"""Helpers for tests written against MXNet 1.x."""
import contextlib
import os

from .base import _LIB, check_call, c_str

__all__ = ["environment", "setenv", "getenv"]


def getenv(name):
    """The runtime's view of a variable (its value in effect), or None when unset."""
    import ctypes
    value = ctypes.c_char_p()
    check_call(_LIB.MXGetEnv(c_str(name), ctypes.byref(value)))
    return None if value.value is None else value.value.decode("utf-8")


def setenv(name, value):
    """Sets a variable in the runtime and the process environment; None unsets it."""
    check_call(_LIB.MXSetEnv(c_str(name), None if value is None else c_str(value)))
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value


@contextlib.contextmanager
def environment(*args):
    """Sets environment variables for the duration of a `with` block.

    environment(name, value) or environment({name: value, ...}); a value of None unsets.
    Values are validated by the runtime: a bad one raises MXNetError naming the variable.
    """
    if len(args) == 2:
        changes = {args[0]: args[1]}
    elif len(args) == 1 and isinstance(args[0], dict):
        changes = dict(args[0])
    else:
        raise ValueError("environment() takes (name, value) or a dict of them")
    saved = {name: os.environ.get(name) for name in changes}
    applied = []
    try:
        for name, value in changes.items():
            setenv(name, None if value is None else str(value))
            applied.append(name)
        yield
    finally:
        for name in reversed(applied):
            setenv(name, saved[name])
