"""Model zoo: MXNet's parameter names and counts, forward shapes, pretrained file lookup."""
import os

import numpy as np
import pytest

import mxnet as mx
from mxnet import nd
from mxnet.gluon.model_zoo import vision


def _names(net):
    return [k[len(net.prefix):] for k in net.collect_params().keys()]


def _count(net):
    return sum(int(np.prod(p.shape)) for p in net.collect_params().values())


def test_resnet18_v1_names_and_forward():
    net = vision.resnet18_v1(classes=10)
    assert net.prefix.startswith("resnetv1")
    names = _names(net)
    assert names[:5] == ["conv0_weight", "batchnorm0_gamma", "batchnorm0_beta",
                         "batchnorm0_running_mean", "batchnorm0_running_var"]
    assert "stage1_conv0_weight" in names and "stage2_conv2_weight" in names  # projection conv
    assert names[-2:] == ["dense0_weight", "dense0_bias"]
    structural = list(net._collect_params_with_prefix().keys())
    assert "features.4.0.body.0.weight" in structural
    assert "features.5.0.downsample.0.weight" in structural
    net.initialize(mx.init.Xavier())
    assert net(nd.ones((1, 3, 32, 32))).shape == (1, 10)
    assert _count(net) == 11699112 - 513000 + 5130  # ImageNet resnet18 with a 10-way head


def test_resnet_v2_and_bottleneck_names():
    v2 = vision.resnet50_v2()
    names = _names(v2)
    assert names[0] == "batchnorm0_gamma" and "stage1_batchnorm0_gamma" in names
    assert "stage1_conv3_weight" in names  # bottleneck projection
    v1 = vision.get_model("resnet50_v1")
    assert _count_after_init(v1, (1, 3, 64, 64)) == 25629032


def _count_after_init(net, shape):
    net.initialize()
    net(nd.ones(shape))
    return _count(net)


@pytest.mark.parametrize("name,count,size", [("alexnet", 61100840, 224), ("squeezenet1.0", 1248424, 224),
                                             ("mobilenet1.0", 4253864, 64),
                                             ("mobilenetv2_1.0", 3539136, 64),
                                             ("densenet121", 8062504, 224)])
def test_parameter_counts_match_mxnet(name, count, size):
    net = vision.get_model(name)
    assert _count_after_init(net, (1, 3, size, size)) == count


def test_vgg_layer_structure():
    net = vision.vgg11()
    names = _names(net)
    assert sum(1 for n in names if n.startswith("conv") and n.endswith("weight")) == 8
    assert names[-6:] == ["dense0_weight", "dense0_bias", "dense1_weight", "dense1_bias",
                          "dense2_weight", "dense2_bias"]


def test_inception_and_vgg_bn_structure():
    inc = vision.inception_v3()
    names = _names(inc)
    assert "A1_conv0_weight" in names and "E2_batchnorm8_gamma" in names
    assert names[-2:] == ["dense0_weight", "dense0_bias"]
    vgg = vision.vgg16_bn()
    assert sum(1 for n in _names(vgg) if n.endswith("running_mean")) == 13
    mob = vision.mobilenet_v2_0_5()
    assert "output_pred_weight" in _names(mob)
    assert "features_linearbottleneck0_batchnorm0_gamma" in _names(mob)


def test_get_model_unknown_name():
    with pytest.raises(ValueError, match="not supported"):
        vision.get_model("resnet7_v9")


def test_pretrained_missing_file_explains_where(tmp_path):
    with pytest.raises(IOError, match="resnet18_v1-<hash>.params"):
        vision.resnet18_v1(pretrained=True, root=str(tmp_path))


def test_pretrained_loads_mxnet_style_file(tmp_path):
    src = vision.squeezenet1_1(classes=5)
    src.initialize(mx.init.Xavier())
    x = nd.array(np.random.RandomState(0).rand(1, 3, 224, 224))
    expected = src(x).asnumpy()
    # the published files are keyed by parameter name without the model prefix
    src.collect_params().save(os.path.join(str(tmp_path), "squeezenet1.1-33ba0f93.params"),
                              strip_prefix=src.prefix)
    net = vision.squeezenet1_1(classes=5, pretrained=True, root=str(tmp_path))
    np.testing.assert_allclose(net(x).asnumpy(), expected, rtol=1e-5, atol=1e-6)
    with mx.test_utils.environment("MXNET_HOME", str(tmp_path)):
        os.makedirs(os.path.join(str(tmp_path), "models"))
        with pytest.raises(IOError, match=str(tmp_path)):
            vision.alexnet(pretrained=True)
