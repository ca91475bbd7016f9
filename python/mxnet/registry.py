"""Name -> class registries with create-by-name (MXNet 1.x `mx.registry`).

`get_register_func(Base, "optimizer")` gives a decorator that files a subclass of Base under
its lower-cased name; `get_alias_func` files it under more names; `get_create_func` builds an
instance from a name (any case), from a JSON text `'["name", {kwargs}]'`, or passes an
existing instance through. Misuse raises AssertionError, as 1.x's helpers do.
"""
import json
import warnings

from .base import string_types

__all__ = ["get_registry", "get_register_func", "get_alias_func", "get_create_func"]

_REGISTRIES = {}  # base class -> {lower-cased name: class}


def _registry(base_class):
    return _REGISTRIES.setdefault(base_class, {})


def get_registry(base_class):
    """A copy of the name -> class mapping of base_class's registry."""
    return dict(_registry(base_class))


def get_register_func(base_class, nickname):
    """A `register(klass, name=None)` function (usable as a decorator) for base_class."""
    registry = _registry(base_class)

    def register(klass, name=None):
        assert issubclass(klass, base_class), "Can only register subclass of %s" % base_class.__name__
        key = (klass.__name__ if name is None else name).lower()
        if key in registry:
            old = registry[key]
            warnings.warn("New %s %s.%s registered with name %s is overriding existing %s %s.%s" % (
                nickname, klass.__module__, klass.__name__, key, nickname, old.__module__, old.__name__),
                UserWarning, stacklevel=2)
        registry[key] = klass
        return klass

    register.__doc__ = "Register %s to the %s factory" % (nickname, nickname)
    return register


def get_alias_func(base_class, nickname):
    """An `alias(*names)` decorator that registers a class under each of names."""
    register = get_register_func(base_class, nickname)

    def alias(*aliases):
        def reg(klass):
            for name in aliases:
                register(klass, name)
            return klass
        return reg
    return alias


def get_create_func(base_class, nickname):
    """A `create(name_or_instance, *args, **kwargs)` function for base_class's registry."""
    registry = _registry(base_class)

    def create(*args, **kwargs):
        if args:
            name, args = args[0], args[1:]
        else:
            name = kwargs.pop(nickname)
        if isinstance(name, base_class):
            assert not args and not kwargs, \
                "%s is already an instance. Additional arguments are invalid" % nickname
            return name
        if isinstance(name, dict):
            return create(**name)
        assert isinstance(name, string_types), "%s must be of string type" % nickname
        if name.startswith("["):
            assert not args and not kwargs, "a JSON %s description takes no further arguments" % nickname
            name, kwargs = json.loads(name)
            return create(name, **kwargs)
        if name.startswith("{"):
            assert not args and not kwargs, "a JSON %s description takes no further arguments" % nickname
            return create(**json.loads(name))
        key = name.lower()
        assert key in registry, "%s is not registered. Please register with %s.register first" % (name, nickname)
        return registry[key](*args, **kwargs)

    create.__doc__ = "Create a %s instance from config." % nickname
    return create
