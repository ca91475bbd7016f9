"""Checkpoints written by the real MXNet 1.9.1 load and predict the same here, and ours load
there.

<checkout>/../shared/fixtures/mxnet/models holds, per model, prefix-symbol.json, prefix-NNNN.params,
prefix-input.npy and prefix-output.npy (the output MXNet 1.9.1 computed for that input in
inference mode). The peer tests run MXNet 1.9.1 itself when benchmark/python/setup_peers.sh
has installed it (benchmark/.peers/mxnet191); they skip otherwise.
"""
import glob
import os
import subprocess
import textwrap

import numpy as np
import pytest

import mxnet as mx
from conftest import REPO
from peer_oracle import PEER_PYTHON, needs_peer, peer_env

# The shared fixtures live beside the checkout (<checkout>/../shared).
FIXTURES = os.path.abspath(os.path.join(REPO, "..", "shared", "fixtures", "mxnet", "models"))
TOL = 1e-4


def _models():
    if not os.path.isdir(FIXTURES):
        return []
    out = []
    for sym_file in sorted(glob.glob(os.path.join(FIXTURES, "*-symbol.json"))):
        prefix = sym_file[:-len("-symbol.json")]
        params = sorted(glob.glob(prefix + "-[0-9][0-9][0-9][0-9].params"))
        if params and os.path.isfile(prefix + "-input.npy"):
            out.append((prefix, int(params[-1][-11:-7])))
    return out


MODELS = _models()
IDS = [os.path.basename(p) for p, _ in MODELS]


def _label_names(sym):
    return tuple(n for n in sym.list_arguments() if n.endswith("_label"))


def _close(got, expected):
    np.testing.assert_allclose(got, expected, rtol=TOL, atol=TOL)


@pytest.mark.skipif(not MODELS, reason="no MXNet model fixtures")
@pytest.mark.parametrize("prefix,epoch", MODELS, ids=IDS)
def test_fixture_through_load_checkpoint_and_module(prefix, epoch):
    x = np.load(prefix + "-input.npy")
    expected = np.load(prefix + "-output.npy")
    sym, arg, aux = mx.model.load_checkpoint(prefix, epoch)
    mod = mx.mod.Module(sym, data_names=("data",), label_names=_label_names(sym))
    mod.bind(data_shapes=[("data", x.shape)], for_training=False)
    mod.set_params(arg, aux)
    out = mod.predict(mx.io.NDArrayIter(x, batch_size=x.shape[0]))
    _close(out.asnumpy(), expected)
    # Module.load gives the same
    mod2 = mx.mod.Module.load(prefix, epoch, data_names=("data",),
                              label_names=_label_names(sym))
    mod2.bind(data_shapes=[("data", x.shape)], for_training=False)
    _close(mod2.predict(mx.nd.array(x)).asnumpy(), expected)


@pytest.mark.skipif(not MODELS, reason="no MXNet model fixtures")
@pytest.mark.parametrize("prefix,epoch", MODELS, ids=IDS)
def test_fixture_through_simple_bind(prefix, epoch):
    x = np.load(prefix + "-input.npy")
    expected = np.load(prefix + "-output.npy")
    sym = mx.sym.load(prefix + "-symbol.json")
    arg, aux = mx.model.load_params(prefix, epoch)
    exe = sym.simple_bind(mx.cpu(), grad_req="null", data=x.shape)
    exe.copy_params_from(arg, aux, allow_extra_params=True)
    exe.forward(is_train=False, data=mx.nd.array(x))
    _close(exe.outputs[0].asnumpy(), expected)


# ---- the real MXNet 1.9.1 (needs_peer, peer_env: peer_oracle) -----------------------------------
def _run_peer(code, cwd):
    proc = subprocess.run([PEER_PYTHON, "-c", textwrap.dedent(code)], cwd=cwd, env=peer_env(),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def _small_net():
    data = mx.sym.var("data")
    net = mx.sym.Convolution(data, kernel=(3, 3), num_filter=4, pad=(1, 1), name="conv")
    net = mx.sym.BatchNorm(net, fix_gamma=False, name="bn")
    net = mx.sym.Activation(net, act_type="relu", name="relu")
    net = mx.sym.Pooling(net, kernel=(2, 2), stride=(2, 2), pool_type="max", name="pool")
    net = mx.sym.FullyConnected(net, num_hidden=5, name="fc")
    return mx.sym.SoftmaxOutput(net, name="softmax")


@needs_peer
def test_our_checkpoint_loads_in_mxnet191(tmp_path):
    rng = np.random.RandomState(0)
    x = rng.rand(6, 2, 8, 8).astype(np.float32)
    y = rng.randint(0, 5, size=6).astype(np.float32)
    mod = mx.mod.Module(_small_net())
    it = mx.io.NDArrayIter(x, y, batch_size=3)
    mod.fit(it, num_epoch=2, initializer=mx.init.Xavier(),
            optimizer_params={"learning_rate": 0.1})
    prefix = str(tmp_path / "ours")
    mod.save_checkpoint(prefix, 2)
    ours = mod.predict(mx.io.NDArrayIter(x, batch_size=6)).asnumpy()
    np.save(str(tmp_path / "x.npy"), x)
    _run_peer("""
        import numpy as np, mxnet as mx
        x = np.load("x.npy")
        mod = mx.mod.Module.load("ours", 2)
        mod.bind(data_shapes=[("data", x.shape)], for_training=False)
        np.save("peer_out.npy", mod.predict(mx.io.NDArrayIter(x, batch_size=6)).asnumpy())
    """, str(tmp_path))
    _close(ours, np.load(str(tmp_path / "peer_out.npy")))


@needs_peer
def test_mxnet191_checkpoint_loads_here(tmp_path):
    _run_peer("""
        import numpy as np, mxnet as mx
        mx.random.seed(3); np.random.seed(3)
        data = mx.sym.var("data")
        net = mx.sym.FullyConnected(data, num_hidden=8, name="fc1")
        net = mx.sym.BatchNorm(net, fix_gamma=False, name="bn1")
        net = mx.sym.Activation(net, act_type="tanh", name="act")
        net = mx.sym.FullyConnected(net, num_hidden=3, name="fc2")
        net = mx.sym.SoftmaxOutput(net, name="softmax")
        x = np.random.rand(10, 6).astype(np.float32)
        y = np.random.randint(0, 3, size=10).astype(np.float32)
        mod = mx.mod.Module(net)
        mod.fit(mx.io.NDArrayIter(x, y, batch_size=5), num_epoch=2,
                initializer=mx.init.Xavier(), optimizer_params={"learning_rate": 0.1})
        mod.save_checkpoint("peer", 2, save_optimizer_states=True)
        np.save("x.npy", x)
        # same batch size as training: 1.9.1 cannot reshape the label it was bound with
        np.save("peer_out.npy", mod.predict(mx.io.NDArrayIter(x, batch_size=5)).asnumpy())
    """, str(tmp_path))
    x = np.load(str(tmp_path / "x.npy"))
    expected = np.load(str(tmp_path / "peer_out.npy"))
    prefix = str(tmp_path / "peer")
    sym, arg, aux = mx.model.load_checkpoint(prefix, 2)
    assert sorted(aux) == ["bn1_moving_mean", "bn1_moving_var"]
    mod = mx.mod.Module.load(prefix, 2)
    mod.bind(data_shapes=[("data", x.shape)], for_training=False)
    _close(mod.predict(mx.nd.array(x)).asnumpy(), expected)
