"""SqueezeNet 1.0 and 1.1 (Iandola et al., 2016): fire modules of squeeze and expand paths."""
from ... import nn
from ...block import HybridBlock
from ...contrib.nn import HybridConcurrent
from ._common import finish

__all__ = ["SqueezeNet", "get_squeezenet", "squeezenet1_0", "squeezenet1_1"]


def _make_fire_conv(channels, kernel_size, padding=0):
    out = nn.HybridSequential(prefix="")
    out.add(nn.Conv2D(channels, kernel_size, padding=padding))
    out.add(nn.Activation("relu"))
    return out


def _make_fire(squeeze_channels, expand1x1_channels, expand3x3_channels):
    out = nn.HybridSequential(prefix="")
    out.add(_make_fire_conv(squeeze_channels, 1))
    paths = HybridConcurrent(axis=1, prefix="")
    paths.add(_make_fire_conv(expand1x1_channels, 1))
    paths.add(_make_fire_conv(expand3x3_channels, 3, 1))
    out.add(paths)
    return out


class SqueezeNet(HybridBlock):
    """SqueezeNet `version` '1.0' or '1.1'; classifier is a 1x1 convolution + average pool."""

    def __init__(self, version, classes=1000, **kwargs):
        super(SqueezeNet, self).__init__(**kwargs)
        if version not in ("1.0", "1.1"):
            raise ValueError("Unsupported SqueezeNet version {version}: 1.0 or 1.1 expected"
                             .format(version=version))
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            f = self.features
            if version == "1.0":
                f.add(nn.Conv2D(96, kernel_size=7, strides=2))
                f.add(nn.Activation("relu"))
                f.add(nn.MaxPool2D(pool_size=3, strides=2, ceil_mode=True))
                f.add(_make_fire(16, 64, 64))
                f.add(_make_fire(16, 64, 64))
                f.add(_make_fire(32, 128, 128))
                f.add(nn.MaxPool2D(pool_size=3, strides=2, ceil_mode=True))
                f.add(_make_fire(32, 128, 128))
                f.add(_make_fire(48, 192, 192))
                f.add(_make_fire(48, 192, 192))
                f.add(_make_fire(64, 256, 256))
                f.add(nn.MaxPool2D(pool_size=3, strides=2, ceil_mode=True))
                f.add(_make_fire(64, 256, 256))
            else:
                f.add(nn.Conv2D(64, kernel_size=3, strides=2))
                f.add(nn.Activation("relu"))
                f.add(nn.MaxPool2D(pool_size=3, strides=2, ceil_mode=True))
                f.add(_make_fire(16, 64, 64))
                f.add(_make_fire(16, 64, 64))
                f.add(nn.MaxPool2D(pool_size=3, strides=2, ceil_mode=True))
                f.add(_make_fire(32, 128, 128))
                f.add(_make_fire(32, 128, 128))
                f.add(nn.MaxPool2D(pool_size=3, strides=2, ceil_mode=True))
                f.add(_make_fire(48, 192, 192))
                f.add(_make_fire(48, 192, 192))
                f.add(_make_fire(64, 256, 256))
                f.add(_make_fire(64, 256, 256))
            f.add(nn.Dropout(0.5))
            self.output = nn.HybridSequential(prefix="")
            self.output.add(nn.Conv2D(classes, kernel_size=1))
            self.output.add(nn.Activation("relu"))
            self.output.add(nn.AvgPool2D(13))
            self.output.add(nn.Flatten())

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def get_squeezenet(version, pretrained=False, ctx=None, root=None, **kwargs):
    """SqueezeNet '1.0' or '1.1'."""
    return finish(SqueezeNet(version, **kwargs), "squeezenet%s" % version, pretrained, ctx,
                  root)


def squeezenet1_0(**kwargs):
    return get_squeezenet("1.0", **kwargs)


def squeezenet1_1(**kwargs):
    return get_squeezenet("1.1", **kwargs)
