"""AlexNet (Krizhevsky et al., 2012), the single-tower variant of the Gluon model zoo."""
from ... import nn
from ...block import HybridBlock
from ._common import finish

__all__ = ["AlexNet", "alexnet"]


class AlexNet(HybridBlock):
    """Five convolutions and three dense layers; input 3x224x224."""

    def __init__(self, classes=1000, **kwargs):
        super(AlexNet, self).__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            with self.features.name_scope():
                self.features.add(nn.Conv2D(64, kernel_size=11, strides=4, padding=2,
                                            activation="relu"))
                self.features.add(nn.MaxPool2D(pool_size=3, strides=2))
                self.features.add(nn.Conv2D(192, kernel_size=5, padding=2, activation="relu"))
                self.features.add(nn.MaxPool2D(pool_size=3, strides=2))
                self.features.add(nn.Conv2D(384, kernel_size=3, padding=1, activation="relu"))
                self.features.add(nn.Conv2D(256, kernel_size=3, padding=1, activation="relu"))
                self.features.add(nn.Conv2D(256, kernel_size=3, padding=1, activation="relu"))
                self.features.add(nn.MaxPool2D(pool_size=3, strides=2))
                self.features.add(nn.Flatten())
                self.features.add(nn.Dense(4096, activation="relu"))
                self.features.add(nn.Dropout(0.5))
                self.features.add(nn.Dense(4096, activation="relu"))
                self.features.add(nn.Dropout(0.5))
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def alexnet(pretrained=False, ctx=None, root=None, **kwargs):
    """AlexNet; pretrained=True loads alexnet-*.params from $MXNET_HOME/models."""
    return finish(AlexNet(**kwargs), "alexnet", pretrained, ctx, root)
