"""Inception v3 (Szegedy et al., 2015) as in the Gluon model zoo; input 3x299x299."""
from ... import nn
from ...block import HybridBlock
from ...contrib.nn import HybridConcurrent
from ._common import finish

__all__ = ["Inception3", "inception_v3"]

_SETTING_NAMES = ("channels", "kernel_size", "strides", "padding")


def _make_basic_conv(**kwargs):
    out = nn.HybridSequential(prefix="")
    out.add(nn.Conv2D(use_bias=False, **kwargs))
    out.add(nn.BatchNorm(epsilon=0.001))
    out.add(nn.Activation("relu"))
    return out


def _make_branch(use_pool, *conv_settings):
    out = nn.HybridSequential(prefix="")
    if use_pool == "avg":
        out.add(nn.AvgPool2D(pool_size=3, strides=1, padding=1))
    elif use_pool == "max":
        out.add(nn.MaxPool2D(pool_size=3, strides=2))
    for setting in conv_settings:
        kwargs = {name: value for name, value in zip(_SETTING_NAMES, setting)
                  if value is not None}
        out.add(_make_basic_conv(**kwargs))
    return out


def _make_A(pool_features, prefix):
    out = HybridConcurrent(axis=1, prefix=prefix)
    with out.name_scope():
        out.add(_make_branch(None, (64, 1, None, None)))
        out.add(_make_branch(None, (48, 1, None, None), (64, 5, None, 2)))
        out.add(_make_branch(None, (64, 1, None, None), (96, 3, None, 1), (96, 3, None, 1)))
        out.add(_make_branch("avg", (pool_features, 1, None, None)))
    return out


def _make_B(prefix):
    out = HybridConcurrent(axis=1, prefix=prefix)
    with out.name_scope():
        out.add(_make_branch(None, (384, 3, 2, None)))
        out.add(_make_branch(None, (64, 1, None, None), (96, 3, None, 1), (96, 3, 2, None)))
        out.add(_make_branch("max"))
    return out


def _make_C(channels_7x7, prefix):
    c = channels_7x7
    out = HybridConcurrent(axis=1, prefix=prefix)
    with out.name_scope():
        out.add(_make_branch(None, (192, 1, None, None)))
        out.add(_make_branch(None, (c, 1, None, None), (c, (1, 7), None, (0, 3)),
                             (192, (7, 1), None, (3, 0))))
        out.add(_make_branch(None, (c, 1, None, None), (c, (7, 1), None, (3, 0)),
                             (c, (1, 7), None, (0, 3)), (c, (7, 1), None, (3, 0)),
                             (192, (1, 7), None, (0, 3))))
        out.add(_make_branch("avg", (192, 1, None, None)))
    return out


def _make_D(prefix):
    out = HybridConcurrent(axis=1, prefix=prefix)
    with out.name_scope():
        out.add(_make_branch(None, (192, 1, None, None), (320, 3, 2, None)))
        out.add(_make_branch(None, (192, 1, None, None), (192, (1, 7), None, (0, 3)),
                             (192, (7, 1), None, (3, 0)), (192, 3, 2, None)))
        out.add(_make_branch("max"))
    return out


def _make_E(prefix):
    out = HybridConcurrent(axis=1, prefix=prefix)
    with out.name_scope():
        out.add(_make_branch(None, (320, 1, None, None)))

        branch_3x3 = nn.HybridSequential(prefix="")
        out.add(branch_3x3)
        branch_3x3.add(_make_branch(None, (384, 1, None, None)))
        branch_3x3_split = HybridConcurrent(axis=1, prefix="")
        branch_3x3_split.add(_make_branch(None, (384, (1, 3), None, (0, 1))))
        branch_3x3_split.add(_make_branch(None, (384, (3, 1), None, (1, 0))))
        branch_3x3.add(branch_3x3_split)

        branch_3x3dbl = nn.HybridSequential(prefix="")
        out.add(branch_3x3dbl)
        branch_3x3dbl.add(_make_branch(None, (448, 1, None, None), (384, 3, None, 1)))
        branch_3x3dbl_split = HybridConcurrent(axis=1, prefix="")
        branch_3x3dbl.add(branch_3x3dbl_split)
        branch_3x3dbl_split.add(_make_branch(None, (384, (1, 3), None, (0, 1))))
        branch_3x3dbl_split.add(_make_branch(None, (384, (3, 1), None, (1, 0))))

        out.add(_make_branch("avg", (192, 1, None, None)))
    return out


class Inception3(HybridBlock):
    """Inception v3: stem, mixed blocks A x3, B, C x4, D, E x2, average pool, dense."""

    def __init__(self, classes=1000, **kwargs):
        super(Inception3, self).__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            f = self.features
            f.add(_make_basic_conv(channels=32, kernel_size=3, strides=2))
            f.add(_make_basic_conv(channels=32, kernel_size=3))
            f.add(_make_basic_conv(channels=64, kernel_size=3, padding=1))
            f.add(nn.MaxPool2D(pool_size=3, strides=2))
            f.add(_make_basic_conv(channels=80, kernel_size=1))
            f.add(_make_basic_conv(channels=192, kernel_size=3))
            f.add(nn.MaxPool2D(pool_size=3, strides=2))
            f.add(_make_A(32, "A1_"))
            f.add(_make_A(64, "A2_"))
            f.add(_make_A(64, "A3_"))
            f.add(_make_B("B_"))
            f.add(_make_C(128, "C1_"))
            f.add(_make_C(160, "C2_"))
            f.add(_make_C(160, "C3_"))
            f.add(_make_C(192, "C4_"))
            f.add(_make_D("D_"))
            f.add(_make_E("E1_"))
            f.add(_make_E("E2_"))
            f.add(nn.AvgPool2D(pool_size=8))
            f.add(nn.Dropout(0.5))
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def inception_v3(pretrained=False, ctx=None, root=None, **kwargs):
    """Inception v3; pretrained=True loads inceptionv3-*.params."""
    return finish(Inception3(**kwargs), "inceptionv3", pretrained, ctx, root)
