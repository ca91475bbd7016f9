"""Adam-family rules: Adam (on adam_update), AdamW (decoupled decay), LAMB, Adamax, Nadam and
FTML."""
import math

from .. import ndarray as nd
from .optimizer import Optimizer, register, _zeros_like, _aggregation_size

__all__ = ["Adam", "AdamW", "LAMB", "Adamax", "Nadam", "FTML"]


class _Moments(Optimizer):
    """What the Adam family shares: beta1, beta2 and the moment states (mean, var)."""

    def __init__(self, learning_rate, beta1, beta2, **kwargs):
        super(_Moments, self).__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2

    def create_state(self, index, weight):
        return (_zeros_like(weight), _zeros_like(weight))

    def _count_step(self, index):
        """Counts the update of `index`; returns its lr, wd and update number t."""
        self._update_count(index)
        return self._get_lr(index), self._get_wd(index), self._index_update_count[index]

    def _update_moments(self, grad, state):
        """Updates the moments in place with g = clip(rescale*grad) and returns them:
        mean = beta1*mean + (1-beta1)*g, var = beta2*var + (1-beta2)*g^2."""
        mean, var = state
        g = self._prepared_grad(grad)
        mean[:] = mean * self.beta1 + g * (1.0 - self.beta1)
        var[:] = var * self.beta2 + nd.square(g) * (1.0 - self.beta2)
        return mean, var


@register
class Adam(_Moments):
    """Adam with bias correction folded into the step size.

    At update t: lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t); g = clip(rescale*grad + wd*w);
    m = beta1*m + (1-beta1)*g; v = beta2*v + (1-beta2)*g^2; w = w - lr_t * m / (sqrt(v) + eps).
    """

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 lazy_update=True, **kwargs):
        super(Adam, self).__init__(learning_rate, beta1, beta2, **kwargs)
        self.epsilon = epsilon
        self.lazy_update = lazy_update

    def update(self, index, weight, grad, state):
        lr, wd, t = self._count_step(index)
        lr *= math.sqrt(1.0 - self.beta2 ** t) / (1.0 - self.beta1 ** t)
        mean, var = state
        nd.adam_update(weight, grad, mean, var, out=weight, lr=lr, wd=wd, beta1=self.beta1,
                       beta2=self.beta2, epsilon=self.epsilon, lazy_update=self.lazy_update,
                       **self._clip_kwargs())


@register
class AdamW(_Moments):
    """Adam with weight decay applied to the weight directly, not through the gradient.

    g = clip(rescale*grad); m, v as in Adam; lr_t as in Adam;
    w = w - lr_t * m / (sqrt(v) + eps) - lr * wd * w.
    """

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, **kwargs):
        super(AdamW, self).__init__(learning_rate, beta1, beta2, **kwargs)
        self.epsilon = epsilon

    def update(self, index, weight, grad, state):
        lr, wd, t = self._count_step(index)
        lr_t = lr * math.sqrt(1.0 - self.beta2 ** t) / (1.0 - self.beta1 ** t)
        mean, var = self._update_moments(grad, state)
        weight[:] = weight * (1.0 - lr * wd) - mean / (nd.sqrt(var) + self.epsilon) * lr_t


@register
class LAMB(_Moments):
    """Layer-wise adaptive moments, on lamb_update_phase1 / lamb_update_phase2.

    g = clip(rescale*grad); m, v as in Adam; with bias correction m_hat = m/(1-beta1^t),
    v_hat = v/(1-beta2^t); d = m_hat / (sqrt(v_hat) + eps) + wd*w; r1 = ||w|| (clamped to
    [lower_bound, upper_bound] where those are set and non-zero), r2 = ||d||; ratio = r1/r2 when
    both are positive, else 1; w = w - lr * ratio * d. Lists of weights (from the Updater, up to
    aggregate_num of one dtype) are updated one by one, each with its own norms.
    """

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-6,
                 lower_bound=None, upper_bound=None, bias_correction=True, **kwargs):
        super(LAMB, self).__init__(learning_rate, beta1, beta2, **kwargs)
        self.epsilon = epsilon
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        self.bias_correction = bias_correction
        self.aggregate_num = max(1, min(45, _aggregation_size(default=45)))

    def update(self, index, weight, grad, state):
        if isinstance(index, (list, tuple)):
            for item in zip(index, weight, grad, state):
                self.update(*item)
            return
        lr, wd, t = self._count_step(index)
        mean, var = state
        direction = nd.lamb_update_phase1(weight, grad, mean, var, t=t, wd=wd, beta1=self.beta1,
                                          beta2=self.beta2, epsilon=self.epsilon,
                                          bias_correction=self.bias_correction,
                                          **self._clip_kwargs())
        bounds = {}
        if self.lower_bound:
            bounds["lower_bound"] = self.lower_bound
        if self.upper_bound:
            bounds["upper_bound"] = self.upper_bound
        nd.lamb_update_phase2(weight, direction, nd.norm(weight), nd.norm(direction), lr=lr,
                              out=weight, **bounds)

    def update_multi_precision(self, index, weight, grad, state):
        if isinstance(index, (list, tuple)):
            for item in zip(index, weight, grad, state):
                self.update_multi_precision(*item)
            return
        super(LAMB, self).update_multi_precision(index, weight, grad, state)


@register
class Adamax(_Moments):
    """AdaMax, Adam's infinity-norm variant (Kingma & Ba, section 7).

    At update t: g = clip(rescale*grad + wd*w); m = beta1*m + (1-beta1)*g;
    u = max(beta2*u, |g|); w = w - lr / (1 - beta1^t) * m / u. State (m, u).
    """

    def __init__(self, learning_rate=0.002, beta1=0.9, beta2=0.999, **kwargs):
        super(Adamax, self).__init__(learning_rate, beta1, beta2, **kwargs)

    def update(self, index, weight, grad, state):
        lr, wd, t = self._count_step(index)
        lr /= 1.0 - self.beta1 ** t
        g = self._prepared_grad(grad, weight * wd)
        m, u = state
        m[:] = m * self.beta1 + g * (1.0 - self.beta1)
        u[:] = nd.maximum(u * self.beta2, nd.abs(g))
        weight[:] = weight - m / u * lr


@register
class Nadam(_Moments):
    """Adam with Nesterov momentum (Dozat), with the warming momentum schedule.

    At update t: g = clip(rescale*grad + wd*w); mu_t = beta1 * (1 - 0.5 * 0.96^(t*decay)),
    mu_t1 the same at t+1; the running product M *= mu_t (kept on the optimizer, shared by all
    weights, as in 1.x); m, v as in Adam;
    m_bar = (1 - mu_t) * g / (1 - M) + mu_t1 * m / (1 - M*mu_t1);
    w = w - lr * m_bar / (sqrt(v / (1 - beta2^t)) + eps).
    """

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 schedule_decay=0.004, **kwargs):
        super(Nadam, self).__init__(learning_rate, beta1, beta2, **kwargs)
        self.epsilon = epsilon
        self.schedule_decay = schedule_decay
        self.m_schedule = 1.

    def update(self, index, weight, grad, state):
        lr, wd, t = self._count_step(index)
        g = self._prepared_grad(grad, weight * wd)
        momentum_t = self.beta1 * (1. - 0.5 * pow(0.96, t * self.schedule_decay))
        momentum_t_1 = self.beta1 * (1. - 0.5 * pow(0.96, (t + 1) * self.schedule_decay))
        self.m_schedule = self.m_schedule * momentum_t
        m_schedule_next = self.m_schedule * momentum_t_1
        m, v = state
        m[:] = m * self.beta1 + g * (1.0 - self.beta1)
        v[:] = v * self.beta2 + g * g * (1.0 - self.beta2)
        m_bar = g * ((1. - momentum_t) / (1. - self.m_schedule)) + \
            m * (momentum_t_1 / (1. - m_schedule_next))
        v_hat = v / (1. - pow(self.beta2, t))
        weight[:] = weight - m_bar / (nd.sqrt(v_hat) + self.epsilon) * lr


@register
class FTML(_Moments):
    """Follow the moving leader (Zheng & Kwok).

    At update t: g = clip(rescale*grad + wd*w); v = beta2*v + (1-beta2)*g^2;
    d_t = (1 - beta1^t) / lr * (sqrt(v / (1 - beta2^t)) + eps);
    z = beta1*z + (1-beta1)*g - (d_t - beta1*d)*w; d = d_t; w = -z / d_t. State (d, v, z).
    """

    def __init__(self, beta1=0.6, beta2=0.999, epsilon=1e-8, **kwargs):
        super(FTML, self).__init__(kwargs.pop("learning_rate", None), beta1, beta2, **kwargs)
        self.epsilon = epsilon

    def create_state(self, index, weight):
        return (_zeros_like(weight), _zeros_like(weight), _zeros_like(weight))

    def update(self, index, weight, grad, state):
        lr, wd, t = self._count_step(index)
        g = grad * self.rescale_grad + weight * wd
        if self.clip_gradient and self.clip_gradient > 0:  # as 1.x's fused rule tests it
            g = nd.clip(g, -self.clip_gradient, self.clip_gradient)
        d, v, z = state
        v[:] = v * self.beta2 + g * g * (1.0 - self.beta2)
        d_t = (nd.sqrt(v / (1.0 - self.beta2 ** t)) + self.epsilon) * ((1.0 - self.beta1 ** t) / lr)
        z[:] = z * self.beta1 + g * (1.0 - self.beta1) - (d_t - d * self.beta1) * weight
        d[:] = d_t
        weight[:] = -z / d_t
