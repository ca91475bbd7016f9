"""Inference keeps Convolution / Deconvolution / FullyConnected weights reordered into oneDNN's
format (a cached copy next to the plain data). Every way a user can change a weight between two
inference calls must reach the next call; reading the weight returns its plain values; training
after inference is unaffected; oneDNN's verbose log shows the reorder happening once, not per call."""
import os
import subprocess
import sys

import numpy as np
import pytest

import mxnet as mx
from mxnet import autograd, gluon
from test_op_nn_conv import conv_ref, deconv_ref, fc_ref

R = np.random.RandomState(7)


class Layer:
    """One op with a weight: its inputs, parameters and numpy reference."""

    def __init__(self, name, xshape, wshape, nout, fn, ref):
        self.name, self.xshape, self.wshape, self.nout, self.fn, self.ref = name, xshape, wshape, nout, fn, ref

    def x(self, n=None):
        shape = self.xshape if n is None else (n,) + self.xshape[1:]
        return R.randn(*shape).astype(np.float32)

    def w(self):
        return (R.randn(*self.wshape) * 0.3).astype(np.float32)

    def b(self):
        return R.randn(self.nout).astype(np.float32)

    def run(self, x, w, b):
        return self.fn(x, w, b)

    def want(self, x, w, b):
        return self.ref(x.astype(np.float64), w.astype(np.float64), b.astype(np.float64))


class ReluInputLayer(Layer):
    """A layer fed by a ReLU, as a classifier's dense layers are: about half its inputs are zero."""

    def x(self, n=None):
        return np.maximum(super().x(n), 0)


CONV = dict(kernel=(3, 3), pad=(1, 1), num_filter=32)
DECONV = dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), num_filter=8, no_bias=False)
LAYERS = [
    # batch 6 takes the blocked weight format (batches 1..2 read (H, K) in place)
    Layer("fc", (6, 40), (64, 40), 64, lambda x, w, b: mx.nd.FullyConnected(x, w, b, num_hidden=64),
          lambda x, w, b: fc_ref(x, w, b, num_hidden=64)),
    # one row with zeros: read through them, from the weight's cached transpose (fc_gemv.h);
    # 2048 x 1000 is large enough to split over threads
    ReluInputLayer("fc_sparse_input", (1, 2048), (1000, 2048), 1000,
                   lambda x, w, b: mx.nd.FullyConnected(x, w, b, num_hidden=1000),
                   lambda x, w, b: fc_ref(x, w, b, num_hidden=1000)),
    Layer("conv", (2, 16, 7, 7), (32, 16, 3, 3), 32, lambda x, w, b: mx.nd.Convolution(x, w, b, **CONV),
          lambda x, w, b: conv_ref(x, w, b, **CONV)),
    # 432 output pixels at batch 3: Winograd, whose transformed weights are the cached copy
    # (smaller batches run oneDNN's direct kernel on its own weight format)
    Layer("conv_winograd", (3, 16, 12, 12), (32, 16, 3, 3), 32, lambda x, w, b: mx.nd.Convolution(x, w, b, **CONV),
          lambda x, w, b: conv_ref(x, w, b, **CONV)),
    Layer("deconv", (2, 16, 5, 5), (16, 8, 3, 3), 8, lambda x, w, b: mx.nd.Deconvolution(x, w, b, **DECONV),
          lambda x, w, b: deconv_ref(x, w, b, **DECONV)),
]
IDS = [layer.name for layer in LAYERS]


def close(got, want):
    # float32 sums of many terms: the absolute error scales with the output's magnitude
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-4, atol=1e-4 * max(1.0, np.abs(want).max()))


@pytest.mark.parametrize("layer", LAYERS, ids=IDS)
def test_repeated_inference_matches_numpy_and_weight_reads_stay_plain(layer):
    x, w, b = layer.x(), layer.w(), layer.b()
    xn, wn, bn = mx.nd.array(x), mx.nd.array(w), mx.nd.array(b)
    outs = [layer.run(xn, wn, bn) for _ in range(3)]
    for y in outs:
        close(y, layer.want(x, w, b))
    np.testing.assert_array_equal(wn.asnumpy(), w)  # the weight itself stays plain
    np.testing.assert_array_equal(wn[1:2].asnumpy(), w[1:2])
    close(layer.run(xn, wn, bn), layer.want(x, w, b))  # reading it did not break the next call


def _set_all(wn, new, old):
    wn[:] = new


def _set_all_from_ndarray(wn, new, old):
    wn[:] = mx.nd.array(new)


def _set_one_row(wn, new, old):
    wn[1:2] = new[1:2]
    return np.concatenate([old[:1], new[1:2], old[2:]])


def _copyto(wn, new, old):
    mx.nd.array(new).copyto(wn)


def _op_with_out(wn, new, old):
    mx.nd.elemwise_add(mx.nd.array(new), mx.nd.zeros(new.shape), out=wn)


def _in_place_add(wn, new, old):
    wn += mx.nd.array(new - old)
    return old + (new - old)


def _optimizer_op(wn, new, old):
    mx.nd.sgd_update(wn, mx.nd.array(old - new), lr=1.0, out=wn)
    return old - (old - new)


def _sync_copy(wn, new, old):
    wn._sync_copyfrom(new)


CHANGES = [_set_all, _set_all_from_ndarray, _set_one_row, _copyto, _op_with_out, _in_place_add, _optimizer_op,
           _sync_copy]


@pytest.mark.parametrize("change", CHANGES, ids=[c.__name__.strip("_") for c in CHANGES])
@pytest.mark.parametrize("layer", LAYERS, ids=IDS)
@pytest.mark.parametrize("wait", [True, False], ids=["wait", "nowait"])
def test_every_weight_change_reaches_the_next_inference(layer, change, wait):
    x, old, b = layer.x(), layer.w(), layer.b()
    new = layer.w()
    xn, wn, bn = mx.nd.array(x), mx.nd.array(old), mx.nd.array(b)
    before = [layer.run(xn, wn, bn), layer.run(xn, wn, bn)]
    if wait:
        before[-1].wait_to_read()
    # without waiting, the inference, the change and the next inference are all queued at once
    expect = change(wn, new, old)
    expect = new if expect is None else expect
    after = [layer.run(xn, wn, bn), layer.run(xn, wn, bn)]
    for y in before:
        close(y, layer.want(x, old, b))
    for y in after:
        close(y, layer.want(x, expect, b))
    np.testing.assert_allclose(wn.asnumpy(), expect, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("layer", LAYERS, ids=IDS)
def test_changes_queued_between_many_inferences_each_reach_the_next_one(layer):
    x, b = layer.x(), layer.b()
    xn, bn = mx.nd.array(x), mx.nd.array(b)
    values = [layer.w() for _ in range(6)]
    wn = mx.nd.array(values[0])
    outs = []
    for i, v in enumerate(values):
        if i:
            wn[:] = mx.nd.array(v) if i % 2 else v
        outs.append([layer.run(xn, wn, bn) for _ in range(3)])
    for v, ys in zip(values, outs):
        for y in ys:
            close(y, layer.want(x, v, b))


@pytest.mark.parametrize("layer", LAYERS, ids=IDS)
def test_batch_sizes_that_pick_other_weight_formats_alternate_correctly(layer):
    w, b = layer.w(), layer.b()
    wn, bn = mx.nd.array(w), mx.nd.array(b)
    for n in (1, 64, 1, 2, 64, 1):
        x = layer.x(n)
        close(layer.run(mx.nd.array(x), wn, bn), layer.want(x, w, b))


@pytest.mark.parametrize("layer", LAYERS, ids=IDS)
def test_training_forward_and_gradient_after_inference(layer):
    x, w, b = layer.x(), layer.w(), layer.b()
    xn, wn, bn = mx.nd.array(x), mx.nd.array(w), mx.nd.array(b)
    close(layer.run(xn, wn, bn), layer.want(x, w, b))
    wn.attach_grad()
    with autograd.record():
        y = layer.run(xn, wn, bn)
    y.backward()
    close(y, layer.want(x, w, b))
    # d(sum y)/dw by central differences of the numpy reference along a random direction
    d = R.randn(*w.shape)
    eps = 1e-3
    num = (layer.want(x, w + eps * d, b).sum() - layer.want(x, w - eps * d, b).sum()) / (2 * eps)
    np.testing.assert_allclose((wn.grad.asnumpy() * d).sum(), num, rtol=1e-3, atol=1e-3)
    close(layer.run(xn, wn, bn), layer.want(x, w, b))  # and inference again


def test_sparse_input_fc_with_a_non_finite_weight_gives_numpys_nan_and_inf():
    x = np.maximum(R.randn(1, 64), 0).astype(np.float32)
    x[0, 3] = 0
    w = R.randn(16, 64).astype(np.float32)
    w[2, 3] = np.inf  # meets a zero input: 0 * inf is NaN, so that row's output is NaN
    w[5, int(np.argmax(x))] = -np.inf  # meets a positive input: that row's output is -inf
    xn, wn = mx.nd.array(x), mx.nd.array(w)
    with np.errstate(invalid="ignore"):
        want = x.astype(np.float64) @ w.astype(np.float64).T
    for _ in range(2):
        got = mx.nd.FullyConnected(xn, wn, no_bias=True, num_hidden=16).asnumpy()
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        np.testing.assert_array_equal(np.isinf(got), np.isinf(want))
        finite = np.isfinite(want)
        np.testing.assert_allclose(got[finite], want[finite], rtol=1e-4, atol=1e-4)
    wn[:] = np.where(np.isfinite(w), w, 1.0)  # finite again: the same answers as numpy
    got = mx.nd.FullyConnected(xn, wn, no_bias=True, num_hidden=16)
    close(got, x.astype(np.float64) @ wn.asnumpy().astype(np.float64).T)


def _blocks():
    return [
        ("dense", lambda: gluon.nn.Dense(24, in_units=30), (3, 30)),
        ("conv2d", lambda: gluon.nn.Conv2D(16, 3, padding=1, in_channels=8), (2, 8, 6, 6)),
        ("conv2d_transpose", lambda: gluon.nn.Conv2DTranspose(8, 3, strides=2, in_channels=16), (2, 16, 4, 4)),
    ]


def _block_ref(block, x):
    """The block's output from its current parameters, through numpy."""
    w = block.weight.data().asnumpy().astype(np.float64)
    b = block.bias.data().asnumpy().astype(np.float64)
    x = x.astype(np.float64)
    if isinstance(block, gluon.nn.Dense):
        return fc_ref(x, w, b)
    if isinstance(block, gluon.nn.Conv2DTranspose):
        return deconv_ref(x, w, b, kernel=(3, 3), stride=(2, 2), num_filter=w.shape[1], no_bias=False)
    return conv_ref(x, w, b, kernel=(3, 3), pad=(1, 1), num_filter=w.shape[0])


@pytest.mark.parametrize("name,make,xshape", _blocks(), ids=[b[0] for b in _blocks()])
def test_gluon_set_data_trainer_step_and_load_parameters_reach_inference(name, make, xshape, tmp_path):
    net = make()
    net.initialize(mx.init.Normal(0.5))
    x = R.randn(*xshape).astype(np.float32)
    xn = mx.nd.array(x)
    close(net(xn), _block_ref(net, x))
    close(net(xn), _block_ref(net, x))

    net.weight.set_data(mx.nd.array(R.randn(*net.weight.shape).astype(np.float32)))
    close(net(xn), _block_ref(net, x))

    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.05})
    for _ in range(2):
        with autograd.record():
            loss = (net(xn) ** 2).mean()
        loss.backward()
        trainer.step(1)
        close(net(xn), _block_ref(net, x))  # inference right after the update, nothing waited on

    other = make()
    other.initialize(mx.init.Normal(0.5))
    other(xn).wait_to_read()
    path = str(tmp_path / "p.params")
    other.save_parameters(path)
    want = other(xn).asnumpy()
    net.load_parameters(path)
    close(net(xn), want)


@pytest.mark.skipif(os.environ.get("MXNET_ONEDNN_ENABLED") == "0", reason="counts oneDNN reorders")
def test_onednn_reorders_each_weight_once_per_value(run_python):
    code = """
import numpy as np, mxnet as mx
x = mx.nd.array(np.random.rand(8, 512).astype('f'))
w = mx.nd.array(np.random.rand(256, 512).astype('f'))
for _ in range(4):
    mx.nd.FullyConnected(x, w, no_bias=True, num_hidden=256).wait_to_read()
print('MARK', flush=True)
w += 1
for _ in range(3):
    mx.nd.FullyConnected(x, w, no_bias=True, num_hidden=256).wait_to_read()
print('MARK', flush=True)
with mx.autograd.record():
    for _ in range(2):
        mx.nd.FullyConnected(x, w, no_bias=True, num_hidden=256).wait_to_read()
print('MARK', flush=True)
for _ in range(2):
    mx.nd.FullyConnected(x[:1], w, no_bias=True, num_hidden=256).wait_to_read()
"""
    res = run_python(code, ONEDNN_VERBOSE="1", MXNET_ONEDNN_ENABLED="1")
    assert res.returncode == 0, res.stderr
    phases = res.stdout.split("MARK")
    assert len(phases) == 4, res.stdout[-2000:]

    def weight_reorders(text):
        return [l for l in text.splitlines() if l.startswith("onednn_verbose,exec") and ",reorder," in l
                and "256x512" in l]

    def ips(text):
        return [l for l in text.splitlines() if l.startswith("onednn_verbose,exec") and ",inner_product," in l]

    assert len(ips(phases[0])) == 4 and len(ips(phases[1])) == 3, res.stdout[-2000:]
    if "wei_f32::blocked:ab:" in ips(phases[0])[0]:
        pytest.skip("oneDNN picked the plain weight format here: nothing to reorder")
    assert len(weight_reorders(phases[0])) == 1, phases[0]  # first inference only
    assert len(weight_reorders(phases[1])) == 1, phases[1]  # once after the weight changed
    # training reads the plain (H, K) weight, which changes every step: no reorder at all
    assert not weight_reorders(phases[2]), phases[2]
    assert all("wei_f32::blocked:ab:" in l for l in ips(phases[2])), phases[2]
    # a single row is a matrix-vector product on the weight in place (fc_gemv.h): no oneDNN
    # primitive, no reorder, no copy
    assert not ips(phases[3]) and not weight_reorders(phases[3]), phases[3]


ENGINES = [dict(MXNET_ENGINE_TYPE="NaiveEngine"),
           dict(MXNET_ENGINE_TYPE="ThreadedEnginePerDevice", MXNET_CPU_WORKER_NTHREADS="3"),
           dict(MXNET_ENGINE_TYPE="ThreadedEngine"), dict(MXNET_ONEDNN_ENABLED="0")]


@pytest.mark.skipif(os.environ.get("WEIGHT_CACHE_RERUN") == "1", reason="this process is a rerun")
@pytest.mark.parametrize("env", ENGINES, ids=["-".join(e.values()) for e in ENGINES])
def test_module_passes_under_other_engines_and_the_plain_path(env):
    here = os.path.dirname(os.path.abspath(__file__))
    pypath = [os.path.join(here, "..", "..", "python")] + [os.path.abspath(p) for p in
                                                           os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    full = dict(os.environ, WEIGHT_CACHE_RERUN="1", PYTHONPATH=os.pathsep.join(pypath), **env)
    res = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", __file__],
                         env=full, capture_output=True, text=True, timeout=600, cwd=here)
    assert res.returncode == 0, res.stdout[-6000:] + res.stderr[-2000:]
