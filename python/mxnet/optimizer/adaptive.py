"""Per-coordinate adaptive rules: RMSProp (on rmsprop_update), AdaGrad, AdaDelta and FTRL."""
from .. import ndarray as nd
from .optimizer import Optimizer, register, _zeros_like

__all__ = ["RMSProp", "AdaGrad", "AdaDelta", "Ftrl"]


@register
class RMSProp(Optimizer):
    """RMSProp on rmsprop_update (Tieleman & Hinton), or the centered variant (Graves) on
    rmspropalex_update.

    Plain: g = clip(rescale*grad + wd*w); n = (1-gamma1)*g^2 + gamma1*n;
    w = w - lr * g / sqrt(n + epsilon).
    Centered: also ga = (1-gamma1)*g + gamma1*ga; delta = gamma2*delta - lr*g/sqrt(n - ga^2 + eps);
    w = w + delta.  clip_weights, when set, clamps the new weight.
    """

    def __init__(self, learning_rate=0.001, gamma1=0.9, gamma2=0.9, epsilon=1e-8,
                 centered=False, clip_weights=None, **kwargs):
        super(RMSProp, self).__init__(learning_rate=learning_rate, **kwargs)
        self.gamma1 = gamma1
        self.gamma2 = gamma2
        self.centered = centered
        self.epsilon = epsilon
        self.clip_weights = clip_weights

    def create_state(self, index, weight):
        if self.centered:
            return (_zeros_like(weight), _zeros_like(weight), _zeros_like(weight))
        return (_zeros_like(weight),)

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        kwargs = self._clip_kwargs()
        if self.clip_weights:
            kwargs["clip_weights"] = self.clip_weights
        if not self.centered:
            nd.rmsprop_update(weight, grad, state[0], out=weight, lr=lr, wd=wd,
                              gamma1=self.gamma1, epsilon=self.epsilon, **kwargs)
            return
        n, ga, delta = state
        nd.rmspropalex_update(weight, grad, n, ga, delta, out=weight, lr=lr, wd=wd,
                              gamma1=self.gamma1, gamma2=self.gamma2, epsilon=self.epsilon,
                              **kwargs)


@register
class AdaGrad(Optimizer):
    """AdaGrad: h += g^2; w = w - lr * (g / sqrt(h + eps) + wd*w), g = clip(rescale*grad)."""

    def __init__(self, eps=1e-7, **kwargs):
        super(AdaGrad, self).__init__(**kwargs)
        self.float_stable_eps = eps

    def create_state(self, index, weight):
        return _zeros_like(weight)

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        g = self._prepared_grad(grad)
        state[:] = state + nd.square(g)
        weight[:] = weight - (g / nd.sqrt(state + self.float_stable_eps) + weight * wd) * lr


@register
class AdaDelta(Optimizer):
    """AdaDelta (Zeiler); no learning rate in the step.

    g = clip(rescale*grad); Eg = rho*Eg + (1-rho)*g^2; d = sqrt(Ed + eps)/sqrt(Eg + eps) * g;
    Ed = rho*Ed + (1-rho)*d^2; w = w - d - wd*w.
    """

    def __init__(self, rho=0.90, epsilon=1e-5, **kwargs):
        super(AdaDelta, self).__init__(**kwargs)
        self.rho = rho
        self.epsilon = epsilon

    def create_state(self, index, weight):
        return (_zeros_like(weight), _zeros_like(weight))

    def update(self, index, weight, grad, state):
        self._update_count(index)
        wd = self._get_wd(index)
        acc_g, acc_delta = state
        g = self._prepared_grad(grad)
        acc_g[:] = acc_g * self.rho + nd.square(g) * (1.0 - self.rho)
        delta = nd.sqrt(acc_delta + self.epsilon) / nd.sqrt(acc_g + self.epsilon) * g
        acc_delta[:] = acc_delta * self.rho + nd.square(delta) * (1.0 - self.rho)
        weight[:] = weight - delta - weight * wd


@register
class Ftrl(Optimizer):
    """FTRL-proximal (McMahan et al.) with L1 strength lamda1 and L2 via wd, on ftrl_update.

    g = clip(rescale*grad); z += g - (sqrt(n + g^2) - sqrt(n)) * w / lr; n += g^2;
    w = (sign(z)*lamda1 - z) / ((beta + sqrt(n)) / lr + wd) where |z| > lamda1, else 0.
    """

    def __init__(self, lamda1=0.01, learning_rate=0.1, beta=1, **kwargs):
        super(Ftrl, self).__init__(learning_rate=learning_rate, **kwargs)
        self.lamda1 = lamda1
        self.beta = beta

    def create_state(self, index, weight):
        return (_zeros_like(weight), _zeros_like(weight))  # z, n

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        z, n = state
        nd.ftrl_update(weight, grad, z, n, out=weight, lr=lr, wd=wd, lamda1=self.lamda1,
                       beta=self.beta, **self._clip_kwargs())
