"""Contributed optimizers (mx.optimizer.contrib): GroupAdaGrad."""
from .. import ndarray as nd
from .optimizer import Optimizer, register

__all__ = ["GroupAdaGrad"]


@register
class GroupAdaGrad(Optimizer):
    """AdaGrad with one accumulator per row of a 2-D weight (e.g. per embedding vector).

    g = clip(rescale*grad); h += mean(g^2, axis=1) (h has shape (rows, 1));
    w = w - lr * g / sqrt(h + eps). Weight decay is not part of the rule: wd must be 0.
    """

    def __init__(self, eps=1e-5, **kwargs):
        super(GroupAdaGrad, self).__init__(**kwargs)
        self.float_stable_eps = eps

    def create_state(self, index, weight):
        if len(weight.shape) != 2:
            raise ValueError("GroupAdaGrad needs 2-D weights (one accumulator per row); weight %r "
                             "has shape %s" % (index, weight.shape))
        return nd.zeros((weight.shape[0], 1), ctx=weight.context)

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        if wd != 0:
            raise ValueError("GroupAdaGrad does not support weight decay: weight %r has wd=%s "
                             "(set wd=0 or its wd_mult to 0)" % (index, wd))
        g = self._prepared_grad(grad)
        state[:] = state + nd.mean(nd.square(g), axis=1, keepdims=True)
        weight[:] = weight - nd.broadcast_div(g, nd.sqrt(state + self.float_stable_eps)) * lr
