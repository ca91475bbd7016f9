"""mx.sym: composition, naming, listings, internals, JSON, pickling, operators, fixtures.

Expected values are written out by hand or computed with numpy, never by the library itself.
"""
import copy
import glob
import json
import os
import pickle

import numpy as np
import pytest

import mxnet as mx

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "fixtures", "mxnet")
MODELS = sorted(glob.glob(os.path.join(FIXTURES, "models", "*-symbol.json")))


def mlp2():
    data = mx.sym.Variable("data")
    out = mx.sym.FullyConnected(data=data, name="fc1", num_hidden=1000)
    out = mx.sym.Activation(data=out, act_type="relu")
    out = mx.sym.FullyConnected(data=out, name="fc2", num_hidden=10)
    return out


def conv_net():
    data = mx.sym.Variable("data")
    net = mx.sym.Convolution(data=data, kernel=(3, 3), num_filter=8, name="conv1")
    net = mx.sym.BatchNorm(data=net, name="bn1")
    net = mx.sym.Activation(data=net, act_type="relu", name="relu1")
    net = mx.sym.Pooling(data=net, kernel=(2, 2), stride=(2, 2), pool_type="max", name="pool1")
    net = mx.sym.Flatten(data=net, name="flat")
    net = mx.sym.FullyConnected(data=net, num_hidden=10, name="fc")
    return mx.sym.SoftmaxOutput(data=net, name="softmax")


def run(sym, **arrays):
    """Forward of `sym` on cpu with the given numpy inputs; returns numpy outputs."""
    exe = sym.bind(mx.cpu(), {k: mx.nd.array(v) for k, v in arrays.items()})
    return [o.asnumpy() for o in exe.forward()]


# ---- composition and naming ---------------------------------------------------------------------
def test_compose_creates_weight_and_bias_variables():
    net = mlp2()
    assert net.list_arguments() == ["data", "fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias"]
    assert net.list_outputs() == ["fc2_output"]
    assert net.list_auxiliary_states() == []
    assert net.name == "fc2"
    assert len(net) == 1


def test_batchnorm_aux_states_in_order():
    net = conv_net()
    assert net.list_arguments() == ["data", "conv1_weight", "conv1_bias", "bn1_gamma", "bn1_beta",
                                    "fc_weight", "fc_bias", "softmax_label"]
    assert net.list_auxiliary_states() == ["bn1_moving_mean", "bn1_moving_var"]
    assert net.list_inputs() == ["data", "conv1_weight", "conv1_bias", "bn1_gamma", "bn1_beta",
                                 "bn1_moving_mean", "bn1_moving_var", "fc_weight", "fc_bias", "softmax_label"]
    assert net.list_outputs() == ["softmax_output"]


def test_two_batchnorms_aux_order():
    data = mx.sym.Variable("data")
    a = mx.sym.BatchNorm(data, name="bna")
    b = mx.sym.BatchNorm(a, name="bnb")
    assert b.list_auxiliary_states() == ["bna_moving_mean", "bna_moving_var", "bnb_moving_mean",
                                         "bnb_moving_var"]
    assert b.list_arguments() == ["data", "bna_gamma", "bna_beta", "bnb_gamma", "bnb_beta"]


def test_auto_names_from_name_manager():
    with mx.name.NameManager():
        data = mx.sym.Variable("data")
        fc = mx.sym.FullyConnected(data, num_hidden=3)
        fc2 = mx.sym.FullyConnected(fc, num_hidden=3)
        act = mx.sym.Activation(fc2, act_type="relu")
        plus = fc + fc2
        times = fc * 2
        plus2 = fc2 + fc
    assert fc.name == "fullyconnected0"
    assert fc2.name == "fullyconnected1"
    assert act.name == "activation0"
    assert plus.name == "_plus0"
    assert plus2.name == "_plus1"
    assert times.name == "_mulscalar0"
    assert fc.list_arguments() == ["data", "fullyconnected0_weight", "fullyconnected0_bias"]


def test_name_prefix():
    with mx.name.Prefix("net_"):
        fc = mx.sym.FullyConnected(mx.sym.var("x"), num_hidden=2)
    assert fc.name.startswith("net_fullyconnected")
    assert fc.list_arguments()[1] == fc.name + "_weight"


def test_explicit_name_wins():
    with mx.name.NameManager():
        fc = mx.sym.FullyConnected(mx.sym.var("x"), num_hidden=2, name="myfc")
        other = mx.sym.FullyConnected(mx.sym.var("x"), num_hidden=2)
    assert fc.name == "myfc"
    assert other.name == "fullyconnected0"


def test_inputs_positional_or_by_keyword():
    x, w, b = mx.sym.var("x"), mx.sym.var("w"), mx.sym.var("b")
    pos = mx.sym.FullyConnected(x, w, b, 5, name="fc")
    kw = mx.sym.FullyConnected(data=x, weight=w, bias=b, num_hidden=5, name="fc")
    assert pos.list_arguments() == ["x", "w", "b"]
    assert pos.tojson() == kw.tojson()
    no_bias = mx.sym.FullyConnected(x, num_hidden=5, no_bias=True, name="nb")
    assert no_bias.list_arguments() == ["x", "nb_weight"]
    with pytest.raises(TypeError):
        mx.sym.FullyConnected(x, data=x, num_hidden=5)


def test_variadic_ops_take_positional_lists():
    a, b, c = mx.sym.var("a"), mx.sym.var("b"), mx.sym.var("c")
    cat = mx.sym.Concat(a, b, c, dim=1, name="cat")
    assert cat.list_arguments() == ["a", "b", "c"]
    cat2 = mx.sym.Concat(*[a, b], dim=0)
    assert cat2.list_arguments() == ["a", "b"]
    total = mx.sym.ElementWiseSum(a, b, c, name="sum")
    xa, xb, xc = (np.random.rand(2, 3).astype(np.float32) for _ in range(3))
    np.testing.assert_allclose(run(total, a=xa, b=xb, c=xc)[0], xa + xb + xc, rtol=1e-6)
    np.testing.assert_allclose(run(cat, a=xa, b=xb, c=xc)[0], np.concatenate([xa, xb, xc], axis=1))


def test_compose_composite_by_keyword():
    net1 = mx.sym.FullyConnected(data=mx.sym.var("data"), name="fc1", num_hidden=10)
    net1 = mx.sym.FullyConnected(data=net1, name="fc2", num_hidden=100)
    net2 = mx.sym.FullyConnected(name="fc3", num_hidden=10)
    assert net2.list_arguments() == ["fc3_data", "fc3_weight", "fc3_bias"]
    net2 = mx.sym.Activation(data=net2, act_type="relu")
    net2 = mx.sym.FullyConnected(data=net2, name="fc4", num_hidden=20)
    composed = net2(fc3_data=net1, name="composed")
    assert composed.list_arguments() == ["data", "fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias",
                                         "fc3_weight", "fc3_bias", "fc4_weight", "fc4_bias"]
    assert composed.name == "composed"
    # __call__ composes a copy: net2 itself still has its free variable
    assert "fc3_data" in net2.list_arguments()
    multi = mx.sym.Group([composed, net1])
    assert len(multi.list_outputs()) == 2 and len(multi) == 2
    with pytest.raises(TypeError):
        net2(net1, fc3_data=net1)


def test_compose_rejects_non_symbols():
    with pytest.raises(TypeError):
        mx.sym.FullyConnected(data=np.zeros(3), num_hidden=2)
    with pytest.raises(TypeError):
        mlp2()(data=3)


# ---- outputs, internals, children ---------------------------------------------------------------
def test_internals_and_getitem():
    data = mx.sym.Variable("data")
    oldfc = mx.sym.FullyConnected(data=data, name="fc1", num_hidden=10)
    net1 = mx.sym.FullyConnected(data=oldfc, name="fc2", num_hidden=100)
    internals = net1.get_internals()
    assert internals.list_outputs() == ["data", "fc1_weight", "fc1_bias", "fc1_output", "fc2_weight",
                                        "fc2_bias", "fc2_output"]
    fc1 = internals["fc1_output"]
    assert fc1.list_arguments() == oldfc.list_arguments()
    assert fc1.tojson() == oldfc.tojson()
    assert internals[3].list_outputs() == ["fc1_output"]
    assert internals[-1].list_outputs() == ["fc2_output"]
    with pytest.raises(ValueError, match="Cannot find output"):
        internals["nope_output"]
    with pytest.raises(IndexError):
        internals[7]
    dup = mx.sym.Group([fc1, fc1])
    with pytest.raises(ValueError, match="multiple outputs"):
        dup["fc1_output"]
    assert [s.name for s in internals[1:3]] == ["fc1_weight", "fc1_bias"]


def test_internals_show_visible_outputs_only():
    data = mx.sym.Variable("data")
    bn = mx.sym.BatchNorm(data, name="bn")
    drop = mx.sym.Dropout(bn, p=0.5, name="drop")
    outs = drop.get_internals().list_outputs()
    assert outs == ["data", "bn_gamma", "bn_beta", "bn_moving_mean", "bn_moving_var", "bn_output",
                    "drop_output"]


def test_multi_output_iteration_and_len():
    sliced = mx.sym.SliceChannel(mx.sym.var("data"), num_outputs=3, name="slice")
    assert len(sliced) == 3
    assert sliced.list_outputs() == ["slice_output0", "slice_output1", "slice_output2"]
    parts = list(sliced)
    assert [p.list_outputs() for p in parts] == [["slice_output0"], ["slice_output1"], ["slice_output2"]]
    assert sliced.name == "slice"
    x = np.arange(12, dtype=np.float32).reshape(2, 6)
    outs = run(sliced, data=x)
    for got, want in zip(outs, np.split(x, 3, axis=1)):
        np.testing.assert_array_equal(got, want)


def test_children():
    data = mx.sym.Variable("data")
    oldfc = mx.sym.FullyConnected(data=data, name="fc1", num_hidden=10)
    net1 = mx.sym.FullyConnected(data=oldfc, name="fc2", num_hidden=100)
    children = net1.get_children()
    assert children.list_outputs() == ["fc1_output", "fc2_weight", "fc2_bias"]
    assert len(children) == 3
    assert children.get_children().list_outputs() == ["data", "fc1_weight", "fc1_bias"]
    assert children["fc2_weight"].list_arguments() == ["fc2_weight"]
    assert children["fc2_weight"].get_children() is None
    sliced = mx.sym.SliceChannel(mx.sym.Variable("data"), num_outputs=3, name="slice")
    concat = mx.sym.Concat(*list(sliced))
    assert concat.get_children().list_outputs() == ["slice_output0", "slice_output1", "slice_output2"]


def test_children_of_multi_output_node_listed_once():
    sliced = mx.sym.SliceChannel(mx.sym.Variable("data"), num_outputs=3, name="slice")
    assert sliced.get_children().list_outputs() == ["data"]


def test_group_keeps_duplicates_and_has_no_name():
    a = mx.sym.var("a")
    b = mx.sym.var("b")
    g = mx.sym.Group([a, b, a])
    assert g.list_outputs() == ["a", "b", "a"]
    assert g.name is None
    assert g.attr("anything") is None
    assert repr(g) == "<Symbol group [a, b, a]>"
    assert repr(a) == "<Symbol a>"
    with pytest.raises(TypeError):
        mx.sym.Group([a, 1])
    with pytest.raises(TypeError):
        mx.sym.Group([])


# ---- serialisation, copies ----------------------------------------------------------------------
def test_tojson_load_round_trip(tmp_path):
    net = conv_net()
    fname = str(tmp_path / "net-symbol.json")
    net.save(fname)
    loaded = mx.sym.load(fname)
    assert loaded.tojson() == net.tojson()
    assert mx.sym.load_json(net.tojson()).tojson() == net.tojson()
    assert loaded.list_arguments() == net.list_arguments()
    assert loaded.list_auxiliary_states() == net.list_auxiliary_states()
    doc = json.loads(net.tojson())
    assert {"nodes", "arg_nodes", "heads"} <= set(doc)
    ops = [n["op"] for n in doc["nodes"]]
    assert ops.count("null") == len(net.list_inputs())
    with pytest.raises(TypeError):
        mx.sym.load_json(b"{}")


def test_load_json_rejects_garbage():
    with pytest.raises(mx.MXNetError):
        mx.sym.load_json("{not json")
    with pytest.raises(mx.MXNetError):
        mx.sym.load("/no/such/file-symbol.json")


def test_pickle_and_copy():
    net = conv_net()
    for other in (pickle.loads(pickle.dumps(net)), copy.copy(net), copy.deepcopy(net), net.copy()):
        assert other.tojson() == net.tojson()
        assert other.handle.value != net.handle.value
    # a copy is independent: composing it leaves the original alone
    free = mx.sym.FullyConnected(name="f", num_hidden=2)
    dup = copy.copy(free)
    dup._compose(f_data=mx.sym.var("z"))
    assert free.list_arguments() == ["f_data", "f_weight", "f_bias"]
    assert dup.list_arguments() == ["z", "f_weight", "f_bias"]


def test_debug_str_lists_nodes():
    text = mlp2().debug_str()
    assert "Symbol Outputs:" in text
    assert "Variable:data" in text
    assert "Op:FullyConnected, Name=fc1" in text
    assert "Op:Activation" in text


# ---- operators on symbols -----------------------------------------------------------------------
X = np.array([[0.5, -1.5, 2.0], [3.0, 0.25, -4.0]], dtype=np.float32)
Y = np.array([[1.5, 2.0, -0.5], [0.75, -2.0, 1.0]], dtype=np.float32)


@pytest.mark.parametrize("fn,np_fn", [
    (lambda a, b: a + b, lambda a, b: a + b),
    (lambda a, b: a - b, lambda a, b: a - b),
    (lambda a, b: a * b, lambda a, b: a * b),
    (lambda a, b: a / b, lambda a, b: a / b),
    (lambda a, b: a % b, lambda a, b: np.mod(a, b)),
    (lambda a, b: abs(a) ** b, lambda a, b: np.abs(a) ** b),
    (lambda a, b: a == b, lambda a, b: (a == b).astype(np.float32)),
    (lambda a, b: a != b, lambda a, b: (a != b).astype(np.float32)),
    (lambda a, b: a < b, lambda a, b: (a < b).astype(np.float32)),
    (lambda a, b: a <= b, lambda a, b: (a <= b).astype(np.float32)),
    (lambda a, b: a > b, lambda a, b: (a > b).astype(np.float32)),
    (lambda a, b: a >= b, lambda a, b: (a >= b).astype(np.float32)),
    (lambda a, b: mx.sym.maximum(a, b) if isinstance(a, mx.sym.Symbol) else np.maximum(a, b), np.maximum),
    (lambda a, b: mx.sym.minimum(a, b) if isinstance(a, mx.sym.Symbol) else np.minimum(a, b), np.minimum),
    (lambda a, b: mx.sym.hypot(a, b) if isinstance(a, mx.sym.Symbol) else np.hypot(a, b), np.hypot),
])
def test_symbol_symbol_operators(fn, np_fn):
    a, b = mx.sym.var("a"), mx.sym.var("b")
    y = Y.copy()
    y[1, 0] = X[1, 0]  # one equal pair for the comparisons
    out = fn(a, b)
    assert isinstance(out, mx.sym.Symbol)
    assert out.list_arguments() == ["a", "b"]
    np.testing.assert_allclose(run(out, a=X, b=y)[0], np_fn(X, y), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fn,np_fn", [
    (lambda a: a + 2, lambda a: a + 2), (lambda a: 2 + a, lambda a: 2 + a),
    (lambda a: a - 2, lambda a: a - 2), (lambda a: 2 - a, lambda a: 2 - a),
    (lambda a: a * 3, lambda a: a * 3), (lambda a: 3 * a, lambda a: 3 * a),
    (lambda a: a / 4, lambda a: a / 4), (lambda a: 4 / a, lambda a: 4 / a),
    (lambda a: a % 1.5, lambda a: np.mod(a, 1.5)), (lambda a: 7 % a, lambda a: np.mod(7, a)),
    (lambda a: abs(a) ** 2, lambda a: np.abs(a) ** 2), (lambda a: 2 ** a, lambda a: 2 ** a),
    (lambda a: -a, lambda a: -a), (lambda a: abs(a), np.abs),
    (lambda a: a == 2, lambda a: (a == 2).astype(np.float32)),
    (lambda a: a != 2, lambda a: (a != 2).astype(np.float32)),
    (lambda a: a > 0.5, lambda a: (a > 0.5).astype(np.float32)),
    (lambda a: a >= 0.5, lambda a: (a >= 0.5).astype(np.float32)),
    (lambda a: a < 0.5, lambda a: (a < 0.5).astype(np.float32)),
    (lambda a: a <= 0.5, lambda a: (a <= 0.5).astype(np.float32)),
    (lambda a: 0.5 < a, lambda a: (0.5 < a).astype(np.float32)),
    (lambda a: 0.5 >= a, lambda a: (0.5 >= a).astype(np.float32)),
    (lambda a: np.float32(2) * a, lambda a: 2 * a),
    (lambda a: mx.sym.maximum(a, 1), lambda a: np.maximum(a, 1)),
    (lambda a: mx.sym.minimum(1, a), lambda a: np.minimum(a, 1)),
    (lambda a: mx.sym.pow(a, 2), lambda a: a ** 2), (lambda a: mx.sym.power(2, a), lambda a: 2 ** a),
])
def test_symbol_scalar_operators(fn, np_fn):
    x = X.copy()
    x[0, 2] = 2.0
    out = fn(mx.sym.var("a"))
    np.testing.assert_allclose(run(out, a=x)[0], np_fn(x), rtol=1e-5, atol=1e-6)


def test_scalar_scalar_module_functions():
    assert mx.sym.maximum(2, 3) == 3
    assert mx.sym.minimum(2, 3) == 2
    assert mx.sym.pow(2, 3) == 8
    with pytest.raises(TypeError):
        mx.sym.var("a") + "x"


def test_operator_hints():
    with mx.name.NameManager():
        a = mx.sym.var("a")
        assert (a - 1).name == "_minusscalar0"
        assert (1 - a).name == "_rminusscalar0"
        assert (a / a).name == "_div0"
        assert (-a).name == "_mulscalar0"
        assert (a == 1).name == "_equal_scalar0"
        assert (a > a).name == "_greater0"


def test_truth_value_is_an_error():
    with pytest.raises(NotImplementedError):
        bool(mx.sym.var("a"))


def test_fluent_methods():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 10
    a = mx.sym.var("a")
    cases = [
        (a.reshape((4, 6)), x.reshape(4, 6)),
        (a.reshape(shape=(-1, 4)), x.reshape(-1, 4)),
        (a.flatten(), x.reshape(2, 12)),
        (a.sum(), np.array([x.sum()])),
        (a.sum(axis=1), x.sum(axis=1)),
        (a.mean(axis=(0, 2)), x.mean(axis=(0, 2))),
        (a.max(axis=2), x.max(axis=2)),
        (a.abs(), np.abs(x)),
        (a.transpose(axes=(2, 0, 1)), x.transpose(2, 0, 1)),
        (a.expand_dims(axis=0), x[None]),
        (a.astype("int32"), x.astype(np.int32)),
        (a.clip(-3, 3), np.clip(x, -3, 3)),
        (a.square(), x ** 2),
        (a.exp().log(), x),
        (a.relu(), np.maximum(x, 0)),
    ]
    for sym, want in cases:
        got = run(sym, a=x)[0]
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_creation_functions():
    np.testing.assert_array_equal(run(mx.sym.zeros((2, 3)))[0], np.zeros((2, 3)))
    np.testing.assert_array_equal(run(mx.sym.ones((4,), dtype="int32"))[0], np.ones(4, dtype=np.int32))
    np.testing.assert_array_equal(run(mx.sym.full((2, 2), 7))[0], np.full((2, 2), 7, dtype=np.float32))
    np.testing.assert_array_equal(run(mx.sym.arange(2, 8, 2))[0], np.array([2, 4, 6], dtype=np.float32))
    a = mx.sym.var("a")
    np.testing.assert_array_equal(run(a + mx.sym.ones((2, 3)), a=X)[0], X + 1)


def test_eval():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    out = (a * b).eval(ctx=mx.cpu(), a=mx.nd.array(X), b=mx.nd.array(Y))
    assert len(out) == 1
    np.testing.assert_allclose(out[0].asnumpy(), X * Y, rtol=1e-6)


# ---- generated functions and namespaces ----------------------------------------------------------
def test_every_registered_op_is_generated_for_both_front_ends():
    from mxnet import _registry
    names = _registry.list_op_names()
    assert len(names) > 100
    for name in names:
        if name.startswith("_"):
            assert hasattr(mx.sym._internal, name), name
            assert hasattr(mx.nd._internal, name), name
        else:
            assert hasattr(mx.sym.op, name), name
            assert hasattr(mx.nd.op, name), name
            assert getattr(mx.sym, name) is not None
    for prefix, sub in _registry.SUBMODULE_PREFIXES.items():
        nd_names = {n for n in dir(getattr(mx.nd, sub)) if not n.startswith("__")}
        sym_names = {n for n in dir(getattr(mx.sym, sub)) if not n.startswith("__")}
        ops = {n[len(prefix):] for n in names if n.startswith(prefix)}
        assert ops <= nd_names and ops <= sym_names, sub
        if sub != "sparse":  # mx.nd.sparse also holds CSRNDArray and its constructors
            assert nd_names == sym_names, sub
    assert mx.symbol is mx.sym


def test_generated_docs_and_submodules():
    assert "Symbol" in mx.sym.FullyConnected.__doc__
    assert "num_hidden" in mx.sym.FullyConnected.__doc__
    assert mx.sym.FullyConnected.__name__ == "FullyConnected"
    import mxnet.symbol.random  # noqa: F401  (importable as a module)
    for mod in ("op", "_internal", "contrib", "linalg", "random"):
        assert hasattr(mx.sym, mod)


def test_random_symbols():
    with mx.name.NameManager():
        u = mx.sym.random.uniform(low=2, high=3, shape=(50,))
        n = mx.sym.random.normal(loc=0, scale=1, shape=(4, 5))
    assert u.list_arguments() == []
    assert u.name == "_random_uniform0"
    vals = run(u)[0]
    assert vals.shape == (50,) and vals.min() >= 2 and vals.max() <= 3
    assert run(n)[0].shape == (4, 5)
    low, high = mx.sym.var("low"), mx.sym.var("high")
    s = mx.sym.random.uniform(low, high, shape=(3,))
    assert s.list_arguments() == ["low", "high"]
    got = run(s, low=np.array([0, 10], dtype=np.float32), high=np.array([1, 11], dtype=np.float32))[0]
    assert got.shape == (2, 3)
    assert (got[0] < 1).all() and (got[1] >= 10).all()


def test_gradient_symbol():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    g = (a * b).gradient(["a"])
    assert isinstance(g, mx.sym.Symbol)
    assert len(g.list_outputs()) == 1


# ---- fixtures from MXNet ------------------------------------------------------------------------
@pytest.mark.skipif(not os.path.exists(os.path.join(FIXTURES, "save_000800.json")),
                    reason="shared fixtures not found next to the checkout")
def test_load_000800_legacy_json():
    with mx.AttrScope(ctx_group="stage1"):
        data = mx.sym.Variable("data", lr_mult=0.2)
        weight = mx.sym.Variable(name="fc1_weight", lr_mult=1.2)
        fc1 = mx.sym.FullyConnected(data=data, weight=weight, name="fc1", num_hidden=128, wd_mult=0.3)
        act1 = mx.sym.Activation(data=fc1, name="relu1", act_type="relu")
    with mx.AttrScope(ctx_group="stage2"):
        fc2 = mx.sym.FullyConnected(data=act1, name="fc2", num_hidden=64, lr_mult=0.01)
        act2 = mx.sym.Activation(data=fc2, name="relu2", act_type="relu")
        fc3 = mx.sym.FullyConnected(data=act2, name="fc3", num_hidden=10)
        fc3 = mx.sym.BatchNorm(fc3, name="batchnorm0")
        sym1 = mx.sym.SoftmaxOutput(data=fc3, name="softmax")
    sym2 = mx.sym.load(os.path.join(FIXTURES, "save_000800.json"))
    attr1, attr2 = sym1.attr_dict(), sym2.attr_dict()
    for node, attrs in attr1.items():
        assert node in attr2, node
        for key, value in attrs.items():
            if key.startswith("__") and key.endswith("__"):
                assert attr2[node].get(key) == value, (node, key, attrs, attr2[node])
    assert sym1.list_arguments() == sym2.list_arguments()
    assert sym1.list_auxiliary_states() == sym2.list_auxiliary_states()
    assert sym1.list_outputs() == sym2.list_outputs()
    shapes1 = sym1.infer_shape(data=(1, 200))
    assert shapes1 == sym2.infer_shape(data=(1, 200))
    # same forward with the same parameters
    rng = np.random.RandomState(0)
    arg_shapes, _, aux_shapes = shapes1
    args = {n: rng.uniform(-1, 1, s).astype(np.float32) for n, s in zip(sym1.list_arguments(), arg_shapes)}
    aux = {n: np.abs(rng.uniform(0.5, 1, s)).astype(np.float32)
           for n, s in zip(sym1.list_auxiliary_states(), aux_shapes)}
    outs = []
    for sym in (sym1, sym2):
        exe = sym.bind(mx.cpu(), {k: mx.nd.array(v) for k, v in args.items()},
                       aux_states={k: mx.nd.array(v) for k, v in aux.items()})
        outs.append(exe.forward()[0].asnumpy())
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-6)


@pytest.mark.parametrize("path", MODELS, ids=[os.path.basename(p) for p in MODELS])
def test_model_fixture_loads_round_trips_and_runs(path):
    sym = mx.sym.load(path)
    doc = json.load(open(path))
    inputs = [n["name"] for n in doc["nodes"] if n["op"] == "null"]
    assert sorted(sym.list_inputs()) == sorted(inputs)
    again = mx.sym.load_json(sym.tojson())
    assert again.tojson() == sym.tojson()
    assert pickle.loads(pickle.dumps(sym)).tojson() == sym.tojson()
    base = path[:-len("-symbol.json")]
    params_files = glob.glob(base + "-*.params")
    if not params_files or not os.path.exists(base + "-input.npy"):
        return
    params = mx.nd.load(params_files[0])
    arg_params = {k[4:]: v for k, v in params.items() if k.startswith("arg:")}
    aux_params = {k[4:]: v for k, v in params.items() if k.startswith("aux:")}
    assert set(aux_params) == set(sym.list_auxiliary_states())
    x = np.load(base + "-input.npy")
    want = np.load(base + "-output.npy")
    exe = sym.simple_bind(mx.cpu(), grad_req="null", data=x.shape)
    exe.copy_params_from(arg_params, aux_params)
    out = exe.forward(is_train=False, data=mx.nd.array(x))[0].asnumpy()
    assert out.shape == want.shape
    np.testing.assert_allclose(out, want, rtol=1e-3, atol=1e-4)
