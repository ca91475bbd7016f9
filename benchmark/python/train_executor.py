#!/usr/bin/env python3
"""ResNet-50 training through the graph executor: ours vs our imperative Gluon vs Apache
MXNet 1.9.1's executor, with and without mirroring (MXNET_BACKWARD_DO_MIRROR=1).

Every run is a fresh process (peak RSS is per process) that builds the ResNet-50 v1 symbol
below, simple_binds it for training (grad_req write), then times `--steps` SGD steps
(forward, backward, sgd_update on every weight) after `--warmup` steps. Runs go round the
configurations `--rounds` times, so a slow spell of the host hits every configuration; the
table shows medians, ratios against MXNet 1.9.1 of the same round, and peak RSS.

    python benchmark/python/train_executor.py [--batch 32] [--image 224] [--steps 3]
    python benchmark/python/train_executor.py --quick      # small images, for a smoke run

Install the peer with: bash benchmark/python/setup_peers.sh
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
PEER_PY = os.path.join(REPO, "benchmark", ".peers", "mxnet191", "bin", "python")


def resnet50_symbol(mx, num_classes=1000):
    """ResNet-50 v1 (bottleneck units 3-4-6-3) written with mx.sym."""
    sym = mx.sym

    def conv_bn(x, filters, kernel, stride, pad, name, act=True):
        x = sym.Convolution(x, num_filter=filters, kernel=kernel, stride=stride, pad=pad, no_bias=True,
                            name=name + "_conv")
        x = sym.BatchNorm(x, fix_gamma=False, eps=1e-5, momentum=0.9, name=name + "_bn")
        return sym.Activation(x, act_type="relu", name=name + "_relu") if act else x

    def unit(x, filters, stride, project, name):
        y = conv_bn(x, filters // 4, (1, 1), (1, 1), (0, 0), name + "_a")
        y = conv_bn(y, filters // 4, (3, 3), stride, (1, 1), name + "_b")
        y = conv_bn(y, filters, (1, 1), (1, 1), (0, 0), name + "_c", act=False)
        short = conv_bn(x, filters, (1, 1), stride, (0, 0), name + "_sc", act=False) if project else x
        return sym.Activation(y + short, act_type="relu", name=name + "_out")

    x = sym.var("data")
    x = conv_bn(x, 64, (7, 7), (2, 2), (3, 3), "stem")
    x = sym.Pooling(x, kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="max", name="stem_pool")
    for stage, (units, filters) in enumerate(zip((3, 4, 6, 3), (256, 512, 1024, 2048))):
        for u in range(units):
            stride = (2, 2) if u == 0 and stage > 0 else (1, 1)
            x = unit(x, filters, stride, u == 0, "s%d_u%d" % (stage + 1, u + 1))
    x = sym.Pooling(x, global_pool=True, kernel=(7, 7), pool_type="avg", name="pool")
    x = sym.FullyConnected(sym.Flatten(x), num_hidden=num_classes, name="fc")
    return sym.SoftmaxOutput(x, name="softmax")


def peak_rss_mb():
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def worker_executor(args):
    import mxnet as mx
    import numpy as np
    mx.random.seed(0)
    sym = resnet50_symbol(mx, args.classes)
    ex = sym.simple_bind(mx.cpu(), grad_req="write", data=(args.batch, 3, args.image, args.image))
    rng = np.random.RandomState(0)
    params = []
    for name, arr in ex.arg_dict.items():
        if name == "data":
            arr[:] = rng.uniform(-1, 1, arr.shape)
        elif name == "softmax_label":
            arr[:] = rng.randint(0, args.classes, arr.shape)
        else:
            arr[:] = rng.normal(0, 0.05, arr.shape) if name.endswith("weight") else (
                1.0 if name.endswith("gamma") else 0.0)
            params.append((arr, ex.grad_dict[name]))
    for name, arr in ex.aux_dict.items():
        arr[:] = 1.0 if name.endswith("var") else 0.0

    def step():
        ex.forward(is_train=True)
        ex.backward()
        for w, g in params:
            mx.nd.sgd_update(w, g, lr=0.01, wd=1e-4, rescale_grad=1.0 / args.batch, out=w)

    return run_steps(mx, step, args, extra=plan_of(ex))


def plan_of(ex):
    return ex.memory_plan() if hasattr(ex, "memory_plan") else {}


def worker_gluon(args):
    import mxnet as mx
    import numpy as np
    from mxnet import autograd, gluon
    mx.random.seed(0)
    net = gluon.model_zoo.vision.resnet50_v1(classes=args.classes)
    net.initialize(mx.init.Xavier())
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.01, "wd": 1e-4})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    rng = np.random.RandomState(0)
    x = mx.nd.array(rng.uniform(-1, 1, (args.batch, 3, args.image, args.image)))
    y = mx.nd.array(rng.randint(0, args.classes, (args.batch,)))

    def step():
        with autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(args.batch)

    return run_steps(mx, step, args)


def run_steps(mx, step, args, extra=None):
    for _ in range(args.warmup):
        step()
    mx.nd.waitall()
    times = []
    for _ in range(args.steps):
        t0 = time.perf_counter()
        step()
        mx.nd.waitall()
        times.append(time.perf_counter() - t0)
    out = {"img_s": args.batch / statistics.median(times), "peak_rss_mb": peak_rss_mb()}
    out.update(extra or {})
    return out


CONFIGS = [
    # name, interpreter ("ours" / "peer"), worker, extra environment
    ("ours executor", "ours", "executor", {}),
    ("ours executor + mirror", "ours", "executor", {"MXNET_BACKWARD_DO_MIRROR": "1"}),
    ("ours Gluon (imperative)", "ours", "gluon", {}),
    ("MXNet 1.9.1 executor", "peer", "executor", {}),
    ("MXNet 1.9.1 executor + mirror", "peer", "executor", {"MXNET_BACKWARD_DO_MIRROR": "1"}),
]


def run_config(cfg, args):
    name, interp, worker, env_extra = cfg
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MXNET_", "NNVM_"))}
    env.update(env_extra)
    if interp == "ours":
        py = sys.executable
        env["PYTHONPATH"] = os.path.join(REPO, "python")
        env.setdefault("MXNET_LIBRARY_PATH", os.path.join(REPO, "build", "libmxnet.so"))
    else:
        py = PEER_PY
        env.pop("PYTHONPATH", None)
    cmd = [py, os.path.abspath(__file__), "--worker", worker, "--batch", str(args.batch), "--image", str(args.image),
           "--steps", str(args.steps), "--warmup", str(args.warmup), "--classes", str(args.classes)]
    res = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError("%s failed:\n%s" % (name, res.stderr[-3000:]))
    return json.loads(res.stdout.strip().splitlines()[-1])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--image", type=int, default=224)
    ap.add_argument("--classes", type=int, default=1000)
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help="batch 4, 64x64 images, one round")
    ap.add_argument("--only", default="", help="comma list of configuration names to run")
    ap.add_argument("--worker", choices=["executor", "gluon"], help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.quick:
        args.batch, args.image, args.rounds, args.steps = 4, 64, 1, 2
    if args.worker:
        res = worker_executor(args) if args.worker == "executor" else worker_gluon(args)
        print(json.dumps(res))
        return 0
    configs = [c for c in CONFIGS if not args.only or c[0] in args.only.split(",")]
    if not os.path.exists(PEER_PY):
        print("MXNet 1.9.1 peer not installed (bash benchmark/python/setup_peers.sh): running ours only")
        configs = [c for c in configs if c[1] == "ours"]
    results = {c[0]: [] for c in configs}
    for r in range(args.rounds):
        order = configs if r % 2 == 0 else list(reversed(configs))
        for cfg in order:
            results[cfg[0]].append(run_config(cfg, args))
            print("round %d %-30s %s" % (r + 1, cfg[0], results[cfg[0]][-1]), flush=True)
    peer = results.get("MXNet 1.9.1 executor")
    print("\nResNet-50 v1 training, batch %d, %dx%d, median of %d steps x %d rounds" % (
        args.batch, args.image, args.image, args.steps, args.rounds))
    print("| configuration | img/s | vs MXNet 1.9.1 executor (same rounds) | peak RSS MB | planned MB |")
    print("|---|---:|---:|---:|---:|")
    for name, runs in results.items():
        ips = statistics.median(r["img_s"] for r in runs)
        rss = statistics.median(r["peak_rss_mb"] for r in runs)
        ratio = statistics.median(a["img_s"] / b["img_s"] for a, b in zip(runs, peer)) if peer else float("nan")
        planned = runs[0].get("planned_bytes")
        print("| %s | %.2f | %.2f | %.0f | %s |" % (name, ips, ratio, rss,
                                                  "%.0f" % (planned / 2**20) if planned else "-"))
    base, mirror = results.get("ours executor"), results.get("ours executor + mirror")
    if base and mirror and base[0].get("planned_bytes"):
        print("\nMirroring: planned memory %.0f -> %.0f MB (%.0f%% less), speed %.2fx" % (
            base[0]["planned_bytes"] / 2**20, mirror[0]["planned_bytes"] / 2**20,
            100.0 * (1 - mirror[0]["planned_bytes"] / base[0]["planned_bytes"]),
            statistics.median(m["img_s"] / b["img_s"] for m, b in zip(mirror, base))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
