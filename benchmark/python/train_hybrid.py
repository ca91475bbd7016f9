#!/usr/bin/env python3
"""ResNet training through hybridized Gluon: ours against Apache MXNet 1.9.1 and PyTorch.

Every configuration runs in a fresh process (so its peak RSS is its own) that builds the
model zoo network (resnet50_v1 by default) with Xavier init, hybridizes it with
static_alloc=True and static_shape=True, and trains on one random batch with
SoftmaxCrossEntropyLoss and gluon.Trainer (sgd, lr 0.1, momentum 0.9): `--warmup` untimed
steps, then `--steps` timed steps (forward and backward under autograd.record, trainer.step,
a wait for every result), of which the median gives images/s. The same worker code runs on
our package and on MXNet 1.9.1, which share the Gluon API.

  ours                 this runtime, hybridized (one CachedOp call per forward)
  ours-mirror          the same with MXNET_BACKWARD_DO_MIRROR=1
  ours-imperative      this runtime, not hybridized (every operator called from Python)
  mxnet191             Apache MXNet 1.9.1 (benchmark/.peers/mxnet191), hybridized the same way
  torch                Debian's torch + torchvision (/usr/bin/python3), torchvision's resnet,
                       eager, CrossEntropyLoss, torch.optim.SGD (lr 0.1, momentum 0.9)

Runs go round the configurations `--rounds` times, in reverse order every other round; the
table gives medians over rounds, and ratios against MXNet 1.9.1 of the same round. Every
framework gets the same thread count (OMP/MKL/OPENBLAS_NUM_THREADS, torch.set_num_threads).
A peer that is not installed is reported as MISSING.

    python benchmark/python/train_hybrid.py             # resnet50_v1, batch 32, 224x224
    python benchmark/python/train_hybrid.py --quick     # resnet18_v1, batch 4, 64x64

Install the peers with: bash benchmark/python/setup_peers.sh
"""
import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchmark_score as bs  # noqa: E402  (stdlib-only helpers shared with the scorer)

# key -> (label, interpreter, worker, extra environment)
CONFIGS = [
    ("ours", "ours hybridized (static_alloc, static_shape)", "ours", "gluon-hybrid", {}),
    ("ours-mirror", "ours hybridized + MXNET_BACKWARD_DO_MIRROR=1", "ours", "gluon-hybrid",
     {"MXNET_BACKWARD_DO_MIRROR": "1"}),
    ("ours-imperative", "ours unhybridized (imperative)", "ours", "gluon-imperative", {}),
    ("mxnet191", "MXNet 1.9.1 hybridized (static_alloc, static_shape)", "mxnet191",
     "gluon-hybrid", {}),
    ("torch", "PyTorch eager (torchvision)", "torch", "torch", {}),
]
REFERENCE = "mxnet191"
TORCH_NAMES = {"resnet18_v1": "resnet18", "resnet34_v1": "resnet34", "resnet50_v1": "resnet50",
               "resnet101_v1": "resnet101", "resnet152_v1": "resnet152"}


def peak_rss_mb():
    """The process's peak resident set size so far (ru_maxrss is in KiB on Linux)."""
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def time_steps(step, sync, spec):
    for _ in range(spec["warmup"]):
        step()
        sync()
    times = []
    for _ in range(spec["steps"]):
        t0 = time.perf_counter()
        step()
        sync()
        times.append(time.perf_counter() - t0)
    return {"img_s": spec["batch"] / statistics.median(times), "step_seconds": times,
            "peak_rss_mb": peak_rss_mb()}


def worker_gluon(spec, hybridize):
    import numpy as np
    import mxnet as mx
    from mxnet import autograd, gluon
    from mxnet.gluon.model_zoo import vision
    mx.random.seed(0)
    bs.emit({"info": {"version": mx.__version__}})
    net = getattr(vision, spec["model"])(classes=spec["classes"])
    net.initialize(mx.init.Xavier())
    if hybridize:
        net.hybridize(static_alloc=True, static_shape=True)
    trainer = gluon.Trainer(net.collect_params(), "sgd",
                            {"learning_rate": 0.1, "momentum": 0.9})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    rng = np.random.RandomState(0)
    side = spec["image"]
    x = mx.nd.array(rng.uniform(-1, 1, (spec["batch"], 3, side, side)))
    y = mx.nd.array(rng.randint(0, spec["classes"], (spec["batch"],)))
    losses = []

    def step():
        with autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(spec["batch"])
        losses.append(loss)

    def sync():
        losses.pop().wait_to_read()
        mx.nd.waitall()

    res = time_steps(step, sync, spec)
    bs.emit(res)


def worker_torch(spec):
    import numpy as np
    import torch
    import torchvision
    torch.set_num_threads(spec["threads"])
    torch.manual_seed(0)
    bs.emit({"info": {"version": torch.__version__, "torchvision": torchvision.__version__,
                      "num_threads": torch.get_num_threads()}})
    net = getattr(torchvision.models, TORCH_NAMES[spec["model"]])(
        weights=None, num_classes=spec["classes"])
    net.train()
    opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    rng = np.random.RandomState(0)
    side = spec["image"]
    x = torch.from_numpy(rng.uniform(-1, 1, (spec["batch"], 3, side, side)).astype(np.float32))
    y = torch.from_numpy(rng.randint(0, spec["classes"], (spec["batch"],)))

    def step():
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(net(x), y)
        loss.backward()
        opt.step()

    bs.emit(time_steps(step, lambda: None, spec))


def interpreters(threads):
    """Interpreter, environment, import probe and install hint per framework."""
    found = {"ours": bs.ours_interpreter(threads)}
    found.update(bs.peer_interpreters(threads))
    return found


def without_runtime_settings(env):
    """The environment less any MXNET_/NNVM_ setting of the caller: each configuration
    states its own."""
    return {k: v for k, v in env.items() if not k.startswith(("MXNET_", "NNVM_"))
            or k == "MXNET_LIBRARY_PATH"}


def median_or_none(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def same_round_ratio(runs, ref_runs, field):
    """The median over rounds of runs[field] / ref_runs[field] in the same round."""
    pairs = [a[field] / b[field] for a, b in zip(runs, ref_runs)
             if a and b and a.get(field) and b.get(field)]
    return statistics.median(pairs) if pairs else None


def fmt(v, spec="%.2f"):
    return "-" if v is None else spec % v


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default=None, help="model zoo name (default resnet50_v1; "
                    "--quick: resnet18_v1); one of " + ", ".join(TORCH_NAMES))
    ap.add_argument("--batch", type=int, default=None, help="default 32 (--quick: 4)")
    ap.add_argument("--image", type=int, default=None, help="image side, default 224 "
                    "(--quick: 64)")
    ap.add_argument("--classes", type=int, default=1000)
    ap.add_argument("--steps", type=int, default=None,
                    help="timed steps per run, default 5 (--quick: 2)")
    ap.add_argument("--warmup", type=int, default=None, help="untimed steps first, default 2 "
                    "(--quick: 1): pools and plans fill in during the first steps")
    ap.add_argument("--rounds", type=int, default=None, help="runs per configuration, in "
                    "turn, reversed every other round; default 2 (--quick: 1)")
    ap.add_argument("--threads", type=int, default=None,
                    help="threads for every framework (default: the CPU count)")
    ap.add_argument("--only", default=",".join(c[0] for c in CONFIGS),
                    help="comma-separated configurations: " + ", ".join(c[0] for c in CONFIGS))
    ap.add_argument("--max-load", type=float, default=0, help="before each run, wait until "
                    "the load average is below this (0: do not wait)")
    ap.add_argument("--timeout", type=int, default=3600, help="seconds per run")
    ap.add_argument("--quick", action="store_true",
                    help="smoke run: resnet18_v1, batch 4, 64x64, 2 steps, 1 warm-up, 1 round "
                         "(unless given)")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--spec", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.worker:
        spec = json.loads(args.spec)
        if args.worker == "torch":
            worker_torch(spec)
        else:
            worker_gluon(spec, hybridize=args.worker == "gluon-hybrid")
        return 0

    # --quick changes the defaults; options given explicitly still win.
    for name, full, quick in (("batch", 32, 4), ("image", 224, 64), ("steps", 5, 2),
                              ("warmup", 2, 1), ("rounds", 2, 1)):
        if getattr(args, name) is None:
            setattr(args, name, quick if args.quick else full)
    model = args.model or ("resnet18_v1" if args.quick else "resnet50_v1")
    if model not in TORCH_NAMES:
        ap.error("unknown model %s" % model)
    keys = args.only.split(",")
    for k in keys:
        if k not in [c[0] for c in CONFIGS]:
            ap.error("unknown configuration %s" % k)
    configs = [c for c in CONFIGS if c[0] in keys]
    threads = args.threads or os.cpu_count()
    spec = {"model": model, "batch": args.batch, "image": args.image, "classes": args.classes,
            "steps": args.steps, "warmup": args.warmup, "threads": threads}
    print("%s training, batch %d, %dx%d, %d classes: median of %d steps after %d warm-up, "
          "%d round(s); %d threads for every framework; load average %s" % (
              model, args.batch, args.image, args.image, args.classes, args.steps,
              args.warmup, args.rounds, threads,
              " ".join("%.2f" % v for v in os.getloadavg())), flush=True)

    interp = interpreters(threads)
    missing = bs.report_missing(interp, {c[2] for c in configs})
    live = [c for c in configs if c[2] not in missing]
    runs = {c[0]: [] for c in configs}
    errors = {}
    for rnd in range(args.rounds):
        for key, label, fw, worker, extra in (live if rnd % 2 == 0 else live[::-1]):
            py, env, _, _ = interp[fw]
            env = dict(without_runtime_settings(env), **extra)
            bs.wait_quiet(args.max_load)
            recs, err = bs.run_worker(py, env, worker, spec, args.timeout, __file__)
            res = next((r for r in recs if "img_s" in r), None)
            runs[key].append(res)
            if err or res is None:
                errors.setdefault(key, []).append(err or "no result")
            print("round %d %-16s %s" % (
                rnd + 1, key, "%.2f img/s, peak RSS %.0f MB" % (res["img_s"], res["peak_rss_mb"])
                if res else "ERROR: %s" % (err or "no result")), flush=True)

    ref = runs.get(REFERENCE, [])
    print("\n### %s training, batch %d, %dx%d (img/s: median of %d steps, "
          "median over %d round(s))" % (model, args.batch, args.image, args.image, args.steps,
                                        args.rounds))
    print("| configuration | img/s | vs MXNet 1.9.1 (same round) | peak RSS MB "
          "| RSS vs MXNet 1.9.1 |")
    print("|---|---:|---:|---:|---:|")
    for key, label, fw, _, _ in configs:
        if fw in missing:
            print("| %s | MISSING: %s | | | |" % (label, interp[fw][3]))
            continue
        done = runs[key]
        if not any(done):
            print("| %s | failed: %s | | | |" % (label, "; ".join(errors.get(key, []))))
            continue
        print("| %s | %s | %s | %s | %s |" % (
            label, fmt(median_or_none(r and r["img_s"] for r in done)),
            fmt(same_round_ratio(done, ref, "img_s")),
            fmt(median_or_none(r and r["peak_rss_mb"] for r in done), "%.0f"),
            fmt(same_round_ratio(done, ref, "peak_rss_mb"))))
    print("(ratios: the configuration's figure over MXNet 1.9.1's in the same round, the median "
          "over rounds: img/s above 1 is faster, RSS below 1 is smaller; peak RSS: ru_maxrss "
          "of the configuration's own process, from start to the last step)")
    for key, errs in errors.items():
        print("ERROR %s: %s" % (key, "; ".join(errs)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
