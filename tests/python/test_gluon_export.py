"""export / SymbolBlock.imports / SymbolBlock(outputs, inputs): files loadable by
load_checkpoint and Module, MXNet 1.9.1's fixtures loading here, and round trips with the real
MXNet 1.9.1 both ways (those skip when the peer is not installed)."""
import json
import os

import numpy as np
import pytest

import mxnet as mx
from mxnet import gluon, nd
from mxnet.gluon import nn
from mxnet.gluon.model_zoo import vision
from test_model_fixtures import IDS, MODELS, _run_peer, needs_peer

TOL = 1e-4


def _net():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Conv2D(4, 3, padding=1), nn.BatchNorm(), nn.Activation("relu"),
                nn.MaxPool2D(2), nn.Flatten(), nn.Dense(6, activation="tanh"), nn.Dense(3))
    net.initialize(mx.init.Xavier())
    net(nd.ones((1, 3, 8, 8)))  # finishes deferred initialisation
    # non-trivial running statistics
    for name, p in net.collect_params().items():
        if "running" in name:
            p.set_data(nd.array(np.random.RandomState(1).rand(*p.shape) + 0.5))
    return net


def test_export_needs_a_hybridized_forward_first(tmp_path):
    net = _net()
    with pytest.raises(RuntimeError, match="hybridize"):
        net.export(str(tmp_path / "m"))


def test_export_writes_symbol_and_arg_aux_params_and_imports_back(tmp_path):
    net = _net()
    x = nd.array(np.random.RandomState(0).rand(2, 3, 8, 8))
    net.hybridize()
    expected = net(x).asnumpy()
    sym_file, params_file = net.export(str(tmp_path / "m"), epoch=7)
    assert sym_file.endswith("m-symbol.json") and params_file.endswith("m-0007.params")
    graph = json.load(open(sym_file))
    assert [n["op"] for n in graph["nodes"] if n["op"] != "null"][:3] == ["Convolution", "BatchNorm",
                                                                          "Activation"]
    keys = set(nd.load(params_file).keys())
    assert all(k.startswith(("arg:", "aux:")) for k in keys)
    assert {k for k in keys if k.startswith("aux:")} == {
        "aux:" + n for n in net.collect_params().keys() if "running" in n}
    assert "arg:data" not in keys
    block = gluon.SymbolBlock.imports(sym_file, ["data"], params_file)
    assert str(block).startswith("SymbolBlock(")
    np.testing.assert_allclose(block(x).asnumpy(), expected, rtol=TOL, atol=TOL)
    # the same files through load_checkpoint + Module
    sym, args, auxs = mx.model.load_checkpoint(str(tmp_path / "m"), 7)
    mod = mx.mod.Module(sym, data_names=("data",), label_names=None)
    mod.bind(data_shapes=[("data", x.shape)], for_training=False)
    mod.set_params(args, auxs)
    np.testing.assert_allclose(mod.predict(mx.io.NDArrayIter(x.asnumpy(), batch_size=2)).asnumpy(),
                               expected, rtol=TOL, atol=TOL)


def test_symbol_block_from_outputs_and_inputs_trains_its_parameters():
    data = mx.sym.var("data")
    out = mx.sym.FullyConnected(data, num_hidden=4, name="fc")
    block = gluon.SymbolBlock(out, data)
    block.initialize()
    x = nd.ones((2, 5))
    assert block(x).shape == (2, 4)
    assert block.collect_params()["fc_weight"].shape == (4, 5)  # deferred, inferred on the graph
    trainer = gluon.Trainer(block.collect_params(), "sgd", {"learning_rate": 1.0})
    before = block.collect_params()["fc_bias"].data().asnumpy().copy()
    with mx.autograd.record():
        loss = block(x).sum()
    loss.backward()
    trainer.step(1)
    np.testing.assert_allclose(block.collect_params()["fc_bias"].data().asnumpy(), before - 2.0, rtol=1e-6)


def test_symbol_block_composes_on_symbols_and_inside_a_hybrid_block():
    inner_data = mx.sym.var("data")
    inner = gluon.SymbolBlock(mx.sym.relu(mx.sym.FullyConnected(inner_data, num_hidden=3, name="fc")),
                              inner_data)
    inner.initialize()
    outer = nn.HybridSequential()
    outer.add(inner, nn.Dense(2))
    outer.initialize()
    x = nd.array(np.random.rand(4, 6))
    ref = outer(x).asnumpy()
    outer.hybridize()
    np.testing.assert_allclose(outer(x).asnumpy(), ref, rtol=1e-5)


def test_imports_errors_name_the_problem(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        gluon.SymbolBlock.imports(str(tmp_path / "none-symbol.json"), ["data"])
    net = _net()
    net.hybridize()
    net(nd.ones((1, 3, 8, 8)))
    sym_file, params_file = net.export(str(tmp_path / "m"))
    with pytest.raises(ValueError, match="'input' is not an input"):
        gluon.SymbolBlock.imports(sym_file, ["input"], params_file)


@pytest.mark.skipif(not MODELS, reason="no MXNet model fixtures")
@pytest.mark.parametrize("prefix,epoch", MODELS, ids=IDS)
def test_mxnet191_fixture_models_through_symbol_block_imports(prefix, epoch):
    x = nd.array(np.load(prefix + "-input.npy"))
    expected = np.load(prefix + "-output.npy")
    sym = mx.sym.load(prefix + "-symbol.json")
    labels = [n for n in sym.list_arguments() if n.endswith("_label")]
    if labels:
        pytest.skip("the graph ends in a loss head with a label input")
    block = gluon.SymbolBlock.imports(prefix + "-symbol.json", ["data"], "%s-%04d.params" % (prefix, epoch))
    for flags in ({}, {"static_alloc": True, "static_shape": True}):
        block.hybridize(**flags)
        np.testing.assert_allclose(block(x).asnumpy(), expected, rtol=TOL, atol=TOL)


@needs_peer
def test_our_export_loads_in_mxnet191(tmp_path):
    net = vision.resnet18_v1(classes=10)
    net.initialize(mx.init.Xavier())
    x = np.random.RandomState(0).rand(2, 3, 32, 32).astype(np.float32)
    net(nd.array(x))
    for name, p in net.collect_params().items():  # non-trivial running statistics
        if "running" in name:
            p.set_data(nd.array(np.random.RandomState(2).rand(*p.shape) + 0.5))
    net.hybridize()
    ours = net(nd.array(x)).asnumpy()
    net.export(str(tmp_path / "r18"))
    np.save(str(tmp_path / "x.npy"), x)
    _run_peer("""
        import numpy as np, mxnet as mx
        block = mx.gluon.SymbolBlock.imports("r18-symbol.json", ["data"], "r18-0000.params")
        np.save("peer.npy", block(mx.nd.array(np.load("x.npy"))).asnumpy())
    """, str(tmp_path))
    np.testing.assert_allclose(ours, np.load(str(tmp_path / "peer.npy")), rtol=TOL, atol=TOL)


@needs_peer
def test_mxnet191_export_imports_here(tmp_path):
    _run_peer("""
        import numpy as np, mxnet as mx
        from mxnet.gluon.model_zoo import vision
        mx.random.seed(4)
        net = vision.mobilenet_v2_0_25(classes=7)
        net.initialize(mx.init.Xavier())
        x = np.random.RandomState(0).rand(2, 3, 32, 32).astype(np.float32)
        net.hybridize()
        np.save("expected.npy", net(mx.nd.array(x)).asnumpy())
        np.save("x.npy", x)
        net.export("mnv2")
    """, str(tmp_path))
    block = gluon.SymbolBlock.imports(str(tmp_path / "mnv2-symbol.json"), ["data"],
                                      str(tmp_path / "mnv2-0000.params"))
    got = block(nd.array(np.load(str(tmp_path / "x.npy")))).asnumpy()
    np.testing.assert_allclose(got, np.load(str(tmp_path / "expected.npy")), rtol=TOL, atol=TOL)
    assert os.path.getsize(str(tmp_path / "mnv2-0000.params")) > 0
