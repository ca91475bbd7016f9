"""The native kvstores (mx.kv): sums over devices, updaters, optimizers, errors, 2-bit
compression. Expected values come from NumPy models of the documented rules."""
import os
import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest

import mxnet as mx
from mxnet import nd
from mxnet.base import MXNetError
from peer_oracle import PEER_PYTHON as PEER, REPO, peer_env

SHAPE = (4, 4)
KEYS = [5, 7, 11]
STR_KEYS = ["b", "c", "d"]
NDEV = 4
CTXS = [mx.cpu(i) for i in range(NDEV)]


def _store(kv_type="local", key=3, keys=KEYS):
    kv = mx.kv.create(kv_type)
    kv.init(key, nd.zeros(SHAPE))
    kv.init(keys, [nd.zeros(SHAPE)] * len(keys))
    return kv


def _pulled(kv, key):
    out = nd.empty(SHAPE)
    kv.pull(key, out=out)
    return out.asnumpy()


# -- types and identity --------------------------------------------------------------------------

def test_create_rejects_non_str():
    with pytest.raises(TypeError):
        mx.kv.create(3)


@pytest.mark.parametrize("name", ["local", "device", "Local_Allreduce_CPU", "local_allreduce_device"])
def test_type_rank_workers(name):
    kv = mx.kv.create(name)
    assert isinstance(kv, mx.kv.KVStore)
    assert kv.type == name.lower()
    assert kv.rank == 0
    assert kv.num_workers == 1
    kv._barrier()
    assert kv.is_capable("optimizer") and kv.is_capable("OPTIMIZER")
    with pytest.raises(ValueError):
        kv.is_capable("magic")


def test_module_aliases():
    assert mx.kv is mx.kvstore
    assert mx.kv.create is mx.kvstore.base.create


# -- init, push, pull ----------------------------------------------------------------------------

@pytest.mark.parametrize("key", [3, "a"])
def test_init_then_pull_returns_the_value(key):
    kv = mx.kv.create("local")
    value = np.random.RandomState(0).rand(*SHAPE).astype(np.float32)
    source = nd.array(value)
    kv.init(key, source)
    source[:] = 0  # the store holds a copy
    np.testing.assert_array_equal(_pulled(kv, key), value)


@pytest.mark.parametrize("kv_type", ["local", "device"])
@pytest.mark.parametrize("key,keys", [(3, KEYS), ("a", STR_KEYS)])
def test_push_then_pull(kv_type, key, keys):
    kv = _store(kv_type, key, keys)
    kv.push(key, nd.ones(SHAPE))
    np.testing.assert_array_equal(_pulled(kv, key), np.ones(SHAPE))
    kv.push(keys, [nd.ones(SHAPE) * 2] * len(keys))
    outs = [nd.empty(SHAPE) for _ in keys]
    kv.pull(keys, out=outs)
    for o in outs:
        np.testing.assert_array_equal(o.asnumpy(), np.full(SHAPE, 2.0))


@pytest.mark.parametrize("kv_type", ["local", "device"])
@pytest.mark.parametrize("key,keys", [(3, KEYS), ("a", STR_KEYS)])
def test_values_of_one_key_are_summed(kv_type, key, keys):
    kv = _store(kv_type, key, keys)
    kv.push(key, [nd.ones(SHAPE, ctx=c) for c in CTXS])
    outs = [nd.empty(SHAPE, ctx=c) for c in CTXS]
    kv.pull(key, out=outs)
    for o in outs:
        np.testing.assert_array_equal(o.asnumpy(), np.full(SHAPE, float(NDEV)))
    kv.push(keys, [[nd.ones(SHAPE, ctx=c) * 2 for c in CTXS]] * len(keys))
    outs = [[nd.empty(SHAPE, ctx=c) for c in CTXS] for _ in keys]
    kv.pull(keys, out=outs)
    for per_key in outs:
        for o in per_key:
            np.testing.assert_array_equal(o.asnumpy(), np.full(SHAPE, 2.0 * NDEV))


def test_random_values_sum_like_numpy():
    rs = np.random.RandomState(3)
    grads = [rs.randn(*SHAPE).astype(np.float32) for _ in CTXS]
    kv = mx.kv.create("local")
    kv.init(0, nd.zeros(SHAPE))
    kv.push(0, [nd.array(g, ctx=c) for g, c in zip(grads, CTXS)])
    np.testing.assert_allclose(_pulled(kv, 0), np.sum(grads, axis=0), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("key", [3, "a"])
def test_updater_accumulates(key):
    kv = mx.kv.create("local")
    kv.init(key, nd.zeros(SHAPE))
    seen = []

    def updater(k, recv, local):
        seen.append(k)
        local[:] = local + recv
    kv._set_updater(updater)
    rounds = 4
    for _ in range(rounds):
        kv.push(key, [nd.ones(SHAPE, ctx=c) for c in CTXS])
    outs = [nd.empty(SHAPE, ctx=c) for c in CTXS]
    kv.pull(key, out=outs)
    for o in outs:
        np.testing.assert_array_equal(o.asnumpy(), np.full(SHAPE, float(rounds * NDEV)))
    # str keys reach the updater as bytes, int keys as int
    assert seen == [key.encode() if isinstance(key, str) else key] * rounds


def test_updater_error_is_raised_by_the_store():
    kv = mx.kv.create("local")
    kv.init(1, nd.zeros(SHAPE))

    def updater(key, recv, local):
        raise ValueError("bad update")
    kv._set_updater(updater)
    with pytest.raises(ValueError, match="bad update"):
        kv.push(1, nd.ones(SHAPE))
        kv.pull(1, out=nd.empty(SHAPE))


@pytest.mark.parametrize("kv_type", ["local", "device"])
@pytest.mark.parametrize("key", [3, "a"])
def test_pushpull(kv_type, key):
    kv = mx.kv.create(kv_type)
    kv.init(key, nd.zeros(SHAPE))
    outs = [nd.empty(SHAPE, ctx=c) for c in CTXS]
    kv.pushpull(key, [nd.ones(SHAPE, ctx=c) for c in CTXS], out=outs)
    for o in outs:
        np.testing.assert_array_equal(o.asnumpy(), np.full(SHAPE, float(NDEV)))
    values = [nd.ones(SHAPE, ctx=c) * 2 for c in CTXS]
    kv.pushpull(key, values)  # in place
    for v in values:
        np.testing.assert_array_equal(v.asnumpy(), np.full(SHAPE, 2.0 * NDEV))


@pytest.mark.parametrize("key", [3, "a"])
def test_broadcast_once_per_key(key):
    kv = mx.kv.create("local")
    value = np.arange(16, dtype=np.float32).reshape(SHAPE)
    outs = [nd.zeros(SHAPE, ctx=c) for c in CTXS]
    kv.broadcast(key, nd.array(value), out=outs)
    for o in outs:
        np.testing.assert_array_equal(o.asnumpy(), value)
    with pytest.raises(MXNetError, match="duplicate init"):
        kv.broadcast(key, nd.array(value), out=outs)


def test_push_order_within_a_call_is_by_key():
    # one value per key; the stored values are independent of the order keys are listed in
    kv = mx.kv.create("local")
    kv.init([2, 1], [nd.zeros(SHAPE), nd.zeros(SHAPE)])
    kv.push([2, 1], [nd.ones(SHAPE) * 2, nd.ones(SHAPE)])
    np.testing.assert_array_equal(_pulled(kv, 1), np.ones(SHAPE))
    np.testing.assert_array_equal(_pulled(kv, 2), np.full(SHAPE, 2.0))


# -- row_sparse_pull on dense arrays ---------------------------------------------------------------

def _rows_expected(stored, rows):
    expected = np.zeros_like(stored)
    rows = np.unique(np.asarray(rows, dtype=np.int64).ravel())
    expected[rows] = stored[rows]
    return expected


@pytest.mark.parametrize("key", [3, "a"])
def test_row_sparse_pull_gives_the_requested_rows(key):
    rs = np.random.RandomState(5)
    stored = rs.rand(*SHAPE).astype(np.float32) + 1
    kv = mx.kv.create("local")
    kv.init(key, nd.array(stored))
    # one row_ids per out, any order and repeats, given as 1-D or 2-D
    row_ids = [rs.randint(0, SHAPE[0], size=(2, 3)) for _ in CTXS]
    outs = [nd.ones(SHAPE, ctx=c) * -1 for c in CTXS]
    kv.row_sparse_pull(key, out=outs, row_ids=[nd.array(r, ctx=c) for r, c in zip(row_ids, CTXS)])
    for o, r in zip(outs, row_ids):
        np.testing.assert_array_equal(o.asnumpy(), _rows_expected(stored, r))
    # one row_ids for every out
    rows = np.array([3, 0, 3], dtype=np.float32)
    outs = [nd.zeros(SHAPE, ctx=c) for c in CTXS]
    kv.row_sparse_pull(key, out=outs, row_ids=nd.array(rows))
    for o in outs:
        np.testing.assert_array_equal(o.asnumpy(), _rows_expected(stored, rows))
    # a single out
    out = nd.zeros(SHAPE)
    kv.row_sparse_pull(key, out=out, row_ids=nd.array([1], dtype="int64"))
    np.testing.assert_array_equal(out.asnumpy(), _rows_expected(stored, [1]))


def test_row_sparse_pull_after_pushes():
    kv = mx.kv.create("local")
    kv.init(0, nd.zeros(SHAPE))
    kv.push(0, [nd.ones(SHAPE, ctx=c) for c in CTXS])
    out = nd.zeros(SHAPE)
    kv.row_sparse_pull(0, out=out, row_ids=nd.arange(0, SHAPE[0]))
    np.testing.assert_array_equal(out.asnumpy(), np.full(SHAPE, float(NDEV)))


def test_row_sparse_pull_needs_out_and_row_ids():
    kv = _store()
    with pytest.raises(AssertionError):
        kv.row_sparse_pull(3, row_ids=nd.array([0]))
    with pytest.raises(AssertionError):
        kv.row_sparse_pull(3, out=nd.zeros(SHAPE))


# -- sparse outs in pull -----------------------------------------------------------------------------

def test_pull_leaves_sparse_outs_alone():
    kv = _store()
    kv.push(3, nd.ones(SHAPE))
    csr = nd.sparse.zeros("csr", SHAPE)
    dense = nd.zeros(SHAPE)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        kv.pull(3, out=[csr, dense])
    assert any("sparse" in str(w.message) for w in caught)
    assert csr.asnumpy().sum() == 0
    np.testing.assert_array_equal(dense.asnumpy(), np.ones(SHAPE))


# -- errors ----------------------------------------------------------------------------------------

def test_pull_needs_out():
    kv = _store()
    with pytest.raises(AssertionError):
        kv.pull(3)


def test_mixed_key_kinds_in_one_call():
    kv = mx.kv.create("local")
    with pytest.raises(AssertionError, match="inconsistent types of keys"):
        kv.init([1, "a"], [nd.zeros(SHAPE)] * 2)


@pytest.mark.parametrize("first,other", [(3, "a"), ("a", 3)])
def test_mixed_key_kinds_across_calls(first, other):
    kv = mx.kv.create("local")
    kv.init(first, nd.zeros(SHAPE))
    with pytest.raises(MXNetError, match="Mixed key types"):
        kv.init(other, nd.zeros(SHAPE))
    with pytest.raises(MXNetError, match="Mixed key types"):
        kv.push(other, nd.ones(SHAPE))
    with pytest.raises(MXNetError, match="Mixed key types"):
        kv.pull(other, out=nd.zeros(SHAPE))
    with pytest.raises(MXNetError, match="Mixed key types"):
        kv.row_sparse_pull(other, out=nd.zeros(SHAPE), row_ids=nd.array([0]))


@pytest.mark.parametrize("key", [3, "a"])
def test_duplicate_init(key):
    kv = mx.kv.create("local")
    kv.init(key, nd.zeros(SHAPE))
    with pytest.raises(MXNetError, match="duplicate init of key %s" % key):
        kv.init(key, nd.zeros(SHAPE))


def test_pull_of_an_unknown_key():
    kv = mx.kv.create("local")
    kv.init(3, nd.zeros(SHAPE))
    with pytest.raises(MXNetError, match="key 9 has not been inited"):
        kv.pull(9, out=nd.zeros(SHAPE))
    kv._set_updater(lambda key, recv, local: None)
    with pytest.raises(MXNetError, match="key 9 has not been inited"):
        kv.push(9, nd.ones(SHAPE))


def test_unknown_str_key():
    kv = mx.kv.create("local")
    kv.init("a", nd.zeros(SHAPE))
    with pytest.raises(MXNetError, match="key zz doesn't exist. Did you init?"):
        kv.pull("zz", out=nd.zeros(SHAPE))
    with pytest.raises(MXNetError, match="key zz doesn't exist"):
        kv.push("zz", nd.ones(SHAPE))


def test_gradient_compression_only_on_device_and_dist():
    kv = mx.kv.create("local")
    with pytest.raises(Exception, match="not supported for this type of kvstore"):
        kv.set_gradient_compression({"type": "2bit", "threshold": 0.5})


def test_gradient_compression_bad_params():
    kv = mx.kv.create("device")
    with pytest.raises(MXNetError):
        kv.set_gradient_compression({"type": "3bit"})
    with pytest.raises(MXNetError):
        kv.set_gradient_compression({"type": "2bit", "threshold": -1})


# -- 2-bit compression on 'device' -------------------------------------------------------------------

class TwoBit(object):
    """The 2-bit rule: r += g; r >= t -> send t, r -= t; r <= -t -> send -t, r += t; else 0."""

    def __init__(self, t, ndev):
        self.t = t
        self.residuals = [np.zeros(SHAPE, np.float32) for _ in range(ndev)]

    def sent(self, grads):
        total = np.zeros(SHAPE, np.float32)
        for r, g in zip(self.residuals, grads):
            r += g
            q = np.where(r >= self.t, self.t, np.where(r <= -self.t, -self.t, 0)).astype(np.float32)
            r -= q
            total += q
        return total


def _compressed_store(t, updater):
    kv = mx.kv.create("device")
    kv.set_gradient_compression({"type": "2bit", "threshold": t})
    kv.init(0, nd.zeros(SHAPE))
    if updater:
        kv.set_optimizer(mx.optimizer.create("test", rescale_grad=1.0))
    return kv


@pytest.mark.parametrize("updater", [False, True])
def test_2bit_residual_carry(updater):
    t = 0.5
    kv = _compressed_store(t, updater)
    model = TwoBit(t, NDEV)
    stored = np.zeros(SHAPE, np.float32)
    for g in [0.4, 0.2, 0.2, 0.2, -t, -t, -t]:
        grads = [np.full(SHAPE, g, np.float32)] * NDEV
        kv.push(0, [nd.array(x, ctx=c) for x, c in zip(grads, CTXS)])
        sent = model.sent(grads)
        stored = stored + sent if updater else sent
        np.testing.assert_allclose(_pulled(kv, 0), stored, rtol=0, atol=1e-6)
    # the rule's own numbers for the first steps: .4 -> 0, .6 -> t (r .1), .3 -> 0, .5 -> t
    assert TwoBit(t, 1).sent([np.full(SHAPE, 0.4, np.float32)])[0, 0] == 0


@pytest.mark.parametrize("t", [0.5, 0.25])
def test_2bit_random_gradients(t):
    rs = np.random.RandomState(7)
    kv = _compressed_store(t, True)
    model = TwoBit(t, NDEV)
    stored = np.zeros(SHAPE, np.float32)
    for _ in range(5):
        grads = [rs.uniform(-0.6, 0.6, SHAPE).astype(np.float32) for _ in CTXS]
        kv.push(0, [nd.array(x, ctx=c) for x, c in zip(grads, CTXS)])
        stored = stored + model.sent(grads)
        np.testing.assert_allclose(_pulled(kv, 0), stored, rtol=0, atol=1e-5)


# -- optimizers ------------------------------------------------------------------------------------

@pytest.mark.parametrize("kv_type", ["local", "device", "local_allreduce_cpu", "local_allreduce_device"])
def test_test_optimizer_through_set_optimizer(kv_type):
    rate = 0.1
    rs = np.random.RandomState(2)
    kv = mx.kv.create(kv_type)
    kv.init(KEYS, [nd.zeros(SHAPE)] * len(KEYS))
    kv.set_optimizer(mx.optimizer.create("test", rescale_grad=rate))
    expected = {k: np.zeros(SHAPE, np.float64) for k in KEYS}
    for _ in range(3):
        grads = {k: [rs.rand(*SHAPE).astype(np.float32) for _ in CTXS] for k in KEYS}
        kv.push(KEYS, [[nd.array(g, ctx=c) for g, c in zip(grads[k], CTXS)] for k in KEYS])
        for k in KEYS:
            expected[k] += rate * np.sum(grads[k], axis=0, dtype=np.float64)
        for k in KEYS:
            got = _pulled(kv, k)
            assert np.max(np.abs(got - expected[k]) / (np.abs(expected[k]) + 1e-12)) < 1e-6


def test_set_optimizer_sgd_momentum_matches_numpy():
    lr, mom = 0.1, 0.9
    rs = np.random.RandomState(4)
    w0 = rs.randn(*SHAPE).astype(np.float32)
    kv = mx.kv.create("local")
    kv.init("w", nd.array(w0))
    kv.set_optimizer(mx.optimizer.create("sgd", learning_rate=lr, momentum=mom))
    w, v = w0.astype(np.float64), np.zeros(SHAPE)
    for _ in range(3):
        grads = [rs.randn(*SHAPE).astype(np.float32) for _ in CTXS]
        kv.push("w", [nd.array(g, ctx=c) for g, c in zip(grads, CTXS)])
        v = mom * v - lr * np.sum(grads, axis=0, dtype=np.float64)
        w = w + v
    np.testing.assert_allclose(_pulled(kv, "w"), w, rtol=1e-5, atol=1e-5)


def test_set_optimizer_needs_an_optimizer():
    kv = mx.kv.create("local")
    with pytest.raises(TypeError):
        kv.set_optimizer("sgd")


@pytest.mark.parametrize("dump_optimizer", [False, True])
def test_optimizer_states_round_trip(tmp_path, dump_optimizer):
    rs = np.random.RandomState(9)
    w0 = rs.randn(*SHAPE).astype(np.float32)
    grads = [rs.randn(*SHAPE).astype(np.float32) for _ in range(4)]

    def store(lr):
        kv = mx.kv.create("local")
        kv.init(0, nd.array(w0))
        kv.set_optimizer(mx.optimizer.create("sgd", learning_rate=lr, momentum=0.9))
        return kv
    first = store(0.1)
    for g in grads[:2]:
        first.push(0, nd.array(g))
    fname = str(tmp_path / "states")
    first.save_optimizer_states(fname, dump_optimizer=dump_optimizer)
    with open(fname, "rb") as f:
        loaded = pickle.loads(f.read())
    states = loaded[0] if dump_optimizer else loaded
    assert list(states.keys()) == [0]

    # a second store starting from the first one's weights, with its states, goes on identically
    second = mx.kv.create("local")
    second.init(0, nd.array(_pulled(first, 0)))
    second.set_optimizer(mx.optimizer.create("sgd", learning_rate=0.1 if not dump_optimizer else 5.0,
                                             momentum=0.9))
    second.load_optimizer_states(fname)
    for g in grads[2:]:
        first.push(0, nd.array(g))
        second.push(0, nd.array(g))
    np.testing.assert_allclose(_pulled(second, 0), _pulled(first, 0), rtol=1e-6, atol=1e-6)
    if dump_optimizer:
        assert second._updater.optimizer.lr == pytest.approx(0.1)


def test_str_key_states_are_kept_by_str(tmp_path):
    # the updater receives b"w"; the optimizer's states are keyed "w", as MXNet 1.x keeps them
    kv = mx.kv.create("local")
    kv.init("w", nd.zeros(SHAPE))
    kv.set_optimizer(mx.optimizer.create("sgd", learning_rate=0.1, momentum=0.9))
    kv.push("w", nd.ones(SHAPE))
    assert list(kv._updater.states) == ["w"]
    fname = str(tmp_path / "states")
    kv.save_optimizer_states(fname)
    with open(fname, "rb") as f:
        assert list(pickle.loads(f.read())) == ["w"]


def test_optimizer_states_need_an_updater(tmp_path):
    kv = mx.kv.create("local")
    with pytest.raises(AssertionError, match="Cannot save states"):
        kv.save_optimizer_states(str(tmp_path / "s"))
    with pytest.raises(AssertionError, match="Cannot load states"):
        kv.load_optimizer_states(str(tmp_path / "s"))


# -- processes -------------------------------------------------------------------------------------

@pytest.mark.parametrize("role", ["server", "scheduler"])
def test_server_and_scheduler_processes_leave_at_import(run_python, role):
    r = run_python("import mxnet\nprint('after import')", DMLC_ROLE=role)
    assert r.returncode == 0, r.stderr
    assert "after import" not in r.stdout


def test_worker_process_runs(run_python):
    r = run_python("import mxnet\nprint('after import')", DMLC_ROLE="worker")
    assert r.returncode == 0, r.stderr
    assert "after import" in r.stdout


def test_commands_and_barrier_return():
    kv = mx.kv.create("local")
    kv._send_command_to_servers(mx.kv.kvstore.COMMANDS["kStopServer"], "")
    kv.barrier()
    kv._barrier()


def test_kvstore_server_run_returns():
    kv = mx.kv.create("local")
    mx.kv.KVStoreServer(kv).run()


# -- MXNet 1.9.1 as an oracle, where it is installed ---------------------------------------------------

ORACLE = r"""
import json, sys, warnings
import numpy as np
import mxnet as mx
from mxnet import nd
warnings.simplefilter("ignore")
ctxs = [mx.cpu(i) for i in range(4)]
res = {}
kv = mx.kv.create("Local")
res["type"] = kv.type
kv.init(["x", "y"], [nd.array(np.arange(6).reshape(2, 3)), nd.ones((2, 3))])
keys = []
def up(key, recv, local):
    keys.append(repr(key))
    local[:] = local * 0.5 + recv
kv._set_updater(up)
for i in range(3):
    kv.push(["y", "x"], [[nd.ones((2, 3), ctx=c) * (i + j) for j, c in enumerate(ctxs)],
                         nd.ones((2, 3)) * i])
outs = [nd.zeros((2, 3)), nd.zeros((2, 3), ctx=ctxs[2])]
kv.pull("x", out=outs)
res["x"] = [o.asnumpy().tolist() for o in outs]
o = nd.zeros((2, 3))
kv.pull("y", out=o)
res["y"] = o.asnumpy().tolist()
res["keys"] = keys
errs = []
for call in [lambda: kv.init("x", nd.ones((2, 3))), lambda: kv.pull("q", out=o),
             lambda: kv.push(1, o), lambda: kv.pull([1, "x"], out=[o, o])]:
    try:
        call()
        errs.append(None)
    except BaseException as e:
        errs.append(type(e).__name__)
res["errors"] = errs
d = mx.kv.create("device")
d.set_gradient_compression({"type": "2bit", "threshold": 0.3})
d.init(0, nd.zeros((3, 5)))
rs = np.random.RandomState(0)
pulled = []
for i in range(4):
    d.pushpull(0, [nd.array(rs.uniform(-0.5, 0.5, (3, 5)), ctx=c) for c in ctxs[:3]],
               out=[nd.zeros((3, 5)), nd.zeros((3, 5), ctx=ctxs[1])])
    p = nd.zeros((3, 5))
    d.pull(0, out=p)
    pulled.append(p.asnumpy().tolist())
res["compressed"] = pulled
print("RESULT" + json.dumps(res))
"""


@pytest.mark.skipif(not os.path.exists(PEER), reason="MXNet 1.9.1 peer not installed")
def test_agrees_with_mxnet_1_9_1(run_python):
    ours = run_python(ORACLE)
    assert ours.returncode == 0, ours.stderr
    env = peer_env(drop=("DMLC_",))
    peer = subprocess.run([PEER, "-c", ORACLE], env=env, capture_output=True, text=True, timeout=300,
                          cwd=REPO)
    assert peer.returncode == 0, peer.stderr

    def result(proc):
        line = [l for l in proc.stdout.splitlines() if l.startswith("RESULT")][-1]
        import json
        return json.loads(line[len("RESULT"):])
    a, b = result(ours), result(peer)
    assert a["type"] == b["type"]
    assert a["keys"] == b["keys"]
    assert a["errors"] == b["errors"]
    for name in ("x", "y", "compressed"):
        np.testing.assert_allclose(np.array(a[name]), np.array(b[name]), rtol=1e-6, atol=1e-6)


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
