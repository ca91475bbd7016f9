#!/usr/bin/env python3
"""Speed beside busy processes: ours vs Apache MXNet 1.9.1 vs PyTorch, same run.

Cases: the main job's LeNet training step (batch 64, SGD), a ResNet-18 batch-1 forward, and
a small-op loop (LeakyReLU on an (8,16,16,16) array). Each is timed (a) on a quiet machine
and (b) beside one and (c) two CPU-bound background processes, every framework in its own
process with default settings, the frameworks taking turns within each condition. Numbers
are medians in milliseconds (microseconds for the small op); ratios are MXNet 1.9.1's time
over ours (above 1: we are faster).

    python benchmark/python/load_bench.py [--repeats 20] [--loads 0,1,2]

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
REPO = os.path.dirname(os.path.dirname(HERE))
PEER_PY = os.path.join(REPO, "benchmark", ".peers", "mxnet191", "bin", "python")

# Shared by the workers: the repeat count from argv and a median timer.
PRELUDE = r"""
import json, statistics, sys, time
R = int(sys.argv[1])
def med(f, n):
    ts = []
    for _ in range(n):
        t = time.perf_counter(); f(); ts.append(time.perf_counter() - t)
    return statistics.median(ts)
out = {}
"""

MXNET_WORKER = PRELUDE + r"""
import numpy as np, mxnet as mx
from mxnet import gluon, autograd
# LeNet training step, as the main job builds it
net = gluon.nn.HybridSequential()
net.add(gluon.nn.Conv2D(20, 5, activation="relu"), gluon.nn.MaxPool2D(2, 2),
        gluon.nn.Conv2D(50, 5, activation="relu"), gluon.nn.MaxPool2D(2, 2),
        gluon.nn.Flatten(), gluon.nn.Dense(500, activation="relu"), gluon.nn.Dense(10))
net.initialize(mx.init.Xavier())
tr = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.01, "momentum": 0.9})
lf = gluon.loss.SoftmaxCrossEntropyLoss()
x = mx.nd.random.uniform(shape=(64, 1, 28, 28)); y = mx.nd.array(np.random.randint(0, 10, 64))
def step():
    with autograd.record():
        l = lf(net(x), y)
    l.backward(); tr.step(64); l.wait_to_read()
for _ in range(3): step()
out["lenet_step_ms"] = med(step, R) * 1e3
r18 = gluon.model_zoo.vision.resnet18_v1(); r18.initialize()
xi = mx.nd.random.uniform(shape=(1, 3, 224, 224))
def fwd(): r18(xi).wait_to_read()
for _ in range(3): fwd()
out["resnet18_b1_ms"] = med(fwd, R) * 1e3
a = mx.nd.random.uniform(shape=(8, 16, 16, 16))
def small(): mx.nd.LeakyReLU(a).wait_to_read()
for _ in range(50): small()
out["leakyrelu_us"] = med(small, R * 10) * 1e6
print(json.dumps(out))
"""

TORCH_WORKER = PRELUDE + r"""
import torch, torchvision
nn = torch.nn
net = nn.Sequential(nn.Conv2d(1, 20, 5), nn.ReLU(), nn.MaxPool2d(2, 2), nn.Conv2d(20, 50, 5), nn.ReLU(),
                    nn.MaxPool2d(2, 2), nn.Flatten(), nn.Linear(800, 500), nn.ReLU(), nn.Linear(500, 10))
opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
lf = nn.CrossEntropyLoss()
x = torch.rand(64, 1, 28, 28); y = torch.randint(0, 10, (64,))
def step():
    opt.zero_grad(); l = lf(net(x), y); l.backward(); opt.step()
for _ in range(3): step()
out["lenet_step_ms"] = med(step, R) * 1e3
r18 = torchvision.models.resnet18().eval()
xi = torch.rand(1, 3, 224, 224)
def fwd():
    with torch.no_grad(): r18(xi)
for _ in range(3): fwd()
out["resnet18_b1_ms"] = med(fwd, R) * 1e3
a = torch.rand(8, 16, 16, 16)
def small(): torch.nn.functional.leaky_relu(a, 0.25)
for _ in range(50): small()
out["leakyrelu_us"] = med(small, R * 10) * 1e6
print(json.dumps(out))
"""


def frameworks():
    fws = []
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MXNET_", "NNVM_"))}
    ours = dict(env, PYTHONPATH=os.path.join(REPO, "python"))
    ours.setdefault("MXNET_LIBRARY_PATH", os.path.join(REPO, "build", "libmxnet.so"))
    fws.append(("ours", [sys.executable, "-c", MXNET_WORKER], ours))
    if os.path.exists(PEER_PY):
        peer = dict(env)
        peer.pop("PYTHONPATH", None)
        fws.append(("mxnet-1.9.1", [PEER_PY, "-c", MXNET_WORKER], peer))
    if subprocess.run(["/usr/bin/python3", "-c", "import torch, torchvision"], capture_output=True).returncode == 0:
        torch_env = dict(env)
        torch_env.pop("PYTHONPATH", None)
        fws.append(("pytorch", ["/usr/bin/python3", "-c", TORCH_WORKER], torch_env))
    return fws


def start_load(n):
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--loads", default="0,1,2", help="background process counts")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--frameworks", default="ours,mxnet-1.9.1,pytorch", help="comma list to run")
    args = ap.parse_args(argv)
    fws = [f for f in frameworks() if f[0] in args.frameworks.split(",")]
    names = [f[0] for f in fws]
    missing = ({"mxnet-1.9.1", "pytorch"} & set(args.frameworks.split(","))) - set(names)
    if missing:
        print("peers missing (bash benchmark/python/setup_peers.sh): %s" % ", ".join(sorted(missing)))
    results = {}
    for load in [int(x) for x in args.loads.split(",")]:
        procs = start_load(load)
        try:
            time.sleep(0.5)
            for r in range(args.rounds):
                order = fws if r % 2 == 0 else list(reversed(fws))
                for name, cmd, env in order:
                    res = subprocess.run(cmd + [str(args.repeats)], env=env, capture_output=True, text=True)
                    if res.returncode != 0:
                        raise RuntimeError("%s failed:\n%s" % (name, res.stderr[-2000:]))
                    rec = json.loads(res.stdout.strip().splitlines()[-1])
                    results.setdefault((load, name), []).append(rec)
                    print("load %d %-12s %s" % (load, name, rec), flush=True)
        finally:
            for p in procs:
                p.kill()
    cases = [("lenet_step_ms", "LeNet training step (ms)"), ("resnet18_b1_ms", "ResNet-18 b1 forward (ms)"),
             ("leakyrelu_us", "LeakyReLU (8,16,16,16) (us)")]
    print("\n| case | background processes | " + " | ".join(names) + " | MXNet 1.9.1 / ours | PyTorch / ours |")
    print("|---|---:|" + "---:|" * (len(names) + 2))
    for key, label in cases:
        for load in [int(x) for x in args.loads.split(",")]:
            med = {n: statistics.median(r[key] for r in results[(load, n)]) for n in names if (load, n) in results}
            ratio = lambda peer: "%.2f" % (med[peer] / med["ours"]) if peer in med else "-"
            print("| %s | %d | %s | %s | %s |" % (label, load, " | ".join("%.1f" % med[n] for n in names),
                                                 ratio("mxnet-1.9.1"), ratio("pytorch")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
