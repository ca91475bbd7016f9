"""Rows of the optimizer update operators: numpy float64 forms of MXNet 1.x's update rules. The ops
mutate their state inputs: the `-states` rows run the op on fresh arrays and compare the mutated
states with the same rule."""
import inspect

import numpy as np

import mxnet as mx
from op_testing import FWD_TOL, HALF, Case, op
from op_rows._tensor_common import uni

# --------------------------------------------------------------------------------------------
# Optimizer updates: MXNet 1.x's rules in float64. Each rule returns (new weight, then the new
# value of every mutated state in input order). clip(x, c) with c < 0 means no clipping. The
# scalar hyper-parameters (lr, wd, momentum, betas, ...) are float32 parameters in MXNet 1.x: the
# rules see them rounded to float32, the arithmetic is float64.


def float32_params(rule):
    def f32(v):
        if isinstance(v, float):
            return float(np.float32(v))
        if isinstance(v, (tuple, list)) and all(isinstance(e, float) for e in v):
            return type(v)(float(np.float32(e)) for e in v)
        return v

    defaults = {k: v.default for k, v in inspect.signature(rule).parameters.items()
                if v.default is not inspect.Parameter.empty}

    def wrapped(*arrays, **p):
        return rule(*arrays, **{k: f32(v) for k, v in dict(defaults, **p).items()})
    return wrapped


def clip(g, c):
    return np.clip(g, -c, c) if c >= 0 else g


@float32_params
def sgd_rule(w, g, lr, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0, lazy_update=True):
    return ((1 - lr * wd) * w - lr * clip(rescale_grad * g, clip_gradient),)


@float32_params
def sgd_mom_rule(w, g, mom, lr, momentum=0.0, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0, lazy_update=True):
    mom = momentum * mom - lr * wd * w - lr * clip(rescale_grad * g, clip_gradient)
    return w + mom, mom


@float32_params
def nag_rule(w, g, mom, lr, momentum=0.0, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0):
    """MXNet 1.x's NAG: the momentum state holds the lr-scaled step (mom = momentum*mom - lr*g')."""
    gg = clip(rescale_grad * g, clip_gradient) + wd * w
    m1 = momentum * mom
    return w - m1 + (momentum + 1) * (m1 - lr * gg), m1 - lr * gg


def mp_sgd_rule(w, g, w32, **p):
    (new,) = sgd_rule(w32, g, **p)
    return new, new


def mp_sgd_mom_rule(w, g, mom, w32, **p):
    new, mom = sgd_mom_rule(w32, g, mom, **p)
    return new, mom, new


def mp_nag_rule(w, g, mom, w32, **p):
    """MXNet 1.9.1's mp kernel updates the momentum after the master weight, so the momentum's
    weight-decay term sees the new master weight (nag_rule run again from it gives that term)."""
    new, _ = nag_rule(w32, g, mom, **p)
    _, mom = nag_rule(new, g, mom, **p)
    return new, mom, new


def multi_rule(single, group):
    def rule(*arrays, lrs, wds, num_weights, momentum=None, **p):
        if momentum is not None:
            p["momentum"] = momentum
        out = []
        for i in range(num_weights):
            out.append(single(*arrays[i * group:(i + 1) * group], lr=lrs[i], wd=wds[i], **p)[0])
        return out
    return rule


@float32_params
def adam_rule(w, g, mean, var, lr, beta1=0.9, beta2=0.999, epsilon=1e-8, wd=0.0, rescale_grad=1.0,
              clip_gradient=-1.0, lazy_update=True):
    gg = clip(rescale_grad * g + wd * w, clip_gradient)
    mean = beta1 * mean + (1 - beta1) * gg
    var = beta2 * var + (1 - beta2) * gg * gg
    return w - lr * mean / (np.sqrt(var) + epsilon), mean, var


@float32_params
def adamw_rule(w, g, mean, var, rescale_grad, lr, eta, beta1=0.9, beta2=0.999, epsilon=1e-8, wd=0.0,
               clip_gradient=-1.0):
    scale = float(np.asarray(rescale_grad).ravel()[0])  # an input array, not a float32 parameter
    if not np.isfinite(scale) or scale == 0:  # a loss-scaler overflow: the step is skipped
        return w, mean, var
    gg = clip(scale * g, clip_gradient)
    mean = beta1 * mean + (1 - beta1) * gg
    var = beta2 * var + (1 - beta2) * gg * gg
    return w - eta * (lr * mean / (np.sqrt(var) + epsilon) + wd * w), mean, var


def mp_adamw_rule(w, g, mean, var, w32, rescale_grad, **p):
    new, mean, var = adamw_rule(w32, g, mean, var, rescale_grad, **p)
    return new, mean, var, new


@float32_params
def rmsprop_rule(w, g, n, lr, gamma1=0.95, epsilon=1e-8, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0,
                 clip_weights=-1.0):
    gg = clip(rescale_grad * g + wd * w, clip_gradient)
    n = (1 - gamma1) * gg * gg + gamma1 * n
    return clip(w - lr * gg / np.sqrt(n + epsilon), clip_weights), n


@float32_params
def rmspropalex_rule(w, g, n, gm, delta, lr, gamma1=0.95, gamma2=0.9, epsilon=1e-8, wd=0.0, rescale_grad=1.0,
                     clip_gradient=-1.0, clip_weights=-1.0):
    gg = clip(rescale_grad * g + wd * w, clip_gradient)
    n = (1 - gamma1) * gg * gg + gamma1 * n
    gm = (1 - gamma1) * gg + gamma1 * gm
    delta = gamma2 * delta - lr * gg / np.sqrt(n - gm * gm + epsilon)
    return clip(w + delta, clip_weights), n, gm, delta


@float32_params
def ftrl_rule(w, g, z, n, lr, lamda1=0.01, beta=1.0, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0):
    gg = clip(rescale_grad * g, clip_gradient)
    z = z + gg - (np.sqrt(n + gg * gg) - np.sqrt(n)) * w / lr
    n = n + gg * gg
    w = np.where(np.abs(z) > lamda1, (np.sign(z) * lamda1 - z) / ((beta + np.sqrt(n)) / lr + wd), 0.0)
    return w, z, n


@float32_params
def signsgd_rule(w, g, lr, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0):
    return ((1 - lr * wd) * w - lr * np.sign(g),)


@float32_params
def signum_rule(w, g, mom, lr, momentum=0.0, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0, wd_lh=0.0):
    mom = momentum * mom - (1 - momentum) * wd * w - (1 - momentum) * clip(rescale_grad * g, clip_gradient)
    return (1 - lr * wd_lh) * w + lr * np.sign(mom), mom


@float32_params
def lamb1_rule(w, g, mean, var, t, wd, beta1=0.9, beta2=0.999, epsilon=1e-6, bias_correction=True,
               rescale_grad=1.0, clip_gradient=-1.0):
    gg = clip(rescale_grad * g, clip_gradient)
    mean = beta1 * mean + (1 - beta1) * gg
    var = beta2 * var + (1 - beta2) * gg * gg
    mh, vh = (mean / (1 - beta1 ** t), var / (1 - beta2 ** t)) if bias_correction else (mean, var)
    return mh / (np.sqrt(vh) + epsilon) + wd * w, mean, var


@float32_params
def lamb2_rule(w, g, r1, r2, lr, lower_bound=-1.0, upper_bound=-1.0):
    r1, r2 = float(r1.ravel()[0]), float(r2.ravel()[0])
    if lower_bound > 0:
        r1 = max(r1, lower_bound)
    if upper_bound > 0:
        r1 = min(r1, upper_bound)
    ratio = 1.0 if r1 == 0 or r2 == 0 else r1 / r2
    return (w - lr * ratio * g,)


def first(rule):
    return lambda *a, **p: rule(*a, **p)[0]


def states_check(op_name, rule, mutated, dtype, f32=()):
    """Runs the op on fresh arrays of the row's dtype and compares the weight it returns and the
    states it mutated (input indices `mutated`, in the rule's order) with the numpy rule."""
    def check(outs, ins, **p):
        dts = ["float32" if (dtype in HALF and i in f32) else dtype for i in range(len(ins))]
        arrays = [mx.nd.array(a, dtype=d) for a, d in zip(ins, dts)]
        before = [a.asnumpy().astype(np.float64) for a in arrays]
        res = op(op_name)(*arrays, **p)
        res = res[0] if isinstance(res, (list, tuple)) else res
        want = rule(*before, **p)
        rtol, atol = FWD_TOL[dtype]
        np.testing.assert_allclose(res.asnumpy().astype(np.float64), want[0], rtol=rtol, atol=atol,
                                   err_msg="%s weight" % op_name)
        for k, i in enumerate(mutated):
            rtol, atol = FWD_TOL[dts[i]]
            np.testing.assert_allclose(arrays[i].asnumpy().astype(np.float64), want[k + 1], rtol=rtol, atol=atol,
                                       err_msg="%s state input %d" % (op_name, i))
    return check


def W(*shape):
    return uni(*shape, lo=-2.0, hi=2.0)


def G(*shape):
    """Gradients at least 0.05 away from 0 (sign-based rules stay well defined)."""
    r = uni(*shape)
    return np.sign(r) * (0.05 + np.abs(r))


def POS(*shape, lo=0.1, hi=1.0):
    return uni(*shape, lo=lo, hi=hi)


SH = (3, 4)
OPTIM_SPECS = [
    # (op, name, inputs, params, rule, mutated state indices, f32 inputs, dtypes)
    ("sgd_update", "plain", [W(*SH), G(*SH)], {"lr": 0.1}, sgd_rule, (), (), None),
    ("sgd_update", "wd_rescale_clip", [W(*SH), G(*SH) * 3], {"lr": 0.05, "wd": 0.1, "rescale_grad": 0.5,
                                                             "clip_gradient": 0.4}, sgd_rule, (), (), None),
    ("sgd_mom_update", "momentum_wd", [W(*SH), G(*SH), uni(*SH)], {"lr": 0.1, "momentum": 0.9, "wd": 0.01},
     sgd_mom_rule, (2,), (), None),
    ("sgd_mom_update", "clip", [W(*SH), G(*SH) * 4, uni(*SH)],
     {"lr": 0.2, "momentum": 0.5, "rescale_grad": 2.0, "clip_gradient": 1.0}, sgd_mom_rule, (2,), (), None),
    ("mp_sgd_update", "fp16_master", [W(*SH), G(*SH), W(*SH)], {"lr": 0.1, "wd": 0.05}, mp_sgd_rule, (2,), (2,),
     ("float16", "float32")),
    ("mp_sgd_mom_update", "fp16_master", [W(*SH), G(*SH), uni(*SH), W(*SH)],
     {"lr": 0.1, "momentum": 0.9, "wd": 0.01, "clip_gradient": 0.5}, mp_sgd_mom_rule, (2, 3), (2, 3),
     ("float16", "float32")),
    ("nag_mom_update", "momentum_wd", [W(*SH), G(*SH), uni(*SH)], {"lr": 0.1, "momentum": 0.9, "wd": 0.01},
     nag_rule, (2,), (), None),
    ("nag_mom_update", "rescale_clip", [W(*SH), G(*SH) * 3, uni(*SH)],
     {"lr": 0.05, "momentum": 0.8, "rescale_grad": 0.5, "clip_gradient": 0.6, "wd": 0.1}, nag_rule, (2,), (), None),
    ("mp_nag_mom_update", "fp16_master", [W(*SH), G(*SH), uni(*SH), W(*SH)],
     {"lr": 0.1, "momentum": 0.9, "wd": 0.01}, mp_nag_rule, (2, 3), (2, 3), ("float16", "float32")),
    ("adam_update", "defaults", [W(*SH), G(*SH), uni(*SH) * 0.1, POS(*SH) * 0.1], {"lr": 0.01}, adam_rule, (2, 3),
     (), None),
    ("adam_update", "wd_rescale_clip", [W(*SH), G(*SH) * 3, uni(*SH) * 0.1, POS(*SH) * 0.1],
     {"lr": 0.05, "beta1": 0.8, "beta2": 0.99, "epsilon": 1e-4, "wd": 0.1, "rescale_grad": 0.5,
      "clip_gradient": 0.7}, adam_rule, (2, 3), (), None),
    ("_adamw_update", "basic", [W(*SH), G(*SH), uni(*SH) * 0.1, POS(*SH) * 0.1, np.array([0.5])],
     {"lr": 0.01, "eta": 0.5, "wd": 0.1}, adamw_rule, (2, 3), (), None),
    ("_adamw_update", "clip", [W(*SH), G(*SH) * 3, uni(*SH) * 0.1, POS(*SH) * 0.1, np.array([2.0])],
     {"lr": 0.02, "eta": 1.0, "wd": 0.01, "beta1": 0.7, "beta2": 0.9, "epsilon": 1e-5, "clip_gradient": 1.5},
     adamw_rule, (2, 3), (), None),
    ("_adamw_update", "nan_scale_skips", [W(*SH), G(*SH), uni(*SH) * 0.1, POS(*SH) * 0.1, np.array([np.nan])],
     {"lr": 0.01, "eta": 1.0, "wd": 0.1}, adamw_rule, (2, 3), (), None),
    # MXNet 1.x takes rescale_grad as float32 whatever the weight's dtype
    ("_adamw_update", "float32_scale", [W(*SH), G(*SH), uni(*SH) * 0.1, POS(*SH) * 0.1,
                                        mx.nd.array([0.25], dtype="float32")],
     {"lr": 0.01, "eta": 1.0, "wd": 0.1}, adamw_rule, (), (), ("float64", "float32")),
    ("_contrib_adamw_update", "alias", [W(*SH), G(*SH), uni(*SH) * 0.1, POS(*SH) * 0.1, np.array([1.0])],
     {"lr": 0.01, "eta": 1.0}, adamw_rule, (2, 3), (), None),
    ("_mp_adamw_update", "fp16_master", [W(*SH), G(*SH), uni(*SH) * 0.1, POS(*SH) * 0.1, W(*SH), np.array([0.5])],
     {"lr": 0.01, "eta": 0.5, "wd": 0.1}, mp_adamw_rule, (2, 3, 4), (2, 3, 4, 5), ("float16", "float32")),
    ("_contrib_mp_adamw_update", "alias",
     [W(*SH), G(*SH), uni(*SH) * 0.1, POS(*SH) * 0.1, W(*SH), np.array([1.0])],
     {"lr": 0.01, "eta": 1.0, "wd": 0.05}, mp_adamw_rule, (2, 3, 4), (2, 3, 4, 5), ("float16",)),
    ("rmsprop_update", "defaults", [W(*SH), G(*SH), POS(*SH)], {"lr": 0.01}, rmsprop_rule, (2,), (), None),
    ("rmsprop_update", "wd_clip_weights", [W(*SH), G(*SH) * 3, POS(*SH)],
     {"lr": 0.5, "gamma1": 0.9, "epsilon": 1e-3, "wd": 0.1, "rescale_grad": 0.5, "clip_gradient": 1.0,
      "clip_weights": 1.5}, rmsprop_rule, (2,), (), None),
    ("rmspropalex_update", "defaults", [W(*SH), G(*SH), POS(*SH, lo=1.0, hi=2.0), uni(*SH) * 0.3, uni(*SH) * 0.1],
     {"lr": 0.01}, rmspropalex_rule, (2, 3, 4), (), None),
    ("rmspropalex_update", "wd_clip", [W(*SH), G(*SH) * 3, POS(*SH, lo=1.0, hi=2.0), uni(*SH) * 0.3,
                                       uni(*SH) * 0.1],
     {"lr": 0.3, "gamma1": 0.9, "gamma2": 0.8, "epsilon": 1e-4, "wd": 0.05, "rescale_grad": 0.5,
      "clip_gradient": 1.0, "clip_weights": 1.2}, rmspropalex_rule, (2, 3, 4), (), None),
    ("ftrl_update", "defaults", [W(*SH), G(*SH), uni(*SH), POS(*SH)], {"lr": 0.1}, ftrl_rule, (2, 3), (), None),
    ("ftrl_update", "l1_wd_clip", [W(*SH), G(*SH) * 3, uni(*SH), POS(*SH)],
     {"lr": 0.2, "lamda1": 0.3, "beta": 0.5, "wd": 0.1, "rescale_grad": 0.5, "clip_gradient": 1.0}, ftrl_rule,
     (2, 3), (), None),
    ("signsgd_update", "wd", [W(*SH), G(*SH)], {"lr": 0.1, "wd": 0.1}, signsgd_rule, (), (), None),
    # rescaling by a positive factor and clipping never change a sign
    ("signsgd_update", "rescale_clip", [W(*SH), G(*SH)], {"lr": 0.05, "rescale_grad": 3.0, "clip_gradient": 0.01},
     signsgd_rule, (), (), None),
    ("signum_update", "momentum_wd_lh", [W(*SH), G(*SH), uni(*SH)],
     {"lr": 0.1, "momentum": 0.9, "wd": 0.1, "wd_lh": 0.01}, signum_rule, (2,), (), None),
    ("signum_update", "no_momentum_clip", [W(*SH), G(*SH) * 3, uni(*SH)],
     {"lr": 0.1, "rescale_grad": 0.5, "clip_gradient": 0.5}, signum_rule, (2,), (), None),
    ("lamb_update_phase1", "bias_correction", [W(*SH), G(*SH), uni(*SH) * 0.1, POS(*SH) * 0.1],
     {"t": 3, "wd": 0.01}, lamb1_rule, (2, 3), (), None),
    ("lamb_update_phase1", "no_bias_correction_clip", [W(*SH), G(*SH) * 3, uni(*SH) * 0.1, POS(*SH) * 0.1],
     {"t": 1, "wd": 0.1, "beta1": 0.8, "beta2": 0.9, "epsilon": 1e-4, "bias_correction": False,
      "rescale_grad": 0.5, "clip_gradient": 1.0}, lamb1_rule, (2, 3), (), None),
    ("lamb_update_phase2", "ratio", [W(*SH), G(*SH), np.array([2.0]), np.array([0.5])], {"lr": 0.01},
     lamb2_rule, (), (), None),
    ("lamb_update_phase2", "bounds", [W(*SH), G(*SH), np.array([5.0]), np.array([0.5])],
     {"lr": 0.01, "lower_bound": 0.5, "upper_bound": 3.0}, lamb2_rule, (), (), None),
    ("lamb_update_phase2", "zero_norm_ratio_1", [W(*SH), G(*SH), np.array([0.0]), np.array([0.5])], {"lr": 0.01},
     lamb2_rule, (), (), None),
]

OPTIM = []
for _op, _name, _inputs, _params, _rule, _mut, _f32, _dtypes in OPTIM_SPECS:
    _dts = _dtypes or ("float32", "float64")
    OPTIM.append(Case(_op, _name, _inputs, _params, first(_rule), grad=(), f32_inputs=_f32, dtypes=_dts))
    if _mut:
        for _d in _dts:
            OPTIM.append(Case(_op, "%s-states" % _name, _inputs, _params,
                              check=states_check(_op, _rule, _mut, _d, _f32), f32_inputs=_f32, dtypes=(_d,)))

MW = [W(2, 3), G(2, 3), W(4), G(4)]
MWM = [W(2, 3), G(2, 3), uni(2, 3), W(4), G(4), uni(4)]
MWP = [W(2, 3), G(2, 3), W(2, 3), W(4), G(4), W(4)]
MWMP = [W(2, 3), G(2, 3), uni(2, 3), W(2, 3), W(4), G(4), uni(4), W(4)]
OPTIM += [
    Case("multi_sgd_update", "two_weights", MW, {"lrs": (0.1, 0.2), "wds": (0.01, 0.0), "num_weights": 2,
                                                 "rescale_grad": 0.5, "clip_gradient": 0.3},
         multi_rule(sgd_rule, 2), grad=(), outputs=2),
    Case("multi_sgd_mom_update", "two_weights", MWM, {"lrs": (0.1, 0.05), "wds": (0.0, 0.1), "momentum": 0.9,
                                                      "num_weights": 2},
         multi_rule(sgd_mom_rule, 3), grad=(), outputs=2),
    Case("multi_mp_sgd_update", "two_weights", MWP, {"lrs": (0.1, 0.2), "wds": (0.01, 0.02), "num_weights": 2},
         multi_rule(mp_sgd_rule, 3), grad=(), outputs=2, f32_inputs=(2, 5), dtypes=("float16", "float32")),
    Case("multi_mp_sgd_mom_update", "two_weights", MWMP,
         {"lrs": (0.1, 0.2), "wds": (0.01, 0.0), "momentum": 0.5, "num_weights": 2, "clip_gradient": 0.8},
         multi_rule(mp_sgd_mom_rule, 4), grad=(), outputs=2, f32_inputs=(2, 3, 6, 7),
         dtypes=("float16", "float32")),
    Case("multi_sgd_update", "one_weight", [W(5), G(5)], {"lrs": (0.3,), "wds": (0.1,), "num_weights": 1},
         multi_rule(sgd_rule, 2), grad=()),
]


def multi_states_check(op_name, single, group, mutated, dtype, f32=()):
    """Mutated states of a multi-tensor update: every weight's states follow the single rule."""
    def rule(*arrays, lrs, wds, num_weights, momentum=None, **p):
        if momentum is not None:
            p["momentum"] = momentum
        res = [single(*arrays[i * group:(i + 1) * group], lr=lrs[i], wd=wds[i], **p) for i in range(num_weights)]
        return [res[0][0]] + [r[1 + k] for r in res for k in range(len(mutated))]
    all_mutated = tuple(i * group + m for i in range(2) for m in mutated)
    return states_check(op_name, rule, all_mutated, dtype, f32)


for _d in ("float32", "float64"):
    OPTIM.append(Case("multi_sgd_mom_update", "states", MWM,
                      {"lrs": (0.1, 0.05), "wds": (0.0, 0.1), "momentum": 0.9, "num_weights": 2},
                      check=multi_states_check("multi_sgd_mom_update", sgd_mom_rule, 3, (2,), _d), dtypes=(_d,)))
for _d in ("float16", "float32"):
    OPTIM.append(Case("multi_mp_sgd_update", "states", MWP,
                      {"lrs": (0.1, 0.2), "wds": (0.01, 0.02), "num_weights": 2},
                      check=multi_states_check("multi_mp_sgd_update", mp_sgd_rule, 3, (2,), _d, (2, 5)),
                      f32_inputs=(2, 5), dtypes=(_d,)))
    OPTIM.append(Case("multi_mp_sgd_mom_update", "states", MWMP,
                      {"lrs": (0.1, 0.2), "wds": (0.01, 0.0), "momentum": 0.5, "num_weights": 2,
                       "clip_gradient": 0.8},
                      check=multi_states_check("multi_mp_sgd_mom_update", mp_sgd_mom_rule, 4, (2, 3), _d,
                                               (2, 3, 6, 7)),
                      f32_inputs=(2, 3, 6, 7), dtypes=(_d,)))

# --------------------------------------------------------------------------------------------

CASES = OPTIM
