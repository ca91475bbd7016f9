#!/usr/bin/env python3
"""Turns Fashion-MNIST into PNG files and packs them into RecordIO with tools/im2rec.py.

    python example/gluon/fashion_mnist_to_rec.py --out-dir fmnist_rec [--limit N]
    python example/gluon/fashion_mnist.py --rec-dir fmnist_rec

Writes <out>/png/{train,test}/<label>/<index>.png, a .lst per split in the datasets' own
order (index, label, path), then packs train.rec/test.rec (+ .idx) as grayscale PNG records,
so the main job reads exactly the pixels it reads from the idx files.
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
import mxnet as mx  # noqa: E402
from mxnet.gluon.data.vision import FashionMNIST  # noqa: E402


def write_split(dataset, out_dir, name, limit):
    folder = os.path.join(out_dir, "png", name)
    images, labels = dataset._data.asnumpy(), dataset._label
    count = min(limit, len(labels)) if limit else len(labels)
    with open(os.path.join(out_dir, name + ".lst"), "w") as lst:
        for i in range(count):
            rel = os.path.join(str(int(labels[i])), "%05d.png" % i)
            path = os.path.join(folder, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(mx.image._imencode(images[i], ".png", 3))
            lst.write("%d\t%f\t%s\n" % (i, labels[i], rel))
    return folder, count


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out-dir", default="fashion_mnist_rec")
    ap.add_argument("--data-dir", default=None, help="where the idx files are (default: "
                    "MXNet's dataset location, then /usr/share/datasets)")
    ap.add_argument("--limit", type=int, default=0, help="first N samples per split (0: all)")
    args = ap.parse_args(argv)
    os.makedirs(args.out_dir, exist_ok=True)
    im2rec = os.path.join(ROOT, "tools", "im2rec.py")
    for name, train in (("train", True), ("test", False)):
        folder, count = write_split(FashionMNIST(root=args.data_dir, train=train),
                                    args.out_dir, name, args.limit)
        # The .lst is the prefix's only list, so im2rec packs exactly this split.
        subprocess.run([sys.executable, im2rec, "--color", "0", "--encoding", ".png",
                        "--quality", "3", os.path.join(args.out_dir, name), folder],
                       check=True)
        print("%s: %d images -> %s.rec" % (name, count, os.path.join(args.out_dir, name)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
