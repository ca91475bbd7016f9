"""Extra Gluon layers kept in MXNet's contrib namespace (mx.gluon.contrib)."""
from . import nn  # noqa: F401
