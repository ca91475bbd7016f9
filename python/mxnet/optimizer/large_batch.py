"""Large-batch SGD rules: LARS (layer-wise adaptive rate scaling) and LBSGD (learning-rate
warm-up for large batches, with gradient accumulation over batch_scale steps)."""
import math
import warnings

import numpy as np

from .. import ndarray as nd
from .optimizer import Optimizer, register, _zeros_like, _aggregation_size
from .sgd import _momentum_first

__all__ = ["LARS", "LBSGD"]

# Parameters whose names end so (normalisation scales and shifts, biases) keep the plain rate.
_NO_LARS_SUFFIXES = ("gamma", "beta", "bias")


def _sgd_step(weight, grad, state, lr, wd, kwargs, multi_precision, lazy_update=None):
    """One SGD step on the fused operators; state is the momentum or None, or (momentum or None,
    float32 weight) under multi-precision. kwargs: rescale_grad, momentum, clip_gradient."""
    extra = {} if lazy_update is None else {"lazy_update": lazy_update}
    plain = {k: v for k, v in kwargs.items() if k != "momentum"}
    if not multi_precision:
        if state is not None:
            nd.sgd_mom_update(weight, grad, state, out=weight, lr=lr, wd=wd, **dict(kwargs, **extra))
        else:
            nd.sgd_update(weight, grad, out=weight, lr=lr, wd=wd, **dict(plain, **extra))
        return
    mom, master = state
    if mom is not None:
        nd.mp_sgd_mom_update(weight, grad, mom, master, out=weight, lr=lr, wd=wd, **kwargs)
    else:
        nd.mp_sgd_update(weight, grad, master, out=weight, lr=lr, wd=wd, **plain)


@register
class LARS(Optimizer):
    """SGD with a per-layer learning rate (You et al., "Large Batch Training of Convolutional
    Networks").

    For each weight whose name does not end in gamma/beta/bias (unnamed weights use their index):
    lr_i = lr * eta * ||w|| / (||g|| * rescale_grad + wd * ||w|| + eps) when both norms are
    positive (the gradient's norm before clipping), else lr_i = lr. Then an SGD step with lr_i.
    With momentum_correction the momentum is scaled by lr_now / lr_previous (the rate of the
    previous call), which keeps the step smooth when a scheduler changes the rate.
    """

    def __init__(self, momentum=0.0, lazy_update=True, eta=0.001, eps=0,
                 momentum_correction=True, **kwargs):
        super(LARS, self).__init__(**kwargs)
        self.momentum = momentum
        self.momentum_correction = momentum_correction
        self.lazy_update = lazy_update
        self.aggregate_num = _aggregation_size()
        self.eta = eta
        self.eps = eps
        self.skip = 0  # unused; part of MXNet 1.x's pickled attribute set
        self.last_lr = None
        self.cur_lr = None

    def create_state(self, index, weight):
        return _zeros_like(weight) if self.momentum != 0.0 else None

    def create_state_multi_precision(self, index, weight):
        state = super(LARS, self).create_state_multi_precision(index, weight)
        return _momentum_first(self, state, weight)

    def _get_lrs(self, indices):
        """The base rates, remembering this call's rate and the previous call's for the
        momentum correction."""
        lr = self.lr_scheduler(self.num_update) if self.lr_scheduler is not None else self.lr
        if self.cur_lr is not None:
            self.last_lr = self.cur_lr
        self.cur_lr = lr
        if self.last_lr is None:
            self.last_lr = lr
        return [lr * self._mult(i, self.lr_mult, "lr_mult") for i in indices]

    def _lars_factor(self, index, weight, grad, wd):
        name = self.idx2name.get(index, str(index))
        if name.endswith(_NO_LARS_SUFFIXES):
            return 1.0
        w_norm = float(nd.norm(weight.astype(np.float32)).asscalar())
        g_norm = float(nd.norm(grad.astype(np.float32)).asscalar()) * self.rescale_grad
        if w_norm > 0.0 and g_norm > 0.0:
            return self.eta * w_norm / (g_norm + wd * w_norm + self.eps)
        return 1.0

    def update(self, index, weight, grad, state):
        self._update_impl(index, weight, grad, state, False)

    def update_multi_precision(self, index, weight, grad, state):
        first = weight[0] if isinstance(index, (list, tuple)) else weight
        self._update_impl(index, weight, grad, state,
                          self.multi_precision and first.dtype == np.float16)

    def _update_impl(self, indices, weights, grads, states, multi_precision):
        if not isinstance(indices, (list, tuple)):
            indices, weights, grads, states = [indices], [weights], [grads], [states]
        self._update_count(indices)
        lrs = self._get_lrs(indices)
        wds = self._get_wds(indices)
        kwargs = self._clip_kwargs()
        if self.momentum > 0:
            corrected = self.momentum_correction and self.last_lr != 0
            kwargs["momentum"] = self.momentum * (self.cur_lr / self.last_lr) if corrected \
                else self.momentum
        for index, weight, grad, state, lr, wd in zip(indices, weights, grads, states, lrs, wds):
            lr *= self._lars_factor(index, weight, grad, wd)
            _sgd_step(weight, grad, state, lr, wd, kwargs, multi_precision, self.lazy_update)


@register
class LBSGD(Optimizer):
    """Large-batch SGD: gradients are summed over batch_scale calls and their mean applied once,
    with the rate multiplied by a warm-up factor.

    Warm-up over nwup = warmup_epochs * updates_per_epoch macro-steps, at step n (counted from
    begin_epoch * updates_per_epoch + 1): 'linear' 1 + (batch_scale-1) * n/nwup, 'power2'
    1 + (batch_scale-1) * (n/nwup)^2, 'sqrt' 1 + (batch_scale-1) * sqrt(n/nwup), batch_scale
    once n >= nwup; 'lars' uses sqrt(|w|^2 / (|g|^2 + wd*|w|^2 + 1e-18)) clamped to [0.01, 100].
    The rate is read before the update is counted (so a scheduler sees the previous count).
    """

    def __init__(self, momentum=0.0, multi_precision=False, warmup_strategy='linear',
                 warmup_epochs=5, batch_scale=1, updates_per_epoch=32, begin_epoch=0,
                 num_epochs=60, **kwargs):
        super(LBSGD, self).__init__(**kwargs)
        self.momentum = momentum
        self.multi_precision = multi_precision
        self.warmup_strategy = warmup_strategy
        self.warmup_epochs = warmup_epochs
        self.batch_scale = batch_scale
        self.updates_per_epoch = updates_per_epoch
        self.init_updates = begin_epoch * updates_per_epoch
        self.num_epochs = num_epochs
        # MXNet 1.x's attribute set, kept so pickles interchange
        self.lbmult = 1
        self.cumgrads = {}
        self.adaptive = False
        self.admult = 1

    def create_state(self, index, weight):
        if self.multi_precision and weight.dtype == np.float16:
            master = weight.astype(np.float32)
            mom = _zeros_like(master) if self.momentum != 0.0 else None
            return (mom, master)
        if weight.dtype == np.float16:
            warnings.warn("Accumulating with float16 in optimizer can lead to poor accuracy or "
                          "slow convergence. Consider using multi_precision=True option of the "
                          "LBSGD optimizer")
        return _zeros_like(weight) if self.momentum != 0.0 else None

    def _get_lbmult(self, nup):
        """The warm-up multiplier of the rate at macro-step `nup`."""
        nwup = self.warmup_epochs * self.updates_per_epoch
        maxmult = float(self.batch_scale)
        if nup >= nwup:
            return maxmult
        if nwup <= 1:
            return 1.0
        if self.warmup_strategy == 'linear':
            return 1.0 + (maxmult - 1) * nup / nwup
        if self.warmup_strategy == 'power2':
            return 1.0 + (maxmult - 1) * (nup * nup) / (nwup * nwup)
        if self.warmup_strategy == 'sqrt':
            return 1.0 + (maxmult - 1) * math.sqrt(float(nup) / nwup)
        return 1.0

    def _get_lars(self, weight, grad, wd):
        """The 'lars' strategy's multiplier, from squared norms, clamped to [0.01, 100]."""
        weight2 = float(nd.sum(weight * weight).asscalar())
        grad2 = float(nd.sum(grad * grad).asscalar())
        lars = math.sqrt(weight2 / (grad2 + wd * weight2 + 1e-18))
        return min(max(lars, 0.01), 100.0)

    def _cumulate_gradient(self, grad, index):
        """Adds `grad` to index's running sum; returns {'cum_grad', 'num_cums'}."""
        cgrad = self.cumgrads.get(index)
        if cgrad and cgrad['num_cums'] > 0:
            cgrad = {'cum_grad': cgrad['cum_grad'] + grad, 'num_cums': cgrad['num_cums'] + 1}
        else:
            cgrad = {'cum_grad': grad.copy(), 'num_cums': self.init_updates + 1}
        self.cumgrads[index] = cgrad
        return cgrad

    def update(self, index, weight, grad, state):
        lr, wd = self._get_lr(index), self._get_wd(index)
        self._update_count(index)
        cgrad = self._cumulate_gradient(grad, index)
        if cgrad['num_cums'] % self.batch_scale != 0:
            return  # still accumulating: the weight stays as it is
        grad = cgrad['cum_grad'] / self.batch_scale
        if self.warmup_strategy == 'lars':
            lr *= self._get_lars(weight, grad, wd)
        else:
            lr *= self._get_lbmult(cgrad['num_cums'])
        kwargs = {'rescale_grad': self.rescale_grad}
        if self.momentum > 0:
            kwargs['momentum'] = self.momentum
        if self.clip_gradient:
            kwargs['clip_gradient'] = self.clip_gradient
        _sgd_step(weight, grad, state, lr, wd, kwargs, isinstance(state, (list, tuple)))
        self.cumgrads[index]['cum_grad'] = 0  # the next macro-step starts a new sum
