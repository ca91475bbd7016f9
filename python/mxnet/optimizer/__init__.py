"""Optimizers (mx.optimizer): update rules over NDArrays, the registry and the Updater."""
from .optimizer import Optimizer, register, create, Updater, get_updater
from .sgd import SGD, NAG, Signum
from .adam import Adam, AdamW, LAMB
from .adaptive import RMSProp, AdaGrad, AdaDelta, Ftrl
from .additive import Test
from .. import lr_scheduler

__all__ = ["Optimizer", "register", "create", "Updater", "get_updater", "SGD", "NAG", "Signum",
           "Adam", "AdamW", "LAMB", "RMSProp", "AdaGrad", "AdaDelta", "Ftrl", "Test", "lr_scheduler"]
