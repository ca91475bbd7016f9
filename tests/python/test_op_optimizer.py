"""Optimizer update ops vs numpy implementations of their formulas over several steps (weight
written to out=weight, states mutated in place), multi-tensor and mixed-precision variants,
the SGD optimizer's aggregation by MXNET_OPTIMIZER_AGGREGATION_SIZE, and bad inputs."""
import numpy as np
import pytest

import mxnet as mx

RS = np.random.RandomState(0)


def f32(params):
    """The parameters as the ops hold them (MXNet declares them float32)."""
    return {k: (float(np.float32(v)) if isinstance(v, float) else v) for k, v in params.items()}


def _get(p, key, default=None):
    """A parameter as the op holds it: float32 (MXNet declares these fields float)."""
    return float(np.float32(p[key] if key in p else default))


def clip(x, c):
    return x if c is None or c < 0 else np.clip(x, -c, c)


def ref_sgd(w, g, s, p):
    gr = clip(_get(p, "rescale_grad", 1) * g, _get(p, "clip_gradient", -1))
    return (1 - _get(p, "lr") * _get(p, "wd", 0)) * w - _get(p, "lr") * gr


def ref_sgd_mom(w, g, s, p):
    gr = clip(_get(p, "rescale_grad", 1) * g, _get(p, "clip_gradient", -1))
    s["mom"] = _get(p, "momentum", 0) * s["mom"] - _get(p, "lr") * _get(p, "wd", 0) * w - _get(p, "lr") * gr
    return w + s["mom"]


def ref_nag(w, g, s, p):
    """MXNet 1.x's NAG: the momentum holds the lr-scaled step. With out=weight (as these runs call
    it) the momentum's weight-decay term sees the new weight."""
    lr, m, wd = _get(p, "lr"), _get(p, "momentum", 0), _get(p, "wd", 0)
    gr = clip(_get(p, "rescale_grad", 1) * g, _get(p, "clip_gradient", -1))
    m1 = m * s["mom"]
    new = w - m1 + (1 + m) * (m1 - lr * (gr + wd * w))
    s["mom"] = m1 - lr * (gr + wd * new)
    return new


def ref_adam(w, g, s, p):
    gr = clip(_get(p, "rescale_grad", 1) * g + _get(p, "wd", 0) * w, _get(p, "clip_gradient", -1))
    b1, b2 = _get(p, "beta1", 0.9), _get(p, "beta2", 0.999)
    s["mean"] = b1 * s["mean"] + (1 - b1) * gr
    s["var"] = b2 * s["var"] + (1 - b2) * gr * gr
    return w - _get(p, "lr") * s["mean"] / (np.sqrt(s["var"]) + _get(p, "epsilon", 1e-8))


def ref_rmsprop(w, g, s, p):
    gr = clip(_get(p, "rescale_grad", 1) * g + _get(p, "wd", 0) * w, _get(p, "clip_gradient", -1))
    g1 = _get(p, "gamma1", 0.95)
    s["n"] = (1 - g1) * gr * gr + g1 * s["n"]
    return clip(w - _get(p, "lr") * gr / np.sqrt(s["n"] + _get(p, "epsilon", 1e-8)), _get(p, "clip_weights", -1))


def ref_rmspropalex(w, g, s, p):
    gr = clip(_get(p, "rescale_grad", 1) * g + _get(p, "wd", 0) * w, _get(p, "clip_gradient", -1))
    g1, g2 = _get(p, "gamma1", 0.95), _get(p, "gamma2", 0.9)
    s["n"] = (1 - g1) * gr * gr + g1 * s["n"]
    s["g"] = (1 - g1) * gr + g1 * s["g"]
    s["delta"] = g2 * s["delta"] - _get(p, "lr") * gr / np.sqrt(s["n"] - s["g"] ** 2 + _get(p, "epsilon", 1e-8))
    return clip(w + s["delta"], _get(p, "clip_weights", -1))


def ref_ftrl(w, g, s, p):
    gr = clip(_get(p, "rescale_grad", 1) * g, _get(p, "clip_gradient", -1))
    lr, l1, beta, wd = _get(p, "lr"), _get(p, "lamda1", 0.01), _get(p, "beta", 1), _get(p, "wd", 0)
    s["z"] = s["z"] + gr - (np.sqrt(s["n"] + gr * gr) - np.sqrt(s["n"])) * w / lr
    s["n"] = s["n"] + gr * gr
    return np.where(np.abs(s["z"]) > l1, (np.sign(s["z"]) * l1 - s["z"]) / ((beta + np.sqrt(s["n"])) / lr + wd), 0)


def ref_signsgd(w, g, s, p):
    return (1 - _get(p, "lr") * _get(p, "wd", 0)) * w - _get(p, "lr") * np.sign(g)


def ref_signum(w, g, s, p):
    m = _get(p, "momentum", 0)
    gr = clip(_get(p, "rescale_grad", 1) * g, _get(p, "clip_gradient", -1))
    s["mom"] = m * s["mom"] - (1 - m) * _get(p, "wd", 0) * w - (1 - m) * gr
    return (1 - _get(p, "lr") * _get(p, "wd_lh", 0)) * w + _get(p, "lr") * np.sign(s["mom"])


RULES = {
    "sgd_update": (ref_sgd, []),
    "sgd_mom_update": (ref_sgd_mom, ["mom"]),
    "nag_mom_update": (ref_nag, ["mom"]),
    "adam_update": (ref_adam, ["mean", "var"]),
    "rmsprop_update": (ref_rmsprop, ["n"]),
    "rmspropalex_update": (ref_rmspropalex, ["n", "g", "delta"]),
    "ftrl_update": (ref_ftrl, ["z", "n"]),
    "signsgd_update": (ref_signsgd, []),
    "signum_update": (ref_signum, ["mom"]),
}

PARAMS = {
    "sgd_update": [dict(lr=0.1), dict(lr=0.05, wd=0.01, rescale_grad=0.5, clip_gradient=0.3)],
    "sgd_mom_update": [dict(lr=0.1, momentum=0.9), dict(lr=0.05, momentum=0.5, wd=0.1, rescale_grad=2,
                                                        clip_gradient=0.5)],
    "nag_mom_update": [dict(lr=0.1, momentum=0.9), dict(lr=0.05, momentum=0.7, wd=0.05, rescale_grad=0.25,
                                                        clip_gradient=0.1)],
    "adam_update": [dict(lr=0.01), dict(lr=0.02, beta1=0.8, beta2=0.9, epsilon=1e-6, wd=0.1, rescale_grad=3,
                                        clip_gradient=0.7)],
    "rmsprop_update": [dict(lr=0.01), dict(lr=0.02, gamma1=0.8, epsilon=1e-4, wd=0.1, rescale_grad=2,
                                           clip_gradient=0.5, clip_weights=0.9)],
    "rmspropalex_update": [dict(lr=0.01), dict(lr=0.02, gamma1=0.8, gamma2=0.5, epsilon=1e-3, wd=0.1,
                                               rescale_grad=2, clip_gradient=0.5, clip_weights=0.9)],
    "ftrl_update": [dict(lr=0.1), dict(lr=0.2, lamda1=0.05, beta=0.5, wd=0.1, rescale_grad=2, clip_gradient=0.5)],
    "signsgd_update": [dict(lr=0.1), dict(lr=0.05, wd=0.2, rescale_grad=3, clip_gradient=0.1)],
    "signum_update": [dict(lr=0.1, momentum=0.9), dict(lr=0.05, momentum=0.5, wd=0.1, wd_lh=0.2,
                                                       rescale_grad=2, clip_gradient=0.3)],
}

TOL = {"float64": 1e-10, "float32": 2e-5}


def _run_steps(name, params, dtype, steps=4, shape=(5, 7)):
    ref, state_names = RULES[name]
    w = RS.uniform(-1, 1, shape)
    states = {n: (RS.uniform(0, 1, shape) if n == "n" else np.zeros(shape)) for n in state_names}
    w_nd = mx.nd.array(w, dtype=dtype)
    s_nd = [mx.nd.array(states[n], dtype=dtype) for n in state_names]
    w_ref = w.astype(dtype).astype(np.float64)
    s_ref = {n: v.astype(dtype).astype(np.float64) for n, v in states.items()}
    for _ in range(steps):
        g = RS.uniform(-2, 2, shape).astype(dtype).astype(np.float64)
        res = getattr(mx.nd, name)(w_nd, mx.nd.array(g, dtype=dtype), *s_nd, out=w_nd, **params)
        assert res is w_nd
        w_ref = ref(w_ref, g, s_ref, f32(params))
    return w_nd, s_nd, w_ref, s_ref, state_names


@pytest.mark.parametrize("name", sorted(RULES))
@pytest.mark.parametrize("case", [0, 1])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_update_rule(name, case, dtype):
    params = PARAMS[name][case]
    w_nd, s_nd, w_ref, s_ref, names = _run_steps(name, params, dtype)
    tol = TOL[dtype]
    np.testing.assert_allclose(w_nd.asnumpy(), w_ref, rtol=tol, atol=tol)
    for n, a in zip(names, s_nd):
        np.testing.assert_allclose(a.asnumpy(), s_ref[n], rtol=tol, atol=tol, err_msg=n)


def test_update_float16_computes_in_float32():
    w = RS.uniform(-1, 1, (16,)).astype(np.float16)
    g = RS.uniform(-1, 1, (16,)).astype(np.float16)
    out = mx.nd.sgd_update(mx.nd.array(w, dtype="float16"), mx.nd.array(g, dtype="float16"), lr=0.1, wd=0.01)
    expect = ((1 - 0.1 * 0.01) * w.astype(np.float32) - 0.1 * g.astype(np.float32)).astype(np.float16)
    np.testing.assert_array_equal(out.asnumpy(), expect)


@pytest.mark.parametrize("name,base,has_mom", [("mp_sgd_update", "sgd_update", False),
                                               ("mp_sgd_mom_update", "sgd_mom_update", True),
                                               ("mp_nag_mom_update", "nag_mom_update", True)])
def test_mixed_precision(name, base, has_mom):
    params = PARAMS[base][1]
    ref = RULES[base][0]
    w32 = RS.uniform(-1, 1, (6, 3)).astype(np.float32)
    w16 = mx.nd.array(w32, dtype="float16")
    master = mx.nd.array(w32, dtype="float32")
    mom = mx.nd.zeros((6, 3), dtype="float32")
    w_ref, s_ref = w32.astype(np.float64), {"mom": np.zeros((6, 3))}
    for _ in range(3):
        g = RS.uniform(-1, 1, (6, 3)).astype(np.float16)
        ins = [w16, mx.nd.array(g, dtype="float16")] + ([mom] if has_mom else []) + [master]
        getattr(mx.nd, name)(*ins, out=w16, **params)
        w_ref = ref(w_ref, g.astype(np.float64), s_ref, params)
    np.testing.assert_allclose(master.asnumpy(), w_ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(w16.asnumpy(), master.asnumpy().astype(np.float16))
    if has_mom:
        np.testing.assert_allclose(mom.asnumpy(), s_ref["mom"], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nag_momentum_holds_the_lr_scaled_step(dtype):
    # MXNet 1.x's state convention, worked by hand: g' = g + wd*w, m1 = momentum*mom,
    # w' = w - m1 + (1 + momentum)*(m1 - lr*g'), mom' = m1 - lr*g' (an out-of-place call).
    w = mx.nd.array([1.0, -2.0, 0.5], dtype=dtype)
    mom = mx.nd.array([0.4, 0.1, -0.3], dtype=dtype)
    out = mx.nd.nag_mom_update(w, mx.nd.array([0.3, -0.1, 0.2], dtype=dtype), mom, lr=0.1, momentum=0.9, wd=0.01)
    np.testing.assert_allclose(out.asnumpy(), [1.2651, -1.8962, 0.21805], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(mom.asnumpy(), [0.329, 0.102, -0.2905], rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(w.asnumpy(), np.array([1.0, -2.0, 0.5], dtype=dtype))


@pytest.mark.parametrize("inplace", [False, True])
def test_nag_weight_decay_term_of_the_momentum(inplace):
    """The momentum's decay term uses the weight the call leaves behind: the new one when the
    output is the weight itself (and always for the multi-precision variant), else the old one."""
    w0, g, mom0 = np.array([1.0, -2.0, 0.5]), np.array([0.3, -0.1, 0.2]), np.array([0.4, 0.1, -0.3])
    lr, m, wd, rescale, clip_g = 0.05, 0.8, 0.5, 0.5, 0.1
    gr = np.clip(rescale * g, -clip_g, clip_g)
    m1 = m * mom0
    w_new = w0 - m1 + (1 + m) * (m1 - lr * (gr + wd * w0))
    params = dict(lr=lr, momentum=m, wd=wd, rescale_grad=rescale, clip_gradient=clip_g)
    w, mom = mx.nd.array(w0, dtype="float64"), mx.nd.array(mom0, dtype="float64")
    out = mx.nd.nag_mom_update(w, mx.nd.array(g, dtype="float64"), mom, out=w if inplace else None, **params)
    np.testing.assert_allclose(out.asnumpy(), w_new, rtol=1e-6)
    np.testing.assert_allclose(mom.asnumpy(), m1 - lr * (gr + wd * (w_new if inplace else w0)), rtol=1e-6)
    w16, master, mom32 = mx.nd.array(w0, dtype="float16"), mx.nd.array(w0), mx.nd.array(mom0)
    g16 = np.array(g, dtype=np.float16).astype(np.float64)
    gr16 = np.clip(rescale * g16, -clip_g, clip_g)
    w_new16 = w0 - m1 + (1 + m) * (m1 - lr * (gr16 + wd * w0))
    out = mx.nd.mp_nag_mom_update(w16, mx.nd.array(g16, dtype="float16"), mom32, master,
                                  out=w16 if inplace else None, **params)
    np.testing.assert_allclose(master.asnumpy(), w_new16, rtol=1e-5)
    np.testing.assert_allclose(mom32.asnumpy(), m1 - lr * (gr16 + wd * w_new16), rtol=1e-5)
    np.testing.assert_array_equal(out.asnumpy(), master.asnumpy().astype(np.float16))


@pytest.mark.parametrize("mp", [False, True])
@pytest.mark.parametrize("momentum", [0.0, 0.9])
def test_multi_sgd_matches_single(mp, momentum):
    shapes = [(3, 4), (5,), (2, 2, 2)]
    lrs, wds = (0.1, 0.05, 0.2), (0.0, 0.01, 0.1)
    common = dict(rescale_grad=0.5, clip_gradient=0.4)
    wdtype = "float16" if mp else "float32"
    ws = [RS.uniform(-1, 1, s).astype(np.float32) for s in shapes]
    multi_w = [mx.nd.array(w, dtype=wdtype) for w in ws]
    multi_mom = [mx.nd.zeros(s) for s in shapes]
    multi_master = [mx.nd.array(w) for w in ws]
    single_w = [mx.nd.array(w, dtype=wdtype) for w in ws]
    single_mom = [mx.nd.zeros(s) for s in shapes]
    single_master = [mx.nd.array(w) for w in ws]
    for _ in range(3):
        gs = [mx.nd.array(RS.uniform(-1, 1, s), dtype=wdtype) for s in shapes]
        data = []
        for i in range(3):
            data += [multi_w[i], gs[i]] + ([multi_mom[i]] if momentum else []) + ([multi_master[i]] if mp else [])
        name = "multi_%ssgd_%supdate" % ("mp_" if mp else "", "mom_" if momentum else "")
        kw = dict(common, momentum=momentum) if momentum else common
        getattr(mx.nd, name)(*data, out=multi_w, num_weights=3, lrs=lrs, wds=wds, **kw)
        for i in range(3):
            ins = [single_w[i], gs[i]] + ([single_mom[i]] if momentum else []) + ([single_master[i]] if mp else [])
            single = "%ssgd_%supdate" % ("mp_" if mp else "", "mom_" if momentum else "")
            getattr(mx.nd, single)(*ins, out=single_w[i], lr=lrs[i], wd=wds[i], **kw)
    for i in range(3):
        np.testing.assert_array_equal(multi_w[i].asnumpy(), single_w[i].asnumpy())
        if momentum:
            np.testing.assert_array_equal(multi_mom[i].asnumpy(), single_mom[i].asnumpy())
        if mp:
            np.testing.assert_array_equal(multi_master[i].asnumpy(), single_master[i].asnumpy())


def _ref_adamw(w, g, mean, var, scale, p):
    gr = clip(scale * g, _get(p, "clip_gradient", -1))
    mean[:] = _get(p, "beta1") * mean + (1 - _get(p, "beta1")) * gr
    var[:] = _get(p, "beta2") * var + (1 - _get(p, "beta2")) * gr * gr
    return w - _get(p, "eta") * (_get(p, "lr") * mean / (np.sqrt(var) + _get(p, "epsilon")) + _get(p, "wd") * w)


@pytest.mark.parametrize("mp", [False, True])
def test_adamw(mp):
    p = dict(lr=0.01, beta1=0.8, beta2=0.95, epsilon=1e-6, wd=0.1, eta=0.5, clip_gradient=0.6)
    w = RS.uniform(-1, 1, (4, 5))
    dtype = "float16" if mp else "float64"
    w_nd = mx.nd.array(w, dtype=dtype)
    master = mx.nd.array(w, dtype="float32")
    sdt = "float32" if mp else "float64"
    mean_nd, var_nd = mx.nd.zeros((4, 5), dtype=sdt), mx.nd.zeros((4, 5), dtype=sdt)
    w_ref = w.astype(np.float32).astype(np.float64) if mp else w.copy()
    mean, var = np.zeros((4, 5)), np.zeros((4, 5))
    for scale in (2.0, float("inf"), 0.5):
        g = RS.uniform(-1, 1, (4, 5)).astype(dtype).astype(np.float64)
        ins = [w_nd, mx.nd.array(g, dtype=dtype), mean_nd, var_nd] + ([master] if mp else [])
        ins.append(mx.nd.array([scale]))
        getattr(mx.nd._internal, "_mp_adamw_update" if mp else "_adamw_update")(*ins, out=w_nd, **p)
        if np.isfinite(scale):  # a non-finite scale skips the step
            w_ref = _ref_adamw(w_ref, g, mean, var, scale, f32(p))
    got = master.asnumpy() if mp else w_nd.asnumpy()
    np.testing.assert_allclose(got, w_ref, rtol=1e-5 if mp else 1e-10, atol=1e-6 if mp else 1e-12)
    np.testing.assert_allclose(mean_nd.asnumpy(), mean, rtol=1e-5, atol=1e-7)
    assert hasattr(mx.nd.contrib, "adamw_update")


@pytest.mark.parametrize("bias_correction", [True, False])
def test_lamb_phases(bias_correction):
    p1 = dict(beta1=0.8, beta2=0.9, epsilon=1e-6, wd=0.05, rescale_grad=2.0, clip_gradient=0.9,
              bias_correction=bias_correction)
    w = RS.uniform(-1, 1, (6,))
    w_nd = mx.nd.array(w, dtype="float64")
    mean_nd, var_nd = mx.nd.zeros((6,), dtype="float64"), mx.nd.zeros((6,), dtype="float64")
    mean, var = np.zeros(6), np.zeros(6)
    for t in (1, 2, 3):
        g = RS.uniform(-1, 1, (6,))
        upd = mx.nd.lamb_update_phase1(w_nd, mx.nd.array(g, dtype="float64"), mean_nd, var_nd, t=t, **p1)
        b1, b2, eps, wd, cg = (float(np.float32(v)) for v in (0.8, 0.9, 1e-6, 0.05, 0.9))
        gr = clip(2.0 * g, cg)
        mean = b1 * mean + (1 - b1) * gr
        var = b2 * var + (1 - b2) * gr * gr
        mh, vh = (mean / (1 - b1 ** t), var / (1 - b2 ** t)) if bias_correction else (mean, var)
        expect = mh / (np.sqrt(vh) + eps) + wd * w
        np.testing.assert_allclose(upd.asnumpy(), expect, rtol=1e-10)
        r1, r2 = np.linalg.norm(w), np.linalg.norm(expect)
        mx.nd.lamb_update_phase2(w_nd, upd, mx.nd.array([r1], dtype="float64"), mx.nd.array([r2], dtype="float64"),
                                 out=w_nd, lr=0.1, lower_bound=0.5, upper_bound=1.2)
        lr, lo, hi = (float(np.float32(v)) for v in (0.1, 0.5, 1.2))
        w = w - lr * (min(max(r1, lo), hi) / r2) * expect
        np.testing.assert_allclose(w_nd.asnumpy(), w, rtol=1e-10)
    # a zero norm means ratio 1
    out = mx.nd.lamb_update_phase2(mx.nd.ones((2,)), mx.nd.ones((2,)), mx.nd.array([0.0]), mx.nd.array([3.0]),
                                   lr=0.5)
    np.testing.assert_allclose(out.asnumpy(), [0.5, 0.5])


def _train(aggregation, momentum, multi_precision=False):
    code = r"""
import numpy as np, mxnet as mx
opt = mx.optimizer.create("sgd", learning_rate=0.1, momentum=%r, wd=0.01, rescale_grad=0.5,
                          clip_gradient=0.8, multi_precision=%r)
print("AGG", opt.aggregate_num)
upd = mx.optimizer.get_updater(opt)
calls = {}
for name in ("multi_sgd_update", "multi_sgd_mom_update", "multi_mp_sgd_update", "multi_mp_sgd_mom_update",
             "sgd_update", "sgd_mom_update"):
    fn = getattr(mx.nd, name)
    def counted(*a, _fn=fn, _n=name, **k):
        calls[_n] = calls.get(_n, 0) + 1
        return _fn(*a, **k)
    setattr(mx.nd, name, counted)
rs = np.random.RandomState(1)
dt = "float16" if %r else "float32"
ws = [mx.nd.array(rs.uniform(-1, 1, (3, i + 1)), dtype=dt) for i in range(7)]
for step in range(3):
    gs = [mx.nd.array(rs.uniform(-1, 1, w.shape), dtype=dt) for w in ws]
    upd(list(range(7)), gs, ws)
print("CALLS", sorted(calls.items()))
print("W", np.concatenate([w.asnumpy().astype(np.float64).ravel() for w in ws]).tolist())
""" % (momentum, multi_precision, multi_precision)
    return code, dict(MXNET_OPTIMIZER_AGGREGATION_SIZE=str(aggregation))


def _parse(stdout):
    lines = {l.split(" ", 1)[0]: l.split(" ", 1)[1] for l in stdout.strip().splitlines() if " " in l}
    return int(lines["AGG"]), lines["CALLS"], np.array(eval(lines["W"]))


@pytest.mark.parametrize("momentum,mp", [(0.0, False), (0.9, False), (0.9, True)])
def test_sgd_optimizer_aggregation(run_python, momentum, mp):
    results = {}
    for size in (1, 3, 60):
        code, env = _train(size, momentum, mp)
        res = run_python(code, **env)
        assert res.returncode == 0, res.stderr
        results[size] = _parse(res.stdout)
    assert [results[s][0] for s in (1, 3, 60)] == [1, 3, 60]
    multi = "multi_%ssgd_%supdate" % ("mp_" if mp else "", "mom_" if momentum else "")
    assert "('%s', 9)" % multi in results[3][1]  # 7 weights in groups of 3 -> 3 calls per step
    assert "('%s', 3)" % multi in results[60][1]
    assert "multi" not in results[1][1]
    np.testing.assert_allclose(results[3][2], results[1][2], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(results[60][2], results[1][2], rtol=1e-6, atol=1e-7)


def test_aggregation_size_validated(run_python):
    res = run_python("import mxnet", MXNET_OPTIMIZER_AGGREGATION_SIZE="61")
    assert res.returncode != 0 and "MXNET_OPTIMIZER_AGGREGATION_SIZE" in res.stderr


def _a(*shape, dtype="float32"):
    return mx.nd.zeros(shape, dtype=dtype)


BAD = [
    ("sgd_update", [_a(3), _a(3)], dict(), "sgd_update.*lr"),
    ("sgd_update", [_a(3), _a(4)], dict(lr=0.1), "sgd_update.*grad.*\\(4,\\)"),
    ("sgd_mom_update", [_a(3), _a(3), _a(2)], dict(lr=0.1), "sgd_mom_update.*mom"),
    ("sgd_update", [_a(3), _a(3, dtype="float64")], dict(lr=0.1), "sgd_update.*grad.*float32"),
    ("sgd_update", [_a(3, dtype="int32"), _a(3, dtype="int32")], dict(lr=0.1), "sgd_update.*floating"),
    ("mp_sgd_update", [_a(3, dtype="float16"), _a(3, dtype="float16"), _a(3, dtype="float16")], dict(lr=0.1),
     "mp_sgd_update.*weight32.*float32"),
    ("adam_update", [_a(3), _a(3), _a(3)], dict(lr=0.1), "adam_update.*inputs"),
    ("adam_update", [_a(3), _a(3), _a(3), _a(3)], dict(lr=0.1, beta1="x"), "adam_update.*beta1"),
    ("rmsprop_update", [_a(3), _a(3), _a(3)], dict(lr=0.1, gamma2=0.5), "rmsprop_update.*gamma2"),
    ("multi_sgd_update", [_a(3), _a(3), _a(2), _a(2)], dict(lrs=(0.1,), wds=(0, 0), num_weights=2),
     "multi_sgd_update.*lrs"),
    ("multi_sgd_update", [_a(3), _a(3), _a(2)], dict(lrs=(0.1, 0.1), wds=(0, 0), num_weights=2),
     "multi_sgd_update.*inputs"),
    ("lamb_update_phase1", [_a(3), _a(3), _a(3), _a(3)], dict(t=0, wd=0), "lamb_update_phase1.*t"),
    ("lamb_update_phase2", [_a(3), _a(3), _a(2), _a(1)], dict(lr=0.1), "lamb_update_phase2.*r1"),
    ("ftrl_update", [_a(3), _a(3), _a(3), _a(3, 1)], dict(lr=0.1), "ftrl_update.*n"),
    ("signum_update", [_a(3), _a(3)], dict(lr=0.1), "signum_update"),
    ("signsgd_update", [_a(3), _a(3)], dict(lr="fast"), "signsgd_update"),
]


@pytest.mark.parametrize("name,inputs,params,match", BAD)
def test_bad_inputs(name, inputs, params, match):
    with pytest.raises(mx.base.MXNetError, match=match):
        getattr(mx.nd, name)(*inputs, **params).asnumpy()
    assert mx.nd.sgd_update(_a(1), _a(1), lr=0.1).asnumpy()[0] == 0
