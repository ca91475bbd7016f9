"""The graph passes and the variables that steer them: each test shows a variable's effect
on the bound graph (planned memory, node listing, profiler events, dump files) and that
results do not change with it."""
import json
import os

import numpy as np
import pytest

import mxnet as mx
from mxnet.test_utils import environment


def conv_net(depth=4, channels=8, act="Activation"):
    x = mx.sym.var("data")
    for i in range(depth):
        x = mx.sym.Convolution(x, num_filter=channels, kernel=(3, 3), pad=(1, 1), name="conv%d" % i)
        x = mx.sym.BatchNorm(x, name="bn%d" % i)
        if act == "Activation":
            x = mx.sym.Activation(x, act_type="relu", name="relu%d" % i)
        else:  # the elementwise op, which declares in-place
            x = mx.sym.relu(x, name="relu%d" % i)
    x = mx.sym.FullyConnected(x, num_hidden=10, name="fc")
    return mx.sym.SoftmaxOutput(x, name="softmax")


def bind_filled(sym, seed=0, grad_req="write", **shapes):
    ex = sym.simple_bind(mx.cpu(), grad_req=grad_req, **shapes)
    rng = np.random.RandomState(seed)
    for name, arr in ex.arg_dict.items():
        if name.endswith("label"):
            arr[:] = rng.randint(0, 10, arr.shape)
        else:
            arr[:] = rng.uniform(-1, 1, arr.shape)
    for name, arr in ex.aux_dict.items():
        arr[:] = 1 if name.endswith("var") else 0
    return ex


def train_step(ex):
    ex.forward(is_train=True)
    ex.backward()
    return ({k: v.asnumpy() for k, v in ex.grad_dict.items() if v is not None},
            [o.asnumpy() for o in ex.outputs])


def plan(grad_req="write", **env):
    with environment(env):
        ex = bind_filled(conv_net(act="relu"), grad_req=grad_req, data=(4, 3, 16, 16))
        return ex, ex.memory_plan()


def test_planning_shares_memory_and_each_knob_off_grows_it():
    _, base = plan()
    assert base["planned_bytes"] < base["unshared_bytes"]
    assert base["num_shared"] > 0
    _, no_share = plan(NNVM_EXEC_MATCH_RANGE="0")
    assert no_share["num_shared"] == 0
    assert no_share["planned_bytes"] > base["planned_bytes"]
    # The pre-NNVM name still works.
    _, alias = plan(MXNET_EXEC_MATCH_RANGE="0")
    assert alias["planned_bytes"] == no_share["planned_bytes"]
    # In inference every activation has one reader: relu overwrites BatchNorm's output (with
    # the subgraph backend off, which would fuse the three into one op).
    _, infer = plan(grad_req="null", MXNET_SUBGRAPH_BACKEND="NONE")
    _, no_inplace = plan(grad_req="null", MXNET_SUBGRAPH_BACKEND="NONE", MXNET_EXEC_ENABLE_INPLACE="0")
    assert infer["num_inplace"] > 0 and no_inplace["num_inplace"] == 0
    assert no_inplace["planned_bytes"] >= infer["planned_bytes"]
    ex, colours = plan(MXNET_EXEC_NUM_TEMP="4")
    assert colours["planned_bytes"] >= base["planned_bytes"]
    # The longest op path (here the whole chain) gets its own colour.
    assert "colour=1" in ex.debug_str() and "colour=1" not in plan()[0].debug_str()


def test_num_temp_colours_branches_apart():
    sym, _ = fan_out(6)
    with environment("MXNET_EXEC_NUM_TEMP", "3"):
        ex = sym.simple_bind(mx.cpu(), x=(64,))
    listing = ex.debug_str()
    assert "colour=1" in listing and "colour=2" in listing
    base = sym.simple_bind(mx.cpu(), x=(64,)).memory_plan()
    assert ex.memory_plan()["planned_bytes"] >= base["planned_bytes"]


def test_planning_knobs_leave_results_unchanged():
    ref_grads, ref_out = train_step(plan()[0])
    for env in ({"NNVM_EXEC_MATCH_RANGE": "0"}, {"MXNET_EXEC_ENABLE_INPLACE": "0"}, {"MXNET_EXEC_NUM_TEMP": "3"}):
        grads, out = train_step(plan(**env)[0])
        np.testing.assert_array_equal(out[0], ref_out[0], err_msg=str(env))
        for k in ref_grads:
            np.testing.assert_array_equal(grads[k], ref_grads[k], err_msg="%s %s" % (env, k))


def test_mirror_saves_activation_memory_with_identical_gradients():
    sym = conv_net(depth=6, channels=16)
    shapes = dict(data=(8, 3, 16, 16))
    results = {}
    for env in ({"MXNET_BACKWARD_DO_MIRROR": "0"}, {"MXNET_BACKWARD_DO_MIRROR": "1"}, {"MXNET_MEMORY_OPT": "1"}):
        with environment(env):
            ex = bind_filled(sym, **shapes)
            results[tuple(env.items())] = (ex.memory_plan()["planned_bytes"], train_step(ex), ex.debug_str())
    base_bytes, (base_grads, _), _ = results[(("MXNET_BACKWARD_DO_MIRROR", "0"),)]
    for key in ((("MXNET_BACKWARD_DO_MIRROR", "1"),), (("MXNET_MEMORY_OPT", "1"),)):
        nbytes, (grads, _), listing = results[key]
        assert "_mirror" in listing
        assert nbytes <= 0.75 * base_bytes, (key, nbytes, base_bytes)
        for k in base_grads:
            np.testing.assert_array_equal(grads[k], base_grads[k], err_msg=k)


def test_force_mirroring_attribute_mirrors_with_the_flag_off():
    x = mx.sym.var("data")
    with mx.AttrScope(force_mirroring="True"):
        y = mx.sym.Activation(x, act_type="tanh", name="act")
    z = mx.sym.FullyConnected(y, num_hidden=3, name="fc")
    ex = z.simple_bind(mx.cpu(), data=(2, 4))
    assert "act_mirror" in ex.debug_str()


def cse_net():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    return (a + b) * (a + b) + mx.sym.exp(a) * mx.sym.exp(a)


@pytest.mark.parametrize("enabled,removed", [("1", 2), ("0", 0)])
def test_common_expression_elimination(enabled, removed):
    with environment("MXNET_ELIMINATE_COMMON_EXPR", enabled):
        ex = cse_net().simple_bind(mx.cpu(), a=(3,), b=(3,))
    assert "CSE removed %d," % removed in ex.debug_str()
    a, b = np.array([0.1, 0.2, 0.3], "float32"), np.array([1.0, -2.0, 0.5], "float32")
    ex.forward(is_train=True, a=a, b=b)
    np.testing.assert_allclose(ex.outputs[0].asnumpy(), (a + b) ** 2 + np.exp(a) ** 2, rtol=1e-6)
    ex.backward(mx.nd.ones((3,)))
    np.testing.assert_allclose(ex.grad_dict["a"].asnumpy(), 2 * (a + b) + 2 * np.exp(2 * a), rtol=1e-5)
    np.testing.assert_allclose(ex.grad_dict["b"].asnumpy(), 2 * (a + b), rtol=1e-5)


def fan_out(n):
    x = mx.sym.var("x")
    terms = [mx.sym.sin(x * float(i + 1)) for i in range(n)]
    return mx.sym.add_n(*terms), x


@pytest.mark.parametrize("cap,expect", [("8", "add_n"), ("2", "x_sum_grad_0")])
def test_grad_sum_cap_picks_elementwise_sum_or_a_chain(cap, expect):
    sym, _ = fan_out(5)
    with environment("MXNET_EXEC_INPLACE_GRAD_SUM_CAP", cap):
        ex = sym.simple_bind(mx.cpu(), x=(4,))
    listing = ex.debug_str()
    grad_part = listing[listing.index("Bound graph"):]
    assert expect in grad_part
    xv = np.linspace(-1, 1, 4).astype("float32")
    ex.forward(is_train=True, x=xv)
    ex.backward(mx.nd.ones((4,)))
    expected = sum((i + 1) * np.cos((i + 1) * xv.astype("float64")) for i in range(5))
    np.testing.assert_allclose(ex.grad_dict["x"].asnumpy(), expected, rtol=1e-5, atol=1e-6)


def profiled_op_names(env):
    code = r"""
import json, numpy as np, mxnet as mx
x = mx.sym.var('data')
for i in range(3):
    x = mx.sym.Activation(mx.sym.FullyConnected(x, num_hidden=8, name='fc%d' % i), act_type='relu', name='r%d' % i)
ex = x.simple_bind(mx.cpu(), data=(2, 8))
ex.forward(is_train=True); ex.backward(mx.nd.ones((2, 8))); mx.nd.waitall()
mx.profiler.set_config(profile_all=True, aggregate_stats=True, filename='/dev/null')
mx.profiler.set_state('run')
ex.forward(is_train=True); ex.backward(mx.nd.ones((2, 8))); mx.nd.waitall()
mx.profiler.set_state('stop')
print(mx.profiler.dumps())
"""
    return code


def test_bulk_off_shows_every_graph_op_in_the_profiler(run_python):
    on = run_python(profiled_op_names(None))
    off = run_python(profiled_op_names(None), MXNET_EXEC_BULK_EXEC_TRAIN="0")
    assert on.returncode == 0, on.stderr
    assert off.returncode == 0, off.stderr

    def rows(out):
        return [line.split()[0] for line in out.splitlines() if line and not line.startswith((" ", "="))]
    for op in ("FullyConnected", "Activation", "_backward_FullyConnected"):
        assert op in rows(off.stdout)
        assert op not in rows(on.stdout)
    # With bulking a segment is one event named by its ops.
    assert any(r.startswith("[FullyConnected,Activation") for r in rows(on.stdout))


@pytest.mark.parametrize("var", ["MXNET_EXEC_BULK_EXEC_MAX_NODE_TRAIN_FWD", "MXNET_EXEC_BULK_EXEC_MAX_NODE_TRAIN"])
def test_bulk_segment_size(var):
    sym = conv_net(depth=3)
    with environment(var, "2"):
        listing = bind_filled(sym, data=(1, 3, 8, 8)).debug_str()
    segments = {int(tok.split("=")[1]) for tok in listing.split() if tok.startswith("segment=")}
    with environment(var, "100"):
        wide = bind_filled(sym, data=(1, 3, 8, 8)).debug_str()
    wide_segments = {int(tok.split("=")[1]) for tok in wide.split() if tok.startswith("segment=")}
    assert len(segments) > len(wide_segments)


def test_inference_graph_is_one_segment_unless_disabled():
    sym = conv_net(depth=3)
    listing = bind_filled(sym, grad_req="null", data=(1, 3, 8, 8)).debug_str()
    assert {tok for tok in listing.split() if tok.startswith("segment=")} == {"segment=0"}
    with environment("MXNET_EXEC_BULK_EXEC_INFERENCE", "0"):
        listing = bind_filled(sym, grad_req="null", data=(1, 3, 8, 8)).debug_str()
    assert len({tok for tok in listing.split() if tok.startswith("segment=")}) > 1


def test_graph_dump_writes_json_and_listing(tmp_path):
    # The subgraph backend off: the listing keeps the separate (and in-place) ops.
    with environment({"MXNET_GRAPH_DUMP_DIR": str(tmp_path), "MXNET_SUBGRAPH_BACKEND": "NONE"}):
        bind_filled(conv_net(depth=2, act="relu"), grad_req="null", data=(2, 3, 8, 8))
    files = sorted(os.listdir(tmp_path))
    assert any(f.endswith(".json") for f in files) and any(f.endswith(".txt") for f in files)
    js = [f for f in files if f.endswith(".json")][0]
    graph = json.load(open(os.path.join(tmp_path, js)))
    ops = {n["op"] for n in graph["nodes"]}
    assert "Convolution" in ops and "relu" in ops
    text = open(os.path.join(tmp_path, js.replace(".json", ".txt"))).read()
    for word in ("shape=", "dtype=", "storage=", "segment=", "(in place)", "MB allocated"):
        assert word in text
    # The dumped graph loads back as a symbol.
    assert mx.sym.load(os.path.join(tmp_path, js)).list_outputs()


def test_graph_dump_to_a_missing_folder_is_a_clear_error(tmp_path):
    with environment("MXNET_GRAPH_DUMP_DIR", str(tmp_path / "missing")):
        with pytest.raises((mx.MXNetError, RuntimeError), match="MXNET_GRAPH_DUMP_DIR"):
            conv_net(depth=1).simple_bind(mx.cpu(), data=(1, 3, 8, 8))


def test_inconsistent_shape_names_node_op_and_both_shapes():
    x = mx.sym.var("x")
    w = mx.sym.var("w", shape=(5, 7))
    y = mx.sym.FullyConnected(x, weight=w, num_hidden=5, no_bias=True, name="fc1")
    with pytest.raises(mx.MXNetError) as err:
        y.infer_shape(x=(2, 3))
    msg = str(err.value)
    assert "fc1" in msg and "FullyConnected" in msg and "(5, 7)" in msg and "(5, 3)" in msg


PROFILE_MODES = r"""
import mxnet as mx
x = mx.sym.var('data')
for i in range(2):
    x = mx.sym.Activation(mx.sym.FullyConnected(x, num_hidden=8, name='fc%d' % i), act_type='relu', name='r%d' % i)
ex = x.simple_bind(mx.cpu(), data=(2, 8), grad_req='null')
ex.forward(); mx.nd.waitall()
mx.profiler.set_config(aggregate_stats=True, filename='/dev/null', profile_symbolic=MODE == 'symbolic',
                       profile_imperative=MODE == 'imperative', profile_api=False, profile_memory=False)
mx.profiler.set_state('run')
ex.forward(); mx.nd.waitall()
(mx.nd.ones((3,)) * 2).wait_to_read()
mx.profiler.set_state('stop')
print(mx.profiler.dumps())
"""


@pytest.mark.parametrize("mode", ["symbolic", "imperative"])
def test_graph_ops_are_profiled_under_the_symbolic_bit(run_python, mode):
    res = run_python("MODE = %r\n" % mode + PROFILE_MODES, MXNET_SUBGRAPH_BACKEND="NONE")  # unfused ops
    assert res.returncode == 0, res.stderr
    # A graph segment shows as the ops it holds; the imperative multiply as itself.
    segment = "[FullyConnected,Activation,FullyConnected,Activation]"
    if mode == "symbolic":
        assert segment in res.stdout and "_mul_scalar" not in res.stdout
    else:
        assert segment not in res.stdout and "_mul_scalar" in res.stdout
