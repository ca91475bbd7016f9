"""mx.sym / mx.symbol: symbolic graphs (Symbol, var, Group, load) and every registered op as a
function that builds a graph node, laid out like mx.nd (op, _internal, contrib, linalg, random)."""
import sys as _sys

from .symbol import (Symbol, var, Variable, Group, load, load_json, pow, power, maximum, minimum, hypot,
                     zeros, ones, full, arange, linspace, eye)
from . import register as _register
from .. import _registry

_register.populate(_sys.modules[__name__])

from .symbol import install_fluent_methods as _install_fluent  # noqa: E402

_install_fluent(_registry.FLUENT_METHODS, _registry.INFOS)

from . import random  # noqa: E402

del _sys
