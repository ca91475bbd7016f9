"""The CPU subgraph backend (MXNET_SUBGRAPH_BACKEND, on by default): inference executors
(grad_req 'null') on CPU run conv/BatchNorm/add/activation chains, FullyConnected + activation
and BatchNorm + relu as fused ops; results equal the unfused graph and a float64 NumPy
reference, parameter writes between forwards reach the folded weights, training executors and
NONE stay unfused, and the MXNet 1.9.1 model fixtures still give their stored outputs."""
import glob
import json
import os

import numpy as np
import pytest

import mxnet as mx
from mxnet.test_utils import environment
from conftest import REPO
from op_testing import plain_path_rerun

FIXTURES = os.path.abspath(os.path.join(REPO, "..", "shared", "fixtures", "mxnet", "models"))
TOL = 1e-4
EPS = 1e-5
RS = np.random.RandomState(7)


# ---- float64 reference ----------------------------------------------------------------------
def np_conv(x, w, b, pad=1):
    n, c, h, wd = x.shape
    f, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = h + 2 * pad - kh + 1, wd + 2 * pad - kw + 1
    out = np.zeros((n, f, oh, ow))
    for i in range(kh):
        for j in range(kw):
            out += np.einsum("nchw,fc->nfhw", xp[:, :, i:i + oh, j:j + ow], w[:, :, i, j])
    return out + (0 if b is None else b.reshape(1, -1, 1, 1))


def np_bn(x, gamma, beta, mean, var, fix_gamma=False):
    g = np.ones_like(gamma) if fix_gamma else gamma
    shape = (1, -1) + (1,) * (x.ndim - 2)
    return (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + EPS) * g.reshape(shape) + beta.reshape(shape)


ACTS = {"relu": lambda y: np.maximum(y, 0), "sigmoid": lambda y: 1 / (1 + np.exp(-y)), "tanh": np.tanh,
        "softrelu": lambda y: np.log1p(np.exp(y)), "softsign": lambda y: y / (1 + np.abs(y))}


# ---- helpers ----------------------------------------------------------------------------------
def conv(x, name, filters=8):
    return mx.sym.Convolution(x, kernel=(3, 3), pad=(1, 1), num_filter=filters, name=name)


def bn(x, name):
    return mx.sym.BatchNorm(x, eps=EPS, fix_gamma=False, name=name)


def bind(sym, backend=None, **shapes):
    """An inference executor with seeded parameters; backend None keeps the default."""
    env = {} if backend is None else {"MXNET_SUBGRAPH_BACKEND": backend}
    with environment(env):
        exe = sym.simple_bind(mx.cpu(), grad_req="null", **shapes)
    rng = np.random.RandomState(0)
    for name, arr in sorted(exe.arg_dict.items()):
        arr[:] = rng.uniform(-1, 1, arr.shape) * (0.3 if name.endswith("weight") else 1)
    for name, arr in sorted(exe.aux_dict.items()):
        arr[:] = rng.uniform(0.5, 1.5, arr.shape) if name.endswith("var") else rng.uniform(-0.5, 0.5, arr.shape)
    return exe


def params(exe):
    return {k: v.asnumpy().astype(np.float64) for k, v in list(exe.arg_dict.items()) + list(exe.aux_dict.items())}


def run(exe):
    exe.forward(is_train=False)
    return [o.asnumpy() for o in exe.outputs]


def fused_ops(exe):
    nodes = json.loads(exe.get_optimized_symbol().tojson())["nodes"]
    return sorted(n["op"] for n in nodes if n["op"] != "null")


def close(got, expected):
    np.testing.assert_allclose(got, expected, rtol=TOL, atol=TOL)


def check_fused_equals_unfused(sym, expected_ops, reference=None, **shapes):
    fused = bind(sym, **shapes)
    plain = bind(sym, backend="NONE", **shapes)
    assert fused_ops(fused) == sorted(expected_ops), fused_ops(fused)
    assert not any(op.startswith("_sg_") or op == "_contrib_BatchNormWithReLU" for op in fused_ops(plain))
    assert fused.get_optimized_symbol().list_arguments() == sym.list_arguments()
    assert fused.get_optimized_symbol().list_auxiliary_states() == sym.list_auxiliary_states()
    got, want = run(fused), run(plain)
    for g, w in zip(got, want):
        close(g, w)
    if reference is not None:
        close(got[0], reference(params(fused)))
    return fused


# ---- the patterns -----------------------------------------------------------------------------
@pytest.mark.parametrize("act", sorted(ACTS))
def test_conv_bn_act(act):
    sym = mx.sym.Activation(bn(conv(mx.sym.var("data"), "conv0"), "bn0"), act_type=act, name="act0")

    def ref(p):
        y = np_conv(p["data"], p["conv0_weight"], p["conv0_bias"])
        return ACTS[act](np_bn(y, p["bn0_gamma"], p["bn0_beta"], p["bn0_moving_mean"], p["bn0_moving_var"]))
    exe = check_fused_equals_unfused(sym, ["_sg_onednn_conv"], ref, data=(2, 3, 9, 9))
    assert "with_bn" in exe.debug_str() or "_sg_onednn_conv" in exe.debug_str()


@pytest.mark.parametrize("chain_first", [True, False])
def test_conv_bn_add_relu_residual(chain_first):
    x = mx.sym.var("data")
    stem = mx.sym.Activation(conv(x, "stem"), act_type="relu", name="stem_relu")
    body = bn(conv(stem, "conv0"), "bn0")
    s = body + stem if chain_first else stem + body
    sym = mx.sym.Activation(s, act_type="relu", name="out")

    def ref(p):
        h = np.maximum(np_conv(p["data"], p["stem_weight"], p["stem_bias"]), 0)
        y = np_bn(np_conv(h, p["conv0_weight"], p["conv0_bias"]), p["bn0_gamma"], p["bn0_beta"],
                  p["bn0_moving_mean"], p["bn0_moving_var"])
        return np.maximum(y + h, 0)
    exe = check_fused_equals_unfused(sym, ["_sg_onednn_conv", "_sg_onednn_conv"], ref, data=(2, 8, 7, 7))
    assert "with_sum" in exe.get_optimized_symbol().tojson()


def test_downsample_residual_keeps_argument_order():
    # ResNet v1's downsample block: both operands of the add are convolution chains.
    x = mx.sym.var("data")
    body = bn(conv(mx.sym.Activation(bn(conv(x, "c1"), "b1"), act_type="relu"), "c2"), "b2")
    down = bn(mx.sym.Convolution(x, kernel=(1, 1), num_filter=8, name="ds"), "dsbn")
    sym = mx.sym.Activation(down + body, act_type="relu", name="out")
    check_fused_equals_unfused(sym, ["_sg_onednn_conv"] * 3, data=(1, 4, 6, 6))


@pytest.mark.parametrize("offset", [(1, 8, 1, 1), (3, 8, 5, 5)], ids=["smaller", "larger"])
def test_conv_relu_without_bn_and_broadcast_add(offset):
    x = mx.sym.var("data")
    y = mx.sym.Activation(conv(x, "conv0"), act_type="relu", name="r0")
    z = mx.sym.broadcast_add(conv(y, "conv1"), mx.sym.var("offset"))

    def ref(p):
        h = np.maximum(np_conv(p["data"], p["conv0_weight"], p["conv0_bias"]), 0)
        return np_conv(h, p["conv1_weight"], p["conv1_bias"]) + p["offset"]
    exe = check_fused_equals_unfused(z, ["_sg_onednn_conv", "_sg_onednn_conv"], ref, data=(1, 3, 5, 5),
                                     offset=offset)
    assert exe.outputs[0].shape == (offset[0], 8, 5, 5)


@pytest.mark.parametrize("act", ["relu", "sigmoid", "tanh", "softrelu"])
@pytest.mark.parametrize("batch", [1, 6])
def test_fc_act(act, batch):
    fc = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=7, name="fc")
    sym = mx.sym.Activation(fc, act_type=act, name="act")

    def ref(p):
        return ACTS[act](p["data"].reshape(batch, -1).dot(p["fc_weight"].T) + p["fc_bias"])
    check_fused_equals_unfused(sym, ["_sg_onednn_fully_connected"], ref, data=(batch, 3, 4))


def test_bn_relu():
    sym = mx.sym.relu(bn(mx.sym.var("data"), "bn0"), name="r")

    def ref(p):
        return np.maximum(np_bn(p["data"], p["bn0_gamma"], p["bn0_beta"], p["bn0_moving_mean"],
                                p["bn0_moving_var"]), 0)
    check_fused_equals_unfused(sym, ["_contrib_BatchNormWithReLU"], ref, data=(2, 5, 3, 3))


def test_a_branch_cuts_the_chain():
    x = mx.sym.var("data")
    b = bn(conv(x, "conv0"), "bn0")
    sym = mx.sym.Group([mx.sym.Activation(b, act_type="tanh", name="act"), b * 2])
    exe = check_fused_equals_unfused(sym, ["Activation", "_mul_scalar", "_sg_onednn_conv"], data=(1, 3, 5, 5))
    assert len(exe.outputs) == 2


def test_identities_and_inference_dropout_are_dropped():
    x = mx.sym.var("data")
    y = mx.sym.Dropout(mx.sym.identity(mx.sym.FullyConnected(x, num_hidden=4, name="fc")), p=0.5)
    sym = mx.sym.Activation(y, act_type="relu", name="act")
    check_fused_equals_unfused(sym, ["_sg_onednn_fully_connected"], data=(3, 5))


# ---- the folded parameters follow writes --------------------------------------------------------
def test_parameter_writes_between_forwards_reach_the_fused_op():
    sym = mx.sym.Activation(bn(conv(mx.sym.var("data"), "conv0"), "bn0"), act_type="relu", name="act0")
    exe = bind(sym, data=(2, 3, 6, 6))
    assert fused_ops(exe) == ["_sg_onednn_conv"]

    def ref():
        p = params(exe)
        y = np_conv(p["data"], p["conv0_weight"], p["conv0_bias"])
        return np.maximum(np_bn(y, p["bn0_gamma"], p["bn0_beta"], p["bn0_moving_mean"], p["bn0_moving_var"]), 0)
    first = run(exe)[0]
    close(first, ref())
    close(run(exe)[0], first)
    exe.aux_dict["bn0_moving_var"][:] = exe.aux_dict["bn0_moving_var"] * 2
    close(run(exe)[0], ref())
    exe.aux_dict["bn0_moving_mean"][:] += 0.25
    close(run(exe)[0], ref())
    exe.arg_dict["conv0_weight"][:] = RS.uniform(-0.3, 0.3, exe.arg_dict["conv0_weight"].shape)
    close(run(exe)[0], ref())
    exe.arg_dict["bn0_gamma"][:] = RS.uniform(-1, 1, exe.arg_dict["bn0_gamma"].shape)
    exe.arg_dict["conv0_bias"][:] = RS.uniform(-1, 1, exe.arg_dict["conv0_bias"].shape)
    close(run(exe)[0], ref())
    # copy_params_from writes into the bound arrays; beta alone changes
    new_beta = RS.uniform(-1, 1, exe.arg_dict["bn0_beta"].shape)
    exe.copy_params_from({"bn0_beta": mx.nd.array(new_beta)}, allow_extra_params=True)
    close(run(exe)[0], ref())
    assert np.abs(run(exe)[0] - first).max() > 1e-2


def test_forward_with_new_data_and_params_in_one_call():
    sym = mx.sym.Activation(bn(conv(mx.sym.var("data"), "conv0"), "bn0"), act_type="relu", name="act0")
    exe = bind(sym, data=(1, 3, 4, 4))
    run(exe)
    x = RS.uniform(-1, 1, (1, 3, 4, 4))
    exe.forward(is_train=False, data=mx.nd.array(x))
    p = params(exe)
    want = np.maximum(np_bn(np_conv(x, p["conv0_weight"], p["conv0_bias"]), p["bn0_gamma"], p["bn0_beta"],
                            p["bn0_moving_mean"], p["bn0_moving_var"]), 0)
    close(exe.outputs[0].asnumpy(), want)


def test_the_fused_graph_saves_loads_and_binds_again():
    x = mx.sym.var("data")
    stem = mx.sym.Activation(conv(x, "stem"), act_type="relu", name="stem_relu")
    sym = mx.sym.Activation(stem + bn(conv(stem, "conv0"), "bn0"), act_type="relu", name="out")
    exe = bind(sym, data=(1, 8, 5, 5))
    want = run(exe)[0]
    loaded = mx.sym.load_json(exe.get_optimized_symbol().tojson())
    assert loaded.list_arguments() == sym.list_arguments()
    assert loaded.list_auxiliary_states() == sym.list_auxiliary_states()
    again = loaded.simple_bind(mx.cpu(), grad_req="null", data=(1, 8, 5, 5))
    again.copy_params_from(exe.arg_dict, exe.aux_dict)
    close(run(again)[0], want)


# ---- where the backend applies ------------------------------------------------------------------
def test_training_executors_and_none_stay_unfused():
    sym = mx.sym.Activation(bn(conv(mx.sym.var("data"), "conv0"), "bn0"), act_type="relu", name="act0")
    train = sym.simple_bind(mx.cpu(), grad_req="write", data=(1, 3, 4, 4))
    assert fused_ops(train) == ["Activation", "BatchNorm", "Convolution"]
    for off in ("NONE", "", "none"):
        assert fused_ops(bind(sym, backend=off, data=(1, 3, 4, 4))) == ["Activation", "BatchNorm", "Convolution"]
    assert fused_ops(bind(sym, backend="MKLDNN", data=(1, 3, 4, 4))) == ["_sg_onednn_conv"]


def test_an_unknown_backend_is_a_clear_error():
    sym = mx.sym.Activation(mx.sym.var("data"), act_type="relu")
    with pytest.raises(RuntimeError, match="subgraph backend .BOGUS. is not available"):
        bind(sym, backend="BOGUS", data=(1, 2))


@pytest.mark.parametrize("var,expected", [
    ("MXNET_DISABLE_ONEDNN_FUSE_CONV_BN", ["Convolution", "_contrib_BatchNormWithReLU"]),
    ("MXNET_DISABLE_MKLDNN_FUSE_CONV_BN", ["Convolution", "_contrib_BatchNormWithReLU"]),
    ("MXNET_DISABLE_ONEDNN_FUSE_CONV_RELU", ["Activation", "_sg_onednn_conv"]),
    ("MXNET_DISABLE_MKLDNN_CONV_OPT", ["Convolution", "_contrib_BatchNormWithReLU"]),
])
def test_switches(var, expected):
    sym = mx.sym.Activation(bn(conv(mx.sym.var("data"), "conv0"), "bn0"), act_type="relu", name="act0")
    with environment(var, "1"):
        exe = bind(sym, data=(1, 3, 4, 4))
    assert fused_ops(exe) == expected
    close(run(exe)[0], run(bind(sym, backend="NONE", data=(1, 3, 4, 4)))[0])


def test_sum_and_fc_switches():
    x = mx.sym.var("data")
    res = mx.sym.Activation(bn(conv(x, "conv0", 3), "bn0") + x, act_type="relu", name="out")
    with environment("MXNET_DISABLE_ONEDNN_FUSE_CONV_SUM", "1"):
        assert fused_ops(bind(res, data=(1, 3, 4, 4))) == ["Activation", "_sg_onednn_conv", "elemwise_add"]
    fc = mx.sym.Activation(mx.sym.FullyConnected(x, num_hidden=3), act_type="relu")
    for var in ("MXNET_DISABLE_ONEDNN_FC_OPT", "MXNET_DISABLE_MKLDNN_FUSE_FC_ELTWISE"):
        with environment(var, "1"):
            assert fused_ops(bind(fc, data=(2, 4))) == ["Activation", "FullyConnected"]


# ---- MXNet 1.9.1's models -------------------------------------------------------------------------
def _models():
    out = []
    for sym_file in sorted(glob.glob(os.path.join(FIXTURES, "*-symbol.json"))):
        prefix = sym_file[:-len("-symbol.json")]
        params_files = sorted(glob.glob(prefix + "-[0-9][0-9][0-9][0-9].params"))
        if params_files and os.path.isfile(prefix + "-input.npy"):
            out.append((prefix, int(params_files[-1][-11:-7])))
    return out


MODELS = _models()


@pytest.mark.skipif(not MODELS, reason="no MXNet model fixtures")
@pytest.mark.parametrize("prefix,epoch", MODELS, ids=[os.path.basename(p) for p, _ in MODELS])
def test_fixture_models_fused(prefix, epoch):
    x = np.load(prefix + "-input.npy")
    expected = np.load(prefix + "-output.npy")
    sym, arg, aux = mx.model.load_checkpoint(prefix, epoch)
    labels = tuple(n for n in sym.list_arguments() if n.endswith("_label"))
    mod = mx.mod.Module(sym, data_names=("data",), label_names=labels)
    mod.bind(data_shapes=[("data", x.shape)], for_training=False)
    mod.set_params(arg, aux)
    close(mod.predict(mx.io.NDArrayIter(x, batch_size=x.shape[0])).asnumpy(), expected)

    exe = sym.simple_bind(mx.cpu(), grad_req="null", data=x.shape)
    exe.copy_params_from(arg, aux, allow_extra_params=True)
    exe.forward(is_train=False, data=mx.nd.array(x))
    close(exe.outputs[0].asnumpy(), expected)
    ops = fused_ops(exe)
    original = [n["op"] for n in json.loads(sym.tojson())["nodes"]]
    if "Convolution" in original and "BatchNorm" in original:
        assert "_sg_onednn_conv" in ops, ops


# The same tests on the plain kernels (MXNET_ONEDNN_ENABLED=0): the fused ops' fallbacks.
test_plain_path = plain_path_rerun(__file__)
