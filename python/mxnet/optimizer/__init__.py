"""Optimizers (mx.optimizer): update rules over NDArrays, the registry and the Updater."""
from . import optimizer
from .optimizer import Optimizer, register, create, Updater, get_updater
from .sgd import SGD, ccSGD, NAG, Signum, DCASGD, SGLD
from .adam import Adam, AdamW, LAMB, Adamax, Nadam, FTML
from .adaptive import RMSProp, AdaGrad, AdaDelta, Ftrl
from .large_batch import LARS, LBSGD
from .additive import Test
from . import contrib
from ..ndarray import abs as NDabs  # 1.x exposes nd.abs under this name
from .. import lr_scheduler

# MXNet 1.x defines every built-in rule in mxnet.optimizer.optimizer and its pickles (Updater
# states saved with the optimizer, gluon.Trainer.save_states) name them there: bind them into
# that module under that path, so those files load here and ours load in 1.x.
for _rule in (SGD, ccSGD, NAG, Signum, DCASGD, SGLD, Adam, LAMB, Adamax, Nadam, FTML, RMSProp,
              AdaGrad, AdaDelta, Ftrl, LARS, LBSGD, Test):
    _rule.__module__ = optimizer.__name__
    setattr(optimizer, _rule.__name__, _rule)
optimizer.NDabs = NDabs
del _rule

__all__ = ["Optimizer", "register", "create", "Updater", "get_updater", "SGD", "ccSGD", "NAG",
           "Signum", "DCASGD", "SGLD", "Adam", "AdamW", "LAMB", "Adamax", "Nadam", "FTML",
           "RMSProp", "AdaGrad", "AdaDelta", "Ftrl", "LARS", "LBSGD", "Test", "NDabs", "contrib",
           "lr_scheduler"]
