"""Layers that run children side by side and concatenate, and the identity layer."""
from ... import nn
from ...block import HybridBlock

__all__ = ["Concurrent", "HybridConcurrent", "Identity"]


class Concurrent(nn.Sequential):
    """Feeds the same input to every child and concatenates their outputs along `axis`."""

    def __init__(self, axis=-1, prefix=None, params=None):
        super(Concurrent, self).__init__(prefix=prefix, params=params)
        self.axis = axis

    def forward(self, x):
        from .... import ndarray as nd
        return nd.concat(*[block(x) for block in self._children.values()], dim=self.axis)


class HybridConcurrent(nn.HybridSequential):
    """Hybrid version of Concurrent."""

    def __init__(self, axis=-1, prefix=None, params=None):
        super(HybridConcurrent, self).__init__(prefix=prefix, params=params)
        self.axis = axis

    def hybrid_forward(self, F, x):
        return F.concat(*[block(x) for block in self._children.values()], dim=self.axis)


class Identity(HybridBlock):
    """Returns its input unchanged (useful as a branch of the concurrent containers)."""

    def hybrid_forward(self, F, x):
        return x
