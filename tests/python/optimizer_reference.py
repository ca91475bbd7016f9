"""MXNet 1.x's optimizer rules in numpy float64, written from their published formulas, and the
cases the optimizer tests run (here against these rules, and against MXNet 1.9.1 itself).

Every case runs STEPS steps over three weights with wd, rescale_grad and clip_gradient set and
most with FactorScheduler(step=2, factor=0.5), whose rate at update count n is
LR * 0.5 ** ((n - 1) // 2). Weight 1 is named 'a_bias' where names are given, so its wd_mult is
0 (only *_weight and *_gamma decay). A rule's states come back flattened in MXNet 1.x's order."""
import math

import numpy as np

LR, WD, RESCALE, CLIP = 0.1, 0.01, 0.5, 0.8
SHAPES = [(3, 4), (5,), (2, 3)]
STEPS = 5
SCHED = "lr_scheduler=mx.lr_scheduler.FactorScheduler(step=2, factor=0.5, base_lr=%s)" % LR
COMMON = "learning_rate=%s, wd=%s, rescale_grad=%s, clip_gradient=%s" % (LR, WD, RESCALE, CLIP)
NAMES = "param_idx2name={0: 'a_weight', 1: 'a_bias', 2: 'b_weight'}"


def inputs(seed=3):
    rs = np.random.RandomState(seed)
    w0s = [rs.randn(*s).astype(np.float32) for s in SHAPES]
    steps = [[(rs.randn(*s) * 2).astype(np.float32) for s in SHAPES] for _ in range(STEPS)]
    return w0s, steps


def factor_lr(n, base=LR):
    return base * 0.5 ** (max(n - 1, 0) // 2)


def clip(g, c):
    return np.clip(g, -c, c) if c else g


def prep(g, decay=0.0):
    """rescale, add the decay term, clip: the order of the rules that clip after weight decay."""
    return clip(RESCALE * g + decay, CLIP)


# ---- rules: step(w, g, state dict, t, lr, wd, shared dict) -> new w --------------------------
def sgd_mom(w, g, st, t, lr, wd, sh, m=0.9):
    st["mom"] = m * st["mom"] - lr * wd * w - lr * prep(g)
    return w + st["mom"]


def sgd_plain(w, g, st, t, lr, wd, sh):
    return (1 - lr * wd) * w - lr * prep(g)


def nag(w, g, st, t, lr, wd, sh, m=0.9):
    """1.x's kernel runs in place on the weight: the momentum's wd term sees the new weight."""
    m1 = m * st["mom"]
    new_w = w - m1 + (1 + m) * (m1 - lr * (prep(g) + wd * w))
    st["mom"] = m1 - lr * (prep(g) + wd * new_w)
    return new_w


def signum(w, g, st, t, lr, wd, sh, m=0.9, wd_lh=0.01):
    st["mom"] = m * st["mom"] - (1 - m) * (wd * w + prep(g))
    return (1 - lr * wd_lh) * w + lr * np.sign(st["mom"])


def signsgd(w, g, st, t, lr, wd, sh):
    return (1 - lr * wd) * w - lr * np.sign(prep(g))


def dcasgd(w, g, st, t, lr, wd, sh, m=0.0, lamda=0.1):
    g = prep(g)
    step = -lr * (g + wd * w + lamda * g * g * (w - st["prev"]))
    if m:
        st["mom"] = m * st["mom"] + step
        step = st["mom"]
    st["prev"] = w.copy()
    return w + step


def adam(w, g, st, t, lr, wd, sh, b1=0.9, b2=0.999, eps=1e-8):
    gg = prep(g, wd * w)
    st["m"] = b1 * st["m"] + (1 - b1) * gg
    st["v"] = b2 * st["v"] + (1 - b2) * gg * gg
    return w - lr * math.sqrt(1 - b2 ** t) / (1 - b1 ** t) * st["m"] / (np.sqrt(st["v"]) + eps)


def adamax(w, g, st, t, lr, wd, sh, b1=0.9, b2=0.999):
    gg = prep(g, wd * w)
    st["m"] = b1 * st["m"] + (1 - b1) * gg
    st["u"] = np.maximum(b2 * st["u"], np.abs(gg))
    return w - lr / (1 - b1 ** t) * st["m"] / st["u"]


def nadam(w, g, st, t, lr, wd, sh, b1=0.9, b2=0.999, eps=1e-8, decay=0.004):
    gg = prep(g, wd * w)
    mu_t = b1 * (1 - 0.5 * 0.96 ** (t * decay))
    mu_t1 = b1 * (1 - 0.5 * 0.96 ** ((t + 1) * decay))
    sh["M"] = sh.get("M", 1.0) * mu_t  # one running product for all weights
    st["m"] = b1 * st["m"] + (1 - b1) * gg
    st["v"] = b2 * st["v"] + (1 - b2) * gg * gg
    m_bar = (1 - mu_t) * gg / (1 - sh["M"]) + mu_t1 * st["m"] / (1 - sh["M"] * mu_t1)
    return w - lr * m_bar / (np.sqrt(st["v"] / (1 - b2 ** t)) + eps)


def ftml(w, g, st, t, lr, wd, sh, b1=0.6, b2=0.999, eps=1e-8):
    gg = prep(g, wd * w)
    st["v"] = b2 * st["v"] + (1 - b2) * gg * gg
    d_t = (1 - b1 ** t) / lr * (np.sqrt(st["v"] / (1 - b2 ** t)) + eps)
    st["z"] = b1 * st["z"] + (1 - b1) * gg - (d_t - b1 * st["d"]) * w
    st["d"] = d_t
    return -st["z"] / d_t


def lamb(w, g, st, t, lr, wd, sh, b1=0.9, b2=0.999, eps=1e-6, lower=0.5, upper=2.0):
    gg = prep(g)
    st["m"] = b1 * st["m"] + (1 - b1) * gg
    st["v"] = b2 * st["v"] + (1 - b2) * gg * gg
    d = st["m"] / (1 - b1 ** t) / (np.sqrt(st["v"] / (1 - b2 ** t)) + eps) + wd * w
    r1 = min(max(np.linalg.norm(w), lower), upper)
    r2 = np.linalg.norm(d)
    return w - lr * (r1 / r2 if r1 > 0 and r2 > 0 else 1.0) * d


def rmsprop(w, g, st, t, lr, wd, sh, g1=0.9, eps=1e-8, cw=1.5):
    gg = prep(g, wd * w)
    st["n"] = (1 - g1) * gg * gg + g1 * st["n"]
    return np.clip(w - lr * gg / np.sqrt(st["n"] + eps), -cw, cw)


def rmsprop_centered(w, g, st, t, lr, wd, sh, g1=0.9, g2=0.9, eps=1e-8, cw=1.5):
    gg = prep(g, wd * w)
    st["n"] = (1 - g1) * gg * gg + g1 * st["n"]
    st["g"] = (1 - g1) * gg + g1 * st["g"]
    st["delta"] = g2 * st["delta"] - lr * gg / np.sqrt(st["n"] - st["g"] ** 2 + eps)
    return np.clip(w + st["delta"], -cw, cw)


def adagrad(w, g, st, t, lr, wd, sh, eps=1e-7):
    g = prep(g)
    st["h"] = st["h"] + g * g
    return w - lr * (g / np.sqrt(st["h"] + eps) + wd * w)


def adadelta(w, g, st, t, lr, wd, sh, rho=0.9, eps=1e-5):
    g = prep(g)
    st["acc_g"] = rho * st["acc_g"] + (1 - rho) * g * g
    d = np.sqrt(st["acc_delta"] + eps) / np.sqrt(st["acc_g"] + eps) * g
    st["acc_delta"] = rho * st["acc_delta"] + (1 - rho) * d * d
    return w - d - wd * w


def ftrl(w, g, st, t, lr, wd, sh, lamda1=0.05, beta=1.0):
    g = prep(g)
    st["z"] = st["z"] + g - (np.sqrt(st["n"] + g * g) - np.sqrt(st["n"])) * w / lr
    st["n"] = st["n"] + g * g
    z = st["z"]
    return np.where(np.abs(z) > lamda1, (np.sign(z) * lamda1 - z) / ((beta + np.sqrt(st["n"])) / lr + wd), 0.0)


def lars(w, g, st, t, lr, wd, sh, m=0.9, eta=0.01, eps=1e-6):
    if not sh["names"][sh["index"]].endswith(("gamma", "beta", "bias")):
        wn, gn = np.linalg.norm(w), np.linalg.norm(g) * RESCALE
        if wn > 0 and gn > 0:
            lr = lr * eta * wn / (gn + wd * wn + eps)
    return sgd_mom(w, g, st, t, lr, wd, sh, m * sh["lr_ratio"])


def lbsgd(w, g, st, t, lr, wd, sh, m=0.9, batch_scale=2, nwup=4, strategy="linear"):
    st["num"] = st.get("num", 0) + 1
    st["cum"] = st.get("cum", 0) + g
    if st["num"] % batch_scale:
        return w
    g, st["cum"] = st["cum"] / batch_scale, 0
    if strategy == "lars":
        w2, g2 = np.sum(w * w), np.sum(g * g)
        mult = min(max(math.sqrt(w2 / (g2 + wd * w2 + 1e-18)), 0.01), 100)
    else:
        mult = batch_scale if st["num"] >= nwup else 1 + (batch_scale - 1) * st["num"] / nwup
    return sgd_mom(w, g, st, t, lr * mult, wd, sh, m) if m else sgd_plain(w, g, st, t, lr * mult, wd, sh)


def additive(w, g, st, t, lr, wd, sh):
    st["copy"] = w + RESCALE * g
    return st["copy"]


def simulate(rule, state_keys, w0s, steps, lr_of=lambda n: LR, wds=(WD, WD, WD), mode="list",
             lr_mults=(1.0, 1.0, 1.0), lr_before_count=False, **hp):
    """Runs `rule` over the steps as the Updater calls it ("list": all weights per call,
    "single": one per call); returns final weights and each weight's states (keys in 1.x order;
    key "w" is the weight itself, for the float32 master copy)."""
    ws = [w.astype(np.float64) for w in w0s]
    states = [{k: (w.copy() if k == "prev" else np.zeros_like(w)) for k in state_keys if k != "w"}
              for w in ws]
    shared = {"names": ["a_weight", "a_bias", "b_weight"], "lr_ratio": 1.0, "last_lr": None}
    num_update = 0  # the optimizer's count: the largest per-weight count so far
    for s, grads in enumerate(steps):
        for i, g in enumerate(grads):
            t = s + 1
            if lr_before_count:  # LBSGD reads the rate, then counts the update
                lr, num_update = lr_of(num_update), max(num_update, t)
            else:
                num_update = max(num_update, t)
                lr = lr_of(num_update)
            if mode == "single" or i == 0:  # a new call of the optimizer: LARS's rate ratio
                last = shared["last_lr"] if shared["last_lr"] is not None else lr
                shared["lr_ratio"] = lr / last if last else 1.0
                shared["last_lr"] = lr
            shared["index"] = i
            ws[i] = rule(ws[i], g.astype(np.float64), states[i], t, lr * lr_mults[i], wds[i], shared, **hp)
    flat = [[ws[i] if k == "w" else states[i][k] for k in state_keys] for i in range(len(ws))]
    return ws, flat
