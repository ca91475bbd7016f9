"""MobileNet v1 (Howard et al., 2017) and v2 (Sandler et al., 2018) with width multipliers."""
from ... import nn
from ...block import HybridBlock
from ._common import finish

__all__ = ["MobileNet", "MobileNetV2", "RELU6", "LinearBottleneck", "get_mobilenet",
           "get_mobilenet_v2", "mobilenet1_0", "mobilenet0_75", "mobilenet0_5", "mobilenet0_25",
           "mobilenet_v2_1_0", "mobilenet_v2_0_75", "mobilenet_v2_0_5", "mobilenet_v2_0_25"]


class RELU6(HybridBlock):
    """min(max(x, 0), 6)."""

    def hybrid_forward(self, F, x):
        return F.clip(x, a_min=0, a_max=6)


def _add_conv(out, channels=1, kernel=1, stride=1, pad=0, num_group=1, active=True,
              relu6=False):
    out.add(nn.Conv2D(channels, kernel, stride, pad, groups=num_group, use_bias=False))
    out.add(nn.BatchNorm(scale=True))
    if active:
        out.add(RELU6() if relu6 else nn.Activation("relu"))


def _add_conv_dw(out, dw_channels, channels, stride, relu6=False):
    _add_conv(out, channels=dw_channels, kernel=3, stride=stride, pad=1, num_group=dw_channels,
              relu6=relu6)
    _add_conv(out, channels=channels, relu6=relu6)


class LinearBottleneck(HybridBlock):
    """Inverted residual: expand 1x1 (x t), depthwise 3x3, linear project 1x1; a shortcut
    when the stride is 1 and the channel counts match."""

    def __init__(self, in_channels, channels, t, stride, **kwargs):
        super(LinearBottleneck, self).__init__(**kwargs)
        self.use_shortcut = stride == 1 and in_channels == channels
        with self.name_scope():
            self.out = nn.HybridSequential()
            _add_conv(self.out, in_channels * t, relu6=True)
            _add_conv(self.out, in_channels * t, kernel=3, stride=stride, pad=1,
                      num_group=in_channels * t, relu6=True)
            _add_conv(self.out, channels, active=False, relu6=True)

    def hybrid_forward(self, F, x):
        out = self.out(x)
        if self.use_shortcut:
            out = F.elemwise_add(out, x)
        return out


class MobileNet(HybridBlock):
    """MobileNet v1: depthwise-separable convolutions, channel counts scaled by multiplier."""

    def __init__(self, multiplier=1.0, classes=1000, **kwargs):
        super(MobileNet, self).__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            with self.features.name_scope():
                _add_conv(self.features, channels=int(32 * multiplier), kernel=3, pad=1,
                          stride=2)
                dw_channels = [int(x * multiplier) for x in
                               [32, 64] + [128] * 2 + [256] * 2 + [512] * 6 + [1024]]
                channels = [int(x * multiplier) for x in
                            [64] + [128] * 2 + [256] * 2 + [512] * 6 + [1024] * 2]
                strides = [1, 2] * 3 + [1] * 5 + [2, 1]
                for dwc, c, s in zip(dw_channels, channels, strides):
                    _add_conv_dw(self.features, dw_channels=dwc, channels=c, stride=s)
                self.features.add(nn.GlobalAvgPool2D())
                self.features.add(nn.Flatten())
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


class MobileNetV2(HybridBlock):
    """MobileNet v2: inverted residual bottlenecks, 1x1 convolution classifier."""

    def __init__(self, multiplier=1.0, classes=1000, **kwargs):
        super(MobileNetV2, self).__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="features_")
            with self.features.name_scope():
                _add_conv(self.features, int(32 * multiplier), kernel=3, stride=2, pad=1,
                          relu6=True)
                in_channels_group = [int(x * multiplier) for x in
                                     [32] + [16] + [24] * 2 + [32] * 3 + [64] * 4 + [96] * 3 +
                                     [160] * 3]
                channels_group = [int(x * multiplier) for x in
                                  [16] + [24] * 2 + [32] * 3 + [64] * 4 + [96] * 3 + [160] * 3 +
                                  [320]]
                ts = [1] + [6] * 16
                strides = [1, 2] * 2 + [1, 1, 2] + [1] * 6 + [2] + [1] * 3
                for in_c, c, t, s in zip(in_channels_group, channels_group, ts, strides):
                    self.features.add(LinearBottleneck(in_channels=in_c, channels=c, t=t,
                                                       stride=s))
                last_channels = int(1280 * multiplier) if multiplier > 1.0 else 1280
                _add_conv(self.features, last_channels, relu6=True)
                self.features.add(nn.GlobalAvgPool2D())
            self.output = nn.HybridSequential(prefix="output_")
            with self.output.name_scope():
                self.output.add(nn.Conv2D(classes, 1, use_bias=False, prefix="pred_"),
                                nn.Flatten())

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def _suffix(multiplier):
    text = "{0:.2f}".format(multiplier)
    return text[:-1] if text in ("1.00", "0.50") else text


def get_mobilenet(multiplier, pretrained=False, ctx=None, root=None, **kwargs):
    """MobileNet v1 with width multiplier 1.0, 0.75, 0.5 or 0.25."""
    return finish(MobileNet(multiplier, **kwargs), "mobilenet%s" % _suffix(multiplier),
                  pretrained, ctx, root)


def get_mobilenet_v2(multiplier, pretrained=False, ctx=None, root=None, **kwargs):
    """MobileNet v2 with width multiplier 1.0, 0.75, 0.5 or 0.25."""
    return finish(MobileNetV2(multiplier, **kwargs), "mobilenetv2_%s" % _suffix(multiplier),
                  pretrained, ctx, root)


def mobilenet1_0(**kwargs):
    return get_mobilenet(1.0, **kwargs)


def mobilenet0_75(**kwargs):
    return get_mobilenet(0.75, **kwargs)


def mobilenet0_5(**kwargs):
    return get_mobilenet(0.5, **kwargs)


def mobilenet0_25(**kwargs):
    return get_mobilenet(0.25, **kwargs)


def mobilenet_v2_1_0(**kwargs):
    return get_mobilenet_v2(1.0, **kwargs)


def mobilenet_v2_0_75(**kwargs):
    return get_mobilenet_v2(0.75, **kwargs)


def mobilenet_v2_0_5(**kwargs):
    return get_mobilenet_v2(0.5, **kwargs)


def mobilenet_v2_0_25(**kwargs):
    return get_mobilenet_v2(0.25, **kwargs)
