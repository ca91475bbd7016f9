"""A hybridized block replays the recorded operator calls of an earlier call with the same input
signature (gluon/trace.py): results against NumPy with fresh input values on every call, and
re-recording after every change the record depends on."""
import numpy as np
import pytest

import mxnet as mx
from mxnet import autograd, gluon, nd
from mxnet.gluon import nn, trace

RS = np.random.RandomState(5)
CALLS = 4  # the first runs, the second records, the rest replay


def _states(block):
    return sorted(trace.describe(block).values())


class _Head(gluon.HybridBlock):
    """Dense -> relu, a reshape view, a multi-output split and a tuple result."""

    def __init__(self, **kwargs):
        super(_Head, self).__init__(**kwargs)
        with self.name_scope():
            self.dense = nn.Dense(6, in_units=4)

    def hybrid_forward(self, F, x):
        h = F.relu(self.dense(x))
        folded = h.reshape((0, 2, 3))
        left, right = F.split(folded, num_outputs=2, axis=1)
        return left.sum(axis=(1, 2)) * 2 + right.sum(axis=(1, 2)), (h, None)


def _head_numpy(block, x):
    w, b = block.dense.weight.data().asnumpy(), block.dense.bias.data().asnumpy()
    h = np.maximum(x @ w.T + b, 0)
    return h[:, :3].sum(1) * 2 + h[:, 3:].sum(1), h


def test_replayed_calls_compute_with_each_calls_inputs():
    block = _Head()
    block.initialize(mx.init.Uniform(1.0))
    block.hybridize()
    for i in range(CALLS):
        x = RS.uniform(-1, 1, (3, 4)).astype(np.float32)
        out, (h, none) = block(nd.array(x))
        want_out, want_h = _head_numpy(block, x)
        np.testing.assert_allclose(out.asnumpy(), want_out, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(h.asnumpy(), want_h, rtol=1e-5, atol=1e-5)
        assert none is None
        assert _states(block) == ["recorded" if i >= 1 else "seen once"]


def test_a_new_input_shape_gets_its_own_record():
    block = _Head()
    block.initialize(mx.init.Uniform(1.0))
    block.hybridize()
    for i in range(CALLS):
        for batch in (2, 5):
            x = RS.uniform(-1, 1, (batch, 4)).astype(np.float32)
            np.testing.assert_allclose(block(nd.array(x))[0].asnumpy(), _head_numpy(block, x)[0],
                                       rtol=1e-5, atol=1e-5)
    assert _states(block) == ["recorded", "recorded"]


def test_more_signatures_than_kept_still_compute():
    block = _Head()
    block.initialize(mx.init.Uniform(1.0))
    block.hybridize()
    for _ in range(3):
        for batch in range(1, trace.MAX_SIGNATURES + 4):
            x = RS.uniform(-1, 1, (batch, 4)).astype(np.float32)
            np.testing.assert_allclose(block(nd.array(x))[0].asnumpy(), _head_numpy(block, x)[0],
                                       rtol=1e-5, atol=1e-5)
    assert len(trace.describe(block)) == trace.MAX_SIGNATURES


def test_parameter_writes_and_replacements_reach_replayed_calls():
    block = _Head()
    block.initialize(mx.init.Uniform(1.0))
    block.hybridize()
    x = RS.uniform(-1, 1, (3, 4)).astype(np.float32)
    for _ in range(CALLS):
        block(nd.array(x))
    # In place: the record reads the same array.
    block.dense.weight.data()[:] = nd.array(RS.uniform(-1, 1, (6, 4)))
    np.testing.assert_allclose(block(nd.array(x))[0].asnumpy(), _head_numpy(block, x)[0],
                               rtol=1e-5, atol=1e-5)
    # A new array list (re-initialisation): the record is dropped and made again.
    block.initialize(mx.init.Uniform(2.0), force_reinit=True)
    for _ in range(CALLS):
        np.testing.assert_allclose(block(nd.array(x))[0].asnumpy(), _head_numpy(block, x)[0],
                                   rtol=1e-5, atol=1e-5)
    block.cast("float64")
    out = block(nd.array(x, dtype="float64"))[0]
    assert out.dtype == np.float64
    np.testing.assert_allclose(out.asnumpy(), _head_numpy(block, x)[0], rtol=1e-10)


def _conv_bn_net():
    net = nn.HybridSequential()
    net.add(nn.Conv2D(5, 1, in_channels=3), nn.BatchNorm(in_channels=5), nn.Activation("relu"))
    net.initialize(mx.init.Uniform(1.0))
    return net


def _conv_bn_numpy(net, x):
    conv, bn = net[0], net[1]
    w = conv.weight.data().asnumpy()[:, :, 0, 0]
    y = np.einsum("nchw,fc->nfhw", x, w) + conv.bias.data().asnumpy()[None, :, None, None]
    g, b, m, v = [p.data().asnumpy()[None, :, None, None]
                  for p in (bn.gamma, bn.beta, bn.running_mean, bn.running_var)]
    return np.maximum((y - m) / np.sqrt(v + 1e-5) * g + b, 0)


def _replaying_conv_bn_net():
    """A hybridized conv + BatchNorm + relu net past its recorded call, and its input."""
    net = _conv_bn_net()
    net.hybridize()
    x = RS.uniform(-1, 1, (2, 3, 4, 4)).astype(np.float32)
    for _ in range(CALLS):
        net(nd.array(x))
    return net, x


def test_folded_weights_follow_their_sources_in_replayed_calls():
    net, x = _replaying_conv_bn_net()
    assert _states(net) == ["recorded"]
    net[1].running_var.data()[:] = nd.array(RS.uniform(0.2, 3.0, (5,)))
    net[1].gamma.set_data(nd.array(RS.uniform(-2, 2, (5,))))
    for _ in range(CALLS):
        np.testing.assert_allclose(net(nd.array(x)).asnumpy(), _conv_bn_numpy(net, x),
                                   rtol=1e-4, atol=1e-5)
    assert _states(net) == ["recorded"]


def test_training_replays_update_weights_and_statistics_like_numpy():
    net = _conv_bn_net()
    net.hybridize()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    conv, bn = net[0], net[1]
    for _ in range(CALLS + 1):
        x = RS.uniform(-1, 1, (2, 3, 4, 4)).astype(np.float32)
        w = conv.weight.data().asnumpy()[:, :, 0, 0]
        bias = conv.bias.data().asnumpy()
        gamma, beta = bn.gamma.data().asnumpy(), bn.beta.data().asnumpy()
        mean_run = bn.running_mean.data().asnumpy()
        # NumPy: conv, batch statistics, BatchNorm, relu, loss = sum(out); SGD on the conv weight.
        y = np.einsum("nchw,fc->nfhw", x, w) + bias[None, :, None, None]
        mu, var = y.mean(axis=(0, 2, 3)), y.var(axis=(0, 2, 3))
        yhat = (y - mu[None, :, None, None]) / np.sqrt(var[None, :, None, None] + 1e-5)
        pre = yhat * gamma[None, :, None, None] + beta[None, :, None, None]
        dpre = (pre > 0).astype(np.float64)
        dyhat = dpre * gamma[None, :, None, None]
        m = y.shape[0] * y.shape[2] * y.shape[3]
        dy = (dyhat - dyhat.mean(axis=(0, 2, 3))[None, :, None, None] -
              yhat * (dyhat * yhat).mean(axis=(0, 2, 3))[None, :, None, None]) / \
            np.sqrt(var[None, :, None, None] + 1e-5)
        dw = np.einsum("nfhw,nchw->fc", dy, x)
        assert m > 1
        with autograd.record():
            loss = net(nd.array(x)).sum()
        loss.backward()
        trainer.step(1)
        np.testing.assert_allclose(conv.weight.data().asnumpy()[:, :, 0, 0], w - 0.1 * dw,
                                   rtol=1e-3, atol=1e-4)
        np.testing.assert_allclose(bn.running_mean.data().asnumpy(), 0.9 * mean_run + 0.1 * mu,
                                   rtol=1e-4, atol=1e-5)
    assert "recorded" in _states(net)


def test_dropout_draws_a_new_mask_in_every_replayed_training_call():
    net = nn.HybridSequential()
    net.add(nn.Dropout(0.5))
    net.hybridize()
    x = nd.ones((64, 64))
    masks = []
    for _ in range(CALLS):
        with autograd.train_mode():
            masks.append(net(x).asnumpy() != 0)
    assert _states(net) == ["recorded"]
    assert not np.array_equal(masks[-1], masks[-2])
    assert 0.4 < masks[-1].mean() < 0.6


class _ValueDependent(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        return x * 2 if x.sum().asscalar() > 0 else x - 1


def test_a_block_reading_values_runs_its_python_every_call():
    block = _ValueDependent()
    block.hybridize()
    for i in range(CALLS):
        x = np.full((3,), 1.0 if i % 2 else -1.0, dtype=np.float32)
        want = x * 2 if x.sum() > 0 else x - 1
        np.testing.assert_allclose(block(nd.array(x)).asnumpy(), want)
    assert _states(block) == ["the block reads array values (asnumpy)"]


class _Outside(gluon.HybridBlock):
    """Reads an array that is neither an input, a parameter nor made by an operator call."""

    def __init__(self, **kwargs):
        super(_Outside, self).__init__(**kwargs)
        self.offset = nd.ones((3,))

    def hybrid_forward(self, F, x):
        return x + self.offset


def test_an_array_from_outside_the_block_is_not_frozen_into_a_record():
    block = _Outside()
    block.hybridize()
    for i in range(CALLS):
        block.offset[:] = i
        np.testing.assert_allclose(block(nd.zeros((3,))).asnumpy(), np.full((3,), i))
    assert _states(block) == ["an operator reads an array made outside the recorded calls"]


class _Difference(gluon.HybridBlock):
    def hybrid_forward(self, F, a, b, scale):
        return (a - b) * scale


def test_aliased_and_non_array_arguments_are_part_of_the_signature():
    block = _Difference()
    block.hybridize()
    a, b = nd.array([3.0, 4.0]), nd.array([1.0, 1.0])
    for _ in range(CALLS):
        np.testing.assert_allclose(block(a, a, 2.0).asnumpy(), [0.0, 0.0])
    np.testing.assert_allclose(block(a, b, 2.0).asnumpy(), [4.0, 6.0])
    for _ in range(CALLS):
        np.testing.assert_allclose(block(a, b, 3.0).asnumpy(), [6.0, 9.0])
    np.testing.assert_allclose(block(a, b, 2.0).asnumpy(), [4.0, 6.0])


def test_hooks_added_after_recording_run_on_every_call():
    net = _conv_bn_net()
    net.hybridize()
    x = nd.array(RS.uniform(-1, 1, (1, 3, 2, 2)))
    for _ in range(CALLS):
        net(x)
    seen = []
    handle = net[2].register_forward_hook(lambda block, inputs, out: seen.append(out.shape))
    for _ in range(CALLS):
        net(x)
    assert len(seen) == CALLS
    handle.detach()
    for _ in range(CALLS):
        net(x)
    assert len(seen) == CALLS


def test_adding_a_child_after_recording_changes_the_computation():
    net = nn.HybridSequential()
    net.add(nn.Activation("relu"))
    net.hybridize()
    x = nd.array([-1.0, 2.0])
    for _ in range(CALLS):
        np.testing.assert_allclose(net(x).asnumpy(), [0.0, 2.0])
    net.add(nn.Activation("sigmoid"))
    np.testing.assert_allclose(net(x).asnumpy(), 1 / (1 + np.exp(-np.array([0.0, 2.0]))),
                               rtol=1e-6)


class _FailsOnce(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super(_FailsOnce, self).__init__(**kwargs)
        self.calls = 0

    def hybrid_forward(self, F, x):
        self.calls += 1
        if self.calls == 2:
            raise ValueError("second call fails")
        return x + 1


def test_an_error_while_recording_reaches_the_caller_and_recording_resumes():
    block = _FailsOnce()
    block.hybridize()
    x = nd.array([1.0])
    block(x)
    with pytest.raises(ValueError, match="second call fails"):
        block(x)
    for _ in range(CALLS):
        np.testing.assert_allclose(block(x).asnumpy(), [2.0])
    assert _states(block) == ["recorded"]


def test_unhybridized_blocks_keep_no_record():
    block = _Head()
    block.initialize()
    for _ in range(CALLS):
        block(nd.ones((2, 4)))
    assert trace.describe(block) == {}
    block.hybridize()
    block.hybridize(False)
    for _ in range(CALLS):
        block(nd.ones((2, 4)))
    assert trace.describe(block) == {}


def test_recorded_and_replayed_calls_free_intermediates_as_they_go(run_python):
    # A chain of eight 4 MB intermediates: a run that kept them all would peak 28 MB higher.
    code = """
import mxnet as mx
from mxnet import gluon, nd
from mxnet.gluon import trace

class Chain(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        for _ in range(8):
            x = F.relu(x + 1)
        return x.sum()

block = Chain()
block.hybridize()
x = nd.ones((1 << 20,))
peaks = []
for _ in range(4):
    block(x).wait_to_read()
    peaks.append(mx.runtime.storage_stats(mx.cpu())["peak_bytes_in_use"])
print(list(trace.describe(block).values()), peaks[0], peaks[-1])
"""
    proc = run_python(code, MXNET_CPU_MEM_POOL_TYPE="Naive")
    assert proc.returncode == 0, proc.stderr
    states, first, last = proc.stdout.split("]")[0] + "]", *proc.stdout.split("]")[1].split()
    assert states == "['recorded']"
    assert int(last) <= int(first) + (1 << 20)


def test_a_deep_copy_of_a_replaying_block_computes_on_its_own_parameters():
    import copy
    net, x = _replaying_conv_bn_net()
    twin = copy.deepcopy(net)
    twin[1].beta.set_data(nd.array(RS.uniform(-2, 2, (5,))))
    for _ in range(CALLS):
        np.testing.assert_allclose(twin(nd.array(x)).asnumpy(), _conv_bn_numpy(twin, x),
                                   rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(net(nd.array(x)).asnumpy(), _conv_bn_numpy(net, x),
                                   rtol=1e-4, atol=1e-5)
    assert not np.allclose(_conv_bn_numpy(twin, x), _conv_bn_numpy(net, x))
