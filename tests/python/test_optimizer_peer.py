"""Optimizers against MXNet 1.9.1 itself (skipped without the peer): the same steps give the
same weights and states; Updater states pickled with the optimizer (dump_optimizer=True) and
gluon.Trainer.save_states files written by either runtime resume in the other exactly as an
uninterrupted run goes on."""
import json
import os
import subprocess

import numpy as np
import pytest

import mxnet as mx
import optimizer_steps as S
from peer_oracle import PEER_PYTHON as PEER, peer_env
from test_optimizer_more import CASES, assert_close, rounded_inputs

HERE = os.path.dirname(os.path.abspath(__file__))
pytestmark = pytest.mark.skipif(not os.path.exists(PEER), reason="needs the MXNet 1.9.1 peer")
MIDWAY = 3  # steps before the states are saved and the other runtime takes over
DTYPES = ("float32", "float16")


def _peer(*args):
    """Runs optimizer_steps.py under MXNet 1.9.1, with none of this runtime on its paths."""
    proc = subprocess.run([PEER, os.path.join(HERE, "optimizer_steps.py")] + [str(a) for a in args],
                          env=peer_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
    assert proc.returncode == 0, proc.stderr.decode()[-3000:]


def _spec(c):
    return {k: c[k] for k in ("name", "expr", "mode", "dtype", "lr_mult")}


def _write_inputs(path, w0s, steps):
    arrays = {"w0_%d" % i: w for i, w in enumerate(w0s)}
    arrays.update({"g%d_%d" % (s, i): g for s, gs in enumerate(steps) for i, g in enumerate(gs)})
    np.savez(path, **arrays)


@pytest.fixture(scope="module")
def peer_runs(tmp_path_factory):
    """Per dtype: MXNet 1.9.1's uninterrupted runs of every case, its resumption of our saved
    states, and its own saved states (for us to resume)."""
    root = tmp_path_factory.mktemp("optimizer_peer")
    out = {}
    for dtype in DTYPES:
        d = root / dtype
        ours_dir, theirs_dir = d / "ours", d / "theirs"
        ours_dir.mkdir(parents=True)
        theirs_dir.mkdir()
        cases = [_spec(c) for c in CASES if c["dtype"] == dtype]
        (d / "cases.json").write_text(json.dumps(cases))
        w0s, steps = rounded_inputs(dtype)
        _write_inputs(d / "in.npz", w0s, steps)
        for c in cases:
            S.dump_midway(mx, c, w0s, steps, MIDWAY, str(ours_dir))
        _peer("steps", d / "cases.json", d / "in.npz", d / "full.npz")
        _peer("dump", d / "cases.json", d / "in.npz", theirs_dir, MIDWAY)
        _peer("resume", d / "cases.json", d / "in.npz", ours_dir, MIDWAY, d / "resumed.npz")
        out[dtype] = dict(full=np.load(d / "full.npz"), resumed=np.load(d / "resumed.npz"),
                          theirs_dir=str(theirs_dir), w0s=w0s, steps=steps)
    return out


@pytest.mark.parametrize("c", CASES, ids=[c["name"] for c in CASES])
def test_steps_match_mxnet_191(peer_runs, c):
    run = peer_runs[c["dtype"]]
    ws, states, _ = S.run_case(mx, c["expr"], run["w0s"], run["steps"], c["mode"], c["dtype"], c["lr_mult"])
    for i, w in enumerate(ws):
        assert_close(w, run["full"]["%s/w%d" % (c["name"], i)], c["dtype"])
        theirs = [k for k in run["full"].files if k.startswith("%s/s%d_" % (c["name"], i))]
        assert len(states[i]) == len(theirs), "state layout of weight %d" % i
        for k, a in enumerate(states[i]):
            want = run["full"]["%s/s%d_%d" % (c["name"], i, k)]
            assert a.shape == want.shape
            assert_close(a, want, c["dtype"])


@pytest.mark.parametrize("c", CASES, ids=[c["name"] for c in CASES])
def test_states_with_optimizer_from_mxnet_191_resume_here(peer_runs, c):
    run = peer_runs[c["dtype"]]
    ws = S.resume(mx, _spec(c), run["steps"], MIDWAY, run["theirs_dir"])
    for i, w in enumerate(ws):
        assert_close(w, run["full"]["%s/w%d" % (c["name"], i)], c["dtype"])


@pytest.mark.parametrize("c", CASES, ids=[c["name"] for c in CASES])
def test_states_with_optimizer_from_here_resume_in_mxnet_191(peer_runs, c):
    run = peer_runs[c["dtype"]]
    ws, _, _ = S.run_case(mx, c["expr"], run["w0s"], run["steps"], c["mode"], c["dtype"], c["lr_mult"])
    for i, w in enumerate(ws):
        assert_close(run["resumed"]["%s/w%d" % (c["name"], i)], w, c["dtype"])


def test_group_adagrad_matches_mxnet_191(tmp_path):
    case = {"name": "groupadagrad", "mode": "list", "dtype": "float32", "lr_mult": None,
            "expr": "mx.optimizer.contrib.GroupAdaGrad(learning_rate=0.1, rescale_grad=0.5, clip_gradient=0.8)"}
    rs = np.random.RandomState(4)
    w0s = [rs.randn(3, 4).astype(np.float32), rs.randn(2, 5).astype(np.float32)]
    steps = [[(rs.randn(*w.shape) * 2).astype(np.float32) for w in w0s] for _ in range(4)]
    _write_inputs(tmp_path / "in.npz", w0s, steps)
    (tmp_path / "cases.json").write_text(json.dumps([case]))
    _peer("steps", tmp_path / "cases.json", tmp_path / "in.npz", tmp_path / "full.npz")
    theirs = np.load(tmp_path / "full.npz")
    ws, states, _ = S.run_case(mx, case["expr"], w0s, steps)
    for i, (w, st) in enumerate(zip(ws, states)):
        assert_close(w, theirs["groupadagrad/w%d" % i], "float32")
        assert_close(st[0], theirs["groupadagrad/s%d_0" % i], "float32")


TRAINER_CONFIGS = [
    {"name": "adam", "optimizer": "adam",
     "params": "{'learning_rate': 0.05, 'wd': 0.01, 'clip_gradient': 1.0, 'lr_scheduler': "
               "mx.lr_scheduler.FactorScheduler(step=2, factor=0.5, base_lr=0.05)}"},
    {"name": "nadam", "optimizer": "nadam", "params": "{'learning_rate': 0.05, 'wd': 0.01}"},
    {"name": "sgd", "optimizer": "sgd", "params": "{'learning_rate': 0.05, 'momentum': 0.9, 'wd': 0.01}"},
    {"name": "lars", "optimizer": "lars", "params": "{'learning_rate': 0.5, 'momentum': 0.9, 'eta': 0.1}"},
]
TRAINER_SAVE_AFTER = 3


def _trainer_data(path):
    rs = np.random.RandomState(9)
    arrays = {"w0": rs.randn(3, 4).astype(np.float32), "b0": rs.randn(3).astype(np.float32)}
    arrays.update({"x%d" % k: rs.randn(5, 4).astype(np.float32) for k in range(6)})
    np.savez(path, **arrays)
    return np.load(path)


def _trainer_configs(path, resume):
    # the resuming Trainer starts from other settings: the file's optimizer must replace them
    configs = [dict(c, save_after=TRAINER_SAVE_AFTER, resume=resume,
                    params=c["params"].replace("'learning_rate': 0.05", "'learning_rate': 0.7") if resume
                    else c["params"]) for c in TRAINER_CONFIGS]
    path.write_text(json.dumps(configs))
    return configs


def test_trainer_states_interchange_with_mxnet_191(tmp_path):
    """Trainer.save_states (the optimizer pickled with its states) written by 1.9.1 resumes here
    as 1.9.1's own run goes on, and ours resumes in 1.9.1 as our run goes on."""
    data = _trainer_data(tmp_path / "data.npz")
    theirs_dir, ours_dir = tmp_path / "theirs", tmp_path / "ours"
    theirs_dir.mkdir()
    ours_dir.mkdir()
    _trainer_configs(tmp_path / "save.json", resume=False)
    _peer("trainer", tmp_path / "save.json", tmp_path / "data.npz", theirs_dir)
    configs = _trainer_configs(tmp_path / "resume.json", resume=True)
    for c in TRAINER_CONFIGS:
        path = str(ours_dir / (c["name"] + ".states"))
        final = S.train_dense(mx, dict(c, save_after=TRAINER_SAVE_AFTER), data, states_out=path,
                              save_after=TRAINER_SAVE_AFTER)
        np.savez(path + ".final.npz", *final)
    _peer("trainer", tmp_path / "resume.json", tmp_path / "data.npz", ours_dir)
    for c in configs:
        theirs_path = str(theirs_dir / (c["name"] + ".states"))
        resumed_here = S.train_dense(mx, c, data, states_in=theirs_path, save_after=TRAINER_SAVE_AFTER)
        theirs_final = np.load(theirs_path + ".final.npz")
        ours_path = str(ours_dir / (c["name"] + ".states"))
        resumed_there = np.load(ours_path + ".resumed.npz")
        ours_final = np.load(ours_path + ".final.npz")
        for k in range(2):
            assert_close(resumed_here[k], theirs_final["arr_%d" % k], "float32")
            assert_close(resumed_there["arr_%d" % k], ours_final["arr_%d" % k], "float32")
