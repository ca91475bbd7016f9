"""SGD-family rules: SGD (and its old name ccSGD), NAG (Nesterov), Signum / signSGD, DCASGD
(delay-compensated) and SGLD (Langevin dynamics)."""
import math

import numpy as np

from .. import ndarray as nd
from .optimizer import Optimizer, register, _zeros_like, _aggregation_size

__all__ = ["SGD", "ccSGD", "NAG", "Signum", "DCASGD", "SGLD"]


def _is_multi_precision(opt, weight):
    return opt.multi_precision and weight.dtype == np.float16


def _momentum_first(opt, state, weight):
    """SGD's and NAG's multi-precision state in MXNet 1.x's order, (momentum or None, float32
    weight), so states saved by 1.x (Trainer.save_states, Module) load into the right slots."""
    if _is_multi_precision(opt, weight):
        master, mom = state
        return (mom, master)
    return state


def _master_first(opt, state, weight):
    """The inverse of _momentum_first: the (master, inner) pair Optimizer.update_multi_precision takes."""
    if _is_multi_precision(opt, weight):
        mom, master = state
        return (master, mom)
    return state


@register
class SGD(Optimizer):
    """Stochastic gradient descent with optional momentum, on sgd_update / sgd_mom_update.

    Without momentum: w = (1 - lr*wd) * w - lr * clip(rescale * g).
    With momentum m:  v = m*v - lr*wd*w - lr*clip(rescale * g); w = w + v.
    Lists of weights (from the Updater, at most MXNET_OPTIMIZER_AGGREGATION_SIZE of one dtype)
    go through one multi_*sgd*_update call.
    """

    def __init__(self, momentum=0.0, lazy_update=True, **kwargs):
        super(SGD, self).__init__(**kwargs)
        self.momentum = momentum
        self.lazy_update = lazy_update
        self.aggregate_num = _aggregation_size()

    def create_state(self, index, weight):
        return _zeros_like(weight) if self.momentum != 0.0 else None

    def update(self, index, weight, grad, state):
        if isinstance(index, (list, tuple)):
            self._update_aggregated(index, weight, grad, state, False)
            return
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        kwargs = self._clip_kwargs()
        if state is not None:
            nd.sgd_mom_update(weight, grad, state, out=weight, lr=lr, wd=wd,
                              momentum=self.momentum, lazy_update=self.lazy_update, **kwargs)
        else:
            nd.sgd_update(weight, grad, out=weight, lr=lr, wd=wd, lazy_update=self.lazy_update,
                          **kwargs)

    def create_state_multi_precision(self, index, weight):
        return _momentum_first(self, super(SGD, self).create_state_multi_precision(index, weight), weight)

    def update_multi_precision(self, index, weight, grad, state):
        if isinstance(index, (list, tuple)):
            mp = self.multi_precision and weight[0].dtype == np.float16
            self._update_aggregated(index, weight, grad, state, mp)
        else:
            super(SGD, self).update_multi_precision(index, weight, grad, _master_first(self, state, weight))

    def _update_aggregated(self, indices, weights, grads, states, mp):
        """One multi-tensor op for all weights; mp: states are (momentum or None, float32 master)."""
        self._update_count(indices)
        kwargs = self._clip_kwargs()
        data = []
        for w, g, s in zip(weights, grads, states):
            data += [w, g]
            mom, master = s if mp else (s, None)
            data += [a for a in (mom, master) if a is not None]
        name = "multi_mp_sgd" if mp else "multi_sgd"
        if self.momentum != 0.0:
            name += "_mom"
            kwargs["momentum"] = self.momentum
        getattr(nd, name + "_update")(*data, out=list(weights), num_weights=len(weights),
                                      lrs=tuple(self._get_lrs(indices)), wds=tuple(self._get_wds(indices)),
                                      **kwargs)


@register
class NAG(Optimizer):
    """Nesterov accelerated gradient, on nag_mom_update.

    g = clip(rescale * grad) + wd*w; v1 = m*v; w = w - v1 + (1 + m)*(v1 - lr*g); v = v1 - lr*g
    (the state holds the lr-scaled step, as in MXNet 1.x; the update runs in place, so the wd*w in
    the state's update sees the new weight). Without momentum it is plain SGD.
    """

    def __init__(self, momentum=0.0, **kwargs):
        super(NAG, self).__init__(**kwargs)
        self.momentum = momentum

    def create_state(self, index, weight):
        return _zeros_like(weight) if self.momentum != 0.0 else None

    def create_state_multi_precision(self, index, weight):
        return _momentum_first(self, super(NAG, self).create_state_multi_precision(index, weight), weight)

    def update_multi_precision(self, index, weight, grad, state):
        super(NAG, self).update_multi_precision(index, weight, grad, _master_first(self, state, weight))

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        kwargs = self._clip_kwargs()
        if state is not None:
            nd.nag_mom_update(weight, grad, state, out=weight, lr=lr, wd=wd,
                              momentum=self.momentum, **kwargs)
        else:
            nd.sgd_update(weight, grad, out=weight, lr=lr, wd=wd, **kwargs)


@register
class ccSGD(SGD):  # pylint: disable=invalid-name
    """The same rule as SGD under MXNet 1.x's older name (creatable as 'ccsgd')."""


@register
class Signum(Optimizer):
    """Sign of the (momentum-averaged) gradient, on signum_update / signsgd_update.

    With momentum m: v = m*v - (1-m)*(wd*w + clip(rescale*g)); w = (1 - lr*wd_lh)*w + lr*sign(v).
    Without (signSGD): w = (1 - lr*wd)*w - lr*sign(clip(rescale*g)).
    """

    def __init__(self, learning_rate=0.01, momentum=0.9, wd_lh=0.0, **kwargs):
        super(Signum, self).__init__(learning_rate=learning_rate, **kwargs)
        self.momentum = momentum
        self.wd_lh = wd_lh

    def create_state(self, index, weight):
        return _zeros_like(weight) if self.momentum != 0.0 else None

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        kwargs = self._clip_kwargs()
        if self.momentum > 0:
            kwargs["momentum"] = self.momentum
        if self.wd_lh:
            kwargs["wd_lh"] = self.wd_lh
        if state is not None:
            nd.signum_update(weight, grad, state, out=weight, lr=lr, wd=wd, **kwargs)
        else:
            kwargs.pop("momentum", None)
            kwargs.pop("wd_lh", None)
            nd.signsgd_update(weight, grad, out=weight, lr=lr, wd=wd, **kwargs)


@register
class DCASGD(Optimizer):
    """Delay-compensated asynchronous SGD (Zheng et al.): the gradient is corrected for the
    weight having moved since it was computed, using the previous weight kept in the state.

    g = clip(rescale*grad); step = -lr * (g + wd*w + lamda * g*g * (w - w_prev));
    with momentum m: v = m*v + step, w_prev = w, w = w + v; without: w_prev = w, w = w + step.
    The state is (momentum or None, previous weight).
    """

    def __init__(self, momentum=0.0, lamda=0.04, **kwargs):
        super(DCASGD, self).__init__(**kwargs)
        self.momentum = momentum
        self.weight_previous = {}  # kept for MXNet 1.x's pickled attribute layout
        self.lamda = lamda

    def create_state(self, index, weight):
        mom = _zeros_like(weight) if self.momentum != 0.0 else None
        return (mom, weight.copy())

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        g = self._prepared_grad(grad)
        mom, previous_weight = state
        step = (g + weight * wd + g * g * (weight - previous_weight) * self.lamda) * -lr
        if mom is not None:
            mom[:] = mom * self.momentum + step
            step = mom
        previous_weight[:] = weight
        weight[:] = weight + step


@register
class SGLD(Optimizer):
    """Stochastic gradient Langevin dynamics: a half SGD step plus Gaussian noise of variance lr.

    g = clip(rescale*grad); w = w - lr/2 * (g + wd*w) + N(0, sqrt(lr)). No state.
    """

    def create_state(self, index, weight):
        return None

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        g = self._prepared_grad(grad)
        weight[:] = weight - (g + weight * wd) * (lr / 2)
        weight[:] = weight + nd.random.normal(0, math.sqrt(lr), shape=weight.shape,
                                              dtype=weight.dtype, ctx=weight.context)
