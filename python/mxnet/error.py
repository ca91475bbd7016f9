"""Exception classes the runtime raises; each also derives from the matching built-in."""
from .base import MXNetError, _ERROR_TYPES, register_error  # noqa: F401

globals().update(_ERROR_TYPES)
