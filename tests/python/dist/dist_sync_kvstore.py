"""Checks of the distributed synchronous kvstore, run by every rank of an MPI job.

    mpirun -np N python dist_sync_kvstore.py MODE

Every check compares with a value computed from the rule being tested (exact equality: the
sums are deterministic). Prints "OK <mode> rank R" at the end; any failure raises.
"""
import os
import signal
import sys
import time

import numpy as np

import mxnet as mx

RATE = 2.0
SHAPES = {3: (2, 3), 5: (2, 3), 7: (2, 3), 99: (1200, 1200)}
HALF_SHAPES = {4: (2, 3), 6: (2, 3), 8: (2, 3), 100: (300, 300)}
ROUNDS = 7


def triangle(n):
    return n * (n + 1) / 2.0


def check_sum_rounds(kv, keys, shapes, dtype, rank, n):
    """'test' optimizer (w += rate * grad): after round i, w = 1 + rate * n(n+1)/2 * (i+1)."""
    for i in range(ROUNDS):
        for k in keys:
            kv.push(k, mx.nd.ones(shapes[k], dtype=dtype) * (rank + 1))
        for k in keys:
            out = mx.nd.zeros(shapes[k], dtype=dtype)
            kv.pull(k, out=out)
            expected = 1 + RATE * triangle(n) * (i + 1)
            got = out.asnumpy()
            assert (got == expected).all(), (k, i, got.ravel()[:4], expected)


def mode_default(rank, n):
    kv = mx.kv.create("dist_sync")
    assert kv.rank == rank and kv.num_workers == n, (kv.rank, kv.num_workers)
    kv.set_optimizer(mx.optimizer.create("test", rescale_grad=RATE))
    keys = sorted(SHAPES)
    # init takes rank 0's value: the other ranks offer garbage
    kv.init(keys, [mx.nd.ones(SHAPES[k]) * (1 if rank == 0 else 100 + rank) for k in keys])
    check_sum_rounds(kv, keys, SHAPES, "float32", rank, n)
    half = sorted(HALF_SHAPES)
    kv.init(half, [mx.nd.ones(HALF_SHAPES[k], dtype="float16") for k in half])
    check_sum_rounds(kv, half, HALF_SHAPES, "float16", rank, n)

    skv = mx.kv.create("dist_sync")
    skv.set_optimizer(mx.optimizer.create("test", rescale_grad=RATE))
    names = ["3", "5", "7", "99"]
    sshapes = {s: SHAPES[int(s)] for s in names}
    skv.init(names, [mx.nd.ones(sshapes[s]) for s in names])
    check_sum_rounds(skv, names, sshapes, "float32", rank, n)


def mode_pushpull(rank, n):
    """No optimizer: every round gives that round's sum, in place and into out."""
    kv = mx.kv.create("dist_sync")
    kv.init("w", mx.nd.zeros((3, 4)))
    for i in range(3):
        v = mx.nd.ones((3, 4)) * (rank + 1) * (i + 1)
        kv.pushpull("w", v)
        assert (v.asnumpy() == triangle(n) * (i + 1)).all(), v.asnumpy()
        out = mx.nd.zeros((3, 4))
        kv.pushpull("w", mx.nd.ones((3, 4)) * (rank + 1), out=out)
        assert (out.asnumpy() == triangle(n)).all()
    # An in-place pushpull keeps its result as the stored value without a copy; a later push
    # must not write into the caller's array.
    kv.init("z", mx.nd.zeros((5,)))
    v = mx.nd.ones((5,)) * (rank + 1)
    kv.pushpull("z", v)
    kv.push("z", mx.nd.ones((5,)) * (rank + 1) * 10)
    pulled = mx.nd.zeros((5,))
    kv.pull("z", out=pulled)
    assert (pulled.asnumpy() == 10 * triangle(n)).all(), pulled.asnumpy()
    assert (v.asnumpy() == triangle(n)).all(), v.asnumpy()
    b = mx.nd.zeros((2, 2))
    kv.broadcast("b", mx.nd.ones((2, 2)) * (7 if rank == 0 else rank), out=b)
    assert (b.asnumpy() == 7).all()
    # random values: every rank must hold bit-identical sums
    rng = np.random.RandomState(rank)
    x = mx.nd.array(rng.uniform(-1, 1, (1000,)).astype(np.float32))
    kv.init("r", mx.nd.zeros((1000,)))
    kv.pushpull("r", x)
    expected = np.zeros(1000, np.float32)
    for r in range(n):
        expected = expected + np.random.RandomState(r).uniform(-1, 1, (1000,)).astype(np.float32)
    np.testing.assert_array_equal(x.asnumpy(), expected)
    kv._barrier()


def mode_compressed(rank, n):
    """2-bit compression, threshold 0.5: residuals carry between pushes."""
    t = 0.5
    kv = mx.kv.create("dist_sync")
    kv.set_gradient_compression({"type": "2bit", "threshold": t})
    kv.set_optimizer(mx.optimizer.create("test", rescale_grad=RATE))
    shape = (40, 37)
    kv.init(["a", "b"], [mx.nd.zeros(shape), mx.nd.ones(shape)])

    def pushed(key, value):
        kv.push(key, mx.nd.ones(shape) * value)
        out = mx.nd.zeros(shape)
        kv.pull(key, out=out)
        return out.asnumpy()

    out = mx.nd.zeros(shape)
    kv.pull("b", out=out)
    assert (out.asnumpy() == 1).all()  # the init is not compressed
    step = t * RATE * n
    assert (pushed("a", 0) == 0).all()
    assert (pushed("a", 0.4) == 0).all()        # residual 0.4
    assert (pushed("a", 0.1) == step).all()     # 0.5 reaches t
    assert (pushed("a", 0.2) == step).all()     # residual 0.2
    assert (pushed("a", 0.3) == 2 * step).all()
    assert (pushed("a", t) == 3 * step).all()

    # Random gradients, a different one per rank: each rank's contribution is quantized
    # (2bit rule, fresh residual), and the decoded parts are added in rank order.
    def quantized(seed):
        g = np.random.RandomState(seed).uniform(-1, 1, 1000).astype(np.float32)
        return np.where(g >= t, t, np.where(g <= -t, -t, 0)).astype(np.float32), g

    kv.init("c", mx.nd.zeros((1000,)))
    kv.push("c", mx.nd.array(quantized(10 + rank)[1]))
    out = mx.nd.zeros((1000,))
    kv.pull("c", out=out)
    total = quantized(10)[0]
    for r in range(1, n):
        total = total + quantized(10 + r)[0]
    np.testing.assert_array_equal(out.asnumpy(), RATE * total)


def mode_states(rank, n):
    """set_optimizer runs the optimizer on every rank: momentum states agree bit for bit, and
    rank 0's saved states load into a store of any size (here a single-process one)."""
    kv = mx.kv.create("dist_sync")
    kv.set_optimizer(mx.optimizer.create("sgd", learning_rate=0.1, momentum=0.9, wd=0.01))
    kv.init([0, 1], [mx.nd.ones((5, 4)), mx.nd.ones((7,))])
    for step in range(3):
        rng = np.random.RandomState(100 * step + rank)
        kv.push([0, 1], [mx.nd.array(rng.uniform(-1, 1, (5, 4))), mx.nd.array(rng.uniform(-1, 1, (7,)))])
    weights = [mx.nd.zeros((5, 4)), mx.nd.zeros((7,))]
    kv.pull([0, 1], out=weights)
    folder = os.environ["KV_STATES_DIR"]
    kv.save_optimizer_states(os.path.join(folder, "rank%d.states" % rank))
    np.save(os.path.join(folder, "rank%d.weight0.npy" % rank), weights[0].asnumpy())
    kv._barrier()
    if rank != 0:
        return
    def loaded_states(path):
        """The states in a file, as a fresh single-process store loads them."""
        single = mx.kv.create("local")
        single.set_optimizer(mx.optimizer.create("sgd", learning_rate=0.1, momentum=0.9, wd=0.01))
        single.load_optimizer_states(path)
        return {k: v.asnumpy() for k, v in single._updater.states.items()}

    mine = loaded_states(os.path.join(folder, "rank0.states"))
    assert sorted(mine) == [0, 1], sorted(mine)
    assert np.abs(mine[0]).sum() > 0  # momentum moved
    for r in range(1, n):
        other = loaded_states(os.path.join(folder, "rank%d.states" % r))
        for k in mine:
            np.testing.assert_array_equal(mine[k], other[k])
        np.testing.assert_array_equal(np.load(os.path.join(folder, "rank0.weight0.npy")),
                                      np.load(os.path.join(folder, "rank%d.weight0.npy" % r)))


def mode_gluon(rank, n):
    """w = 1, gradient rank + 1 on every rank, sgd lr 1: w = 1 - n(n+1)/2 after one step."""
    for update_on_kvstore in (None, True, False):
        p = mx.gluon.Parameter("w%s" % update_on_kvstore, shape=(4, 5), init=mx.init.One())
        p.initialize(ctx=mx.cpu(0))
        trainer = mx.gluon.Trainer([p], "sgd", {"learning_rate": 1.0}, kvstore="dist_sync",
                                   update_on_kvstore=update_on_kvstore)
        with mx.autograd.record():
            y = p.data() * (rank + 1)
        y.backward()
        trainer.step(1)
        np.testing.assert_array_equal(p.data().asnumpy(), np.full((4, 5), 1 - triangle(n), np.float32))


def mode_mismatch(rank, n):
    """Rank 1 pushes another key: every rank's pull fails naming the ranks."""
    kv = mx.kv.create("dist_sync")
    kv.init([3, 5], [mx.nd.zeros((4,)), mx.nd.zeros((8,))])
    key = 5 if rank == 1 else 3
    kv.push(key, mx.nd.ones((4,) if key == 3 else (8,)))
    out = mx.nd.zeros((4,) if key == 3 else (8,))
    try:
        kv.pull(key, out=out)
        out.wait_to_read()
    except mx.base.MXNetError as e:
        msg = str(e)
        assert "rank 1" in msg and "key 5" in msg, msg
        print("NAMED", msg.splitlines()[0][:200])
        sys.stdout.flush()
        os._exit(0)
    raise AssertionError("mismatched keys were not detected")


def store_with_one_key():
    kv = mx.kv.create("dist_sync")
    kv.init(1, mx.nd.zeros((4,)))
    return kv


def fail_named(kv, culprit):
    """The next collective fails on this rank with an error naming the culprit."""
    start = time.time()
    try:
        kv.pushpull(1, mx.nd.ones((4,)))
        mx.nd.waitall()
    except mx.base.MXNetError as e:
        assert "rank %d" % culprit in str(e), str(e)
        print("NAMED after %.1f s: %s" % (time.time() - start, str(e).splitlines()[0][:200]))
        sys.stdout.flush()
        os._exit(0)
    raise AssertionError("rank %d was not reported" % culprit)


def mode_silent(rank, n):
    """Rank n-1 stops taking part: the others fail within the timeout, naming it."""
    kv = store_with_one_key()
    if rank == n - 1:
        time.sleep(float(os.environ["MXNET_KVSTORE_TIMEOUT"]) + 15)
        os._exit(0)
    fail_named(kv, n - 1)


def mode_killed(rank, n):
    """Rank n-1 is killed: the others fail quickly, naming it."""
    kv = store_with_one_key()
    if rank == n - 1:
        os.kill(os.getpid(), signal.SIGKILL)
    fail_named(kv, n - 1)


def main():
    mode = sys.argv[1]
    kv = mx.kv.create("dist_sync")
    rank, n = kv.rank, kv.num_workers
    del kv
    globals()["mode_" + mode](rank, n)
    print("OK %s rank %d" % (mode, rank))


if __name__ == "__main__":
    main()
