#!/usr/bin/env python3
"""Makes image lists (.lst) and packs them into RecordIO files (.rec + .idx).

    im2rec.py --list [--recursive] [--train-ratio R] [--test-ratio T] prefix root
    im2rec.py [--resize N] [--center-crop] [--quality Q] [--num-thread N] prefix root

List mode walks `root` for images and writes `index<TAB>label<TAB>relative/path` lines. Pack
mode turns every `<prefix>*.lst` into `<name>.rec` and `<name>.idx`; each record is an
IRHeader (first label, the list index) followed by the encoded image.
"""
import argparse
import multiprocessing
import os
import random
import sys
import time
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import mxnet as mx  # noqa: E402  (after the path so the checkout's package is found)


def list_images(root, recursive, exts):
    """Yields (index, relative path, label) for every image under root."""
    index = 0
    if recursive:
        labels = {}
        for path, dirs, files in os.walk(root, followlinks=True):
            dirs.sort()
            for fname in sorted(files):
                if os.path.splitext(fname)[1].lower() not in exts:
                    continue
                if path not in labels:
                    labels[path] = len(labels)
                yield index, os.path.relpath(os.path.join(path, fname), root), labels[path]
                index += 1
        for folder, label in sorted(labels.items(), key=lambda kv: kv[1]):
            print(os.path.relpath(folder, root), label)
        return
    for fname in sorted(os.listdir(root)):
        full = os.path.join(root, fname)
        if os.path.isfile(full) and os.path.splitext(fname)[1].lower() in exts:
            yield index, fname, 0
            index += 1


def write_list(path, items):
    with open(path, "w") as out:
        for index, relpath, *labels in items:
            out.write("%d\t%s\t%s\n" % (index, "\t".join("%f" % l for l in labels), relpath))


def make_lists(args):
    items = list(list_images(args.root, args.recursive, set(args.exts)))
    if args.shuffle:
        random.seed(100)
        random.shuffle(items)
    n = len(items)
    chunk = (n + args.chunks - 1) // args.chunks if n else 0
    for c in range(args.chunks):
        part = items[c * chunk:(c + 1) * chunk]
        name = args.prefix + ("_%d" % c if args.chunks > 1 else "")
        n_test = int(len(part) * args.test_ratio)
        n_train = int(len(part) * args.train_ratio)
        if args.train_ratio == 1.0:
            write_list(name + ".lst", part)
            continue
        if n_test:
            write_list(name + "_test.lst", part[:n_test])
        write_list(name + "_train.lst", part[n_test:n_test + n_train])
        if args.train_ratio + args.test_ratio < 1.0:
            write_list(name + "_val.lst", part[n_test + n_train:])


def read_list(path):
    """Yields (index, relpath, labels) per well-formed line; malformed lines are skipped."""
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            fields = [x for x in line.strip().split("\t") if x]
            if len(fields) < 3:
                print("%s:%d: skipped, fewer than 3 fields" % (path, lineno), file=sys.stderr)
                continue
            try:
                yield int(fields[0]), fields[-1], [float(x) for x in fields[1:-1]]
            except ValueError:
                print("%s:%d: skipped, does not parse" % (path, lineno), file=sys.stderr)


def encode_item(args, item):
    """One .lst item -> the packed record bytes."""
    index, relpath, labels = item
    full = os.path.join(args.root, relpath)
    label = labels[0] if len(labels) == 1 or not args.pack_label else labels
    header = mx.recordio.IRHeader(0, label, index, 0)
    if args.pass_through:
        with open(full, "rb") as f:
            return mx.recordio.pack(header, f.read())
    img = mx.image.imread(full, flag=args.color, to_rgb=False)
    if args.center_crop:
        h, w = img.shape[:2]
        side = min(h, w)
        img = img[(h - side) // 2:(h - side) // 2 + side, (w - side) // 2:(w - side) // 2 + side]
    if args.resize:
        h, w = img.shape[:2]
        if h > w:
            size = (args.resize, h * args.resize // w)
        else:
            size = (w * args.resize // h, args.resize)
        img = mx.image.imresize(img, size[0], size[1], interp=1)
    return mx.recordio.pack_img(header, img.asnumpy(), quality=args.quality,
                                img_fmt=args.encoding)


_WORKER_ARGS = None


def _encode_in_worker(item):
    try:
        return item[0], encode_item(_WORKER_ARGS, item), None
    except Exception as err:  # pylint: disable=broad-except
        return item[0], None, "%s: %s" % (os.path.join(_WORKER_ARGS.root, item[1]), err)


def _init_worker(args):
    global _WORKER_ARGS
    _WORKER_ARGS = args


def pack_list(args, lst_path):
    name = os.path.splitext(lst_path)[0]
    items = list(read_list(lst_path))
    writer = mx.recordio.MXIndexedRecordIO(name + ".idx", name + ".rec", "w")
    start, done = time.time(), 0
    try:
        if args.num_thread > 1:
            ctx = multiprocessing.get_context("fork")
            with ctx.Pool(args.num_thread, initializer=_init_worker, initargs=(args,)) as pool:
                # imap keeps the list order; unreadable images are reported and skipped.
                for index, record, error in pool.imap(_encode_in_worker, items, chunksize=8):
                    if error is not None:
                        print("skipped %s" % error, file=sys.stderr)
                        continue
                    writer.write_idx(index, record)
                    done += 1
        else:
            for lineno, item in enumerate(items, 1):
                try:
                    record = encode_item(args, item)
                except Exception as err:
                    raise RuntimeError("%s: item %d (%s): %s" % (
                        lst_path, lineno, os.path.join(args.root, item[1]), err)) from err
                writer.write_idx(item[0], record)
                done += 1
                if done % 1000 == 0:
                    print("%d images packed, %.1f s" % (done, time.time() - start))
    finally:
        writer.close()
    print("%s: %d images packed into %s.rec in %.1f s" % (lst_path, done, name,
                                                         time.time() - start))


def pack_all(args):
    folder = os.path.dirname(args.prefix) or "."
    base = os.path.basename(args.prefix)
    lists = sorted(os.path.join(folder, f) for f in os.listdir(folder)
                   if f.startswith(base) and f.endswith(".lst"))
    if not lists:
        raise SystemExit("no .lst file starts with %s" % args.prefix)
    for lst in lists:
        pack_list(args, lst)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
        description="Make an image list file, or pack the images of list files into RecordIO")
    parser.add_argument("prefix", help="prefix of the .lst/.rec files to make")
    parser.add_argument("root", help="folder the image paths are relative to")
    group = parser.add_argument_group("list mode")
    group.add_argument("--list", action="store_true", help="make .lst files instead of .rec")
    group.add_argument("--exts", nargs="+", default=[".jpeg", ".jpg", ".png"],
                       help="image file extensions")
    group.add_argument("--chunks", type=int, default=1, help="number of lists per split")
    group.add_argument("--train-ratio", type=float, default=1.0)
    group.add_argument("--test-ratio", type=float, default=0.0)
    group.add_argument("--recursive", action="store_true",
                       help="one label per sub-folder (in sorted walk order)")
    group.add_argument("--no-shuffle", dest="shuffle", action="store_false",
                       help="keep the walk order instead of shuffling (seed 100)")
    group = parser.add_argument_group("pack mode")
    group.add_argument("--pass-through", action="store_true",
                       help="store the files' bytes without decoding")
    group.add_argument("--resize", type=int, default=0,
                       help="resize the short side to this (0: keep)")
    group.add_argument("--center-crop", action="store_true",
                       help="crop the centered square before resizing")
    group.add_argument("--quality", type=int, default=95,
                       help="JPEG quality 1-100, or PNG compression 0-9")
    group.add_argument("--num-thread", type=int, default=1,
                       help="encoding processes (more than 1 skips unreadable images)")
    group.add_argument("--color", type=int, default=1, choices=[-1, 0, 1],
                       help="1 colour, 0 gray, -1 unchanged (alpha kept)")
    group.add_argument("--encoding", default=".jpg", choices=[".jpg", ".png"])
    group.add_argument("--pack-label", action="store_true",
                       help="store every label of multi-label lines")
    args = parser.parse_args(argv)
    args.exts = [e.lower() for e in args.exts]
    return args


def main(argv=None):
    args = parse_args(argv)
    if args.list:
        make_lists(args)
    else:
        pack_all(args)


if __name__ == "__main__":
    try:
        main()
    except Exception:  # pylint: disable=broad-except
        traceback.print_exc()
        sys.exit(1)
