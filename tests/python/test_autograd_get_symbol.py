"""autograd.get_symbol: the computation recorded under autograd.record() behind an NDArray, as a
Symbol (MXAutogradGetSymbol). Leaves are variables (marked ones var<N>, other inputs null<N>),
recorded ops are nodes node_<N> with their parameters; binding the symbol to the leaves' values
gives the array back. The JSON is compared with MXNet 1.9.1's when its peer is installed."""
import json
import re
import textwrap

import numpy as np
import pytest

import mxnet as mx
from mxnet import autograd, nd
from peer_oracle import needs_peer, run_peer

RS = np.random.RandomState(7)


def _mlp_leaves():
    x = RS.randn(4, 5)
    w1, b1 = RS.randn(8, 5), RS.randn(8)
    w2, b2 = RS.randn(3, 8), RS.randn(3)
    return [x, w1, b1, w2, b2]


def _mlp_numpy(x, w1, b1, w2, b2):
    a = np.maximum(x @ w1.T + b1, 0)
    o = (a @ w2.T + b2) * 0.5
    e = np.exp(o - o.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _record_mlp(arrays):
    """Weights and the first bias get gradients; the data and the last bias are plain inputs."""
    x, w1, b1, w2, b2 = arrays
    for p in (w1, b1, w2):
        p.attach_grad()
    with autograd.record():
        h = nd.FullyConnected(x, w1, b1, num_hidden=8)
        a = nd.relu(h)
        o = nd.FullyConnected(a, w2, b2, num_hidden=3)
        y = nd.softmax(o * 0.5, axis=1)
    return y


@pytest.fixture
def mlp():
    values = _mlp_leaves()
    arrays = [nd.array(v, dtype="float64") for v in values]
    y = _record_mlp(arrays)
    return values, arrays, y, autograd.get_symbol(y)


def test_arguments_are_the_leaves_in_use_order(mlp):
    _, _, _, sym = mlp
    names = sym.list_arguments()
    assert len(set(names)) == 5
    assert [re.sub(r"\d+$", "", n) for n in names] == ["null", "var", "var", "var", "null"]
    assert sym.list_auxiliary_states() == []
    assert len(sym.list_outputs()) == 1 and re.fullmatch(r"node_\d+_output", sym.list_outputs()[0])


def test_bound_symbol_reproduces_the_recorded_value(mlp):
    values, arrays, y, sym = mlp
    expected = _mlp_numpy(*values)
    np.testing.assert_allclose(y.asnumpy(), expected, rtol=1e-10)
    args = dict(zip(sym.list_arguments(), arrays))
    exe = sym.bind(mx.cpu(), args=args)
    out = exe.forward()[0].asnumpy()
    np.testing.assert_allclose(out, y.asnumpy(), rtol=1e-12)
    np.testing.assert_allclose(sym.eval(ctx=mx.cpu(), **args)[0].asnumpy(), expected, rtol=1e-10)
    # The tape itself is untouched: backward still runs and reaches the marked leaves.
    y.backward()
    assert float(np.abs(arrays[1].grad.asnumpy()).sum()) > 0


def test_infer_shape_and_type(mlp):
    values, _, y, sym = mlp
    names = sym.list_arguments()
    arg_shapes, out_shapes, aux_shapes = sym.infer_shape(**{n: v.shape for n, v in zip(names, values)})
    assert arg_shapes == [v.shape for v in values] and out_shapes == [y.shape] and aux_shapes == []
    # From the data shape alone: FullyConnected infers its weight and bias shapes from num_hidden.
    arg_shapes, out_shapes, _ = sym.infer_shape(**{names[0]: (4, 5)})
    assert arg_shapes == [v.shape for v in values] and out_shapes == [(4, 3)]
    arg_types, out_types, _ = sym.infer_type(**{names[0]: np.float64})
    assert out_types == [np.float64] and all(t == np.float64 for t in arg_types)


def test_json_names_ops_and_parameters(mlp):
    values, arrays, y, sym = mlp
    graph = json.loads(sym.tojson())
    ops = [n["op"] for n in graph["nodes"] if n["op"] != "null"]
    assert ops == ["FullyConnected", "relu", "FullyConnected", "_mul_scalar", "softmax"]
    op_nodes = [n for n in graph["nodes"] if n["op"] != "null"]
    assert [n.get("attrs") for n in op_nodes] == [{"num_hidden": "8"}, None, {"num_hidden": "3"},
                                                   {"scalar": "0.5"}, {"axis": "1"}]
    numbers = [int(n["name"][len("node_"):]) for n in op_nodes]
    assert numbers == list(range(numbers[0], numbers[0] + 5))  # recording order
    assert graph["arg_nodes"] == [i for i, n in enumerate(graph["nodes"]) if n["op"] == "null"]
    # The JSON loads back into a symbol that computes the same.
    again = mx.sym.load_json(sym.tojson())
    out = again.eval(ctx=mx.cpu(), **dict(zip(again.list_arguments(), arrays)))[0]
    np.testing.assert_allclose(out.asnumpy(), y.asnumpy(), rtol=1e-12)


def test_marked_leaf_is_its_own_variable_with_a_stable_name(mlp):
    _, arrays, _, sym = mlp
    leaf = autograd.get_symbol(arrays[1])
    assert leaf.list_arguments() == [sym.list_arguments()[1]] and leaf.list_outputs() == leaf.list_arguments()
    assert json.loads(leaf.tojson())["nodes"] == [{"op": "null", "name": sym.list_arguments()[1], "inputs": []}]


def test_an_input_used_twice_is_one_argument():
    x = nd.array([1.0, 2.0, 3.0])
    x.attach_grad()
    c = nd.array([10.0, 20.0, 30.0])
    with autograd.record():
        y = x * c + c
    sym = autograd.get_symbol(y)
    assert [re.sub(r"\d+$", "", n) for n in sym.list_arguments()] == ["var", "null"]
    args = dict(zip(sym.list_arguments(), [x, c]))
    np.testing.assert_allclose(sym.eval(ctx=mx.cpu(), **args)[0].asnumpy(), [20.0, 60.0, 120.0])


def test_an_input_changed_between_uses_is_two_arguments():
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    c = nd.array([3.0, 4.0])
    with autograd.record():
        y = x * c
    # A new value of c: the second op saw other data than the first. (MXNet 1.x keeps one variable
    # for c here, so its symbol cannot give z back; each value is an argument of its own here.)
    c[:] = 5.0
    with autograd.record():
        z = y + c
    sym = autograd.get_symbol(z)
    assert len(sym.list_arguments()) == 3
    args = dict(zip(sym.list_arguments(), [x, nd.array([3.0, 4.0]), c]))
    np.testing.assert_allclose(sym.eval(ctx=mx.cpu(), **args)[0].asnumpy(), z.asnumpy())


def test_one_output_of_a_multi_output_op():
    x = nd.array(np.arange(12.0).reshape(2, 6))
    x.attach_grad()
    with autograd.record():
        parts = nd.split(x * 2, num_outputs=3, axis=1)
        z = nd.concat(parts[2], parts[0], dim=1)
    sym = autograd.get_symbol(parts[1])
    assert re.fullmatch(r"node_\d+_output1", sym.list_outputs()[0])
    out = sym.eval(ctx=mx.cpu(), **{sym.list_arguments()[0]: x})[0]
    np.testing.assert_array_equal(out.asnumpy(), parts[1].asnumpy())
    sym = autograd.get_symbol(z)
    node = [n for n in json.loads(sym.tojson())["nodes"] if n["op"] == "Concat"][0]
    assert node["attrs"] == {"dim": "1", "num_args": "2"}
    np.testing.assert_array_equal(sym.eval(ctx=mx.cpu(), **{sym.list_arguments()[0]: x})[0].asnumpy(),
                                  z.asnumpy())


def test_gradient_recorded_with_create_graph():
    x = nd.array([1.0, 2.0, 3.0])
    x.attach_grad()
    ones = nd.ones((3,))
    with autograd.record():
        y = x * x * ones
        g = autograd.grad(y, [x], create_graph=True)[0]
    sym = autograd.get_symbol(g)
    names = sym.list_arguments()
    # x, the plain input and the head gradient (ones as well): each its own, uniquely named leaf.
    assert len(names) == 3 and len(set(names)) == 3
    assert sorted(re.sub(r"\d+$", "", n) for n in names) == ["null", "null", "var"]
    args = {n: (x if n.startswith("var") else ones) for n in names}
    np.testing.assert_allclose(sym.eval(ctx=mx.cpu(), **args)[0].asnumpy(), [2.0, 4.0, 6.0])
    assert autograd.get_symbol(g).list_arguments() == names  # named once, the same on every call


def test_array_outside_a_recorded_graph_is_an_error():
    with pytest.raises(mx.MXNetError, match="not part of a computation graph"):
        autograd.get_symbol(nd.ones((2, 3)))
    with autograd.record():
        y = nd.ones((2, 3)) * 2  # no input needs a gradient: nothing is recorded
    with pytest.raises(mx.MXNetError, match="Did you forget to turn on recording"):
        autograd.get_symbol(y)
    x = nd.ones((2, 3))
    x.attach_grad()
    y = x * 2  # not recording
    with pytest.raises(mx.MXNetError, match="not part of a computation graph"):
        autograd.get_symbol(y)
    with pytest.raises(TypeError, match="NDArray"):
        autograd.get_symbol(np.ones(3))


# Run in a fresh process by both runtimes: names count from 0 in each, so the JSON compares whole.
JSON_SCRIPT = textwrap.dedent("""
    import json
    import numpy as np
    import mxnet as mx
    from mxnet import autograd, nd
    rs = np.random.RandomState(0)
    x, w1, b1, w2, b2 = [nd.array(rs.randn(*s)) for s in [(4, 5), (8, 5), (8,), (3, 8), (3,)]]
    for p in (w1, b1, w2):
        p.attach_grad()
    with autograd.record():
        a = nd.relu(nd.FullyConnected(x, w1, b1, num_hidden=8))
        y = nd.softmax(nd.FullyConnected(a, w2, b2, num_hidden=3) * 0.5, axis=1)
        parts = nd.split(y, num_outputs=3, axis=1)
        z = nd.sum(nd.concat(parts[2], parts[0], dim=1), axis=0)
    sym = autograd.get_symbol(z)
    try:
        autograd.get_symbol(nd.ones((2,)))
        err = None
    except mx.MXNetError as e:
        err = "not part of a computation graph" in str(e)
    print("RESULT" + json.dumps({"json": sym.tojson(), "args": sym.list_arguments(),
                                 "outputs": sym.list_outputs(),
                                 "internals": sym.get_internals().list_outputs(), "error": err}))
""")


def _result(stdout):
    return json.loads([line for line in stdout.splitlines() if line.startswith("RESULT")][-1][len("RESULT"):])


@needs_peer
def test_json_equals_mxnet191(run_python):
    ours = run_python(JSON_SCRIPT)
    assert ours.returncode == 0, ours.stderr[-3000:]
    theirs = _result(run_peer(JSON_SCRIPT).stdout)
    ours = _result(ours.stdout)
    assert json.loads(ours["json"]) == json.loads(theirs["json"])
    assert ours == theirs
