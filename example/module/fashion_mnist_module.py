#!/usr/bin/env python3
"""The main job's LeNet on Fashion-MNIST, written the MXNet 1.x symbolic way (mx.sym + mx.mod).

conv5x5(20)-relu-maxpool2 -> conv5x5(50)-relu-maxpool2 -> fc(500)-relu -> fc(10) -> softmax,
inputs scaled to [0, 1] and normalised, SGD (lr 0.01, momentum 0.9), batch 64, fixed seed:
the same network and recipe as example/gluon/fashion_mnist.py. Trains with Module.fit over an
NDArrayIter, logging throughput with mx.callback.Speedometer and writing a checkpoint after
every epoch with mx.callback.do_checkpoint; then reports the test accuracy, loads the last
checkpoint with mx.model.load_checkpoint into a fresh Module and checks it scores the same.

Data: the four idx files of Fashion-MNIST, from $MXNET_HOME/datasets/fashion-mnist or where
Debian's dataset-fashion-mnist package installs them (/usr/share/datasets/fashion-mnist).
"""
import argparse
import logging
import os
import random
import sys

import numpy as np

import mxnet as mx
from mxnet.gluon.data.vision import FashionMNIST

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
    parser.add_argument("--ctx", default="cpu", choices=["cpu", "gpu"], help="device to train on")
    parser.add_argument("--data-dir", default=None,
                        help="directory with the idx files (default: MXNet's dataset location)")
    parser.add_argument("--out-dir", default="fashion_mnist_module_output",
                        help="where the checkpoint files go")
    parser.add_argument("--log-every", type=int, default=50,
                        help="batches between Speedometer lines")
    return parser.parse_args(argv)


def build_symbol():
    """LeNet as a symbol; the loss is SoftmaxOutput, whose label input is softmax_label."""
    data = mx.sym.var("data")
    net = mx.sym.Convolution(data, kernel=(5, 5), num_filter=20, name="conv1")
    net = mx.sym.Activation(net, act_type="relu", name="relu1")
    net = mx.sym.Pooling(net, kernel=(2, 2), stride=(2, 2), pool_type="max", name="pool1")
    net = mx.sym.Convolution(net, kernel=(5, 5), num_filter=50, name="conv2")
    net = mx.sym.Activation(net, act_type="relu", name="relu2")
    net = mx.sym.Pooling(net, kernel=(2, 2), stride=(2, 2), pool_type="max", name="pool2")
    net = mx.sym.Flatten(net, name="flatten")
    net = mx.sym.FullyConnected(net, num_hidden=500, name="fc1")
    net = mx.sym.Activation(net, act_type="relu", name="relu3")
    net = mx.sym.FullyConnected(net, num_hidden=10, name="fc2")
    return mx.sym.SoftmaxOutput(net, name="softmax")


def load_split(args, train):
    """(images NCHW float32 normalised, labels float32) of one split."""
    dataset = FashionMNIST(root=args.data_dir, train=train)
    images = dataset._data.asnumpy()
    labels = np.asarray(dataset._label, dtype=np.float32)
    if args.limit:
        images, labels = images[:args.limit], labels[:args.limit]
    images = images.astype(np.float32).transpose(0, 3, 1, 2) / 255.0
    return (images - MEAN) / STD, labels


def main(argv=None):
    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stdout)
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
    os.makedirs(args.out_dir, exist_ok=True)
    prefix = os.path.join(args.out_dir, "lenet")

    try:
        train_x, train_y = load_split(args, True)
        test_x, test_y = load_split(args, False)
    except IOError as err:
        print(err, file=sys.stderr)
        return 1
    print("Fashion-MNIST: %d training and %d test samples, batch %d, %s"
          % (len(train_y), len(test_y), args.batch_size, ctx), flush=True)

    train_iter = mx.io.NDArrayIter(train_x, train_y, batch_size=args.batch_size, shuffle=True)
    test_iter = mx.io.NDArrayIter(test_x, test_y, batch_size=min(256, len(test_y)))

    mod = mx.mod.Module(build_symbol(), data_names=("data",), label_names=("softmax_label",),
                        context=ctx)
    mod.fit(train_iter, eval_data=test_iter, eval_metric="acc",
            optimizer="sgd",
            optimizer_params={"learning_rate": args.lr, "momentum": args.momentum},
            initializer=mx.init.Xavier(), num_epoch=args.epochs,
            batch_end_callback=mx.callback.Speedometer(args.batch_size, args.log_every),
            epoch_end_callback=mx.callback.do_checkpoint(prefix))

    # NDArrayIter pads the last test batch from the start; score on the predictions instead
    # so every test sample counts exactly once.
    def accuracy(module):
        pred = module.predict(test_iter).asnumpy()
        return float((pred.argmax(axis=1) == test_y).mean())

    test_acc = accuracy(mod)
    print("Test accuracy after %d epochs: %.4f" % (args.epochs, test_acc), flush=True)

    sym, arg_params, aux_params = mx.model.load_checkpoint(prefix, args.epochs)
    fresh = mx.mod.Module(sym, data_names=("data",), label_names=("softmax_label",), context=ctx)
    fresh.bind(data_shapes=test_iter.provide_data, label_shapes=test_iter.provide_label,
               for_training=False)
    fresh.set_params(arg_params, aux_params)
    reloaded_acc = accuracy(fresh)
    same = abs(reloaded_acc - test_acc) < 1e-9
    print("Loaded %s-%04d.params into a fresh Module: test accuracy %.4f (%s)"
          % (prefix, args.epochs, reloaded_acc,
             "same as trained" if same else "DIFFERS from %.4f" % test_acc))
    print("Final test accuracy: %.4f" % test_acc)
    return 0 if same else 3


if __name__ == "__main__":
    sys.exit(main())
