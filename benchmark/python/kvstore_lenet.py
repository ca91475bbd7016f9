#!/usr/bin/env python3
"""Two-rank data-parallel LeNet (kvstore dist_sync) against one process, on the same data.

The main job's LeNet and training (example/gluon/fashion_mnist.py: SGD lr 0.01 momentum 0.9,
Xavier, hybridized static_alloc/static_shape, the loss read back every batch), on Fashion-MNIST
decoded once with numpy (benchmark/python/train_lenet.py's loader), so the figures are the
training steps, not a data pipeline. Every configuration trains on the same global batches of
64 (one shuffled epoch, 938 batches; --limit N: the first N): one process takes each whole;
two ranks (mpirun -np 2) take 32 samples of it each, and the Trainer sums their gradients and
normalises by 64, the same update as the one process. Each run does --warmup steps first
(untimed: hybridization, first allocations), then the epoch is timed on rank 0 from a barrier
to the last step.

  1 process           one process, batch 64, out of the box (its threads on both cores)
  1 process, 1 thread OMP_NUM_THREADS=1: one core's worth, what each rank gets below
  2 ranks             mpirun -np 2, batch 32 per rank, OMP_NUM_THREADS=1 per rank
  2 ranks, default    the same with each rank's default threads (4 threads on 2 cores)
  2 ranks, no allreduce  as "2 ranks" but each rank updates its own copy from its own half
                      batch, no communication: the compute alone (its accuracy is not shown:
                      rank 0's model has seen half the data)

"vs 1 process" is the speed ratio t(1 process) / t(config): above 1, faster than one process.
What it means on this 2-core machine: both setups use the same two cores, one as two threads
inside every operator, the other as two processes with half the batch each plus an allreduce
of LeNet's 431k gradients (1.7 MB) per step; a ratio near 1 says data parallelism costs about
as much as it saves, not that it scales. Scaling is the other figure: "2-rank scaling" =
t(1 process, 1 thread) / t(2 ranks), at best 2.0 (two cores doing one core's work each), and
"allreduce share" = 1 - t(2 ranks, no allreduce) / t(2 ranks) is the part of the 2-rank epoch
that the gradient sums add. Both assume two idle cores: the load average printed before and
after shows how much other processes took (--max-load waits for a quieter machine).

    python benchmark/python/kvstore_lenet.py --quick           # 40 batches, seconds
    python benchmark/python/kvstore_lenet.py                   # one epoch, each config once
    python benchmark/python/kvstore_lenet.py --rounds 3        # medians of 3 (order reversed)
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
NO_ALLREDUCE = "2 ranks, no allreduce"
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import train_lenet as tl  # noqa: E402  (the idx loader and the batch order)
from bench_procs import wait_quiet  # noqa: E402

CONFIGS = [
    # (name, ranks, OMP_NUM_THREADS or None for the default)
    ("1 process", 1, None),
    ("1 process, 1 thread", 1, "1"),
    ("2 ranks", 2, "1"),
    ("2 ranks, default threads", 2, None),
    (NO_ALLREDUCE, 2, "1"),
]


def worker(spec):
    import numpy as np
    import mxnet as mx
    from mxnet import autograd, gluon
    ranks = spec["ranks"]
    kv = mx.kv.create("dist_sync") if ranks > 1 else None
    rank = kv.rank if kv is not None else 0
    if not spec["allreduce"]:  # the kvstore only for the rank and barriers: no gradient sums
        barrier, kv = kv, None
    else:
        barrier = kv
    assert kv is None or kv.num_workers == ranks, (kv.num_workers, ranks)
    mx.random.seed(spec["seed"])
    np.random.seed(spec["seed"])
    train_x, train_y, test_x, test_y = tl.load_fashion_mnist(spec.get("data_dir"))
    sys.path.insert(0, os.path.join(REPO, "example", "gluon"))
    from fashion_mnist import build_net
    net = build_net()
    net.initialize(mx.init.Xavier())
    net.hybridize(static_alloc=True, static_shape=True)
    kwargs = {"kvstore": kv, "update_on_kvstore": False} if kv is not None else {"kvstore": None}
    trainer = gluon.Trainer(net.collect_params(), "sgd",
                            {"learning_rate": spec["lr"], "momentum": spec["momentum"]}, **kwargs)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    order = tl.batches_of(spec, train_x)
    warm = tl.batches_of(dict(spec, seed=spec["seed"] + 1, batches=spec["warmup"]), train_x)

    def step(idx):
        mine = idx[rank * len(idx) // ranks:(rank + 1) * len(idx) // ranks]
        data = mx.nd.array(train_x[mine])
        label = mx.nd.array(train_y[mine])
        with autograd.record():
            loss = loss_fn(net(data), label)
        loss.backward()
        trainer.step(len(idx))  # the whole step's samples: the gradients are summed over ranks
        return float(loss.sum().asscalar())  # read back every batch, as the job

    for idx in warm:
        step(idx)
    mx.nd.waitall()
    if barrier is not None:
        barrier._barrier()
    total_loss = 0.0
    tic = time.perf_counter()
    for idx in order:
        total_loss += step(idx)
    mx.nd.waitall()
    seconds = time.perf_counter() - tic
    if rank != 0:
        return
    correct = 0
    for i in range(0, len(test_x), 256):
        out = net(mx.nd.array(test_x[i:i + 256])).asnumpy()
        correct += int((out.argmax(axis=1) == test_y[i:i + 256]).sum())
    samples = int(sum(len(i) for i in order))
    print("RESULT " + json.dumps({"seconds": seconds, "batches": len(order), "samples": samples,
                                  "rank0_mean_loss": total_loss / (samples / ranks),
                                  "test_accuracy": correct / float(len(test_x))}), flush=True)


def run_config(name, ranks, threads, args):
    spec = {"ranks": ranks, "allreduce": name != NO_ALLREDUCE, "seed": args.seed,
            "batch_size": 64, "batches": args.batches,
            "warmup": args.warmup, "lr": 0.01, "momentum": 0.9, "data_dir": args.data_dir}
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(REPO, "python") + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("MXNET_LIBRARY_PATH", os.path.join(REPO, "build", "libmxnet.so"))
    env.pop("OMP_NUM_THREADS", None)
    if threads:
        env["OMP_NUM_THREADS"] = threads
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", json.dumps(spec)]
    if ranks > 1:
        env.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                    "OMPI_MCA_btl_vader_single_copy_mechanism": "none"})
        cmd = ["mpirun", "-np", str(ranks), "--oversubscribe", "--bind-to", "none"] + cmd
    proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, timeout=args.timeout, cwd=REPO)
    recs = [json.loads(l[len("RESULT "):]) for l in proc.stdout.splitlines()
            if l.startswith("RESULT ")]
    if proc.returncode != 0 or not recs:
        tail = (proc.stderr.strip() or proc.stdout.strip()).splitlines()[-3:]
        return None, "exit %d: %s" % (proc.returncode, " | ".join(tail))
    return recs[0], None


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--worker", help=argparse.SUPPRESS)
    p.add_argument("--limit", type=int, default=0, help="batches of 64 to time (0: one epoch)")
    p.add_argument("--warmup", type=int, default=10, help="untimed steps first")
    p.add_argument("--rounds", type=int, default=1,
                   help="run every configuration this many times, the order reversed every "
                        "other round; medians")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--data-dir", default=None, help="directory of the idx files")
    p.add_argument("--quick", action="store_true", help="40 batches after 3 warm-up steps")
    p.add_argument("--timeout", type=int, default=900, help="seconds per run")
    p.add_argument("--max-load", type=float, default=0,
                   help="before each run, wait until the load average is below this")
    p.add_argument("--json", default=None, help="also write the results here")
    args = p.parse_args(argv)
    if args.worker:
        worker(json.loads(args.worker))
        return 0
    if args.quick:
        args.limit = args.limit or 40
        args.warmup = min(args.warmup, 3)
    args.batches = args.limit or -(-60000 // 64)
    configs = CONFIGS
    if shutil.which("mpirun") is None:
        print("2 ranks: MISSING: mpirun not found (apt-get install openmpi-bin)")
        configs = [c for c in CONFIGS if c[1] == 1]
    try:
        load = "%.2f %.2f %.2f" % os.getloadavg()
    except OSError:
        load = "?"
    print("LeNet data-parallel benchmark: %d batches of 64 (%s), %d warm-up steps, %d round(s), "
          "%d cores, load average %s" % (args.batches, "one epoch" if not args.limit else
                                         "--limit", args.warmup, args.rounds,
                                         os.cpu_count() or 0, load), flush=True)
    results = {c[0]: [] for c in configs}
    errors = []
    for rnd in range(args.rounds):
        order = configs if rnd % 2 == 0 else list(reversed(configs))
        for name, ranks, threads in order:
            wait_quiet(args.max_load)
            rec, err = run_config(name, ranks, threads, args)
            if err:
                errors.append("%s: %s" % (name, err))
                print("%s, round %d: FAILED %s" % (name, rnd + 1, err), flush=True)
                continue
            results[name].append(rec)
            print("%s, round %d: %.2f s, test accuracy %.4f" % (name, rnd + 1, rec["seconds"],
                                                                rec["test_accuracy"]), flush=True)
    try:
        print("load average after: %.2f %.2f %.2f" % os.getloadavg())
    except OSError:
        pass

    def med(name, field="seconds"):
        vals = [r[field] for r in results.get(name, [])]
        return statistics.median(vals) if vals else None

    base = med("1 process")
    print()
    print("### LeNet on Fashion-MNIST, %d batches of 64%s: one process against 2 ranks "
          "(dist_sync) on the same batches (median of %d round(s))"
          % (args.batches, "" if args.limit else " (one epoch)", args.rounds))
    print()
    print("| configuration | threads per process | epoch s | samples/s | vs 1 process (speed) "
          "| test accuracy |")
    print("|---|---|---|---|---|---|")
    summary = {}
    for name, ranks, threads in configs:
        t = med(name)
        acc = med(name, "test_accuracy") if name != NO_ALLREDUCE else None
        samples = results[name][0]["samples"] if results[name] else 0
        summary[name] = {"seconds": t, "test_accuracy": acc,
                         "runs": [r["seconds"] for r in results[name]]}
        print("| %s | %s | %s | %s | %s | %s |" % (
            name, threads or "default", "%.2f" % t if t else "-",
            "%.0f" % (samples / t) if t else "-",
            "%.2f" % (base / t) if t and base else "-", "%.4f" % acc if acc is not None else "-"))
    one_core, two = med("1 process, 1 thread"), med("2 ranks")
    print()
    if base and two:
        print("2 ranks vs 1 process: %.2fx (speed; same 2 cores, same batches)" % (base / two))
    if one_core and two:
        print("2-rank scaling: t(1 process, 1 thread) / t(2 ranks) = %.2f (ideal 2.00)"
              % (one_core / two))
    compute = med(NO_ALLREDUCE)
    if compute and two:
        print("allreduce share of the 2-rank epoch: 1 - t(%s) / t(2 ranks) = %.0f%%"
              % (NO_ALLREDUCE, 100 * (1 - compute / two)))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"batches": args.batches, "rounds": args.rounds, "summary": summary,
                       "errors": errors}, f, indent=1)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
