"""Every MXNet 1.x optimizer, step by step against its rule in numpy float64 (with weight decay,
rescale_grad, clip_gradient, lr/wd multipliers and a scheduler), its state layout, the
mx.optimizer names, and optimizer pickles in MXNet 1.x's layout."""
import math
import pickle

import numpy as np
import pytest

import mxnet as mx
import optimizer_reference as R
import optimizer_steps as S
from optimizer_reference import COMMON, NAMES, SCHED

MXNET_191_NAMES = ["AdaDelta", "AdaGrad", "Adam", "Adamax", "DCASGD", "FTML", "Ftrl", "LAMB", "LARS",
                   "LBSGD", "NAG", "NDabs", "Nadam", "Optimizer", "RMSProp", "SGD", "SGLD", "Signum",
                   "Test", "Updater", "ccSGD", "contrib", "create", "get_updater", "optimizer", "register"]
MXNET_191_REGISTRY = ["adadelta", "adagrad", "adam", "adamax", "ccsgd", "dcasgd", "ftml", "ftrl",
                      "groupadagrad", "lamb", "lars", "lbsgd", "nadam", "nag", "rmsprop", "sgd", "sgld",
                      "signum", "test"]
NO_BIAS_WD = (R.WD, 0.0, R.WD)  # with NAMES, 'a_bias' gets wd_mult 0


def case(name, expr, rule, keys, mode="list", dtype="float32", lr_mult=None, **sim):
    return dict(name=name, expr=expr, rule=rule, keys=keys, mode=mode, dtype=dtype, lr_mult=lr_mult, sim=sim)


def _sched(ctor, *extra):
    return "mx.optimizer.%s(%s)" % (ctor, ", ".join(list(extra) + [COMMON, SCHED]))


def _plain(ctor, *extra):
    return "mx.optimizer.%s(%s)" % (ctor, ", ".join(list(extra) + [COMMON]))


LBSGD_WARMUP = "momentum=0.9, batch_scale=2, warmup_epochs=2, updates_per_epoch=2"

CASES = [
    case("sgd", _sched("SGD", "momentum=0.9"), R.sgd_mom, ["mom"], lr_of=R.factor_lr),
    case("sgd_single_mults", _plain("SGD", "momentum=0.9", NAMES), R.sgd_mom, ["mom"], mode="single",
         lr_mult={"2": 0.5}, wds=NO_BIAS_WD, lr_mults=(1.0, 1.0, 0.5)),
    case("ccsgd", _plain("ccSGD"), R.sgd_plain, []),
    case("nag", _sched("NAG", "momentum=0.9"), R.nag, ["mom"], lr_of=R.factor_lr),
    case("signum", _sched("Signum", "momentum=0.9", "wd_lh=0.01"), R.signum, ["mom"], lr_of=R.factor_lr),
    case("signsgd", _plain("Signum", "momentum=0.0"), R.signsgd, []),
    case("dcasgd", _sched("DCASGD", "lamda=0.1"), R.dcasgd, ["prev"], lr_of=R.factor_lr),
    case("adam", _sched("Adam"), R.adam, ["m", "v"], lr_of=R.factor_lr),
    case("adamax", _sched("Adamax"), R.adamax, ["m", "u"], lr_of=R.factor_lr),
    case("nadam", _sched("Nadam"), R.nadam, ["m", "v"], lr_of=R.factor_lr),
    case("ftml", _sched("FTML"), R.ftml, ["d", "v", "z"], lr_of=R.factor_lr),
    case("lamb", _sched("LAMB", "lower_bound=0.5", "upper_bound=2.0"), R.lamb, ["m", "v"], lr_of=R.factor_lr),
    case("lamb_single", _sched("LAMB", "lower_bound=0.5", "upper_bound=2.0"), R.lamb, ["m", "v"],
         mode="single", lr_of=R.factor_lr),
    case("rmsprop", _plain("RMSProp", "clip_weights=1.5"), R.rmsprop, ["n"]),
    case("rmsprop_centered", _sched("RMSProp", "centered=True", "clip_weights=1.5"), R.rmsprop_centered,
         ["n", "g", "delta"], lr_of=R.factor_lr),
    case("adagrad", _sched("AdaGrad"), R.adagrad, ["h"], lr_of=R.factor_lr),
    case("adadelta", _plain("AdaDelta"), R.adadelta, ["acc_g", "acc_delta"]),
    case("ftrl", _plain("Ftrl", "lamda1=0.05"), R.ftrl, ["z", "n"]),
    case("lars", _sched("LARS", "momentum=0.9", "eta=0.01", "eps=1e-6", NAMES), R.lars, ["mom"],
         lr_of=R.factor_lr, wds=NO_BIAS_WD),
    case("lars_single", _sched("LARS", "momentum=0.9", "eta=0.01", "eps=1e-6", NAMES), R.lars, ["mom"],
         mode="single", lr_of=R.factor_lr, wds=NO_BIAS_WD),
    case("lbsgd", _plain("LBSGD", LBSGD_WARMUP), R.lbsgd, ["mom"]),
    case("lbsgd_lars", _sched("LBSGD", "warmup_strategy='lars'"), R.lbsgd, [], lr_of=R.factor_lr,
         lr_before_count=True, m=0.0, batch_scale=1, strategy="lars"),
    case("test", "mx.optimizer.Test(rescale_grad=0.5)", R.additive, ["copy"]),
    # multi-precision: float16 weights, float32 master copies in 1.x's state order
    case("sgd_mp", _sched("SGD", "momentum=0.9", "multi_precision=True"), R.sgd_mom, ["mom", "w"],
         dtype="float16", lr_of=R.factor_lr),
    case("nag_mp", _plain("NAG", "momentum=0.9", "multi_precision=True"), R.nag, ["mom", "w"], dtype="float16"),
    case("adam_mp", _sched("Adam", "multi_precision=True"), R.adam, ["w", "m", "v"], dtype="float16",
         lr_of=R.factor_lr),
    case("lamb_mp", _plain("LAMB", "lower_bound=0.5", "upper_bound=2.0", "multi_precision=True"), R.lamb,
         ["w", "m", "v"], dtype="float16"),
    case("lars_mp", _plain("LARS", "momentum=0.9", "eta=0.01", "eps=1e-6", NAMES, "multi_precision=True"),
         R.lars, ["mom", "w"], dtype="float16", wds=NO_BIAS_WD),
    case("lbsgd_mp", _plain("LBSGD", LBSGD_WARMUP, "multi_precision=True"), R.lbsgd, ["w", "mom"],
         dtype="float16"),
]


def assert_close(ours, want, dtype):
    """float32 runs within a few float32 ulps of float64; float16 weights within float16's."""
    tol = 3e-3 if dtype == "float16" else 2e-5
    np.testing.assert_allclose(ours, want, rtol=tol, atol=tol * max(1.0, np.abs(want).max()))


def rounded_inputs(dtype):
    w0s, steps = R.inputs()
    cast = lambda a: a.astype(dtype).astype(np.float32)  # noqa: E731 (values the runtime sees)
    return [cast(w) for w in w0s], [[cast(g) for g in gs] for gs in steps]


@pytest.mark.parametrize("c", CASES, ids=[c["name"] for c in CASES])
def test_steps_follow_the_float64_rule(c):
    w0s, steps = rounded_inputs(c["dtype"])
    ws, states, _ = S.run_case(mx, c["expr"], w0s, steps, c["mode"], c["dtype"], c["lr_mult"])
    want_ws, want_states = R.simulate(c["rule"], c["keys"], w0s, steps, mode=c["mode"], **c["sim"])
    for i, (w, want) in enumerate(zip(ws, want_ws)):
        assert_close(w, want, c["dtype"])
        assert len(states[i]) == len(want_states[i]), "state layout of weight %d" % i
        for got, exp in zip(states[i], want_states[i]):
            assert got.shape == exp.shape
            assert_close(got, exp, c["dtype"])


def test_dcasgd_with_momentum_follows_its_rule():
    w0s, steps = R.inputs()
    ws, states, _ = S.run_case(mx, _plain("DCASGD", "momentum=0.9", "lamda=0.1"), w0s, steps)
    want_ws, want_states = R.simulate(R.dcasgd, ["mom", "prev"], w0s, steps, m=0.9)
    for w, st, want, want_st in zip(ws, states, want_ws, want_states):
        assert_close(w, want, "float32")
        for got, exp in zip(st, want_st):
            assert_close(got, exp, "float32")


def test_sgld_is_a_half_step_plus_noise_of_variance_lr():
    lr, wd = 0.04, 0.1
    rs = np.random.RandomState(5)
    w0 = rs.randn(300, 300).astype(np.float32)
    g = rs.randn(300, 300).astype(np.float32)
    opt = mx.optimizer.SGLD(learning_rate=lr, wd=wd, rescale_grad=0.5, clip_gradient=0.8)
    assert opt.create_state(0, mx.nd.array(w0)) is None
    w = mx.nd.array(w0)
    opt.update(0, w, mx.nd.array(g), None)
    w0d = w0.astype(np.float64)
    noise = w.asnumpy() - (w0d - lr / 2 * (np.clip(0.5 * g, -0.8, 0.8) + wd * w0d))
    assert abs(noise.mean()) < 5 * math.sqrt(lr) / 300
    assert abs(noise.std() - math.sqrt(lr)) < 0.02 * math.sqrt(lr)


def test_group_adagrad_keeps_one_accumulator_per_row():
    rs = np.random.RandomState(2)
    w0 = rs.randn(3, 4).astype(np.float32)
    grads = [rs.randn(3, 4).astype(np.float32) * 2 for _ in range(3)]
    opt = mx.optimizer.contrib.GroupAdaGrad(learning_rate=0.1, rescale_grad=0.5, clip_gradient=0.8)
    updater = mx.optimizer.get_updater(opt)
    w = mx.nd.array(w0)
    for g in grads:
        updater(0, mx.nd.array(g), w)
    ref, h = w0.astype(np.float64), np.zeros((3, 1))
    for g in grads:
        g = np.clip(0.5 * g.astype(np.float64), -0.8, 0.8)
        h += np.mean(g * g, axis=1, keepdims=True)
        ref = ref - 0.1 * g / np.sqrt(h + 1e-5)
    assert_close(w.asnumpy(), ref, "float32")
    assert updater.states[0].shape == (3, 1)
    assert_close(updater.states[0].asnumpy(), h, "float32")
    with pytest.raises(ValueError, match="2-D"):
        opt.create_state(1, mx.nd.ones((4,)))
    with pytest.raises(ValueError, match="weight decay"):
        mx.optimizer.contrib.GroupAdaGrad(wd=0.1).update(0, w, mx.nd.ones((3, 4)), mx.nd.zeros((3, 1)))


def test_mxnet_191_names_and_registry():
    present = [n for n in MXNET_191_NAMES if hasattr(mx.optimizer, n)]
    assert present == MXNET_191_NAMES
    assert set(MXNET_191_REGISTRY) <= set(mx.optimizer.Optimizer.opt_registry)
    for name in MXNET_191_REGISTRY:
        opt = mx.optimizer.Optimizer.create_optimizer(name)
        assert type(opt).__name__.lower() == name
        assert type(mx.optimizer.create(name.upper())) is type(opt)
    assert mx.optimizer.ccSGD is not mx.optimizer.SGD and issubclass(mx.optimizer.ccSGD, mx.optimizer.SGD)
    assert mx.optimizer.NDabs is mx.nd.abs
    with pytest.raises(ValueError, match="Cannot find optimizer"):
        mx.optimizer.Optimizer.create_optimizer("nosuch")
    with pytest.raises(DeprecationWarning):
        mx.optimizer.SGD().set_lr_scale({})


def test_register_through_the_class_and_module():
    @mx.optimizer.Optimizer.register
    class MyRule(mx.optimizer.Optimizer):  # pylint: disable=unused-variable
        pass
    assert mx.optimizer.Optimizer.opt_registry["myrule"] is MyRule
    assert isinstance(mx.optimizer.create("myrule", learning_rate=0.3), MyRule)
    del mx.optimizer.Optimizer.opt_registry["myrule"]
    with pytest.raises(TypeError, match="Optimizer class"):
        mx.optimizer.register(MyRule())


def test_defaults_match_mxnet_1x():
    o = mx.optimizer
    assert (o.Adamax().lr, o.Adamax().beta1, o.Adamax().beta2) == (0.002, 0.9, 0.999)
    nadam = o.Nadam()
    assert (nadam.lr, nadam.epsilon, nadam.schedule_decay, nadam.m_schedule) == (0.001, 1e-8, 0.004, 1.0)
    ftml = o.FTML()
    assert (ftml.lr, ftml.beta1, ftml.beta2, ftml.epsilon) == (0.01, 0.6, 0.999, 1e-8)
    lars = o.LARS()
    assert (lars.momentum, lars.eta, lars.eps, lars.momentum_correction, lars.lazy_update) == (0.0, 0.001, 0, True, True)
    lb = o.LBSGD()
    assert (lb.warmup_strategy, lb.warmup_epochs, lb.batch_scale, lb.updates_per_epoch, lb.num_epochs) == \
        ("linear", 5, 1, 32, 60)
    assert (o.DCASGD().lamda, o.Signum().momentum, o.Signum().lr, o.Ftrl().lr) == (0.04, 0.9, 0.01, 0.1)
    assert o.LAMB().aggregate_num == 45 and o.SGD().aggregate_num == 4 and o.Adam().aggregate_num == 0
    assert o.contrib.GroupAdaGrad().float_stable_eps == 1e-5


def test_pickled_optimizers_use_mxnet_1x_paths_and_attributes():
    sgd = mx.optimizer.SGD(momentum=0.9, param_dict={0: object()})
    blob = pickle.dumps(sgd)
    assert b"mxnet.optimizer.optimizer" in blob
    back = pickle.loads(blob)
    assert type(back) is mx.optimizer.SGD and back.param_dict == {} and back.momentum == 0.9
    for name in ("Adam", "LARS", "Nadam", "LBSGD", "Test"):
        assert getattr(mx.optimizer.optimizer, name) is getattr(mx.optimizer, name)
    attrs = set(vars(mx.optimizer.Optimizer()))
    assert attrs == {"_all_index_update_counts", "_index_update_count", "aggregate_num", "allow_np_array",
                     "begin_num_update", "clip_gradient", "idx2name", "lr", "lr_mult", "lr_scheduler",
                     "multi_precision", "num_update", "param_dict", "rescale_grad", "sym_info", "wd",
                     "wd_mult"}


def test_update_counts_are_kept_per_device_id():
    opt = mx.optimizer.Adam()
    updater = mx.optimizer.get_updater(opt)
    updater(0, mx.nd.ones((2,)), mx.nd.ones((2,)))
    assert opt._all_index_update_counts == {0: {0: 1}}


def test_older_pickles_of_this_runtime_still_load():
    opt = mx.optimizer.SGD(momentum=0.9)
    state = opt.__getstate__()
    state.pop("sym_info")
    state.pop("allow_np_array")
    state["sym"] = None
    counts = {0: 3}
    state["_all_index_update_counts"] = {(1, 0): counts}
    state["_index_update_count"] = counts
    old = pickle.loads(pickle.dumps(state))
    sgd = mx.optimizer.SGD.__new__(mx.optimizer.SGD)
    sgd.__setstate__(old)
    assert sgd.sym_info == () and sgd._all_index_update_counts == {0: {0: 3}}
    assert sgd._index_update_count is sgd._all_index_update_counts[0]


def test_symbol_multipliers_through_sym_info():
    data = mx.sym.Variable("data")
    w = mx.sym.Variable("fc_weight", lr_mult=0.5, wd_mult=2.0)
    net = mx.sym.FullyConnected(data, weight=w, num_hidden=2, name="fc")
    opt = mx.optimizer.SGD(sym=net, param_idx2name={0: "fc_weight", 1: "fc_bias"}, wd=0.1)
    assert opt.lr_mult == {"fc_weight": 0.5}
    assert opt.wd_mult == {"fc_bias": 0.0, "fc_weight": 2.0}
    assert opt._get_wd(0) == pytest.approx(0.2) and opt._get_lr(0) == pytest.approx(0.005)
