"""The device kvstore's tree reduction (MXNET_KVSTORE_USETREE=1) on cpu(i) contexts, which
this runtime treats as devices: sums and updates equal the plain store's, the trees are logged
with MXNET_KVSTORE_LOGTREE=1, and big arrays are sliced over every tree. The variables are
read at load, so each case runs in a fresh interpreter."""
import os
import subprocess
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SCRIPT = r"""
import numpy as np, mxnet as mx
rng = np.random.RandomState(0)
kv = mx.kv.create('device')
shapes = {3: (4, 4), 9: (64, 5)}
vals = {k: [rng.uniform(-1, 1, s).astype(np.float32) for _ in range(4)] for k, s in shapes.items()}
for k, s in shapes.items():
    kv.init(k, mx.nd.zeros(s))
for k, s in shapes.items():
    kv.push(k, [mx.nd.array(v, ctx=mx.cpu(i)) for i, v in enumerate(vals[k])])
for k, s in shapes.items():
    out = [mx.nd.zeros(s, ctx=mx.cpu(i)) for i in range(4)]
    kv.pull(k, out=out)
    for o in out:
        np.savetxt(__import__('sys').stdout, o.asnumpy().reshape(1, -1), fmt='%.9g')
kv.set_optimizer(mx.optimizer.create('test', rescale_grad=0.5))
kv.push(9, [mx.nd.array(v, ctx=mx.cpu(i)) for i, v in enumerate(vals[9])])
out = mx.nd.zeros(shapes[9])
kv.pull(9, out=out)
np.savetxt(__import__('sys').stdout, out.asnumpy().reshape(1, -1), fmt='%.9g')
"""


def run(env_extra):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(ROOT, "python") + os.pathsep + env.get("PYTHONPATH", "")
    env.update(env_extra)
    proc = subprocess.run([sys.executable, "-c", SCRIPT], env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=240)
    assert proc.returncode == 0, proc.stderr.decode()
    rows = [np.array(line.split(), dtype=np.float64) for line in proc.stdout.decode().splitlines()]
    return rows, proc.stderr.decode()


def expected_rows():
    rng = np.random.RandomState(0)
    shapes = {3: (4, 4), 9: (64, 5)}
    vals = {k: [rng.uniform(-1, 1, s).astype(np.float32) for _ in range(4)] for k, s in shapes.items()}
    rows = []
    for k in shapes:
        total = np.sum([v.astype(np.float64) for v in vals[k]], axis=0).ravel()
        rows += [total] * 4
    total9 = np.sum([v.astype(np.float64) for v in vals[9]], axis=0).ravel()
    rows.append(total9 + 0.5 * total9)  # stored sum, then w += 0.5 * grad
    return rows


def test_tree_reduction_sums_like_plain_store_and_logs_trees():
    rows, err = run({"MXNET_KVSTORE_USETREE": "1", "MXNET_KVSTORE_LOGTREE": "1"})
    for got, want in zip(rows, expected_rows()):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert len(rows) == 9
    assert "root cpu(0)" in err and "root cpu(3)" in err, err  # one line per tree


def test_tree_reduction_slices_big_arrays_over_every_tree():
    rows, _ = run({"MXNET_KVSTORE_USETREE": "1", "MXNET_KVSTORE_TREE_ARRAY_BOUND": "100"})
    for got, want in zip(rows, expected_rows()):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_plain_device_store_gives_the_same_sums():
    tree, _ = run({"MXNET_KVSTORE_USETREE": "1"})
    plain, _ = run({"MXNET_KVSTORE_USETREE": "0"})
    for a, b in zip(tree, plain):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)
