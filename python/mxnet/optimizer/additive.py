"""The 'test' optimizer: adds the rescaled gradient to the weight, for checking kvstores."""
from .. import ndarray as nd
from .optimizer import Optimizer, register

__all__ = ["Test"]


@register
class Test(Optimizer):
    """w += rescale_grad * g. The state is a zero array shaped like the weight that afterwards
    holds a copy of the updated weight. As in MXNet 1.x, clip_gradient, the learning rate and
    weight decay play no part, and updates are not counted."""

    def create_state(self, index, weight):
        return nd.zeros(weight.shape, ctx=weight.context, dtype=weight.dtype)

    def update(self, index, weight, grad, state):
        weight[:] = weight + grad * self.rescale_grad
        state[:] = weight
