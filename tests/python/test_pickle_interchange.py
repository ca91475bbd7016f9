"""NDArray pickles and optimizer-state files move both ways between this runtime and MXNet 1.x:
NDArrays pickle as 1.x's do (the class with the state {'handle': raw bytes}) and Updater states
are dicts of NDArrays. The peer tests run MXNet 1.9.1 and skip without it; files written by this
runtime's earlier formats still load."""
import pickle
import subprocess

import numpy as np

import mxnet as mx
from mxnet import nd
from peer_oracle import PEER_PYTHON as PEER, needs_peer, peer_env


def _peer(code):
    proc = subprocess.run([PEER, "-c", code], env=peer_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    return proc.stdout.decode()


def _sgd_states_after_two_steps(lib):
    upd = lib.optimizer.get_updater(lib.optimizer.SGD(learning_rate=0.1, momentum=0.9))
    for _ in range(2):
        for i in range(2):
            upd(i, lib.nd.array([1.0, -2.0]) * (i + 1), lib.nd.ones((2,)))
    return upd


def test_pickle_round_trip_keeps_values_and_dtype():
    for protocol in (0, 2, pickle.HIGHEST_PROTOCOL):
        a = nd.array(np.arange(6).reshape(2, 3), dtype="float16")
        b = pickle.loads(pickle.dumps(a, protocol))
        assert b.dtype == np.float16 and b.shape == (2, 3)
        np.testing.assert_array_equal(b.asnumpy(), a.asnumpy())


def test_states_are_ndarrays_and_round_trip():
    upd = _sgd_states_after_two_steps(mx)
    blob = upd.get_states()
    loaded = pickle.loads(blob)
    assert all(isinstance(v, nd.NDArray) for v in loaded.values())
    other = mx.optimizer.get_updater(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9))
    other.set_states(blob)
    for k in upd.states:
        np.testing.assert_array_equal(other.states[k].asnumpy(), upd.states[k].asnumpy())


def test_older_formats_of_this_runtime_still_load():
    from mxnet.ndarray.ndarray import _from_raw_bytes
    from mxnet.optimizer.optimizer import _HostArray
    a = nd.array([1.0, 2.0])
    np.testing.assert_array_equal(_from_raw_bytes(a._raw_bytes()).asnumpy(), [1, 2])
    b = nd.NDArray.__new__(nd.NDArray)
    b.__setstate__({"raw": a._raw_bytes()})
    np.testing.assert_array_equal(b.asnumpy(), [1, 2])
    old = pickle.dumps({0: _HostArray(np.array([3.0, 4.0], np.float32), mx.cpu(0))})
    upd = mx.optimizer.get_updater(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9))
    upd.set_states(old)
    np.testing.assert_array_equal(upd.states[0].asnumpy(), [3, 4])


@needs_peer
def test_ndarray_pickled_by_1x_loads_here_and_back(tmp_path):
    theirs = str(tmp_path / "theirs.pkl")
    _peer("import pickle, mxnet as mx\n"
          "open(%r, 'wb').write(pickle.dumps(mx.nd.array([[1, 2], [3, 4]], dtype='float64')))" % theirs)
    a = pickle.loads(open(theirs, "rb").read())
    assert a.dtype == np.float64
    np.testing.assert_array_equal(a.asnumpy(), [[1, 2], [3, 4]])
    ours = str(tmp_path / "ours.pkl")
    open(ours, "wb").write(pickle.dumps(nd.array([[5, 6]], dtype="int32")))
    out = _peer("import pickle, mxnet as mx\n"
                "a = pickle.loads(open(%r, 'rb').read()); print(a.dtype.__name__, a.asnumpy().tolist())" % ours)
    assert out.split() == ["int32", "[[5,", "6]]"]


@needs_peer
def test_optimizer_states_move_both_ways(tmp_path):
    theirs = str(tmp_path / "theirs.states")
    _peer("import mxnet as mx\n"
          "upd = mx.optimizer.get_updater(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9))\n"
          "for _ in range(2):\n"
          "    for i in range(2):\n"
          "        upd(i, mx.nd.array([1.0, -2.0]) * (i + 1), mx.nd.ones((2,)))\n"
          "open(%r, 'wb').write(upd.get_states())" % theirs)
    mine = _sgd_states_after_two_steps(mx)
    upd = mx.optimizer.get_updater(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9))
    upd.set_states(open(theirs, "rb").read())
    for k in mine.states:
        np.testing.assert_allclose(upd.states[k].asnumpy(), mine.states[k].asnumpy(), rtol=1e-6)
    ours = str(tmp_path / "ours.states")
    open(ours, "wb").write(mine.get_states())
    out = _peer("import mxnet as mx\n"
                "upd = mx.optimizer.get_updater(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9))\n"
                "upd.set_states(open(%r, 'rb').read())\n"
                "print(' '.join(repr(float(x)) for k in sorted(upd.states) for x in upd.states[k].asnumpy()))" % ours)
    expected = [float(x) for k in sorted(mine.states) for x in mine.states[k].asnumpy()]
    np.testing.assert_allclose([float(v) for v in out.split()], expected, rtol=1e-6)
