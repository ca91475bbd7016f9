"""BatchNorm's running statistics follow MXNet 1.x: they are updated in the training backward pass
(moving = moving * momentum + batch * (1 - momentum)), so a training forward without a backward
leaves them as they were -- imperatively, hybridized (CachedOp), in the executor, with the fused
BatchNorm+ReLU, and with mirroring. The same scenarios run under MXNet 1.9.1 (skipped when the peer
is not installed) and must agree."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import mxnet as mx
from mxnet import autograd
from mxnet.gluon import nn

from peer_oracle import needs_peer, run_script_in_both

R = np.random.RandomState(3)
X = R.randn(4, 3, 5, 5) * 2 + 1
MM0 = np.array([0.3, -0.7, 0.125])
MV0 = np.array([1.7, 0.33, 2.9])


def _expected(x, momentum=0.9, mm0=MM0, mv0=MV0):
    """float64 moving statistics after one update from x's batch statistics (axis 1)."""
    red = (0, 2, 3)
    return momentum * mm0 + (1 - momentum) * x.mean(axis=red), momentum * mv0 + (1 - momentum) * x.var(axis=red)


def _nd_case(fused=False, backward=True, train_fwd=True, train_bwd=True, **params):
    data, gamma, beta = mx.nd.array(X), mx.nd.ones(3), mx.nd.zeros(3)
    mm, mv = mx.nd.array(MM0), mx.nd.array(MV0)
    data.attach_grad()
    op = mx.nd.contrib.BatchNormWithReLU if fused else mx.nd.BatchNorm
    with autograd.record(train_mode=train_fwd):
        y = op(data, gamma, beta, mm, mv, momentum=0.9, fix_gamma=False, **params)
    if backward:
        y.backward(mx.nd.array(R.randn(*X.shape)), train_mode=train_bwd)
    mx.nd.waitall()
    return mm.asnumpy(), mv.asnumpy()


@pytest.mark.parametrize("fused", [False, True])
def test_forward_under_record_leaves_statistics_backward_updates_them(fused):
    mm, mv = _nd_case(fused=fused, backward=False)
    np.testing.assert_array_equal(mm, MM0.astype(np.float32))
    np.testing.assert_array_equal(mv, MV0.astype(np.float32))
    mm, mv = _nd_case(fused=fused)
    emm, emv = _expected(X)
    np.testing.assert_allclose(mm, emm, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mv, emv, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kwargs", [dict(train_fwd=True, train_bwd=False), dict(use_global_stats=True),
                                    dict(train_fwd=False, train_bwd=False)])
def test_no_update_outside_training(kwargs):
    mm, mv = _nd_case(**kwargs)
    np.testing.assert_array_equal(mm, MM0.astype(np.float32))
    np.testing.assert_array_equal(mv, MV0.astype(np.float32))


def test_inference_forward_then_training_backward_keeps_statistics():
    # The forward saved the moving statistics themselves, so the update changes nothing (1.x too).
    mm, mv = _nd_case(train_fwd=False, train_bwd=True)
    np.testing.assert_allclose(mm, MM0, rtol=1e-6)
    np.testing.assert_allclose(mv, MV0, rtol=1e-6)


def test_each_backward_updates_from_its_own_forward():
    data, gamma, beta = mx.nd.array(X), mx.nd.ones(3), mx.nd.zeros(3)
    mm, mv = mx.nd.array(MM0), mx.nd.array(MV0)
    data.attach_grad()
    with autograd.record():
        y1 = mx.nd.BatchNorm(data, gamma, beta, mm, mv)
        y2 = mx.nd.BatchNorm(data * 2, gamma, beta, mm, mv)
    y1.backward()
    emm, emv = _expected(X)
    np.testing.assert_allclose(mm.asnumpy(), emm, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mv.asnumpy(), emv, rtol=1e-5, atol=1e-6)
    y2.backward()
    emm, emv = _expected(2 * X, mm0=emm, mv0=emv)
    np.testing.assert_allclose(mm.asnumpy(), emm, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mv.asnumpy(), emv, rtol=1e-5, atol=1e-6)


def _block(fused, hybrid, static):
    net = nn.HybridSequential()
    if fused:
        net.add(nn.BatchNormReLU(in_channels=3))
    else:
        net.add(nn.BatchNorm(in_channels=3), nn.Activation("relu"))
    net.initialize()
    if hybrid:
        net.hybridize(static_alloc=static, static_shape=static)
    return net


@pytest.mark.parametrize("fused", [False, True])
@pytest.mark.parametrize("hybrid,static", [(False, False), (True, False), (True, True)])
def test_gluon_blocks(fused, hybrid, static):
    net = _block(fused, hybrid, static)
    bn = net[0]
    x = mx.nd.array(X)
    with autograd.record():
        net(x).wait_to_read()
    with autograd.train_mode():
        net(x).wait_to_read()
    np.testing.assert_array_equal(bn.running_mean.data().asnumpy(), np.zeros(3))
    np.testing.assert_array_equal(bn.running_var.data().asnumpy(), np.ones(3))
    with autograd.record():
        y = net(x)
    y.backward()
    emm, emv = _expected(X, mm0=np.zeros(3), mv0=np.ones(3))
    np.testing.assert_allclose(bn.running_mean.data().asnumpy(), emm, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn.running_var.data().asnumpy(), emv, rtol=1e-5, atol=1e-6)


def test_generator_inference_unchanged_by_a_forward_without_backward():
    # A GAN's discriminator step runs the generator under record() but backpropagates only
    # through fake.detach(): the generator's statistics, hence its inference output, stay.
    mx.random.seed(1)
    gen = nn.HybridSequential()
    gen.add(nn.Dense(12), nn.BatchNorm(), nn.Activation("relu"), nn.Dense(4))
    gen.initialize()
    disc = nn.Dense(1)
    disc.initialize()
    z = mx.nd.array(R.randn(8, 5))
    before = gen(z).asnumpy()
    with autograd.record():
        fake = gen(z)
        loss = disc(fake.detach()).sum()
    loss.backward()
    np.testing.assert_array_equal(gen(z).asnumpy(), before)
    with autograd.record():
        loss = disc(gen(z)).sum()
    loss.backward()
    assert not np.allclose(gen(z).asnumpy(), before)


def _executor(fused=False):
    d = mx.sym.var("data")
    op = mx.sym.contrib.BatchNormWithReLU if fused else mx.sym.BatchNorm
    sym = op(d, name="bn", fix_gamma=False, momentum=0.9)
    ex = sym.simple_bind(mx.cpu(), data=X.shape)
    ex.arg_dict["data"][:] = X
    ex.arg_dict["bn_gamma"][:] = 1
    ex.arg_dict["bn_beta"][:] = 0
    ex.aux_dict["bn_moving_mean"][:] = MM0
    ex.aux_dict["bn_moving_var"][:] = MV0
    return ex


@pytest.mark.parametrize("fused", [False, True])
def test_executor_updates_in_backward(fused):
    ex = _executor(fused)
    ex.forward(is_train=True)
    ex.outputs[0].wait_to_read()
    np.testing.assert_array_equal(ex.aux_dict["bn_moving_mean"].asnumpy(), MM0.astype(np.float32))
    ex.backward(mx.nd.ones(X.shape))
    emm, emv = _expected(X)
    np.testing.assert_allclose(ex.aux_dict["bn_moving_mean"].asnumpy(), emm, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ex.aux_dict["bn_moving_var"].asnumpy(), emv, rtol=1e-5, atol=1e-6)
    ex.forward(is_train=True)
    ex.forward(is_train=False)
    ex.outputs[0].wait_to_read()
    np.testing.assert_allclose(ex.aux_dict["bn_moving_mean"].asnumpy(), emm, rtol=1e-5, atol=1e-6)


MIRROR_SCRIPT = textwrap.dedent("""
    import numpy as np, mxnet as mx
    x = np.random.RandomState(0).randn(4, 3, 5, 5) + 1
    d = mx.sym.var('data')
    sym = mx.sym.Activation(mx.sym.BatchNorm(mx.sym.Convolution(d, num_filter=3, kernel=(1, 1), name='c'),
                                             name='bn', momentum=0.5), act_type='relu')
    ex = sym.simple_bind(mx.cpu(), data=x.shape)
    ex.arg_dict['data'][:] = x
    ex.arg_dict['c_weight'][:] = np.eye(3).reshape(3, 3, 1, 1)
    ex.arg_dict['c_bias'][:] = 0
    ex.aux_dict['bn_moving_var'][:] = 1
    ex.forward(is_train=True)
    ex.outputs[0].wait_to_read()
    assert np.all(ex.aux_dict['bn_moving_mean'].asnumpy() == 0)
    ex.backward(mx.nd.ones(x.shape))
    np.testing.assert_allclose(ex.aux_dict['bn_moving_mean'].asnumpy(), 0.5 * x.mean(axis=(0, 2, 3)), rtol=1e-5)
    np.testing.assert_allclose(ex.aux_dict['bn_moving_var'].asnumpy(), 0.5 + 0.5 * x.var(axis=(0, 2, 3)), rtol=1e-5)
    print('ok')
""")


def test_executor_with_mirroring_updates_the_real_statistics_once():
    env = dict(os.environ, MXNET_BACKWARD_DO_MIRROR="1")
    proc = subprocess.run([sys.executable, "-c", MIRROR_SCRIPT], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and "ok" in proc.stdout, proc.stderr[-3000:]


PEER_SCRIPT = textwrap.dedent("""
    import numpy as np, mxnet as mx
    from mxnet import autograd
    from mxnet.gluon import nn
    x = np.random.RandomState(0).randn(4, 3, 5, 5) * 2 + 1
    mm0, mv0 = np.array([0.3, -0.7, 0.125]), np.array([1.7, 0.33, 2.9])
    out = {}
    for fused in (0, 1):
        op = mx.nd.contrib.BatchNormWithReLU if fused else mx.nd.BatchNorm
        for name, tf, tb, bwd in [('fwd', True, True, False), ('fwdbwd', True, True, True),
                                  ('bwd_infer', True, False, True), ('infer', False, False, True)]:
            data, mm, mv = mx.nd.array(x), mx.nd.array(mm0), mx.nd.array(mv0)
            data.attach_grad()
            with autograd.record(train_mode=tf):
                y = op(data, mx.nd.ones(3), mx.nd.zeros(3), mm, mv, momentum=0.8, fix_gamma=False)
            if bwd:
                y.backward(train_mode=tb)
            mx.nd.waitall()  # read right after backward, 1.9.1 sometimes gives the values from before it
            out['nd%d_%s' % (fused, name)] = np.concatenate([mm.asnumpy(), mv.asnumpy()])
        for hybrid in (0, 1):
            net = nn.HybridSequential()
            net.add(nn.BatchNormReLU(in_channels=3) if fused else nn.BatchNorm(in_channels=3))
            net.initialize()
            if hybrid:
                net.hybridize()
            with autograd.record():
                net(mx.nd.array(x)).wait_to_read()
            out['gluon%d%d_fwd' % (fused, hybrid)] = net[0].running_mean.data().asnumpy()
            with autograd.record():
                y = net(mx.nd.array(x))
            y.backward()
            mx.nd.waitall()
            out['gluon%d%d_bwd' % (fused, hybrid)] = np.concatenate([net[0].running_mean.data().asnumpy(),
                                                                    net[0].running_var.data().asnumpy()])
        sym = (mx.sym.contrib.BatchNormWithReLU if fused else mx.sym.BatchNorm)(mx.sym.var('data'), name='bn')
        ex = sym.simple_bind(mx.cpu(), data=x.shape)
        ex.arg_dict['data'][:] = x
        ex.arg_dict['bn_gamma'][:] = 1  # 1.x's oneDNN backward reads a zero gamma even with fix_gamma
        ex.aux_dict['bn_moving_var'][:] = 1
        ex.forward(is_train=True)
        ex.outputs[0].wait_to_read()
        out['exec%d_fwd' % fused] = ex.aux_dict['bn_moving_mean'].asnumpy()
        ex.backward(mx.nd.ones(x.shape))
        mx.nd.waitall()
        out['exec%d_bwd' % fused] = np.concatenate([ex.aux_dict['bn_moving_mean'].asnumpy(),
                                                   ex.aux_dict['bn_moving_var'].asnumpy()])
    np.savez(OUT, **out)
""")


@needs_peer
def test_running_statistics_equal_mxnet191(tmp_path):
    peer, ours = run_script_in_both(PEER_SCRIPT, tmp_path, "bn cases")
    assert sorted(peer.files) == sorted(ours.files)
    for key in sorted(peer.files):
        np.testing.assert_allclose(ours[key], peer[key], rtol=1e-5, atol=1e-6, err_msg=key)
