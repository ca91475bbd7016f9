"""mx.nd: NDArray, creation and I/O, ops generated from the registry, 1.x conveniences."""
import sys as _sys

from .ndarray import (NDArray, array, empty, zeros, ones, full, arange, linspace, eye, save, load,
                      load_frombuffer, waitall, concatenate, moveaxis)
from . import _arith, _indexing, register as _register
# Before populate(): the registry's `_sparse_*` ops then land in this module (mx.nd.sparse).
from . import sparse  # noqa: F401
from .sparse import CSRNDArray  # noqa: F401
from .. import _registry

NDArray.__getitem__ = _indexing.getitem
NDArray.__setitem__ = _indexing.setitem
_arith.install(NDArray)

_register.populate(_sys.modules[__name__])

for _name, _fn in _arith.FUNCTIONS.items():
    globals()[_name] = _fn


def _method(opname):
    def fn(self, *args, **kwargs):
        return _register.invoke_by_name(opname, (self,) + args, kwargs)
    fn.__name__ = opname
    return fn


# Methods 1.x NDArray forwards to same-named ops (the list mx.sym's Symbol shares).
for _name in _registry.FLUENT_METHODS:
    if _name in _registry.INFOS and not hasattr(NDArray, _name):
        setattr(NDArray, _name, _method(_name))

from . import random  # noqa: E402
from . import _op_helpers  # noqa: E402
from ._op_helpers import split_v2, onehot_encode  # noqa: E402,F401
_op_helpers.install(NDArray)
from .cached_op import CachedOp  # noqa: E402
del _sys, _name
