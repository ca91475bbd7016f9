"""Not supported: importing works, touching anything raises NotImplementedError saying what is."""
import sys as _sys

from .._unsupported_numpy import UnsupportedModule as _Unsupported

_sys.modules[__name__].__class__ = _Unsupported
