"""Gluon: the imperative, layer-based interface (mx.gluon)."""
from .parameter import Parameter, Constant, ParameterDict, DeferredInitializationError
from .block import Block, HybridBlock
from .symbol_block import SymbolBlock
from . import nn
from . import loss
from . import utils
from . import data
from . import model_zoo
from .trainer import Trainer
from .. import metric
