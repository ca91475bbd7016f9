#!/usr/bin/env python3
"""Scoring benchmark: images/s of image-classification networks, ours against the peers.

fp32, random weights, random input; for every (network, batch size) a warm-up, then several
timed windows of whole batches, and the median window's images/s is reported (min, max and
every window go to the JSON too). Every framework runs in its own process, started by this
script with the same thread count (OMP_NUM_THREADS, MKL_NUM_THREADS, OPENBLAS_NUM_THREADS, and
each framework's own setting), so no two of them share a BLAS.

The frameworks take turns (lockstep, the default): all their processes stay loaded with the
same network and batch size, and the timed windows go round them one window at a time, in
reverse order every other window, while the others wait idle. A host whose speed drifts by
tens of percent within minutes then slows the windows of one turn alike, and each ratio is
the median over turns of the two frameworks' rates in the same turn, with its range printed.
--isolated instead runs a process per framework and network that times each case whole,
the frameworks in turn (in reverse every other round). --rounds N repeats everything N times
in either mode; figures are medians over rounds, and lockstep ratios pool every round's turns.

Frameworks (a peer that is not installed is reported as missing, never skipped silently):
  ours         this runtime's mx.gluon.model_zoo.vision, hybridized with static_alloc and
               static_shape: one CachedOp call per forward, the graph fused by the CPU
               subgraph backend (conv + BatchNorm + residual sum + activation, FC +
               activation); 3x3 stride-1 convolutions run Winograd F(4x4, 3x3).
  mxnet191     Apache MXNet 1.9.1 from PyPI (benchmark/.peers/mxnet191), the same zoo models,
               hybridized with static_alloc/static_shape as its users run inference.
  torch        Debian's python3-torch with torchvision's models, via /usr/bin/python3: eager
               (inference_mode) and TorchScript traced+frozen; both are kept, the faster is
               "torch best".
  onnxruntime  onnxruntime from PyPI (benchmark/.peers/ort) running the torchvision models
               exported to ONNX by the torch process.
Install the peers with: bash benchmark/python/setup_peers.sh

Also measured: the machine's fp32 GEMM peak (a large sgemm through numpy's BLAS, our
mx.nd.dot and torch.mm; the best is the peak), each network's multiply-adds (counted from
its convolution and dense layers on a batch-1 forward pass), and from these ResNet-50's
achieved GFLOP/s per framework as a fraction of the peak.

Peak RSS: every framework's process reports its peak resident set size after each case (the
mark is lowered to the current RSS when a network is loaded, where Linux allows it; batch
sizes run in ascending order, so a figure covers the smaller batches of that network too).

Output: a markdown table per network on stdout (images/s and ratios, then peak RSS), results
JSON and (when matplotlib can be imported by this interpreter or /usr/bin/python3) a PNG bar
chart in --out-dir.

  python benchmark/python/benchmark_score.py --quick     # ResNet-50, AlexNet; batch 1, 8
  python benchmark/python/benchmark_score.py             # everything (tens of minutes)
"""
import argparse
import json
import os
import platform
import queue
import statistics
import subprocess
import sys
import threading
import time

from bench_procs import (EXTRA_ENV, HERE, PEERS, ROOT, SETUP, available,  # noqa: F401  (used by
                         openblas_coretype, ours_interpreter, peer_env,  # the sibling scripts too)
                         peer_interpreters, report_missing, thread_env, wait_quiet)

# Our zoo name -> (torchvision name, input side).
MODELS = {
    "alexnet": ("alexnet", 224),
    "vgg16": ("vgg16", 224),
    "inception_v3": ("inception_v3", 299),
    "resnet50_v1": ("resnet50", 224),
    "resnet152_v1": ("resnet152", 224),
}
BATCH_SIZES = [1, 2, 4, 8, 16, 32]
FRAMEWORKS = ["ours", "mxnet191", "torch", "onnxruntime"]


# ----------------------------------------------------------------------------------------
# Timing, shared by every worker (stdlib only: the workers run under other interpreters).

def warm_up(run, warmup_s, window_s):
    """Runs the warm-up; returns how many whole batches fill a timed window.

    The warm-up lasts at least three calls and `warmup_s` seconds (first calls allocate
    memory, pick kernels and fill caches; TorchScript profiles two runs before it optimises).
    A window is as many whole batches as fit into `window_s` at the last call's speed (at
    least one), so every window is a steady-state average.
    """
    start = time.perf_counter()
    calls = 0
    while calls < 3 or time.perf_counter() - start < warmup_s:
        t0 = time.perf_counter()
        run()
        last = time.perf_counter() - t0
        calls += 1
    return max(1, int(window_s / max(last, 1e-9)))


def timed_window(run, batch, calls):
    """Images/s of `calls` back-to-back batches."""
    t0 = time.perf_counter()
    for _ in range(calls):
        run()
    return calls * batch / (time.perf_counter() - t0)


def summarize(rates, per_window):
    """The record of one case: the median window (min, max and every window kept)."""
    return {"images_per_s": statistics.median(rates), "min": min(rates), "max": max(rates),
            "windows": len(rates), "batches_per_window": per_window, "rates": rates}


def time_batches(run, batch, warmup_s, window_s, windows):
    """Images/s of `run` (one synchronous batch): warm-up, then `windows` timed windows, of
    which the median resists a noisy neighbour."""
    per_window = warm_up(run, warmup_s, window_s)
    return summarize([timed_window(run, batch, per_window) for _ in range(windows)],
                     per_window)


def emit(record):
    """One result line on stdout for the parent (other output goes to stderr)."""
    sys.stdout.write("RESULT " + json.dumps(record) + "\n")
    sys.stdout.flush()


def log(msg):
    sys.stderr.write(msg + "\n")
    sys.stderr.flush()


def error_text(err):
    return "%s: %s" % (type(err).__name__, err)


def _status_kb(field):
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


def peak_rss_mb():
    """This process's peak resident set size in MB: VmHWM (the mark reset_peak_rss lowers)
    where /proc has it, else ru_maxrss (KiB on Linux)."""
    kb = _status_kb("VmHWM")
    if kb is None:
        import resource
        kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return kb / 1024.0


def reset_peak_rss():
    """Lowers this process's peak-RSS mark to its current RSS (Linux 4.0+: "5" to
    /proc/self/clear_refs); returns (done, current RSS in MB or None)."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        done = True
    except OSError:
        done = False
    kb = _status_kb("VmRSS")
    return done, None if kb is None else kb / 1024.0


def load_network(backend, name):
    """backend.load(name) after lowering the peak-RSS mark, so that a network's figures do
    not carry an earlier network's peak; its records, then one with the RSS at the reset."""
    done, rss = reset_peak_rss()
    records = backend.load(name)
    return records + [{"model": name, "rss_mark_reset": done, "rss_at_load_mb": rss}]


def best_gemm(matmul, make, n, reps):
    """GFLOP/s of the best of `reps` n x n x n fp32 matrix products."""
    a, b = make(n), make(n)
    matmul(a, b)
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        matmul(a, b)
        best = min(best, time.perf_counter() - t0)
    return 2.0 * n ** 3 / best / 1e9


# ----------------------------------------------------------------------------------------
# Backends: one per framework, each in its own process under its framework's interpreter.
# A backend says what it is (info), loads a network (load: records such as its multiply-
# adds or its ONNX file), and makes a runner per variant for a batch size (runners: pairs of
# variant and a function that builds the runner, so one variant failing spares the others).

def mxnet_macs(mx, net, side):
    """Multiply-adds per image of a Gluon network, from its Conv2D and Dense layers."""
    from mxnet.gluon import nn
    total = [0]

    def hook(block, inputs, output):
        per_image = output.size // output.shape[0]
        w = block.weight.shape
        if isinstance(block, nn.Dense):
            total[0] += per_image * w[1]
        else:  # (out, in / groups, kh, kw)
            total[0] += per_image * w[1] * w[2] * w[3]

    handles = []

    def attach(block):
        if isinstance(block, (nn.Conv2D, nn.Dense)):
            handles.append(block.register_forward_hook(hook))
    net.apply(attach)
    net(mx.nd.zeros((1, 3, side, side))).wait_to_read()
    for h in handles:
        h.detach()
    return total[0]


class MXNetBackend:
    """Ours and Apache MXNet 1.9.1 share the Gluon API, so one backend serves both."""

    def __init__(self, spec, flavour):
        import mxnet as mx
        self.mx, self.spec, self.flavour, self.net = mx, spec, flavour, None
        self.variant = "hybridized static" if flavour == "mxnet191" else "hybridized static"

    def info(self):
        mx = self.mx
        info = {"version": mx.__version__}
        if self.flavour == "ours":
            info["runtime"] = dict(mx.runtime.info())
            if self.spec.get("gemm"):
                import numpy as np
                n = self.spec["gemm_n"]
                # Our own sgemm (mx.nd.dot) and numpy's BLAS in this process.
                info["gemm_gflops_mx_dot"] = best_gemm(
                    lambda a, b: mx.nd.dot(a, b).wait_to_read(),
                    lambda k: mx.nd.random.uniform(shape=(k, k)), n, 5)
                info["gemm_gflops_numpy"] = best_gemm(
                    np.matmul, lambda k: np.random.rand(k, k).astype(np.float32), n, 5)
                info["numpy_version"] = np.__version__
        return info

    def load(self, name):
        from mxnet.gluon.model_zoo import vision
        self.side = MODELS[name][1]
        net = getattr(vision, name)()
        net.initialize(self.mx.init.Xavier())
        # Counted by forward hooks, which a hybridized (compiled) block does not run.
        records = ([{"model": name, "macs_per_image": mxnet_macs(self.mx, net, self.side)}]
                   if self.flavour == "ours" else [])
        # Both build a static graph with this (a CachedOp, fused by the subgraph backend).
        net.hybridize(static_alloc=True, static_shape=True)
        self.net = net
        return records

    def runners(self, batch):
        def make():
            net, x = self.net, self.mx.nd.random.uniform(shape=(batch, 3, self.side, self.side))
            return lambda: net(x).wait_to_read()
        return [(self.variant, make)]

    def unload(self):
        self.net = None


class TorchBackend:
    def __init__(self, spec):
        import torch
        import torchvision
        torch.set_num_threads(spec["threads"])
        self.torch, self.torchvision, self.spec, self.model = torch, torchvision, spec, None

    def info(self):
        torch = self.torch
        info = {"version": torch.__version__, "torchvision": self.torchvision.__version__,
                "num_threads": torch.get_num_threads(),
                "parallel_info": torch.__config__.parallel_info()}
        if self.spec.get("gemm"):
            info["gemm_gflops_torch_mm"] = best_gemm(
                torch.mm, lambda k: torch.rand(k, k), self.spec["gemm_n"], 5)
        return info

    def load(self, name):
        torch = self.torch
        tv_name, self.side = MODELS[name]
        kwargs = {"weights": None}
        if tv_name == "inception_v3":
            # No auxiliary head at inference; skip the slow truncated-normal init.
            kwargs.update(aux_logits=False, init_weights=False)
        self.model = getattr(self.torchvision.models, tv_name)(**kwargs).eval()
        onnx_dir = self.spec.get("onnx_dir")
        if not onnx_dir:
            return []
        # The same architecture for onnxruntime, with a dynamic batch dimension.
        path = os.path.join(onnx_dir, name + ".onnx")
        try:
            torch.onnx.export(self.model, torch.rand(1, 3, self.side, self.side), path,
                              input_names=["data"], output_names=["out"],
                              dynamic_axes={"data": {0: "batch"}, "out": {0: "batch"}},
                              opset_version=13)
            return [{"model": name, "onnx": path}]
        except Exception as err:
            return [{"model": name, "onnx_error": error_text(err)}]

    def runners(self, batch):
        torch, model = self.torch, self.model
        x = torch.rand(batch, 3, self.side, self.side)

        def timed(fn):
            def run():
                with torch.inference_mode():
                    fn(x)
            return run

        def torchscript():
            with torch.inference_mode(), torch.no_grad():
                return timed(torch.jit.freeze(torch.jit.trace(model, x)))
        return [("eager", lambda: timed(model)), ("torchscript", torchscript)]

    def unload(self):
        self.model = None


class OnnxRuntimeBackend:
    def __init__(self, spec):
        import numpy as np
        import onnxruntime as ort
        self.np, self.ort, self.spec, self.session = np, ort, spec, None

    def info(self):
        return {"version": self.ort.__version__,
                "providers": self.ort.get_available_providers()}

    def load(self, name):
        ort = self.ort
        self.side = MODELS[name][1]
        path = self.spec.get("onnx", {}).get(name)
        if not path:
            raise RuntimeError("no ONNX file (the torch export failed or torch is missing)")
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = self.spec["threads"]
        opts.inter_op_num_threads = 1
        opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self.session = ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])
        return []

    def runners(self, batch):
        def make():
            sess = self.session
            x = self.np.random.rand(batch, 3, self.side, self.side).astype(self.np.float32)
            return lambda: sess.run(None, {"data": x})
        return [("ORT_ENABLE_ALL", make)]

    def unload(self):
        self.session = None


def make_backend(kind, spec):
    if kind in ("ours", "mxnet191"):
        return MXNetBackend(spec, kind)
    return {"torch": TorchBackend, "onnxruntime": OnnxRuntimeBackend}[kind](spec)


def worker_isolated(kind, spec):
    """Every case of spec in turn, each timed whole (warm-up and windows) before the next."""
    backend = make_backend(kind, spec)
    emit({"info": backend.info()})
    for name in spec["models"]:
        try:
            records = load_network(backend, name)
        except Exception as err:  # a model that fails to build is reported, not fatal
            emit({"model": name, "error": error_text(err)})
            continue
        for r in records:
            emit(r)
        for batch in spec["batch_sizes"]:
            for variant, make in backend.runners(batch):
                try:
                    res = time_batches(make(), batch, spec["warmup_s"], spec["window_s"],
                                       spec["windows"])
                    res.update(model=name, batch=batch, variant=variant,
                               peak_rss_mb=peak_rss_mb())
                except Exception as err:
                    res = {"model": name, "batch": batch, "variant": variant,
                           "error": error_text(err)}
                log("%s %s %s batch %d: %s" % (kind, variant, name, batch,
                                                res.get("images_per_s", res.get("error"))))
                emit(res)
        backend.unload()


def worker_lockstep(kind, spec):
    """Serves the parent's commands, one JSON object per stdin line, each answered by its
    records and a closing {"done": true}:
      load {model, onnx}   build the network (records: multiply-adds, ONNX file, or error)
      prepare {batch}      make and warm up every variant's runner (records: lane or error)
      window {variant}     one timed window of that runner (record: images_per_s)
      release / unload     drop the runners / the network
    Between commands the process does nothing, so the framework being timed has the cores."""
    import gc
    backend = make_backend(kind, spec)
    emit({"info": backend.info()})
    emit({"done": True})
    lanes, batch = {}, None
    for line in sys.stdin:
        cmd = json.loads(line)
        op = cmd["cmd"]
        try:
            if op == "load":
                spec["onnx"] = cmd.get("onnx", {})
                try:
                    for r in load_network(backend, cmd["model"]):
                        emit(r)
                except Exception as err:
                    emit({"model": cmd["model"], "error": error_text(err)})
            elif op == "prepare":
                lanes, batch = {}, cmd["batch"]
                for variant, make in backend.runners(batch):
                    try:
                        run = make()
                        lanes[variant] = (run, warm_up(run, spec["warmup_s"], spec["window_s"]))
                        emit({"lane": variant, "batches_per_window": lanes[variant][1]})
                    except Exception as err:
                        emit({"variant": variant, "error": error_text(err)})
            elif op == "window":
                run, calls = lanes[cmd["variant"]]
                emit({"images_per_s": timed_window(run, batch, calls),
                      "peak_rss_mb": peak_rss_mb()})
            elif op in ("release", "unload"):
                lanes = {}
                if op == "unload":
                    backend.unload()
                gc.collect()
            else:
                emit({"error": "unknown command %r" % op})
        except Exception as err:
            emit({"error": error_text(err)})
        emit({"done": True})


def worker_plot(spec):
    """Bar chart of images/s per network and batch size, one bar per framework."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    with open(spec["json"]) as f:
        data = json.load(f)
    models = [m for m in data["models"] if m in data["table"]]
    fig, axes = plt.subplots(len(models), 1, figsize=(9, 3.2 * len(models)), squeeze=False)
    columns = data["columns"]
    for ax, model in zip(axes[:, 0], models):
        rows = data["table"][model]
        batches = sorted(int(b) for b in rows)
        width = 0.8 / len(columns)
        for i, col in enumerate(columns):
            ys = [rows[str(b)].get(col) or 0.0 for b in batches]
            ax.bar([j + i * width for j in range(len(batches))], ys, width, label=col)
        ax.set_xticks([j + 0.4 - width / 2 for j in range(len(batches))])
        ax.set_xticklabels(["batch %d" % b for b in batches])
        ax.set_ylabel("images/s")
        ax.set_title("%s (%d threads)" % (model, data["threads"]))
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(spec["png"], dpi=90)
    emit({"png": spec["png"]})


# ----------------------------------------------------------------------------------------
# The parent: starts the workers, gathers, prints.

def interpreters(args):
    """Interpreter, env and availability check per framework."""
    found = {"ours": ours_interpreter(args.threads, args.python)}
    found.update(peer_interpreters(args.threads))
    found["onnxruntime"] = (os.path.join(PEERS, "ort", "bin", "python"),
                            peer_env(args.threads, "onnxruntime"), "import onnxruntime", SETUP)
    return found


def run_worker(py, env, kind, spec, timeout, script=__file__):
    """Runs one worker of `script`; returns its result records and an error (or None)."""
    cmd = [py, os.path.abspath(script), "--worker", kind, "--spec", json.dumps(spec)]
    records, error = [], None
    try:
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, text=True)
        deadline = time.time() + timeout
        for line in proc.stdout:  # stream, so a timeout keeps what was measured
            if line.startswith("RESULT "):
                records.append(json.loads(line[len("RESULT "):]))
            if time.time() > deadline:
                proc.kill()
                error = "timed out after %d s" % timeout
                break
        proc.wait()
        if proc.returncode and not error:
            error = "exit status %d" % proc.returncode
    except OSError as err:
        error = str(err)
    return records, error


class WorkerError(Exception):
    pass


class LockstepWorker:
    """A framework's worker process in lockstep mode: commands on its stdin, records back.

    A thread reads its stdout into a queue, so a request can give up after `timeout` seconds
    on a worker that hangs."""

    def __init__(self, py, env, kind, spec, timeout, script=__file__):
        self.timeout = timeout
        self.proc = subprocess.Popen(
            [py, os.path.abspath(script), "--worker", kind, "--lockstep", "--spec",
             json.dumps(spec)], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            text=True, bufsize=1)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def request(self, cmd=None):
        """Sends cmd (None: only reads the greeting); returns the records up to "done"."""
        try:
            if cmd is not None:
                self.proc.stdin.write(json.dumps(cmd) + "\n")
                self.proc.stdin.flush()
        except OSError as err:
            raise WorkerError("cannot reach the worker: %s" % err)
        records, deadline = [], time.time() + self.timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.time()))
            except queue.Empty:
                self.proc.kill()
                raise WorkerError("timed out after %d s" % self.timeout)
            if line is None:
                raise WorkerError("exit status %s" % self.proc.wait())
            if line.startswith("RESULT "):
                rec = json.loads(line[len("RESULT "):])
                if rec.get("done"):
                    return records
                records.append(rec)

    def close(self):
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()


def ask_worker(workers, entries, fw, cmd, what=""):
    """The records of workers[fw] for cmd (None: its greeting). When the worker fails, the
    failure goes to entries[fw]'s errors, the worker is closed and leaves workers, and the
    answer is None."""
    try:
        return workers[fw].request(cmd)
    except WorkerError as err:
        entries[fw]["errors"].append("%s%s: %s" % (what, cmd["cmd"] if cmd else "start", err))
        entries[fw]["error"] = "; ".join(entries[fw]["errors"])
        workers.pop(fw).close()
        print("%-11s ERROR: %s" % (fw, err), flush=True)
        return None


def run_lockstep(order, interp, spec, args, results, onnx_files):
    """All frameworks' workers stay loaded, and each case's timed windows go round them in
    turn, one window at a time (the order reversed every other window). Only the framework
    being timed runs: the others wait on their stdin. A host whose speed drifts then slows
    the neighbouring windows of every framework alike, and the ratio of two frameworks is
    the median over windows of their rates in the same turn, which cancels the drift that a
    ratio of medians taken minutes apart keeps."""
    fws = results["frameworks"]
    workers = {}

    def ask(fw, cmd):
        return ask_worker(workers, fws, fw, cmd)

    for fw in order:  # one at a time: each measures its sgemm with the cores to itself
        py, env, _, _ = interp[fw]
        wspec = dict(spec, gemm=True)
        if fw == "torch" and "onnxruntime" in order:
            wspec["onnx_dir"] = os.path.join(args.out_dir, "onnx")
            os.makedirs(wspec["onnx_dir"], exist_ok=True)
        fws[fw]["env"] = " ".join("%s=%s" % (k, env[k]) for k in sorted(env)
                                  if k.startswith(("OMP_", "MKL_", "OPENBLAS_")))
        print("%-11s starting (%s; %s)" % (fw, py, fws[fw]["env"]), flush=True)
        workers[fw] = LockstepWorker(py, env, fw, wspec, args.timeout)
        for r in ask(fw, None) or []:
            fws[fw].setdefault("info", {}).update(r.get("info", {}))

    for rnd in range(args.rounds):
        for model in spec["models"]:
            live = []
            for fw in order:  # torch before onnxruntime: the torch worker exports the file
                if fw not in workers:
                    continue
                recs = ask(fw, {"cmd": "load", "model": model, "onnx": onnx_files})
                for r in recs or []:
                    if "onnx" in r:
                        onnx_files[r["model"]] = r["onnx"]
                    fws[fw]["records"].append(dict(r, round=rnd))
                if recs is not None and not any("error" in r for r in recs):
                    live.append(fw)
            for batch in spec["batch_sizes"]:
                wait_quiet(args.max_load)
                lanes, counts = [], {}
                for fw in live:
                    for r in ask(fw, {"cmd": "prepare", "batch": batch}) or []:
                        if "lane" in r:
                            lanes.append((fw, r["lane"]))
                            counts[(fw, r["lane"])] = r["batches_per_window"]
                        else:
                            fws[fw]["records"].append(dict(r, model=model, batch=batch,
                                                           round=rnd))
                print("%s batch %d%s: %d windows in turn over %s (load %.2f)" % (
                    model, batch, " round %d" % (rnd + 1) if args.rounds > 1 else "",
                    spec["windows"], ", ".join("%s %s" % lane for lane in lanes),
                    os.getloadavg()[0]), flush=True)
                rates = {lane: [] for lane in lanes}
                rss = {}
                for k in range(spec["windows"]):
                    for fw, variant in (lanes if k % 2 == 0 else lanes[::-1]):
                        if fw not in workers:
                            continue
                        # Let the last framework's spinning threads go to sleep first.
                        time.sleep(args.settle)
                        recs = ask(fw, {"cmd": "window", "variant": variant})
                        rate = next((r["images_per_s"] for r in recs or []
                                     if "images_per_s" in r), None)
                        rates[(fw, variant)].append(rate)
                        for r in recs or []:
                            if r.get("peak_rss_mb"):
                                rss[fw] = max(rss.get(fw, 0.0), r["peak_rss_mb"])
                for fw in live:
                    if fw in workers:
                        ask(fw, {"cmd": "release"})
                for (fw, variant), got in rates.items():
                    done = [v for v in got if v is not None]
                    if done:
                        rec = summarize(done, counts[(fw, variant)])
                        rec.update(rates=got, lockstep=True)
                        if fw in rss:  # the process's, after every lane's windows
                            rec["peak_rss_mb"] = rss[fw]
                    else:
                        rec = {"error": "no window finished"}
                    rec.update(model=model, batch=batch, variant=variant, round=rnd)
                    fws[fw]["records"].append(rec)
                    print("  %-11s %-20s %s" % (fw, variant, fmt(rec.get("images_per_s")) +
                                                " images/s, peak RSS %s MB" % fmt(
                                                    rec.get("peak_rss_mb"), 0)
                                                if done else rec["error"]), flush=True)
            for fw in live:
                if fw in workers:
                    ask(fw, {"cmd": "unload"})
    for w in workers.values():
        w.close()


def run_isolated(order, interp, spec, args, results, onnx_files):
    """Each model runs in every framework in turn, a process per run that times every case
    whole before the next, and rounds repeat that, every other round taking the frameworks
    in reverse, so none always runs first (the ONNX files exist by then)."""
    for rnd in range(args.rounds):
        for mi, model in enumerate(spec["models"]):
            for fw in (order if rnd % 2 == 0 else order[::-1]):
                py, env, probe, how = interp[fw]
                wspec = dict(spec, models=[model], gemm=rnd == 0 and mi == 0)
                if fw == "torch" and "onnxruntime" in order:
                    wspec["onnx_dir"] = os.path.join(args.out_dir, "onnx")
                    os.makedirs(wspec["onnx_dir"], exist_ok=True)
                if fw == "onnxruntime":
                    wspec["onnx"] = onnx_files
                shown = " ".join("%s=%s" % (k, env[k]) for k in sorted(env) if k.startswith(
                    ("OMP_", "MKL_", "OPENBLAS_")))
                wait_quiet(args.max_load)
                print("%-11s %s%s (%s; %s; load %.2f) ..." % (
                    fw, model, " round %d" % (rnd + 1) if args.rounds > 1 else "", py, shown,
                    os.getloadavg()[0]), flush=True)
                t0 = time.time()
                records, error = run_worker(py, env, fw, wspec, args.timeout)
                entry = results["frameworks"][fw]
                entry["seconds"] += time.time() - t0
                entry["env"] = shown
                if error:
                    entry["errors"].append("%s: %s" % (model, error))
                    entry["error"] = "; ".join(entry["errors"])
                for r in records:
                    if "info" in r:
                        entry.setdefault("info", {}).update(r["info"])
                    else:
                        r["round"] = rnd
                        entry["records"].append(r)
                    if "onnx" in r:
                        onnx_files[r["model"]] = r["onnx"]
                print("%-11s done in %.0f s%s" % (fw, time.time() - t0,
                                                  "; ERROR: " + error if error else ""), flush=True)


def fmt(v, digits=1):
    return "-" if v is None else ("%.*f" % (digits, v))


def add_runner_arguments(p, timeout, max_load, rounds, settle):
    """The options of both benchmark scripts for starting, pacing and repeating the framework
    workers (with their own help texts), and the hidden ones a worker process is started with."""
    p.add_argument("--timeout", type=int, default=3600, help=timeout)
    p.add_argument("--python", default=None, help="interpreter for ours (default: this one)")
    p.add_argument("--max-load", type=float, default=0, help=max_load)
    p.add_argument("--rounds", type=int, default=1, help=rounds)
    p.add_argument("--settle", type=float, default=0.3, help=settle)
    p.add_argument("--out-dir", default=os.path.join(ROOT, "benchmark", "results"))
    p.add_argument("--worker", help=argparse.SUPPRESS)
    p.add_argument("--lockstep", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--spec", help=argparse.SUPPRESS)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true",
                   help="resnet50_v1 and alexnet at batch 1 and 8, short windows")
    p.add_argument("--models", default=None, help="comma-separated subset of: " +
                   ",".join(MODELS))
    p.add_argument("--batch-sizes", default=None, help="comma-separated (default 1,2,4,...,32)")
    p.add_argument("--frameworks", default=",".join(FRAMEWORKS),
                   help="comma-separated subset of: " + ",".join(FRAMEWORKS))
    p.add_argument("--threads", type=int, default=None,
                   help="threads for every framework (default: the CPU count)")
    p.add_argument("--warmup", type=float, default=None, help="warm-up seconds per case")
    p.add_argument("--window", type=float, default=None, help="seconds per timed window")
    p.add_argument("--windows", type=int, default=None, help="timed windows per case")
    p.add_argument("--gemm-n", type=int, default=2048, help="size of the peak sgemm")
    p.add_argument("--isolated", action="store_true",
                   help="a process per framework and model that times each case whole, in "
                        "turn, instead of the frameworks taking turns window by window")
    add_runner_arguments(p, timeout="seconds per framework process (--isolated) or per request",
                         max_load="before each case (--isolated: each framework), wait until the "
                                  "load average is below this",
                         rounds="repeat every (model, framework) run this many times; figures are "
                                "the medians over rounds",
                         settle="lockstep: seconds of pause before each window, so the previous "
                                "framework's spinning threads have gone to sleep")
    args = p.parse_args(argv)

    if args.worker:
        spec = json.loads(args.spec)
        if args.worker == "plot":
            worker_plot(spec)
        elif args.lockstep:
            worker_lockstep(args.worker, spec)
        else:
            worker_isolated(args.worker, spec)
        return 0

    models = (args.models.split(",") if args.models else
              ["resnet50_v1", "alexnet"] if args.quick else list(MODELS))
    for m in models:
        if m not in MODELS:
            p.error("unknown model %s" % m)
    # Ascending: a process's peak RSS then grows with the batch size it reports against.
    batches = (sorted({int(b) for b in args.batch_sizes.split(",")}) if args.batch_sizes else
               [1, 8] if args.quick else BATCH_SIZES)
    frameworks = args.frameworks.split(",")
    for fw in frameworks:
        if fw not in FRAMEWORKS:
            p.error("unknown framework %s" % fw)
    args.threads = args.threads or os.cpu_count()
    spec = {"models": models, "batch_sizes": batches, "threads": args.threads,
            "warmup_s": args.warmup if args.warmup is not None else (0.5 if args.quick else 2.0),
            "window_s": args.window if args.window is not None else (0.4 if args.quick else 1.5),
            "windows": args.windows or (3 if args.quick else 5), "gemm_n": args.gemm_n,
            "gemm": True}
    os.makedirs(args.out_dir, exist_ok=True)
    print("threads: %d for every framework (OMP_NUM_THREADS=MKL_NUM_THREADS="
          "OPENBLAS_NUM_THREADS=%d, torch.set_num_threads(%d) with a single-threaded "
          "OpenBLAS, onnxruntime intra_op_num_threads=%d); OPENBLAS_CORETYPE=%s"
          % ((args.threads,) * 4 + (openblas_coretype(),)))
    print("machine: %s, %d CPUs, load average %s" % (
        platform.processor() or platform.machine(), os.cpu_count(),
        " ".join("%.2f" % v for v in os.getloadavg())))
    print("warm-up %.1f s, then the median of %d windows of ~%.1f s; %s\n" % (
        spec["warmup_s"], spec["windows"], spec["window_s"],
        "isolated: a process per framework and model, each case timed whole" if args.isolated
        else "lockstep: the frameworks take turns window by window (%.1f s pause before "
             "each), ratios are medians of same-turn pairs" % args.settle), flush=True)

    results = {"threads": args.threads, "models": models, "batch_sizes": batches,
               "spec": spec, "mode": "isolated" if args.isolated else "lockstep",
               "frameworks": {}, "started": time.strftime("%Y-%m-%d %H:%M:%S"),
               "loadavg_start": os.getloadavg()}
    interp = interpreters(args)
    # torch before onnxruntime: the torch process exports the ONNX files.
    order = [f for f in FRAMEWORKS if f in frameworks]
    for fw in list(order):
        py, env, probe, how = interp[fw]
        missing = available(py, env, probe)
        if missing:
            print("%-11s MISSING (%s); install: %s" % (fw, missing, how), flush=True)
            results["frameworks"][fw] = {"missing": missing, "install": how}
            order.remove(fw)
        else:
            results["frameworks"][fw] = {"records": [], "errors": [], "seconds": 0.0}
    t0 = time.time()
    (run_isolated if args.isolated else run_lockstep)(order, interp, spec, args, results, {})
    results["seconds"] = time.time() - t0
    report(results, args)
    return 0


def case_records(results, fw, model, batch, variant=None):
    """The records with a figure of one case, a record per round."""
    return [r for r in results["frameworks"].get(fw, {}).get("records", [])
            if r.get("model") == model and r.get("batch") == batch and "images_per_s" in r
            and (variant is None or r.get("variant") == variant)]


def lookup(results, fw, model, batch, variant=None):
    """Images/s of a case: the median over rounds (None when it has no figure)."""
    rates = [r["images_per_s"] for r in case_records(results, fw, model, batch, variant)]
    return statistics.median(rates) if rates else None


def case_rss(results, fw, model, batch):
    """The peak RSS (MB) of fw's process after a case: the largest over its variants (they
    share the process) and rounds; None without a figure."""
    got = [r["peak_rss_mb"] for r in case_records(results, fw, model, batch)
           if r.get("peak_rss_mb")]
    return max(got) if got else None


def rss_note(results):
    """What the peak-RSS figures cover, from what the workers could do."""
    cumulative = sorted({fw for fw, entry in results["frameworks"].items()
                         for r in entry.get("records", [])
                         if r.get("rss_mark_reset") is False})
    text = ("peak RSS: the high-water mark of each framework's worker process, lowered to the "
            "process's current RSS when it loads the network (/proc/self/clear_refs) and read "
            "after the batch size's timed windows; batch sizes run in ascending order, so each "
            "figure also covers the smaller batches of the same network. It counts the "
            "interpreter, the framework's libraries and any memory the process kept from an "
            "earlier network (%s). torch's figure is its one process running eager and "
            "TorchScript." % ("in --isolated, each network has a fresh process" if
                              results.get("mode") == "isolated" else
                              "in lockstep one process per framework runs every network"))
    if cumulative:
        text += (" The mark could not be lowered for %s: their figures are the peak since the "
                 "process started, every earlier network included." % ", ".join(cumulative))
    return text


def paired_ratio(results, model, batch, lane, other):
    """lane's speed over other's (each a (framework, variant) pair) as {median, min, max,
    pairs}: in lockstep, over the windows the two took in the same turn, every round
    pooled; else the ratio of their medians over rounds (pairs 0). None without figures."""
    mine = {r["round"]: r for r in case_records(results, lane[0], model, batch, lane[1])}
    theirs = {r["round"]: r for r in case_records(results, other[0], model, batch, other[1])}
    pairs = []
    for rnd in sorted(mine.keys() & theirs.keys()):
        a, b = mine[rnd], theirs[rnd]
        if a.get("lockstep") and b.get("lockstep"):
            pairs += [x / y for x, y in zip(a["rates"], b["rates"]) if x and y]
    if pairs:
        return {"median": statistics.median(pairs), "min": min(pairs), "max": max(pairs),
                "pairs": len(pairs)}
    x, y = lookup(results, lane[0], model, batch, lane[1]), lookup(results, other[0], model,
                                                                    batch, other[1])
    return {"median": x / y, "min": x / y, "max": x / y, "pairs": 0} if x and y else None


def report(results, args):
    fws = results["frameworks"]
    # The GEMM peak: the best of the sgemm figures that the workers measured.
    gemm = {}
    for fw in ("ours", "torch"):
        for k, v in fws.get(fw, {}).get("info", {}).items():
            if k.startswith("gemm_gflops_"):
                gemm[k[len("gemm_gflops_"):]] = v
    peak = max(gemm.values()) if gemm else None
    results["gemm_gflops"] = gemm
    results["gemm_peak_gflops"] = peak
    macs = {r["model"]: r["macs_per_image"] for r in fws.get("ours", {}).get("records", [])
            if "macs_per_image" in r}
    results["macs_per_image"] = macs

    columns = ["ours", "mxnet191", "torch eager", "torchscript", "onnxruntime"]
    results["columns"] = columns
    table = {}
    print()
    for fw, entry in fws.items():
        if "missing" in entry:
            print("MISSING %s: %s -> %s" % (fw, entry["missing"], entry["install"]))
        elif entry.get("error"):
            print("ERROR %s: %s" % (fw, entry["error"]))
        for r in entry.get("records", []):
            if "error" in r or "onnx_error" in r:
                print("  %s %s batch %s: %s" % (fw, r.get("model"), r.get("batch", "-"),
                                                 r.get("error") or r.get("onnx_error")))
    for model in results["models"]:
        rows = {}
        for b in results["batch_sizes"]:
            row = {"ours": lookup(results, "ours", model, b),
                   "mxnet191": lookup(results, "mxnet191", model, b),
                   "torch eager": lookup(results, "torch", model, b, "eager"),
                   "torchscript": lookup(results, "torch", model, b, "torchscript"),
                   "onnxruntime": lookup(results, "onnxruntime", model, b)}
            tb = [v for v in (row["torch eager"], row["torchscript"]) if v]
            row["torch best"] = max(tb) if tb else None
            best = "eager" if tb and row["torch best"] == row["torch eager"] else "torchscript"
            lanes = {"mxnet191": ("mxnet191", None), "torch eager": ("torch", "eager"),
                     "torch best": ("torch", best), "onnxruntime": ("onnxruntime", None)}
            row["ratios"] = {col: paired_ratio(results, model, b, ("ours", None), lane)
                             for col, lane in lanes.items()}
            rows[str(b)] = row
        table[model] = rows
        gflop = 2e-9 * macs[model] if model in macs else None
        print("\n### %s (%s, images/s, %d threads%s)" % (
            model, "%dx%d" % ((MODELS[model][1],) * 2), results["threads"],
            ", %.2f GFLOP/image" % gflop if gflop else ""))
        print("| batch | ours | MXNet 1.9.1 | torch eager | TorchScript | onnxruntime "
              "| ours/1.9.1 | ours/torch eager | ours/torch best | ours/ort |")
        print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        ranges = []
        for b in results["batch_sizes"]:
            r = rows[str(b)]
            cells = []
            for col in ("mxnet191", "torch eager", "torch best", "onnxruntime"):
                q = r["ratios"][col]
                cells.append(fmt(q and q["median"], 2))
                if q and q["pairs"]:
                    ranges.append("%s batch %d %.2f-%.2f" % (col, b, q["min"], q["max"]))
            print("| %d | %s | %s | %s | %s | %s | %s |" % (
                b, fmt(r["ours"]), fmt(r["mxnet191"]), fmt(r["torch eager"]),
                fmt(r["torchscript"]), fmt(r["onnxruntime"]), " | ".join(cells)))
        if ranges:
            print("ratios are medians over same-turn windows; their range: " +
                  "; ".join(ranges))
        rss_fws = [("ours", "ours"), ("mxnet191", "MXNet 1.9.1"),
                   ("torch", "torch (eager + TorchScript)"), ("onnxruntime", "onnxruntime")]
        print("\n%s: peak RSS, MB, per framework process (see the note below)" % model)
        print("| batch | %s | ours/1.9.1 |" % " | ".join(label for _, label in rss_fws))
        print("|---:|%s---:|" % ("---:|" * len(rss_fws)))
        for b in results["batch_sizes"]:
            got = {fw: case_rss(results, fw, model, b) for fw, _ in rss_fws}
            rows[str(b)]["peak_rss_mb"] = got
            print("| %d | %s | %s |" % (b, " | ".join(fmt(got[fw], 0) for fw, _ in rss_fws),
                                        fmt(got["ours"] / got["mxnet191"]
                                            if got["ours"] and got["mxnet191"] else None, 2)))
        at_load = {fw: [r["rss_at_load_mb"] for r in fws.get(fw, {}).get("records", [])
                        if r.get("model") == model and r.get("rss_at_load_mb")]
                   for fw, _ in rss_fws}
        if any(at_load.values()):
            print("RSS of each process when it loaded %s (the floor of its figures): %s" % (
                model, ", ".join("%s %s MB" % (fw, fmt(max(v), 0))
                                 for fw, v in at_load.items() if v)))
    results["table"] = table
    results["rss_note"] = rss_note(results)
    print("\n(%s)" % results["rss_note"])

    print("\n### GEMM peak (fp32, %d^3 sgemm, best of 5)" % args.gemm_n)
    for k, v in sorted(gemm.items()):
        print("- %s: %.1f GFLOP/s" % (k, v))
    if "resnet50_v1" in table and peak and "resnet50_v1" in macs:
        gflop = 2e-9 * macs["resnet50_v1"]
        print("\n### ResNet-50: achieved GFLOP/s (%.2f GFLOP/image from its conv and dense "
              "layers) / GEMM peak %.1f" % (gflop, peak))
        print("(FLOPs of direct convolution: a framework running Winograd does fewer multiplies, "
              "which can take it past 100%.)")
        print("| batch | ours | MXNet 1.9.1 | torch best | onnxruntime |")
        print("|---:|---:|---:|---:|---:|")
        frac = {}
        for b in results["batch_sizes"]:
            r = table["resnet50_v1"][str(b)]
            cells = []
            for col in ("ours", "mxnet191", "torch best", "onnxruntime"):
                v = r[col]
                if v:
                    frac.setdefault(str(b), {})[col] = v * gflop / peak
                cells.append("%.1f (%.0f%%)" % (v * gflop, 100 * v * gflop / peak)
                             if v else "-")
            print("| %d | %s |" % (b, " | ".join(cells)))
        results["resnet50_fraction_of_peak"] = frac

    results["loadavg_end"] = os.getloadavg()
    for fw, entry in fws.items():
        info = entry.get("info", {})
        if info:
            print("\n%s: %s" % (fw, ", ".join("%s=%s" % (k, v) for k, v in info.items()
                                             if k not in ("parallel_info", "runtime"))))
    path = os.path.join(args.out_dir, "benchmark_score.json")
    with open(path, "w") as f:
        json.dump(results, f, indent=1)
    print("\nJSON: %s" % path)
    png = os.path.join(args.out_dir, "benchmark_score.png")
    for py in (sys.executable, "/usr/bin/python3"):
        if available(py, peer_env(1), "import matplotlib") is None:
            recs, err = run_worker(py, peer_env(1), "plot", {"json": path, "png": png}, 300)
            if not err:
                print("PNG: %s" % png)
                break
    else:
        print("PNG: not drawn (matplotlib not importable; apt-get install python3-matplotlib)")


if __name__ == "__main__":
    sys.exit(main())
