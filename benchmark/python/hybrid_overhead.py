#!/usr/bin/env python3
"""Overhead per hybridized forward: a deep MLP of tiny layers at batch 1, where the Python and
runtime costs per call dominate the arithmetic.

The network is `--layers` (50) x [Dense(`--width`=8), relu] on a (1, 8) input: a hundred
operators of a few dozen multiply-adds each, so the time per forward is what the framework
spends around the kernels (Python, graph dispatch, engine, allocation). Every configuration
runs in a fresh process: a warm-up (at least `--warmup` seconds and 20 calls: deferred
initialisation, graph building, first-call planning), then `--windows` timed windows of
back-to-back forwards (as many as fill `--window` seconds at the warm-up's speed), each
forward followed by a wait for its output (wait_to_read; torch is synchronous). The figure is
the median window's microseconds per forward.

  ours-hybrid        this runtime, net.hybridize() (default flags): one CachedOp call a forward
  ours-static        this runtime, net.hybridize(static_alloc=True, static_shape=True)
  ours-imperative    this runtime, not hybridized: every block and operator from Python
  mxnet191-hybrid    Apache MXNet 1.9.1 (benchmark/.peers/mxnet191), net.hybridize()
  mxnet191-static    Apache MXNet 1.9.1, static_alloc and static_shape (the reference)
  torch-eager        Debian's torch (/usr/bin/python3), nn.Sequential under inference_mode
  torchscript        the same module through torch.jit.script + torch.jit.freeze

Runs go round the configurations `--rounds` times, in reverse order every other round; the
table gives medians over rounds, and each configuration's time over MXNet 1.9.1 static's in
the same round. A peer that is not installed is reported as MISSING.

    python benchmark/python/hybrid_overhead.py            # 50 layers, 3 rounds
    python benchmark/python/hybrid_overhead.py --quick    # short windows, 1 round

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

# key -> (label, framework, worker variant)
CONFIGS = [
    ("ours-hybrid", "ours hybridized", "ours", "hybrid"),
    ("ours-static", "ours hybridized (static_alloc, static_shape)", "ours", "static"),
    ("ours-imperative", "ours unhybridized (imperative)", "ours", "imperative"),
    ("mxnet191-hybrid", "MXNet 1.9.1 hybridized", "mxnet191", "hybrid"),
    ("mxnet191-static", "MXNet 1.9.1 hybridized (static_alloc, static_shape)", "mxnet191",
     "static"),
    ("torch-eager", "PyTorch eager (inference_mode)", "torch", "eager"),
    ("torchscript", "TorchScript (script + freeze)", "torch", "torchscript"),
]
REFERENCE = "mxnet191-static"


def time_forwards(forward, spec):
    """Microseconds per forward: warm-up, then the median of the timed windows."""
    start, calls = time.perf_counter(), 0
    while calls < 20 or time.perf_counter() - start < spec["warmup_s"]:
        forward()
        calls += 1
    t0 = time.perf_counter()  # the speed after the warm-up sizes the windows
    for _ in range(10):
        forward()
    n = max(10, int(spec["window_s"] / ((time.perf_counter() - t0) / 10)))
    windows = []
    for _ in range(spec["windows"]):
        t0 = time.perf_counter()
        for _ in range(n):
            forward()
        windows.append((time.perf_counter() - t0) / n * 1e6)
    return {"us": statistics.median(windows), "windows_us": windows, "calls_per_window": n}


def worker_mxnet(spec, variant):
    import mxnet as mx
    from mxnet.gluon import nn
    mx.random.seed(0)
    net = nn.HybridSequential()
    for _ in range(spec["layers"]):
        net.add(nn.Dense(spec["width"], activation="relu"))
    net.initialize()
    if variant == "hybrid":
        net.hybridize()
    elif variant == "static":
        net.hybridize(static_alloc=True, static_shape=True)
    x = mx.nd.random.uniform(shape=(spec["batch"], spec["width"]))

    def forward():
        net(x).wait_to_read()

    res = time_forwards(forward, spec)
    res["version"] = mx.__version__
    bs.emit(res)


def worker_torch(spec, variant):
    import torch
    torch.set_num_threads(spec["threads"])
    torch.manual_seed(0)
    layers = []
    for _ in range(spec["layers"]):
        layers += [torch.nn.Linear(spec["width"], spec["width"]), torch.nn.ReLU()]
    net = torch.nn.Sequential(*layers).eval()
    x = torch.rand(spec["batch"], spec["width"])
    how = "eager"
    if variant == "torchscript":
        try:
            net = torch.jit.freeze(torch.jit.script(net))
            how = "script + freeze"
        except Exception as err:  # scripting refused: the traced module instead
            bs.log("torch.jit.script failed (%s); tracing" % bs.error_text(err))
            with torch.no_grad():
                net = torch.jit.freeze(torch.jit.trace(net, x))
            how = "trace + freeze"

    def forward():
        with torch.inference_mode():
            net(x)

    res = time_forwards(forward, spec)
    res.update(version=torch.__version__, how=how)
    bs.emit(res)


def interpreters(threads):
    """Interpreter, environment, import probe and install hint per framework."""
    found = {"ours": bs.ours_interpreter(threads, runtime_settings=False)}
    found.update(bs.peer_interpreters(threads, torch_probe="import torch"))
    return found


def fmt(v, spec="%.1f"):
    return "-" if v is None else spec % v


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--layers", type=int, default=50, help="Dense + relu layers")
    ap.add_argument("--width", type=int, default=8, help="units per Dense layer and input width")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--warmup", type=float, default=None,
                    help="warm-up seconds (default 1.0; --quick: 0.2)")
    ap.add_argument("--window", type=float, default=None,
                    help="seconds per timed window (default 0.5; --quick: 0.1)")
    ap.add_argument("--windows", type=int, default=None,
                    help="timed windows per run (default 7; --quick: 3)")
    ap.add_argument("--rounds", type=int, default=None,
                    help="runs per configuration, in turn (default 3; --quick: 1)")
    ap.add_argument("--threads", type=int, default=None,
                    help="threads for every framework (default: the CPU count)")
    ap.add_argument("--only", default=",".join(c[0] for c in CONFIGS),
                    help="comma-separated configurations: " + ", ".join(c[0] for c in CONFIGS))
    ap.add_argument("--max-load", type=float, default=0, help="before each run, wait until "
                    "the load average is below this (0: do not wait)")
    ap.add_argument("--timeout", type=int, default=600, help="seconds per run")
    ap.add_argument("--quick", action="store_true", help="short windows, one round")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--spec", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.worker:
        spec = json.loads(args.spec)
        fw, variant = args.worker.split(":")
        (worker_torch if fw == "torch" else worker_mxnet)(spec, variant)
        return 0

    for name, full, quick in (("warmup", 1.0, 0.2), ("window", 0.5, 0.1), ("windows", 7, 3),
                              ("rounds", 3, 1)):
        if getattr(args, name) is None:
            setattr(args, name, quick if args.quick else full)
    keys = args.only.split(",")
    for k in keys:
        if k not in [c[0] for c in CONFIGS]:
            ap.error("unknown configuration %s" % k)
    configs = [c for c in CONFIGS if c[0] in keys]
    threads = args.threads or os.cpu_count()
    spec = {"layers": args.layers, "width": args.width, "batch": args.batch,
            "warmup_s": args.warmup, "window_s": args.window, "windows": args.windows,
            "threads": threads}
    print("MLP of %d x [Dense(%d), relu], batch %d: us per forward (each waited for), median "
          "of %d windows of ~%.2f s after a %.1f s warm-up, %d round(s); %d threads for every "
          "framework; load average %s" % (
              args.layers, args.width, args.batch, args.windows, args.window, args.warmup,
              args.rounds, threads, " ".join("%.2f" % v for v in os.getloadavg())), flush=True)

    interp = interpreters(threads)
    missing = bs.report_missing(interp, {c[2] for c in configs})
    live = [c for c in configs if c[2] not in missing]
    runs = {c[0]: [] for c in configs}
    errors = {}
    for rnd in range(args.rounds):
        for key, label, fw, variant in (live if rnd % 2 == 0 else live[::-1]):
            py, env, _, _ = interp[fw]
            bs.wait_quiet(args.max_load)
            recs, err = bs.run_worker(py, env, "%s:%s" % (fw, variant), spec, args.timeout,
                                      __file__)
            res = next((r for r in recs if "us" in r), None)
            runs[key].append(res)
            if err or res is None:
                errors.setdefault(key, []).append(err or "no result")
            print("round %d %-16s %s" % (rnd + 1, key, "%.1f us/forward" % res["us"] if res
                                         else "ERROR: %s" % (err or "no result")), flush=True)

    ref = runs.get(REFERENCE, [])
    print("\n### Overhead per forward: %d x [Dense(%d), relu], batch %d (us, median of %d "
          "windows, median over %d round(s))" % (args.layers, args.width, args.batch,
                                                 args.windows, args.rounds))
    print("| configuration | us / forward | us / layer | windows (min-max us) "
          "| time vs MXNet 1.9.1 static (same round) |")
    print("|---|---:|---:|---:|---:|")
    for key, label, fw, _ in configs:
        if fw in missing:
            print("| %s | MISSING: %s | | | |" % (label, interp[fw][3]))
            continue
        done = [r for r in runs[key] if r]
        if not done:
            print("| %s | failed: %s | | | |" % (label, "; ".join(errors.get(key, []))))
            continue
        us = statistics.median(r["us"] for r in done)
        every = [w for r in done for w in r["windows_us"]]
        pairs = [a["us"] / b["us"] for a, b in zip(runs[key], ref) if a and b]
        print("| %s | %s | %s | %s-%s | %s |" % (
            label, fmt(us), fmt(us / args.layers, "%.2f"), fmt(min(every)), fmt(max(every)),
            fmt(statistics.median(pairs) if pairs else None, "%.2f")))
    print("(time vs MXNet 1.9.1 static: the configuration's us per forward over MXNet 1.9.1 "
          "static's in the same round, the median over rounds; below 1 is less overhead)")
    for key, errs in errors.items():
        print("ERROR %s: %s" % (key, "; ".join(errs)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
