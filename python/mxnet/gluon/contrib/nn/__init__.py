"""Container layers of mx.gluon.contrib.nn: Concurrent, HybridConcurrent, Identity."""
from .basic_layers import *  # noqa: F401,F403
