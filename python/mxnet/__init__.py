"""MXNet-compatible deep learning runtime."""
from .libinfo import __version__
from . import base
from .base import MXNetError
from . import error
from . import context
from .context import Context, current_context, cpu, gpu, cpu_pinned
from . import runtime
from . import test_utils
from . import profiler
from . import engine
