"""ResNet v1 (He et al., 2015, post-activation) and v2 (2016, pre-activation), 18-152 layers."""
from ... import nn
from ...block import HybridBlock
from ._common import finish

__all__ = ["ResNetV1", "ResNetV2", "BasicBlockV1", "BasicBlockV2", "BottleneckV1",
           "BottleneckV2", "get_resnet", "resnet18_v1", "resnet34_v1", "resnet50_v1",
           "resnet101_v1", "resnet152_v1", "resnet18_v2", "resnet34_v2", "resnet50_v2",
           "resnet101_v2", "resnet152_v2"]


def _conv3x3(channels, stride, in_channels):
    return nn.Conv2D(channels, kernel_size=3, strides=stride, padding=1, use_bias=False,
                     in_channels=in_channels)


def _projection(channels, stride, in_channels, with_bn):
    if not with_bn:
        return nn.Conv2D(channels, 1, stride, use_bias=False, in_channels=in_channels)
    block = nn.HybridSequential(prefix="")
    block.add(nn.Conv2D(channels, kernel_size=1, strides=stride, use_bias=False,
                        in_channels=in_channels))
    block.add(nn.BatchNorm())
    return block


class _PostActivation(HybridBlock):
    """A v1 block: ReLU(body(x) + x), with x projected by downsample when it is set.
    Hybridized, in inference, the subgraph backend fuses the sum and the ReLU into the body's
    last convolution."""

    def hybrid_forward(self, F, x):
        residual = self.downsample(x) if self.downsample else x
        return F.Activation(residual + self.body(x), act_type="relu")


class _PreActivation(HybridBlock):
    """A v2 block, which starts from BN-ReLU of its input (bn1)."""

    def _activate_input(self, F, x):
        """Returns ReLU(bn1(x)) and the residual: x, or the projection of that activation."""
        act = F.Activation(self.bn1(x), act_type="relu")
        return act, (self.downsample(act) if self.downsample else x)


class BasicBlockV1(_PostActivation):
    """Two 3x3 convolutions with batch norm; ReLU after the residual sum."""

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super(BasicBlockV1, self).__init__(**kwargs)
        self.body = nn.HybridSequential(prefix="")
        self.body.add(_conv3x3(channels, stride, in_channels))
        self.body.add(nn.BatchNorm())
        self.body.add(nn.Activation("relu"))
        self.body.add(_conv3x3(channels, 1, channels))
        self.body.add(nn.BatchNorm())
        self.downsample = _projection(channels, stride, in_channels, True) if downsample else None


class BottleneckV1(_PostActivation):
    """1x1 (reduce, with the stride) - 3x3 - 1x1 (expand) with batch norm; ReLU after the sum."""

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super(BottleneckV1, self).__init__(**kwargs)
        self.body = nn.HybridSequential(prefix="")
        self.body.add(nn.Conv2D(channels // 4, kernel_size=1, strides=stride))
        self.body.add(nn.BatchNorm())
        self.body.add(nn.Activation("relu"))
        self.body.add(_conv3x3(channels // 4, 1, channels // 4))
        self.body.add(nn.BatchNorm())
        self.body.add(nn.Activation("relu"))
        self.body.add(nn.Conv2D(channels, kernel_size=1, strides=1))
        self.body.add(nn.BatchNorm())
        self.downsample = _projection(channels, stride, in_channels, True) if downsample else None


class BasicBlockV2(_PreActivation):
    """Pre-activation basic block: BN-ReLU-conv3x3 twice; the projection sees the first
    activation."""

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super(BasicBlockV2, self).__init__(**kwargs)
        self.bn1 = nn.BatchNorm()
        self.conv1 = _conv3x3(channels, stride, in_channels)
        self.bn2 = nn.BatchNorm()
        self.conv2 = _conv3x3(channels, 1, channels)
        self.downsample = _projection(channels, stride, in_channels, False) if downsample else None

    def hybrid_forward(self, F, x):
        x, residual = self._activate_input(F, x)
        x = self.conv1(x)
        x = F.Activation(self.bn2(x), act_type="relu")
        return self.conv2(x) + residual


class BottleneckV2(_PreActivation):
    """Pre-activation bottleneck: BN-ReLU-conv1x1, BN-ReLU-conv3x3 (stride), BN-ReLU-conv1x1."""

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super(BottleneckV2, self).__init__(**kwargs)
        self.bn1 = nn.BatchNorm()
        self.conv1 = nn.Conv2D(channels // 4, kernel_size=1, strides=1, use_bias=False)
        self.bn2 = nn.BatchNorm()
        self.conv2 = _conv3x3(channels // 4, stride, channels // 4)
        self.bn3 = nn.BatchNorm()
        self.conv3 = nn.Conv2D(channels, kernel_size=1, strides=1, use_bias=False)
        self.downsample = _projection(channels, stride, in_channels, False) if downsample else None

    def hybrid_forward(self, F, x):
        x, residual = self._activate_input(F, x)
        x = self.conv1(x)
        x = F.Activation(self.bn2(x), act_type="relu")
        x = self.conv2(x)
        x = F.Activation(self.bn3(x), act_type="relu")
        return self.conv3(x) + residual


def _make_stage(block, layers, channels, stride, stage_index, in_channels):
    stage = nn.HybridSequential(prefix="stage%d_" % stage_index)
    with stage.name_scope():
        stage.add(block(channels, stride, channels != in_channels, in_channels=in_channels,
                        prefix=""))
        for _ in range(layers - 1):
            stage.add(block(channels, 1, False, in_channels=channels, prefix=""))
    return stage


class ResNetV1(HybridBlock):
    """ResNet v1: 7x7 stem (or 3x3 with thumbnail=True for small images), four stages,
    global average pooling, dense classifier."""

    def __init__(self, block, layers, channels, classes=1000, thumbnail=False, **kwargs):
        super(ResNetV1, self).__init__(**kwargs)
        if len(layers) != len(channels) - 1:
            raise ValueError("ResNet needs one more channel count than stages")
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            if thumbnail:
                self.features.add(_conv3x3(channels[0], 1, 0))
            else:
                self.features.add(nn.Conv2D(channels[0], 7, 2, 3, use_bias=False))
                self.features.add(nn.BatchNorm())
                self.features.add(nn.Activation("relu"))
                self.features.add(nn.MaxPool2D(3, 2, 1))
            for i, num_layer in enumerate(layers):
                stride = 1 if i == 0 else 2
                self.features.add(_make_stage(block, num_layer, channels[i + 1], stride, i + 1,
                                              in_channels=channels[i]))
            self.features.add(nn.GlobalAvgPool2D())
            self.output = nn.Dense(classes, in_units=channels[-1])

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


class ResNetV2(HybridBlock):
    """ResNet v2: input batch norm, stem, four pre-activation stages, BN-ReLU, global
    average pooling, dense classifier."""

    def __init__(self, block, layers, channels, classes=1000, thumbnail=False, **kwargs):
        super(ResNetV2, self).__init__(**kwargs)
        if len(layers) != len(channels) - 1:
            raise ValueError("ResNet needs one more channel count than stages")
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            self.features.add(nn.BatchNorm(scale=False, center=False))
            if thumbnail:
                self.features.add(_conv3x3(channels[0], 1, 0))
            else:
                self.features.add(nn.Conv2D(channels[0], 7, 2, 3, use_bias=False))
                self.features.add(nn.BatchNorm())
                self.features.add(nn.Activation("relu"))
                self.features.add(nn.MaxPool2D(3, 2, 1))
            in_channels = channels[0]
            for i, num_layer in enumerate(layers):
                stride = 1 if i == 0 else 2
                self.features.add(_make_stage(block, num_layer, channels[i + 1], stride, i + 1,
                                              in_channels=in_channels))
                in_channels = channels[i + 1]
            self.features.add(nn.BatchNorm())
            self.features.add(nn.Activation("relu"))
            self.features.add(nn.GlobalAvgPool2D())
            self.features.add(nn.Flatten())
            self.output = nn.Dense(classes, in_units=in_channels)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


resnet_spec = {18: ("basic_block", [2, 2, 2, 2], [64, 64, 128, 256, 512]),
               34: ("basic_block", [3, 4, 6, 3], [64, 64, 128, 256, 512]),
               50: ("bottle_neck", [3, 4, 6, 3], [64, 256, 512, 1024, 2048]),
               101: ("bottle_neck", [3, 4, 23, 3], [64, 256, 512, 1024, 2048]),
               152: ("bottle_neck", [3, 8, 36, 3], [64, 256, 512, 1024, 2048])}
_nets = {1: ResNetV1, 2: ResNetV2}
_blocks = {1: {"basic_block": BasicBlockV1, "bottle_neck": BottleneckV1},
           2: {"basic_block": BasicBlockV2, "bottle_neck": BottleneckV2}}


def get_resnet(version, num_layers, pretrained=False, ctx=None, root=None, **kwargs):
    """ResNet `version` (1 or 2) with 18, 34, 50, 101 or 152 layers."""
    if num_layers not in resnet_spec:
        raise ValueError("Invalid number of layers: %d. Options are %s"
                         % (num_layers, sorted(resnet_spec)))
    if version not in _nets:
        raise ValueError("Invalid resnet version: %d. Options are 1 and 2." % version)
    block_type, layers, channels = resnet_spec[num_layers]
    net = _nets[version](_blocks[version][block_type], layers, channels, **kwargs)
    return finish(net, "resnet%d_v%d" % (num_layers, version), pretrained, ctx, root)


def _factory(version, num_layers):
    def make(**kwargs):
        return get_resnet(version, num_layers, **kwargs)
    make.__name__ = "resnet%d_v%d" % (num_layers, version)
    make.__doc__ = "ResNet-%d v%d." % (num_layers, version)
    return make


resnet18_v1 = _factory(1, 18)
resnet34_v1 = _factory(1, 34)
resnet50_v1 = _factory(1, 50)
resnet101_v1 = _factory(1, 101)
resnet152_v1 = _factory(1, 152)
resnet18_v2 = _factory(2, 18)
resnet34_v2 = _factory(2, 34)
resnet50_v2 = _factory(2, 50)
resnet101_v2 = _factory(2, 101)
resnet152_v2 = _factory(2, 152)
