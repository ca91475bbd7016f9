#!/usr/bin/env python3
"""Image input pipeline throughput: JPEG decode + random crop + mirror + normalise to
3x224x224 batches of 64.

Set-up (once per `--workdir`, default /tmp/mxnet_image_bench): `--images` (2000) JPEGs of
varied sizes (short side 240-480, aspect 0.75-1.5) are made by this runtime's encoder from
smooth random colour fields with noise, in 10 class folders, and packed with tools/im2rec.py
(--pass-through, so the .rec holds the very same JPEG bytes the folder has).

Configurations, each in a fresh process, at `--threads` (1 and 2) decoding threads:
  ours        mx.io.ImageRecordIter(resize=256, rand_crop, rand_mirror, mean/std) on the .rec
  mxnet191    Apache MXNet 1.9.1's ImageRecordIter, same parameters, same .rec
  torchvision ImageFolder + DataLoader(num_workers=threads) on the JPEG folder with
              Resize(256), RandomCrop(224), RandomHorizontalFlip, ToTensor, Normalize

Each process reads one warm-up epoch, then `--epochs` timed epochs; the figure is images per
second of the best timed epoch. Runs go round the configurations `--rounds` times; the table
prints medians and ours over each peer from the same run. A missing peer is reported.

    python benchmark/python/image_pipeline.py            # 2000 images, threads 1 and 2
    python benchmark/python/image_pipeline.py --quick    # 400 images, 1 round

Install the peers with: bash benchmark/python/setup_peers.sh
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_procs  # noqa: E402

MEAN = (123.68, 116.28, 103.53)
STD = (58.395, 57.12, 57.375)
BATCH = 64


def make_images(folder, count, seed=0):
    """JPEGs with realistic decode cost: smooth colour fields plus noise, varied sizes."""
    import numpy as np
    import mxnet as mx
    rng = np.random.RandomState(seed)
    for i in range(count):
        short = int(rng.randint(240, 481))
        aspect = float(rng.uniform(0.75, 1.5))
        h, w = (short, int(short * aspect)) if rng.rand() < 0.5 else (int(short * aspect), short)
        coarse = rng.randint(0, 256, (h // 32 + 2, w // 32 + 2, 3)).astype(np.float32)
        field = np.repeat(np.repeat(coarse, 32, axis=0), 32, axis=1)[:h, :w]
        img = np.clip(field + rng.normal(0, 12, (h, w, 3)), 0, 255).astype(np.uint8)
        cls = os.path.join(folder, "class%d" % (i % 10))
        os.makedirs(cls, exist_ok=True)
        with open(os.path.join(cls, "img%05d.jpg" % i), "wb") as f:
            f.write(mx.image._imencode(img, ".jpg", 90))


def prepare(workdir, count):
    folder = os.path.join(workdir, "jpegs")
    prefix = os.path.join(workdir, "images")
    stamp = os.path.join(workdir, "ready-%d" % count)
    if os.path.exists(stamp):
        return folder, prefix + ".rec"
    import shutil
    shutil.rmtree(workdir, ignore_errors=True)
    os.makedirs(folder)
    make_images(folder, count)
    im2rec = os.path.join(bench_procs.ROOT, "tools", "im2rec.py")
    subprocess.run([sys.executable, im2rec, "--list", "--recursive", prefix, folder],
                   check=True, stdout=subprocess.DEVNULL)
    subprocess.run([sys.executable, im2rec, "--pass-through", "--num-thread", "2", prefix,
                    folder], check=True, stdout=subprocess.DEVNULL)
    open(stamp, "w").close()
    return folder, prefix + ".rec"


def epoch_rate(run_epoch, epochs):
    run_epoch()  # warm-up: caches, thread start, first allocations
    best = 0.0
    for _ in range(epochs):
        start = time.perf_counter()
        n = run_epoch()
        best = max(best, n / (time.perf_counter() - start))
    return best


def worker_mxnet(rec, threads, epochs):
    import mxnet as mx
    it = mx.io.ImageRecordIter(
        path_imgrec=rec, data_shape=(3, 224, 224), batch_size=BATCH, resize=256,
        rand_crop=True, rand_mirror=True, mean_r=MEAN[0], mean_g=MEAN[1], mean_b=MEAN[2],
        std_r=STD[0], std_g=STD[1], std_b=STD[2], preprocess_threads=threads,
        prefetch_buffer=4, round_batch=False, shuffle=False)

    def run_epoch():
        it.reset()
        n = 0
        for batch in it:
            batch.data[0].wait_to_read()
            n += BATCH - batch.pad
        return n
    return epoch_rate(run_epoch, epochs)


def worker_torchvision(folder, threads, epochs):
    import torch
    from torchvision import datasets, transforms
    torch.set_num_threads(1)
    tf = transforms.Compose([
        transforms.Resize(256), transforms.RandomCrop(224), transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize([m / 255 for m in MEAN], [s / 255 for s in STD])])
    loader = torch.utils.data.DataLoader(datasets.ImageFolder(folder, tf), batch_size=BATCH,
                                         num_workers=threads, persistent_workers=True)

    def run_epoch():
        n = 0
        for data, _ in loader:
            n += data.shape[0]
        return n
    return epoch_rate(run_epoch, epochs)


def run_config(name, rec, folder, threads, epochs):
    interps = bench_procs.peer_interpreters(1, "import torch, torchvision")
    interps["ours"] = bench_procs.ours_interpreter(1)
    py, env, _, _ = interps["torch" if name == "torchvision" else name]
    cmd = [py, os.path.abspath(__file__), "--worker", name, "--rec", rec, "--folder", folder,
           "--threads", str(threads), "--epochs", str(epochs)]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if proc.returncode:
        tail = (proc.stderr.strip().splitlines() or ["failed"])[-1]
        print("  %s threads=%d FAILED: %s" % (name, threads, tail), flush=True)
        return None
    return json.loads(proc.stdout.strip().splitlines()[-1])["images_per_s"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--images", type=int, default=2000)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--configs", default="ours,mxnet191,torchvision",
                    help="which of ours, mxnet191, torchvision to run")
    ap.add_argument("--workdir", default="/tmp/mxnet_image_bench")
    ap.add_argument("--max-load", type=float, default=0.0,
                    help="wait for a 1-minute load average below this first (0: don't)")
    ap.add_argument("--quick", action="store_true", help="400 images, 1 round, 1 epoch")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--rec", help=argparse.SUPPRESS)
    ap.add_argument("--folder", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        fn = worker_torchvision if args.worker == "torchvision" else worker_mxnet
        src = args.folder if args.worker == "torchvision" else args.rec
        rate = fn(src, int(args.threads), args.epochs)
        print(json.dumps({"images_per_s": rate}))
        return
    if args.quick:
        args.images, args.rounds, args.epochs = 400, 1, 1
        args.workdir += "_quick"
    folder, rec = prepare(args.workdir, args.images)
    wanted = args.configs.split(",")
    peers = {"mxnet191": "mxnet191", "torchvision": "torch"}
    interps = bench_procs.peer_interpreters(1, "import torch, torchvision")
    missing = bench_procs.report_missing(interps, [peers[n] for n in wanted if n in peers])
    names = [n for n in ("ours", "mxnet191", "torchvision")
             if n in wanted and peers.get(n) not in missing]
    threads = [int(t) for t in args.threads.split(",")]
    rates = {(n, t): [] for n in names for t in threads}
    for rnd in range(args.rounds):
        order = [(n, t) for t in threads for n in names]
        for name, t in (order if rnd % 2 == 0 else order[::-1]):
            bench_procs.wait_quiet(args.max_load)
            rate = run_config(name, rec, folder, t, args.epochs)
            if rate is not None:
                rates[(name, t)].append(rate)
                print("  round %d %-11s threads=%d %8.1f images/s" % (rnd, name, t, rate),
                      flush=True)
    print("\n%d JPEGs -> 3x224x224 batches of %d (resize 256, random crop, mirror, normalise)"
          % (args.images, BATCH))
    print("%-11s %7s %12s %14s %16s" % ("config", "threads", "images/s", "ours/mxnet191",
                                        "ours/torchvision"))
    for t in threads:
        med = {n: statistics.median(rates[(n, t)]) for n in names if rates[(n, t)]}
        for n in names:
            if n not in med:
                continue
            ratios = ["%.2fx" % (med["ours"] / med[p]) if n == "ours" and p in med and "ours"
                      in med else "" for p in ("mxnet191", "torchvision")]
            print("%-11s %7d %12.1f %14s %16s" % (n, t, med[n], ratios[0], ratios[1]))


if __name__ == "__main__":
    main()
