"""Update rules against NumPy implementations of their documented formulas, and schedules."""
import math

import numpy as np
import pytest

import mxnet as mx
from mxnet import nd
from mxnet import lr_scheduler as sched

RS = np.random.RandomState(11)
SHAPE = (3, 4)
STEPS = 4


def _run(opt, w0, grads, index=0):
    weight = nd.array(w0)
    updater = mx.optimizer.get_updater(opt)
    for g in grads:
        updater(index, nd.array(g), weight)
    return weight.asnumpy()


def _case():
    w0 = RS.randn(*SHAPE).astype(np.float32)
    grads = [RS.randn(*SHAPE).astype(np.float32) * 3 for _ in range(STEPS)]
    return w0, grads


def _prep(g, rescale, clip):
    g = g * rescale
    return np.clip(g, -clip, clip) if clip is not None else g


def _close(a, b):
    np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("momentum,clip", [(0.0, None), (0.9, None), (0.9, 1.0)])
def test_sgd(momentum, clip):
    w0, grads = _case()
    lr, wd, rescale = 0.1, 0.01, 0.5
    opt = mx.optimizer.SGD(learning_rate=lr, momentum=momentum, wd=wd, rescale_grad=rescale,
                           clip_gradient=clip)
    w, mom = w0.astype(np.float64), np.zeros(SHAPE)
    for g in grads:
        g = _prep(g, rescale, clip)
        if momentum:
            mom = momentum * mom - lr * wd * w - lr * g
            w = w + mom
        else:
            w = (1 - lr * wd) * w - lr * g
    _close(_run(opt, w0, grads), w)


def test_nag():
    w0, grads = _case()
    lr, wd, m = 0.05, 0.01, 0.9
    opt = mx.optimizer.NAG(learning_rate=lr, momentum=m, wd=wd)
    w, mom = w0.astype(np.float64), np.zeros(SHAPE)
    for g in grads:
        # MXNet 1.x: the momentum holds the lr-scaled step; its decay term sees the updated weight
        m1 = m * mom
        w_new = w - m1 + (1 + m) * (m1 - lr * (g + wd * w))
        mom = m1 - lr * (g + wd * w_new)
        w = w_new
    _close(_run(opt, w0, grads), w)


@pytest.mark.parametrize("clip", [None, 2.0])
def test_adam(clip):
    w0, grads = _case()
    lr, wd, b1, b2, eps = 0.01, 0.001, 0.9, 0.999, 1e-8
    opt = mx.optimizer.Adam(learning_rate=lr, wd=wd, clip_gradient=clip)
    w, m, v = w0.astype(np.float64), np.zeros(SHAPE), np.zeros(SHAPE)
    for t, g in enumerate(grads, 1):
        g = g + wd * w
        if clip is not None:
            g = np.clip(g, -clip, clip)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        lr_t = lr * math.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        w = w - lr_t * m / (np.sqrt(v) + eps)
    _close(_run(opt, w0, grads), w)


def test_adamw():
    w0, grads = _case()
    lr, wd, b1, b2, eps = 0.01, 0.1, 0.9, 0.999, 1e-8
    opt = mx.optimizer.AdamW(learning_rate=lr, wd=wd)
    w, m, v = w0.astype(np.float64), np.zeros(SHAPE), np.zeros(SHAPE)
    for t, g in enumerate(grads, 1):
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        lr_t = lr * math.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        w = w * (1 - lr * wd) - lr_t * m / (np.sqrt(v) + eps)
    _close(_run(opt, w0, grads), w)


def test_adagrad():
    w0, grads = _case()
    lr, wd, eps = 0.1, 0.01, 1e-7
    opt = mx.optimizer.AdaGrad(learning_rate=lr, wd=wd)
    w, h = w0.astype(np.float64), np.zeros(SHAPE)
    for g in grads:
        h += g * g
        w = w - lr * (g / np.sqrt(h + eps) + wd * w)
    _close(_run(opt, w0, grads), w)


def test_adadelta():
    w0, grads = _case()
    rho, eps, wd = 0.9, 1e-5, 0.01
    opt = mx.optimizer.AdaDelta(rho=rho, epsilon=eps, wd=wd)
    w, eg, ed = w0.astype(np.float64), np.zeros(SHAPE), np.zeros(SHAPE)
    for g in grads:
        eg = rho * eg + (1 - rho) * g * g
        d = np.sqrt(ed + eps) / np.sqrt(eg + eps) * g
        ed = rho * ed + (1 - rho) * d * d
        w = w - d - wd * w
    _close(_run(opt, w0, grads), w)


def test_ftrl():
    w0, grads = _case()
    lr, l1, beta, wd = 0.1, 0.01, 1.0, 0.01
    opt = mx.optimizer.Ftrl(learning_rate=lr, lamda1=l1, beta=beta, wd=wd)
    w, z, n = w0.astype(np.float64), np.zeros(SHAPE), np.zeros(SHAPE)
    for g in grads:
        z += g - (np.sqrt(n + g * g) - np.sqrt(n)) * w / lr
        n += g * g
        w = (np.sign(z) * l1 - z) / ((beta + np.sqrt(n)) / lr + wd) * (np.abs(z) > l1)
    _close(_run(opt, w0, grads), w)


def test_signum_and_signsgd():
    w0, grads = _case()
    lr, m, wd_lh, wd = 0.01, 0.9, 0.001, 0.01
    opt = mx.optimizer.Signum(learning_rate=lr, momentum=m, wd_lh=wd_lh, wd=wd)
    w, mom = w0.astype(np.float64), np.zeros(SHAPE)
    for g in grads:
        mom = m * mom - (1 - m) * (wd * w + g)
        w = (1 - lr * wd_lh) * w + lr * np.sign(mom)
    _close(_run(opt, w0, grads), w)
    opt = mx.optimizer.Signum(learning_rate=lr, momentum=0.0, wd=wd)
    w = w0.astype(np.float64)
    for g in grads:
        w = (1 - lr * wd) * w - lr * np.sign(g)
    _close(_run(opt, w0, grads), w)


def test_lamb():
    w0, grads = _case()
    lr, wd, b1, b2, eps = 0.01, 0.01, 0.9, 0.999, 1e-6
    opt = mx.optimizer.LAMB(learning_rate=lr, wd=wd)
    w, m, v = w0.astype(np.float64), np.zeros(SHAPE), np.zeros(SHAPE)
    for t, g in enumerate(grads, 1):
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        d = (m / (1 - b1 ** t)) / (np.sqrt(v / (1 - b2 ** t)) + eps) + wd * w
        r1, r2 = np.linalg.norm(w), np.linalg.norm(d)
        w = w - lr * (r1 / r2) * d
    _close(_run(opt, w0, grads), w)


def test_rmsprop_centered():
    w0, grads = _case()
    lr, g1, g2, eps = 0.01, 0.9, 0.9, 1e-8
    opt = mx.optimizer.RMSProp(learning_rate=lr, gamma1=g1, gamma2=g2, epsilon=eps, centered=True)
    w, n, ga, delta = w0.astype(np.float64), np.zeros(SHAPE), np.zeros(SHAPE), np.zeros(SHAPE)
    for g in grads:
        n = (1 - g1) * g * g + g1 * n
        ga = (1 - g1) * g + g1 * ga
        delta = g2 * delta - lr * g / np.sqrt(n - ga * ga + eps)
        w = w + delta
    _close(_run(opt, w0, grads), w)


def test_rmsprop_plain_reduces_a_quadratic():
    opt = mx.optimizer.RMSProp(learning_rate=0.05)
    w = nd.array([3.0, -2.0])
    upd = mx.optimizer.get_updater(opt)
    for _ in range(150):
        upd(0, w * 2, w)  # gradient of |w|^2
    assert np.abs(w.asnumpy()).max() < 0.5


def test_multi_precision_keeps_a_float32_master_copy():
    w0 = np.array([1.0, 2.0], dtype=np.float16)
    opt = mx.optimizer.SGD(learning_rate=1e-4, multi_precision=True)
    weight = nd.array(w0, dtype="float16")
    upd = mx.optimizer.get_updater(opt)
    for _ in range(10):
        upd(0, nd.array([1.0, 1.0], dtype="float16"), weight)
    master = upd.states[0][1].asnumpy()  # SGD: (momentum or None, float32 weight), as MXNet 1.x
    assert upd.states[0][0] is None
    assert master.dtype == np.float32
    _close(master, np.array([1.0, 2.0]) - 10 * 1e-4)
    assert weight.dtype == np.float16


@pytest.mark.parametrize("name", ["sgd", "nag"])
def test_sgd_and_nag_multi_precision_states_in_mxnet_1x_order(name):
    """MXNet 1.x keeps (momentum, float32 weight) for SGD and NAG: states it saved must land in
    the same slots here. Two steps by hand in float64 from the update rules."""
    lr, m = 0.1, 0.9
    opt = mx.optimizer.create(name, learning_rate=lr, momentum=m, multi_precision=True)
    weight = nd.array([1.0, -2.0], dtype="float16")
    state = opt.create_state_multi_precision(0, weight)
    assert state[0].asnumpy().tolist() == [0.0, 0.0] and state[1].dtype == np.float32
    _close(state[1].asnumpy(), [1.0, -2.0])
    w, v = np.array([1.0, -2.0]), np.zeros(2)
    for g in ([0.5, 0.25], [-0.5, 1.0]):
        opt.update_multi_precision(0, weight, nd.array(g, dtype="float16"), state)
        g = np.array(g)
        if name == "sgd":
            v = m * v - lr * g
            w = w + v
        else:
            v1 = m * v
            w, v = w - v1 + (1 + m) * (v1 - lr * g), v1 - lr * g
    np.testing.assert_allclose(state[0].asnumpy(), v, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(state[1].asnumpy(), w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(weight.asnumpy().astype(np.float64), w, rtol=1e-3, atol=1e-3)


def test_lr_mult_wd_mult_by_index_and_name():
    opt = mx.optimizer.SGD(learning_rate=0.1, wd=0.1, param_idx2name={0: "fc_weight", 1: "fc_bias"})
    opt.set_lr_mult({"fc_weight": 2.0})
    assert opt._get_lr(0) == pytest.approx(0.2) and opt._get_lr(1) == pytest.approx(0.1)
    assert opt._get_wd(1) == 0.0 and opt._get_wd(0) == pytest.approx(0.1)


def test_create_by_name_and_errors():
    assert isinstance(mx.optimizer.create("adam"), mx.optimizer.Adam)
    assert isinstance(mx.optimizer.create("SGD", momentum=0.9), mx.optimizer.SGD)
    with pytest.raises(ValueError, match="Cannot find optimizer"):
        mx.optimizer.create("nope")
    opt = mx.optimizer.SGD(lr_scheduler=sched.FactorScheduler(step=2))
    with pytest.raises(UserWarning):
        opt.set_learning_rate(0.5)


def test_updater_states_round_trip():
    opt = mx.optimizer.SGD(learning_rate=0.1, momentum=0.9)
    upd = mx.optimizer.get_updater(opt)
    w = nd.array([1.0, 2.0])
    upd(0, nd.array([1.0, 1.0]), w)
    blob = upd.get_states()
    upd2 = mx.optimizer.get_updater(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9))
    upd2.set_states(blob)
    w2 = w.copy()
    upd(0, nd.array([1.0, 1.0]), w)
    upd2(0, nd.array([1.0, 1.0]), w2)
    _close(w.asnumpy(), w2.asnumpy())


# ---- learning-rate schedules -------------------------------------------------------------

def test_factor_scheduler():
    s = sched.FactorScheduler(step=10, factor=0.5, base_lr=1.0)
    assert s(5) == 1.0 and s(10) == 1.0 and s(11) == 0.5 and s(25) == 0.25
    s = sched.FactorScheduler(step=1, factor=0.1, stop_factor_lr=1e-3, base_lr=1.0)
    assert s(100) == pytest.approx(1e-3)


def test_multifactor_scheduler():
    s = sched.MultiFactorScheduler(step=[5, 8], factor=0.1, base_lr=1.0)
    assert [s(i) for i in (1, 5, 6, 8, 9)] == pytest.approx([1.0, 1.0, 0.1, 0.1, 0.01])
    with pytest.raises(ValueError):
        sched.MultiFactorScheduler(step=[5, 3])


def test_poly_and_cosine_with_warmup():
    s = sched.PolyScheduler(max_update=100, base_lr=1.0, pwr=2, final_lr=0.0, warmup_steps=10,
                            warmup_begin_lr=0.1)
    assert s(0) == pytest.approx(0.1) and s(5) == pytest.approx(0.1 + 0.9 * 0.5)
    assert s(55) == pytest.approx((1 - 45 / 90) ** 2)
    assert s(100) == pytest.approx(0.0)
    c = sched.CosineScheduler(max_update=20, base_lr=2.0, final_lr=0.0)
    assert c(10) == pytest.approx(1.0) and c(20) == pytest.approx(0.0)
    assert c(0) == pytest.approx(2.0)
    hold = sched.CosineScheduler(max_update=20, base_lr=1.0, warmup_steps=4, warmup_mode="constant",
                                 warmup_begin_lr=0.2)
    assert hold(3) == pytest.approx(0.2)


def test_optimizer_uses_scheduler_by_update_count():
    opt = mx.optimizer.SGD(lr_scheduler=sched.FactorScheduler(step=1, factor=0.5, base_lr=1.0))
    upd = mx.optimizer.get_updater(opt)
    w = nd.array([0.0])
    for _ in range(3):
        upd(0, nd.array([1.0]), w)
    # lrs used: update 1 -> 1.0, update 2 -> 0.5, update 3 -> 0.25
    _close(w.asnumpy(), [-1.75])
