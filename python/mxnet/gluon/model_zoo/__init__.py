"""Predefined models (mx.gluon.model_zoo)."""
from . import vision  # noqa: F401
from .model_store import get_model_file  # noqa: F401
