#!/usr/bin/env python3
"""The main job: train a LeNet-style CNN on Fashion-MNIST with Gluon.

conv5x5(20)-relu-maxpool2 -> conv5x5(50)-relu-maxpool2 -> dense(500)-relu -> dense(10),
inputs scaled to [0, 1] and normalised, softmax cross-entropy, SGD (lr 0.01, momentum 0.9),
batch 64, fixed seed. Prints a progress bar per epoch, the test accuracy and time after each
epoch, then saves the parameters, reloads them into a fresh network and checks that it scores
the same. With matplotlib installed it also draws the training curves to a PNG.

Data: the four idx files of Fashion-MNIST, from $MXNET_HOME/datasets/fashion-mnist or where
Debian's dataset-fashion-mnist package installs them (/usr/share/datasets/fashion-mnist);
or, with --rec-dir, train.rec and test.rec made by example/gluon/fashion_mnist_to_rec.py.

Data-parallel training over several processes: --kvstore dist_sync under mpirun (or
tools/launch.py), e.g.

    mpirun -np 2 python example/gluon/fashion_mnist.py --kvstore dist_sync --batch-size 32
    python tools/launch.py -n 2 --launcher local python example/gluon/fashion_mnist.py \
        --kvstore dist_sync --batch-size 32

Every rank trains on its own 1/N of the training set (contiguous shards of equal size; up to
N-1 samples left over are dropped so that every rank runs the same number of steps), with
--batch-size samples per rank per step. The Trainer sums the gradients of all ranks and
normalises by the samples of the whole step (N x batch), so N ranks at batch b follow the
same update rule as one process at batch N*b with the same --lr. Every rank evaluates its
share of the test set and the counts are summed; the training loss and accuracy are summed
over the ranks too. Only rank 0 prints, saves the parameters and draws the curves. Keep
--workers 0 there: the kvstore's MPI does not survive a fork.
"""
import argparse
import os
import random
import sys
import time

import numpy as np

import mxnet as mx
from mxnet import autograd, gluon
from mxnet.gluon import nn
from mxnet.gluon.data.vision import FashionMNIST, transforms

MEAN, STD = 0.2860, 0.3530  # Fashion-MNIST pixel statistics on [0, 1]


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=int, default=3, help="passes over the training set")
    parser.add_argument("--batch-size", type=int, default=64, help="training batch size")
    parser.add_argument("--lr", type=float, default=0.01, help="SGD learning rate")
    parser.add_argument("--momentum", type=float, default=0.9, help="SGD momentum")
    parser.add_argument("--seed", type=int, default=42, help="seed of every random generator")
    parser.add_argument("--limit", type=int, default=0,
                        help="use only the first N training and test samples (0: all)")
    parser.add_argument("--hybridize", action="store_true",
                        help="hybridize the network: it runs as one compiled graph (CachedOp) "
                             "per forward")
    parser.add_argument("--profile", action="store_true",
                        help="record a profiler trace (profile.json in --out-dir)")
    parser.add_argument("--ctx", default="cpu", choices=["cpu", "gpu"], help="device to train on")
    parser.add_argument("--workers", type=int, default=0, help="DataLoader worker processes")
    parser.add_argument("--data-dir", default=None,
                        help="directory with the idx files (default: MXNet's dataset location)")
    parser.add_argument("--rec-dir", default=None,
                        help="read train.rec/test.rec (+ .idx) from here instead of idx files")
    parser.add_argument("--out-dir", default="fashion_mnist_output",
                        help="where the .params file, the PNG and the trace go")
    parser.add_argument("--no-progress", action="store_true", help="no per-batch progress bar")
    parser.add_argument("--kvstore", default=None,
                        help="kvstore type for the Trainer; 'dist_sync' (under mpirun or "
                             "tools/launch.py) trains data-parallel over the job's ranks, each "
                             "on its 1/N of the training data (default: the Trainer's own)")
    return parser.parse_args(argv)


def build_net():
    """The LeNet-style network (parameters not yet initialised)."""
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Conv2D(20, kernel_size=5, activation="relu"),
                nn.MaxPool2D(pool_size=2, strides=2),
                nn.Conv2D(50, kernel_size=5, activation="relu"),
                nn.MaxPool2D(pool_size=2, strides=2),
                nn.Flatten(),
                nn.Dense(500, activation="relu"),
                nn.Dense(10))
    return net


class Progress(object):
    """A tqdm bar when tqdm is installed, else a line printed every tenth of the epoch."""

    def __init__(self, total, desc, enabled=True):
        self._total = total
        self._desc = desc
        self._enabled = enabled
        self._count = 0
        self._next_print = 0
        self._bar = None
        if enabled:
            try:
                from tqdm import tqdm
                self._bar = tqdm(total=total, desc=desc, unit="batch", leave=True,
                                 dynamic_ncols=True)
            except ImportError:
                self._bar = None

    def update(self, stats):
        self._count += 1
        if not self._enabled:
            return
        if self._bar is not None:
            self._bar.set_postfix_str(stats, refresh=False)
            self._bar.update(1)
        elif self._count >= self._next_print or self._count == self._total:
            print("%s [%d/%d] %s" % (self._desc, self._count, self._total, stats), flush=True)
            self._next_print = self._count + max(1, self._total // 10)

    def close(self):
        if self._bar is not None:
            self._bar.close()


def load_datasets(args):
    if args.rec_dir:
        # Grayscale images and their labels, as (28, 28, 1) uint8 arrays like the idx reader's.
        def open_rec(name):
            path = os.path.join(args.rec_dir, name + ".rec")
            if not os.path.exists(path):
                raise IOError("%s is missing: make it with example/gluon/fashion_mnist_to_rec.py"
                              % path)
            return gluon.data.vision.ImageRecordDataset(path, flag=0)
        return open_rec("train"), open_rec("test")
    return FashionMNIST(root=args.data_dir, train=True), FashionMNIST(root=args.data_dir,
                                                                      train=False)


def make_loaders(args, rank=0, num_workers=1):
    """Training and test loaders of this rank's shards (everything when num_workers is 1), and
    the sizes of the whole training and test sets used."""
    train_set, test_set = load_datasets(args)
    if args.limit:
        train_set = train_set.take(args.limit)
        test_set = test_set.take(args.limit)
    if num_workers > 1:
        # Equal training shards, so every rank takes the same number of steps (a collective per
        # step); the test shards may differ by one sample, their counts are summed.
        train_set = train_set.take(len(train_set) // num_workers * num_workers)
        n_train, n_test = len(train_set), len(test_set)
        train_set = train_set.shard(num_workers, rank)
        test_set = test_set.shard(num_workers, rank)
    else:
        n_train, n_test = len(train_set), len(test_set)
    train = gluon.data.DataLoader(train_set, batch_size=args.batch_size, shuffle=True,
                                  num_workers=args.workers)
    test = gluon.data.DataLoader(test_set, batch_size=256, shuffle=False,
                                 num_workers=args.workers)
    return train, test, n_train, n_test


# ToTensor + Normalize, applied to whole batches (uint8 NHWC -> normalised float32 NCHW).
TRANSFORM = transforms.Compose([transforms.ToTensor(), transforms.Normalize(MEAN, STD)])


def preprocess(images, ctx):
    """A uint8 NHWC batch as the network's normalised float32 NCHW input on ctx."""
    return TRANSFORM(images.as_in_context(ctx))


class Job(object):
    """Where this process stands in the training job: rank, ranks, and the sums over them."""

    def __init__(self, kvstore=None):
        self.kvstore = kvstore
        self.rank = kvstore.rank if kvstore is not None else 0
        self.num_workers = kvstore.num_workers if kvstore is not None else 1
        self._stats = None

    @property
    def main(self):
        return self.rank == 0

    def sum(self, values):
        """The element-wise sum of a list of numbers over the ranks (as float64)."""
        if self.num_workers == 1:
            return list(values)
        if self._stats is None:
            # A store of its own: the Trainer's store may hold an optimizer that would apply to
            # anything pushed to it.
            self._stats = mx.kv.create(self.kvstore.type)
            self._keys = set()
        key = "sums%d" % len(values)
        if key not in self._keys:
            self._stats.init(key, mx.nd.zeros((len(values),), dtype="float64"))
            self._keys.add(key)
        arr = mx.nd.array(values, dtype="float64")
        self._stats.pushpull(key, arr)
        return [float(v) for v in arr.asnumpy()]


def evaluate_counts(net, loader, ctx):
    """(correct, samples) over a loader."""
    metric = mx.metric.Accuracy()
    for images, labels in loader:
        out = net(preprocess(images, ctx))
        metric.update(labels, out)
    return metric.sum_metric, metric.num_inst


def evaluate(net, loader, ctx, job=None):
    """Accuracy over the loader, summed over the ranks' loaders when a job is given."""
    correct, samples = evaluate_counts(net, loader, ctx)
    if job is not None:
        correct, samples = job.sum([correct, samples])
    return correct / max(samples, 1)


def train_epoch(net, loader, trainer, loss_fn, ctx, epoch, args, job=None):
    job = job or Job()
    metric = mx.metric.Accuracy()
    total_loss, samples = 0.0, 0
    progress = Progress(len(loader), "epoch %d/%d" % (epoch, args.epochs),
                        enabled=not args.no_progress and job.main)
    tic = time.time()
    for images, labels in loader:
        data = preprocess(images, ctx)
        labels = labels.as_in_context(ctx)
        with autograd.record():
            out = net(data)
            loss = loss_fn(out, labels)
        loss.backward()
        # The gradients are summed over the ranks (equal shards: the same batch on each), so
        # they are normalised by the samples of the whole step.
        trainer.step(data.shape[0] * job.num_workers)
        batch = data.shape[0]
        total_loss += float(loss.sum().asscalar())
        samples += batch
        metric.update(labels, out)
        rate = samples * job.num_workers / max(time.time() - tic, 1e-9)
        progress.update("loss=%.4f acc=%.4f %.0f samples/s"
                        % (total_loss / samples, metric.get()[1], rate))
    progress.close()
    correct, seen = metric.sum_metric, metric.num_inst
    if job.num_workers > 1:
        total_loss, samples, correct, seen = job.sum([total_loss, samples, correct, seen])
    return (total_loss / max(samples, 1), correct / max(seen, 1), time.time() - tic,
            int(samples))


def save_curves(history, path):
    """Training loss, training accuracy and test accuracy per epoch, when matplotlib exists."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    epochs = [h["epoch"] for h in history]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    ax1.plot(epochs, [h["loss"] for h in history], marker="o")
    ax1.set_xlabel("epoch")
    ax1.set_ylabel("training loss")
    ax2.plot(epochs, [h["train_acc"] for h in history], marker="o", label="train")
    ax2.plot(epochs, [h["test_acc"] for h in history], marker="o", label="test")
    ax2.set_xlabel("epoch")
    ax2.set_ylabel("accuracy")
    ax2.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return True


def main(argv=None):
    args = parse_args(argv)
    random.seed(args.seed)
    np.random.seed(args.seed)
    mx.random.seed(args.seed)
    if args.ctx == "gpu":
        if mx.context.num_gpus() == 0:
            print("--ctx gpu: no GPU is visible to this runtime", file=sys.stderr)
            return 2
        ctx = mx.gpu(0)
    else:
        ctx = mx.cpu()
    distributed = bool(args.kvstore) and "dist" in args.kvstore
    job = Job(mx.kv.create(args.kvstore) if distributed else None)
    if job.main:
        os.makedirs(args.out_dir, exist_ok=True)

    try:
        train_loader, test_loader, n_train, n_test = make_loaders(args, job.rank,
                                                                  job.num_workers)
    except IOError as err:
        print(err, file=sys.stderr)
        return 1
    if job.main:
        print("Fashion-MNIST: %d training and %d test samples, batch %d, %s"
              % (n_train, n_test, args.batch_size, ctx))
        if distributed:
            print("Data-parallel over %d ranks (kvstore %s): %d training samples per rank, "
                  "batch %d per rank, %d per step" % (job.num_workers, args.kvstore,
                                                       n_train // job.num_workers,
                                                       args.batch_size,
                                                       args.batch_size * job.num_workers),
                  flush=True)

    net = build_net()
    net.initialize(mx.init.Xavier(), ctx=ctx)
    if args.hybridize:
        net.hybridize()
    trainer_kwargs = {}
    if distributed:
        # Rank 0's initial parameters reach every rank; each rank then applies the update to
        # its own copy (the last batch of an epoch may be smaller, and a local update always
        # sees the step's own normalisation).
        trainer_kwargs = {"kvstore": job.kvstore, "update_on_kvstore": False}
    elif args.kvstore:
        trainer_kwargs = {"kvstore": args.kvstore}
    trainer = gluon.Trainer(net.collect_params(), "sgd",
                            {"learning_rate": args.lr, "momentum": args.momentum},
                            **trainer_kwargs)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    args.profile = args.profile and job.main

    if args.profile:
        mx.profiler.set_config(profile_all=True, aggregate_stats=True,
                               filename=os.path.join(args.out_dir, "profile.json"))
        mx.profiler.set_state("run")

    history = []
    for epoch in range(1, args.epochs + 1):
        loss, train_acc, seconds, samples = train_epoch(net, train_loader, trainer, loss_fn,
                                                        ctx, epoch, args, job)
        test_acc = evaluate(net, test_loader, ctx, job)
        history.append({"epoch": epoch, "loss": loss, "train_acc": train_acc,
                        "test_acc": test_acc})
        if job.main:
            print("Epoch %d: loss %.4f, train accuracy %.4f, test accuracy %.4f, time %.1f s "
                  "(%.0f samples/s)" % (epoch, loss, train_acc, test_acc, seconds,
                                        samples / max(seconds, 1e-9)), flush=True)

    if args.profile:
        mx.profiler.set_state("stop")
        mx.profiler.dump()
        print("Profiler trace: %s" % os.path.join(args.out_dir, "profile.json"))

    final_acc = history[-1]["test_acc"] if history else evaluate(net, test_loader, ctx, job)
    if not job.main:
        return 0
    params_file = os.path.join(args.out_dir, "fashion_mnist_lenet.params")
    net.save_parameters(params_file)
    fresh = build_net()
    fresh.load_parameters(params_file, ctx=ctx)
    where = ""
    if distributed:
        # Rank 0 alone (the file need not be visible to the other ranks' hosts): the trained
        # and the reloaded network on its share of the test set.
        trained, seen = evaluate_counts(net, test_loader, ctx)
        reloaded, _ = evaluate_counts(fresh, test_loader, ctx)
        reloaded_acc, trained_acc = reloaded / max(seen, 1), trained / max(seen, 1)
        where = " on rank 0's %d test samples" % seen
    else:
        reloaded_acc, trained_acc = evaluate(fresh, test_loader, ctx), final_acc
    same = abs(reloaded_acc - trained_acc) < 1e-9
    print("Saved %s; reloaded into a fresh network: test accuracy %.4f%s (%s)"
          % (params_file, reloaded_acc, where, "same as trained" if same else
             "DIFFERS from %.4f" % trained_acc))
    if history and save_curves(history, os.path.join(args.out_dir, "fashion_mnist_curves.png")):
        print("Training curves: %s" % os.path.join(args.out_dir, "fashion_mnist_curves.png"))
    print("Final test accuracy: %.4f" % final_acc)
    return 0 if same else 3


if __name__ == "__main__":
    sys.exit(main())
