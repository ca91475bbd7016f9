"""Adam-family rules: Adam (on adam_update), AdamW (decoupled decay) and LAMB."""
import math

from .. import ndarray as nd
from .optimizer import Optimizer, register, _zeros_like

__all__ = ["Adam", "AdamW", "LAMB"]


class _Moments(Optimizer):
    """What the Adam family shares: beta1, beta2, epsilon and the moment states (mean, var)."""

    def __init__(self, learning_rate, beta1, beta2, epsilon, **kwargs):
        super(_Moments, self).__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon

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

    At update t: lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t); g = clip(rescale*grad) + wd*w;
    m = beta1*m + (1-beta1)*g; v = beta2*v + (1-beta2)*g^2; w = w - lr_t * m / (sqrt(v) + eps).
    """

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 lazy_update=True, **kwargs):
        super(Adam, self).__init__(learning_rate, beta1, beta2, epsilon, **kwargs)
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
        super(AdamW, self).__init__(learning_rate, beta1, beta2, epsilon, **kwargs)

    def update(self, index, weight, grad, state):
        lr, wd, t = self._count_step(index)
        lr_t = lr * math.sqrt(1.0 - self.beta2 ** t) / (1.0 - self.beta1 ** t)
        mean, var = self._update_moments(grad, state)
        weight[:] = weight * (1.0 - lr * wd) - mean / (nd.sqrt(var) + self.epsilon) * lr_t


@register
class LAMB(_Moments):
    """Layer-wise adaptive moments: an Adam direction scaled by ||w|| / ||direction||.

    g = clip(rescale*grad); m, v as in Adam; with bias correction m_hat = m/(1-beta1^t),
    v_hat = v/(1-beta2^t); d = m_hat / (sqrt(v_hat) + eps) + wd*w; r1 = ||w|| (clamped to
    [lower_bound, upper_bound] when given), r2 = ||d||; ratio = r1/r2 when both are positive,
    else 1; w = w - lr * ratio * d.
    """

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-6,
                 lower_bound=None, upper_bound=None, bias_correction=True, **kwargs):
        super(LAMB, self).__init__(learning_rate, beta1, beta2, epsilon, **kwargs)
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        self.bias_correction = bias_correction

    def update(self, index, weight, grad, state):
        lr, wd, t = self._count_step(index)
        mean, var = self._update_moments(grad, state)
        m_hat, v_hat = mean, var
        if self.bias_correction:
            m_hat = mean / (1.0 - self.beta1 ** t)
            v_hat = var / (1.0 - self.beta2 ** t)
        direction = m_hat / (nd.sqrt(v_hat) + self.epsilon) + weight * wd
        r1 = float(nd.norm(weight).asscalar())
        if self.lower_bound is not None:
            r1 = max(r1, self.lower_bound)
        if self.upper_bound is not None:
            r1 = min(r1, self.upper_bound)
        r2 = float(nd.norm(direction).asscalar())
        ratio = r1 / r2 if r1 > 0 and r2 > 0 else 1.0
        weight[:] = weight - direction * (lr * ratio)
