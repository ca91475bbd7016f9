"""MXNet-compatible deep learning runtime."""
from .libinfo import __version__
from . import base
from .base import MXNetError
from . import error
from . import context
from .context import Context, current_context, cpu, gpu, cpu_pinned
from . import runtime
from . import kernels
from . import ndarray
from . import ndarray as nd
from . import autograd
from . import random
from . import random as rnd
from . import np
from . import np as numpy
from . import npx
from . import npx as numpy_extension
from . import test_utils
from . import profiler
from . import engine
from . import log
from . import registry
from . import name
from . import attribute
from .attribute import AttrScope
from . import symbol
from . import symbol as sym
from . import executor
from . import initializer
from . import initializer as init
from . import lr_scheduler
from . import optimizer
from . import kvstore
from . import kvstore as kv
from . import metric
from . import io
from . import image
from . import image as img
from . import recordio
from . import gluon
from . import operator
from . import model
from . import callback
from . import monitor
from . import monitor as mon
from . import module
from . import module as mod
from . import visualization
from . import visualization as viz
from . import util
from .util import is_np_shape, set_np_shape, np_shape, use_np_shape, is_np_array
