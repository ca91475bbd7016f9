"""Automatic names (mx.name): per-hint counters such as dense0, dense1, conv0.

The current manager is thread-local. Gluon takes top-level block prefixes from it and the
symbolic API names unnamed operators with it; `Prefix` prepends a fixed string.
"""
import threading

__all__ = ["NameManager", "Prefix", "current"]


class NameManager(object):
    """Hands out `<hint><n>` names, counting separately for every hint."""

    _current = threading.local()

    def __init__(self):
        self._counter = {}
        self._old_manager = None

    def get(self, name, hint):
        """`name` itself when given, else the next `<hint><count>`."""
        if name:
            return name
        count = self._counter.get(hint, 0)
        self._counter[hint] = count + 1
        return "%s%d" % (hint, count)

    def __enter__(self):
        self._old_manager = current()
        NameManager._current.value = self
        return self

    def __exit__(self, ptype, value, trace):
        NameManager._current.value = self._old_manager


class Prefix(NameManager):
    """A NameManager whose names all start with `prefix`."""

    def __init__(self, prefix):
        super(Prefix, self).__init__()
        self._prefix = prefix

    def get(self, name, hint):
        return self._prefix + super(Prefix, self).get(name, hint)


def current():
    """This thread's active NameManager (created on first use)."""
    if not hasattr(NameManager._current, "value") or NameManager._current.value is None:
        NameManager._current.value = NameManager()
    return NameManager._current.value
