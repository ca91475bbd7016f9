"""gluon.Trainer: every optimizer lowers a loss, multipliers, states, several contexts."""
import numpy as np
import pytest

import mxnet as mx
from mxnet import autograd, gluon, nd
from mxnet.gluon import nn

OPTIMIZERS = [("sgd", {"learning_rate": 0.1}), ("sgd", {"learning_rate": 0.05, "momentum": 0.9}),
              ("nag", {"learning_rate": 0.05, "momentum": 0.9}), ("adam", {"learning_rate": 0.05}),
              ("adamw", {"learning_rate": 0.05}), ("rmsprop", {"learning_rate": 0.01}),
              ("adagrad", {"learning_rate": 0.3}), ("adadelta", {}),
              ("ftrl", {"learning_rate": 0.5}), ("signum", {"learning_rate": 0.05}),
              ("lamb", {"learning_rate": 0.05})]


def _problem(seed=0):
    rs = np.random.RandomState(seed)
    x = rs.randn(64, 5).astype(np.float32)
    w = rs.randn(5, 1).astype(np.float32)
    y = x @ w + 0.3
    return nd.array(x), nd.array(y)


def _loss(net, x, y):
    return float(gluon.loss.L2Loss()(net(x), y).mean().asscalar())


@pytest.mark.parametrize("name,params", OPTIMIZERS, ids=[o[0] + str(i) for i, o in enumerate(OPTIMIZERS)])
def test_each_optimizer_reduces_the_loss(name, params):
    mx.random.seed(1)
    x, y = _problem()
    net = nn.Dense(1, in_units=5)
    net.initialize(mx.init.Xavier())
    trainer = gluon.Trainer(net.collect_params(), name, params)
    l2 = gluon.loss.L2Loss()
    before = _loss(net, x, y)
    for _ in range(100):
        with autograd.record():
            loss = l2(net(x), y)
        loss.backward()
        trainer.step(x.shape[0])
    after = _loss(net, x, y)
    assert after < 0.5 * before, (name, before, after)


def test_step_rescales_by_batch_size():
    net = nn.Dense(1, in_units=1, use_bias=False)
    net.initialize(mx.init.One())
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    x = nd.ones((4, 1))
    with autograd.record():
        out = net(x).sum()
    out.backward()  # gradient 4
    trainer.step(4)  # w = 1 - 0.1 * 4 / 4
    np.testing.assert_allclose(net.weight.data().asnumpy(), [[0.9]], rtol=1e-6)


def test_lr_mult_and_wd_mult_and_set_learning_rate():
    net = nn.Dense(1, in_units=2)
    net.initialize(mx.init.One())
    net.weight.lr_mult = 0.0
    net.bias.wd_mult = 0.0
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "wd": 0.5})
    with autograd.record():
        out = net(nd.ones((1, 2))).sum()
    out.backward()
    trainer.step(1)
    np.testing.assert_allclose(net.weight.data().asnumpy(), [[1.0, 1.0]])
    # the bias starts at 0 (its own 'zeros' initializer) and gets no decay: 0 - 0.1 * 1
    np.testing.assert_allclose(net.bias.data().asnumpy(), [-0.1], rtol=1e-6)
    trainer.set_learning_rate(0.01)
    assert trainer.learning_rate == pytest.approx(0.01)


def test_stale_gradient_is_reported_and_can_be_ignored():
    a, b = nn.Dense(1, in_units=1), nn.Dense(1, in_units=1)
    a.initialize()
    b.initialize()
    params = a.collect_params()
    params.update(b.collect_params())
    trainer = gluon.Trainer(params, "sgd")
    with autograd.record():
        out = a(nd.ones((1, 1)))
    out.backward()
    with pytest.raises(UserWarning, match="has not been updated by backward"):
        trainer.step(1)
    before = b.weight.data().asnumpy()
    with autograd.record():
        out = a(nd.ones((1, 1)))
    out.backward()
    trainer.step(1, ignore_stale_grad=True)
    np.testing.assert_array_equal(b.weight.data().asnumpy(), before)


def test_save_and_load_states_continue_identically(tmp_path):
    x, y = _problem(1)
    nets = []
    for _ in range(2):
        net = nn.Dense(1, in_units=5)
        net.initialize(mx.init.Zero())
        nets.append(net)
    l2 = gluon.loss.L2Loss()
    t0 = gluon.Trainer(nets[0].collect_params(), "sgd", {"learning_rate": 0.05, "momentum": 0.9})

    def step(net, trainer):
        with autograd.record():
            loss = l2(net(x), y)
        loss.backward()
        trainer.step(x.shape[0])

    step(nets[0], t0)
    step(nets[0], t0)
    fname = str(tmp_path / "trainer.states")
    t0.save_states(fname)
    for k, p in nets[1].collect_params().items():
        p.set_data(nets[0].collect_params()[k.replace(nets[1].prefix, nets[0].prefix)].data())
    t1 = gluon.Trainer(nets[1].collect_params(), "sgd", {"learning_rate": 0.05, "momentum": 0.9})
    t1.load_states(fname)
    step(nets[0], t0)
    step(nets[1], t1)
    np.testing.assert_allclose(nets[1].weight.data().asnumpy(), nets[0].weight.data().asnumpy(),
                               rtol=1e-6)


def test_two_contexts_sum_gradients_and_stay_in_step():
    ctxs = [mx.cpu(0), mx.cpu(1)]
    x, y = _problem(2)
    single = nn.Dense(1, in_units=5)
    multi = nn.Dense(1, in_units=5)
    single.initialize(mx.init.One())
    multi.initialize(mx.init.One(), ctx=ctxs)
    ts = gluon.Trainer(single.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.5})
    tm = gluon.Trainer(multi.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.5})
    l2 = gluon.loss.L2Loss()
    for _ in range(3):
        with autograd.record():
            loss = l2(single(x), y)
        loss.backward()
        ts.step(x.shape[0])
        xs = gluon.utils.split_and_load(x, ctxs)
        ys = gluon.utils.split_and_load(y, ctxs)
        with autograd.record():
            losses = [l2(multi(a), b) for a, b in zip(xs, ys)]
        for l in losses:
            l.backward()
        tm.step(x.shape[0])
    w0, w1 = (multi.weight.data(c).asnumpy() for c in ctxs)
    np.testing.assert_array_equal(w0, w1)
    np.testing.assert_allclose(w0, single.weight.data().asnumpy(), rtol=1e-5, atol=1e-6)


def test_trainer_argument_checks():
    with pytest.raises(ValueError, match="list or dict of Parameters"):
        gluon.Trainer(3, "sgd")
    net = nn.Dense(1, in_units=1)
    with pytest.raises(ValueError, match="optimizer_params must be None"):
        gluon.Trainer(net.collect_params(), mx.optimizer.SGD(), {"learning_rate": 1})
