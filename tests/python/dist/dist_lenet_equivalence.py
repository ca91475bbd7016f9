"""Data-parallel LeNet steps equal single-process steps, run by every rank of an MPI job.

    mpirun -np N python dist_lenet_equivalence.py STEPS BATCH

The main job's network (example/gluon/fashion_mnist.py), SGD lr 0.01 momentum 0.9. Each step
has a global batch of N*BATCH samples (fixed random images and labels, the same on every
rank). Every rank trains:
  dist    its BATCH samples of the step (rank r: rows r*BATCH..(r+1)*BATCH), Trainer
          kvstore='dist_sync' (the gradients are summed over the ranks), step(N*BATCH);
  whole   the whole global batch in this process alone (no kvstore), step(N*BATCH);
  part    only its own BATCH samples, alone, step(BATCH): what a rank would do without the
          kvstore (the control: it must end far from `whole`).
from the same initial parameters. dist must equal whole up to the rounding of summing the
gradient in two parts (checked with rtol 1e-4 after every step's update); part must differ.
Prints "OK equivalence rank R max_rel D CONTROL C" at the end.
"""
import os
import sys

import numpy as np

import mxnet as mx
from mxnet import autograd, gluon

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "example", "gluon"))
from fashion_mnist import build_net  # noqa: E402


def make(params_from=None):
    net = build_net()
    net.initialize(mx.init.Xavier())
    net(mx.nd.zeros((1, 1, 28, 28)))
    if params_from is not None:
        for dst, src in zip(net.collect_params().values(), params_from.collect_params().values()):
            dst.set_data(src.data().copy())
    return net


def weights(net):
    return [p.data().asnumpy() for p in net.collect_params().values()]


def rel_diff(a, b):
    return max(float(np.abs(x - y).max() / (np.abs(y).max() + 1e-12)) for x, y in zip(a, b))


def main():
    steps, batch = int(sys.argv[1]), int(sys.argv[2])
    kv = mx.kv.create("dist_sync")
    rank, n = kv.rank, kv.num_workers
    mx.random.seed(7)  # the same initial parameters on every rank
    rng = np.random.RandomState(3)
    images = rng.normal(size=(steps, n * batch, 1, 28, 28)).astype(np.float32)
    labels = rng.randint(0, 10, size=(steps, n * batch)).astype(np.float32)

    dist = make()
    whole, part = make(dist), make(dist)
    sgd = {"learning_rate": 0.01, "momentum": 0.9}
    t_dist = gluon.Trainer(dist.collect_params(), "sgd", sgd, kvstore=kv, update_on_kvstore=False)
    t_whole = gluon.Trainer(whole.collect_params(), "sgd", sgd, kvstore=None)
    t_part = gluon.Trainer(part.collect_params(), "sgd", sgd, kvstore=None)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()

    def step(net, trainer, x, y, scale):
        with autograd.record():
            loss = loss_fn(net(mx.nd.array(x)), mx.nd.array(y))
        loss.backward()
        trainer.step(scale)

    mine = slice(rank * batch, (rank + 1) * batch)
    worst = 0.0
    for s in range(steps):
        step(dist, t_dist, images[s][mine], labels[s][mine], n * batch)
        step(whole, t_whole, images[s], labels[s], n * batch)
        step(part, t_part, images[s][mine], labels[s][mine], batch)
        d = rel_diff(weights(dist), weights(whole))
        worst = max(worst, d)
        assert d < 1e-4, "step %d: data-parallel differs from one process by %g" % (s, d)
    control = rel_diff(weights(part), weights(whole))
    assert control > 100 * max(worst, 1e-7), (control, worst)
    print("OK equivalence rank %d max_rel %.3g CONTROL %.3g" % (rank, worst, control), flush=True)


if __name__ == "__main__":
    main()
