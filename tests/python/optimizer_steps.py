"""Runs optimizer steps in whichever `mxnet` is importable: this runtime (imported by the tests)
or MXNet 1.9.1 (run as a script by the peer's Python). Script use:

    python optimizer_steps.py steps CASES.json INPUT.npz OUTPUT.npz
    python optimizer_steps.py dump CASES.json INPUT.npz DIR K
    python optimizer_steps.py resume CASES.json INPUT.npz DIR K OUTPUT.npz
    python optimizer_steps.py trainer TRAINER.json INPUT.npz DIR

`steps` runs every step; `dump` runs the first K and writes DIR/<name>.states (the Updater's
get_states(dump_optimizer=True)) and DIR/<name>.npz (the weights then); `resume` loads those into
a fresh Updater (whose own optimizer the file replaces) and runs the remaining steps. `trainer`
trains a Dense layer with gluon.Trainer (see train_dense).

CASES.json lists {"name", "expr", "mode", "dtype", "lr_mult"}: `expr` builds the optimizer from
`mx`, `mode` is "list" (one Updater call per step with every weight) or "single" (one call per
weight), `lr_mult` ({index: multiplier}) goes to set_lr_mult. INPUT.npz holds w0_<i> and g<step>_<i>. OUTPUT.npz gets <name>/w<i> (final weights,
float64) and <name>/s<i>_<k> (each weight's states, flattened in order, None left out)."""
import json
import os
import sys

import numpy as np


def flatten_state(state):
    """The arrays of a (nested) optimizer state, in order, leaving out None."""
    if state is None:
        return []
    if isinstance(state, (list, tuple)):
        return [a for s in state for a in flatten_state(s)]
    return [state]


def run_case(mx, expr, w0s, steps, mode="list", dtype="float32", lr_mult=None):
    """Runs `steps` (a list of per-weight gradient lists) through a fresh Updater; returns the
    final weights and each weight's flattened states as float64 numpy arrays, and the Updater."""
    opt = eval(expr, {"mx": mx})  # pylint: disable=eval-used
    if lr_mult:
        opt.set_lr_mult({int(k): v for k, v in lr_mult.items()})
    updater = mx.optimizer.get_updater(opt)
    weights = [mx.nd.array(w, dtype=dtype) for w in w0s]
    for grads in steps:
        grads = [mx.nd.array(g, dtype=dtype) for g in grads]
        if mode == "list":
            updater(list(range(len(weights))), grads, weights)
        else:
            for i, (g, w) in enumerate(zip(grads, weights)):
                updater(i, g, w)
    ws = [w.asnumpy().astype(np.float64) for w in weights]
    states = [[a.asnumpy().astype(np.float64) for a in flatten_state(updater.states[i])]
              for i in range(len(weights))]
    return ws, states, updater


def dump_midway(mx, case, w0s, steps, k, directory):
    """Runs the first k steps of `case`; writes its states with the optimizer and its weights."""
    ws, _, updater = run_case(mx, case["expr"], w0s, steps[:k], case.get("mode", "list"),
                              case.get("dtype", "float32"), case.get("lr_mult"))
    with open(os.path.join(directory, case["name"] + ".states"), "wb") as f:
        f.write(updater.get_states(dump_optimizer=True))
    np.savez(os.path.join(directory, case["name"] + ".npz"), *ws)


def resume(mx, case, steps, k, directory):
    """Continues a case from what dump_midway wrote (by either runtime): a fresh optimizer of
    the case is replaced by the pickled one. Returns the final weights."""
    mode, dtype = case.get("mode", "list"), case.get("dtype", "float32")
    fresh = eval(case["expr"], {"mx": mx})  # pylint: disable=eval-used
    updater = mx.optimizer.get_updater(fresh)
    with open(os.path.join(directory, case["name"] + ".states"), "rb") as f:
        updater.set_states(f.read())
    assert updater.optimizer is not fresh and type(updater.optimizer) is type(fresh)
    saved = np.load(os.path.join(directory, case["name"] + ".npz"))
    weights = [mx.nd.array(saved["arr_%d" % i], dtype=dtype) for i in range(len(saved.files))]
    for grads in steps[k:]:
        grads = [mx.nd.array(g, dtype=dtype) for g in grads]
        if mode == "list":
            updater(list(range(len(weights))), grads, weights)
        else:
            for i, (g, w) in enumerate(zip(grads, weights)):
                updater(i, g, w)
    return [w.asnumpy().astype(np.float64) for w in weights]


def train_dense(mx, config, data, states_in=None, states_out=None, save_after=None):
    """Trains Dense(3, in_units=4) from data['w0'], data['b0'] (or the weights saved with
    states_in) on the batches data['x<k>'] with loss sum(out^2) through gluon.Trainer(config
    optimizer, eval of config params). With states_in, Trainer.load_states(states_in) first and
    the batches from save_after on; with states_out, save_states after save_after batches.
    Returns the final weight and bias; the save also writes them to states_out + '.npz'."""
    net = mx.gluon.nn.Dense(3, in_units=4)
    net.initialize()
    start = np.load(states_in + ".npz") if states_in else data
    net.weight.set_data(mx.nd.array(start["w0"]))
    net.bias.set_data(mx.nd.array(start["b0"]))
    trainer = mx.gluon.Trainer(net.collect_params(), config["optimizer"],
                               eval(config["params"], {"mx": mx}))  # pylint: disable=eval-used
    n_batches = len([k for k in data.files if k.startswith("x")])
    first = 0
    if states_in:
        trainer.load_states(states_in)
        first = save_after
    for k in range(first, n_batches):
        x = mx.nd.array(data["x%d" % k])
        with mx.autograd.record():
            loss = (net(x) ** 2).sum()
        loss.backward()
        trainer.step(x.shape[0])
        if states_out and k + 1 == save_after:
            trainer.save_states(states_out)
            np.savez(states_out + ".npz", w0=net.weight.data().asnumpy(), b0=net.bias.data().asnumpy())
    return [net.weight.data().asnumpy().astype(np.float64), net.bias.data().asnumpy().astype(np.float64)]


def load_inputs(data):
    n = len([k for k in data.files if k.startswith("w0_")])
    w0s = [data["w0_%d" % i] for i in range(n)]
    n_steps = len([k for k in data.files if k.startswith("g") and k.endswith("_0")])
    steps = [[data["g%d_%d" % (s, i)] for i in range(n)] for s in range(n_steps)]
    return w0s, steps


def main(command, cases_path, input_path, *rest):
    import mxnet as mx
    with open(cases_path) as f:
        cases = json.load(f)
    data = np.load(input_path)
    if command == "trainer":
        for config in cases:
            path = os.path.join(rest[0], config["name"] + ".states")
            if config.get("resume"):
                out = train_dense(mx, config, data, states_in=path, save_after=config["save_after"])
                np.savez(path + ".resumed.npz", *out)
            else:
                out = train_dense(mx, config, data, states_out=path, save_after=config["save_after"])
                np.savez(path + ".final.npz", *out)
        return
    w0s, steps = load_inputs(data)
    if command == "dump":
        for case in cases:
            dump_midway(mx, case, w0s, steps, int(rest[1]), rest[0])
        return
    out = {}
    for case in cases:
        if command == "resume":
            ws, states = resume(mx, case, steps, int(rest[1]), rest[0]), []
        else:
            ws, states, _ = run_case(mx, case["expr"], w0s, steps, case.get("mode", "list"),
                                     case.get("dtype", "float32"), case.get("lr_mult"))
        for i, w in enumerate(ws):
            out["%s/w%d" % (case["name"], i)] = w
        for i, arrays in enumerate(states):
            for k, a in enumerate(arrays):
                out["%s/s%d_%d" % (case["name"], i, k)] = a
    np.savez(rest[-1], **out)


if __name__ == "__main__":
    main(*sys.argv[1:])
