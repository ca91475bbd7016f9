"""Attribute scopes (mx.AttrScope): string attributes attached to every symbol made inside.

    with mx.AttrScope(ctx_group='stage1'):
        fc = mx.sym.FullyConnected(data, num_hidden=10)   # carries __ctx_group__ = stage1

Scopes nest: an inner scope sees the outer one's attributes, its own winning on a clash.
An explicit `attr=` on a symbol wins over every scope. The current scope is thread-local.
"""
import threading

__all__ = ["AttrScope", "current"]


class AttrScope(object):
    """A set of string attributes for the symbols created while it is entered."""

    _current = threading.local()

    def __init__(self, **kwargs):
        for key, value in kwargs.items():
            if not isinstance(value, str):
                raise ValueError("Attributes need to be string: %s=%r is a %s"
                                 % (key, value, type(value).__name__))
        self._attr = dict(kwargs)
        self._old_scope = None

    def get(self, attr):
        """This scope's attributes updated with `attr` (a new dict; {} when both are empty)."""
        merged = dict(self._attr)
        if attr:
            merged.update(attr)
        return merged

    def __enter__(self):
        self._old_scope = current()
        # Entering merges the enclosing scope's attributes under this one's.
        merged = dict(self._old_scope._attr)
        merged.update(self._attr)
        self._attr = merged
        AttrScope._current.value = self
        return self

    def __exit__(self, ptype, value, trace):
        AttrScope._current.value = self._old_scope


def current():
    """This thread's active AttrScope (an empty one until a scope is entered)."""
    scope = getattr(AttrScope._current, "value", None)
    if scope is None:
        scope = AttrScope._current.value = AttrScope()
    return scope

