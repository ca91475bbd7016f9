"""Per-operator overhead and large element-wise throughput, ours against the peers.

1. Python per-op overhead of a tiny `a + b` (1 and 1000 elements) and of an attribute-heavy
   op (a 3x3 Convolution of a 1x1x4x4 input, parameters passed as keywords), measured end to
   end (the op and a wait for its result every `--sync-every` ops), for this runtime with its
   compiled fast path and with ctypes only (MXNET_ENABLE_CYTHON=0), the real Apache MXNet
   1.9.1 and PyTorch eager (conv2d), each in its own process.
2. Throughput of large element-wise (exp, log, tanh, sigmoid, erf, trig, pow...), broadcast and
   reduction ops (sum, per axis, keepdims, mean) on 16M floats, and softmax / log_softmax over
   every axis of a small and a larger 4-d array, against numpy (timed in our process) and
   MXNet 1.9.1, with each op's bytes moved as a fraction of the memory bandwidth measured
   here (a large numpy copy). `--skip-tiny` runs this table alone.

Peers come from benchmark/python/setup_peers.sh; a missing one is reported, not skipped.

    python benchmark/python/op_overhead.py [--json out.json]
"""
import argparse
import json
import os
import subprocess
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
PEERS = os.path.join(REPO, "benchmark", ".peers")

# One snippet per framework; each prints a JSON dict {"1": us_per_op, "1000": us_per_op,
# "conv": us_per_op}: a + b on 1 and 1000 elements, and an attribute-heavy op (a 3x3
# convolution of a 1x1x4x4 input, with its parameters passed as keywords every call).
MX_SETUP = """
    import mxnet as mx
    def make(n): return mx.nd.ones((n,)), mx.nd.ones((n,))
    def add(a, b): return a + b
    def make_conv(): return mx.nd.ones((1, 1, 4, 4)), mx.nd.ones((1, 1, 3, 3))
    def conv(x, w): return mx.nd.Convolution(x, w, kernel=(3, 3), num_filter=1, no_bias=True)
    def sync(c): c.wait_to_read()
"""
TINY_OPS = {
    "ours": ("mxnet", MX_SETUP),
    "ours-ctypes": ("mxnet", MX_SETUP),  # ours with MXNET_ENABLE_CYTHON=0
    "mxnet-1.9.1": ("mxnet", MX_SETUP),
    "pytorch-eager": ("torch", """
        import torch
        torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "2")))
        def make(n): return torch.ones(n), torch.ones(n)
        def add(a, b): return a + b
        def make_conv(): return torch.ones(1, 1, 4, 4), torch.ones(1, 1, 3, 3)
        def conv(x, w): return torch.nn.functional.conv2d(x, w)
        def sync(c): pass
    """),
}

TIMER = """
import json, os, time
{setup}

def best_us(fn, a, b):
    for _ in range(2000):
        sync(fn(a, b))
    best = float("inf")
    for _ in range(7):
        t0 = time.perf_counter()
        for i in range({ops}):
            c = fn(a, b)
            if i % {sync_every} == 0:
                sync(c)
        sync(c)
        best = min(best, (time.perf_counter() - t0) / {ops} * 1e6)
    return best

out = {{}}
for n in (1, 1000):
    out[str(n)] = best_us(add, *make(n))
out["conv"] = best_us(conv, *make_conv())
print(json.dumps(out))
"""


def peer_command(name):
    """The interpreter and environment for a peer, or (None, reason)."""
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", "2")
    if name.startswith("ours@"):
        target = name[len("ours@"):]
        if os.path.isdir(target):  # another checkout, built: its package on its library
            env["PYTHONPATH"] = os.path.join(target, "python")
            env["MXNET_LIBRARY_PATH"] = os.path.join(target, "build", "libmxnet.so")
        else:  # our package on another build of the library
            env["PYTHONPATH"] = os.path.join(REPO, "python")
            env["MXNET_LIBRARY_PATH"] = target
        return [sys.executable], env
    if name in ("ours", "ours-ctypes"):
        env["PYTHONPATH"] = os.path.join(REPO, "python")
        env.setdefault("MXNET_LIBRARY_PATH", os.path.join(REPO, "build", "libmxnet.so"))
        env["MXNET_ENABLE_CYTHON"] = "0" if name == "ours-ctypes" else "1"
        return [sys.executable], env
    if name == "mxnet-1.9.1":
        py = os.path.join(PEERS, "mxnet191", "bin", "python")
        if not os.path.exists(py):
            return None, "missing: run benchmark/python/setup_peers.sh"
        env.pop("PYTHONPATH", None)
        env.pop("MXNET_LIBRARY_PATH", None)
        return [py], env
    if name == "pytorch-eager":
        probe = subprocess.run(["/usr/bin/python3", "-c", "import torch"], capture_output=True)
        if probe.returncode != 0:
            return None, "missing: apt-get install python3-torch"
        env.pop("PYTHONPATH", None)
        return ["/usr/bin/python3"], env
    raise ValueError(name)


def measure_tiny_ops(ops, sync_every, baseline=None):
    results = {}
    cases = dict(TINY_OPS)
    if baseline:
        cases["ours@" + baseline] = ("mxnet", MX_SETUP)
    for name, (_, setup) in cases.items():
        cmd, env = peer_command(name)
        if cmd is None:
            results[name] = {"missing": env}
            continue
        code = TIMER.format(setup=textwrap.dedent(setup), ops=ops, sync_every=sync_every)
        proc = subprocess.run(cmd + ["-c", code], env=env, capture_output=True, text=True, timeout=600)
        if proc.returncode != 0:
            results[name] = {"error": proc.stderr.strip().splitlines()[-1] if proc.stderr else "failed"}
        else:
            results[name] = json.loads(proc.stdout.strip().splitlines()[-1])
    return results


# Large ops, timed in a child process per framework (ours also times numpy there). Each
# case: name -> (our call, numpy call or None, bytes moved). Softmax rows cover every axis of
# a small and a larger 4-d array; "fwd+bwd" rows time autograd's forward and backward.
LARGE_OPS = """
import json, sys, time
import numpy as np
import mxnet as mx
try:
    from scipy.special import erf as np_erf
except ImportError:
    np_erf = None
with_numpy = {with_numpy}

def per_call(fn, windows=5, min_window=0.02):
    fn()
    reps = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        if time.perf_counter() - t0 >= min_window or reps >= 4096:
            break
        reps *= 2
    best = float("inf")
    for _ in range(windows):
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        best = min(best, (time.perf_counter() - t0) / reps)
    return best

def np_softmax(x, axis, log=False):
    z = x - x.max(axis=axis, keepdims=True)
    if log:
        return z - np.log(np.exp(z).sum(axis=axis, keepdims=True))
    e = np.exp(z)
    return e / e.sum(axis=axis, keepdims=True)

rng = np.random.RandomState(0)
n = 1 << 24  # 64 MiB per float32 array: far beyond the caches
a_np = rng.rand(n).astype(np.float32)
b_np = rng.rand(n).astype(np.float32)
pos_np = a_np + np.float32(0.5)
wide_np = (a_np - np.float32(0.5)) * np.float32(20)  # [-10, 10): trig and hyperbolic arguments
above1_np = pos_np + np.float32(1)  # arccosh's domain
row_np = rng.rand(1, 4096).astype(np.float32)
a, b, pos, wide = mx.nd.array(a_np), mx.nd.array(b_np), mx.nd.array(pos_np), mx.nd.array(wide_np)
above1 = mx.nd.array(above1_np)
a2, row = a.reshape((-1, 4096)), mx.nd.array(row_np)
a2_np = a_np.reshape(-1, 4096)
W = lambda f: (lambda: f().wait_to_read())
N = lambda f: f if with_numpy else None
nb = a_np.nbytes
cases = {{
    "add": (W(lambda: a + b), N(lambda: a_np + b_np), 3 * nb),
    "exp": (W(lambda: mx.nd.exp(a)), N(lambda: np.exp(a_np)), 2 * nb),
    "log": (W(lambda: mx.nd.log(pos)), N(lambda: np.log(pos_np)), 2 * nb),
    "tanh": (W(lambda: mx.nd.tanh(a)), N(lambda: np.tanh(a_np)), 2 * nb),
    "sigmoid": (W(lambda: mx.nd.sigmoid(a)), N(lambda: 1 / (1 + np.exp(-a_np))), 2 * nb),
    "erf": (W(lambda: mx.nd.erf(a)), N(lambda: np_erf(a_np)) if np_erf else None, 2 * nb),
    "expm1": (W(lambda: mx.nd.expm1(a)), N(lambda: np.expm1(a_np)), 2 * nb),
    "log1p": (W(lambda: mx.nd.log1p(a)), N(lambda: np.log1p(a_np)), 2 * nb),
    "log2": (W(lambda: mx.nd.log2(pos)), N(lambda: np.log2(pos_np)), 2 * nb),
    "log10": (W(lambda: mx.nd.log10(pos)), N(lambda: np.log10(pos_np)), 2 * nb),
    "sin": (W(lambda: mx.nd.sin(wide)), N(lambda: np.sin(wide_np)), 2 * nb),
    "cos": (W(lambda: mx.nd.cos(wide)), N(lambda: np.cos(wide_np)), 2 * nb),
    "tan": (W(lambda: mx.nd.tan(wide)), N(lambda: np.tan(wide_np)), 2 * nb),
    "arcsin": (W(lambda: mx.nd.arcsin(a)), N(lambda: np.arcsin(a_np)), 2 * nb),
    "arccos": (W(lambda: mx.nd.arccos(a)), N(lambda: np.arccos(a_np)), 2 * nb),
    "arctan": (W(lambda: mx.nd.arctan(wide)), N(lambda: np.arctan(wide_np)), 2 * nb),
    "sinh": (W(lambda: mx.nd.sinh(wide)), N(lambda: np.sinh(wide_np)), 2 * nb),
    "cosh": (W(lambda: mx.nd.cosh(wide)), N(lambda: np.cosh(wide_np)), 2 * nb),
    "arcsinh": (W(lambda: mx.nd.arcsinh(wide)), N(lambda: np.arcsinh(wide_np)), 2 * nb),
    "arccosh": (W(lambda: mx.nd.arccosh(above1)), N(lambda: np.arccosh(above1_np)), 2 * nb),
    "arctanh": (W(lambda: mx.nd.arctanh(a)), N(lambda: np.arctanh(a_np)), 2 * nb),
    "pow": (W(lambda: mx.nd.power(pos, b)), N(lambda: np.power(pos_np, b_np)), 3 * nb),
    "pow(x, 2.5)": (W(lambda: pos ** 2.5), N(lambda: np.power(pos_np, np.float32(2.5))), 2 * nb),
    "pow(2.5, x)": (W(lambda: 2.5 ** wide), N(lambda: np.power(np.float32(2.5), wide_np)), 2 * nb),
    "broadcast_mul": (W(lambda: mx.nd.broadcast_mul(a2, row)), N(lambda: a2_np * row_np), 2 * nb),
    "sum": (W(lambda: mx.nd.sum(a)), N(lambda: a_np.sum()), nb),
    "sum(axis=0)": (W(lambda: mx.nd.sum(a2, axis=0)), N(lambda: a2_np.sum(axis=0)), nb),
    "sum(axis=1)": (W(lambda: mx.nd.sum(a2, axis=1)), N(lambda: a2_np.sum(axis=1)), nb),
    "sum(1,keep)": (W(lambda: mx.nd.sum(a2, axis=1, keepdims=True)),
                    N(lambda: a2_np.sum(axis=1, keepdims=True)), nb),
    "mean": (W(lambda: mx.nd.mean(a)), N(lambda: a_np.mean()), nb),
    "mean(axis=1)": (W(lambda: mx.nd.mean(a2, axis=1)), N(lambda: a2_np.mean(axis=1)), nb),
}}
def fwd_bwd(x, axis):
    def run():
        with mx.autograd.record():
            y = mx.nd.softmax(x, axis=axis)
        y.backward()
        x.grad.wait_to_read()
    return run
for shape in ((8, 16, 16, 16), (32, 64, 32, 32)):
    x_np = rng.randn(*shape).astype(np.float32)
    x = mx.nd.array(x_np)
    tag = "x".join(map(str, shape))
    for axis in range(4):
        cases["softmax %s ax%d" % (tag, axis)] = (
            W(lambda x=x, axis=axis: mx.nd.softmax(x, axis=axis)),
            N(lambda axis=axis, x_np=x_np: np_softmax(x_np, axis)), 2 * x_np.nbytes)
    cases["log_softmax %s ax1" % tag] = (W(lambda x=x: mx.nd.log_softmax(x, axis=1)),
                                         N(lambda x_np=x_np: np_softmax(x_np, 1, log=True)), 2 * x_np.nbytes)
    xg = x.copy()
    xg.attach_grad()
    for axis in (1, 3):
        cases["softmax fwd+bwd %s ax%d" % (tag, axis)] = (fwd_bwd(xg, axis), None, 5 * x_np.nbytes)
out = {{}}
for name, (ours, ref, nbytes) in cases.items():
    out[name] = {{"bytes": nbytes, "ours_s": per_call(ours), "numpy_s": per_call(ref) if ref else None}}
print(json.dumps(out))
"""


def measure_bandwidth():
    """GB/s of a large numpy copy (read + write), the yardstick of the bandwidth column."""
    import time
    import numpy as np
    src = np.ones(1 << 24, np.float32)
    dst = np.empty_like(src)
    best = float("inf")
    for _ in range(6):
        t0 = time.perf_counter()
        np.copyto(dst, src)
        best = min(best, time.perf_counter() - t0)
    return 2 * src.nbytes / best / 1e9


def measure_large_ops(peers=("ours", "mxnet-1.9.1")):
    """{framework: {case: {...}}} or {framework: {"missing"/"error": why}}."""
    results = {}
    for name in peers:
        cmd, env = peer_command(name)
        if cmd is None:
            results[name] = {"missing": env}
            continue
        code = LARGE_OPS.format(with_numpy=name == "ours")
        proc = subprocess.run(cmd + ["-c", code], env=env, capture_output=True, text=True, timeout=1800)
        if proc.returncode != 0:
            results[name] = {"error": proc.stderr.strip().splitlines()[-1] if proc.stderr else "failed"}
        else:
            results[name] = json.loads(proc.stdout.strip().splitlines()[-1])
    return results


def print_large_ops(bandwidth, large):
    print("\nLarge ops: 16M float32 (softmax: the shapes named), ours against numpy (same process) and "
          "MXNet 1.9.1\n(memory bandwidth measured by a numpy copy: %.1f GB/s; times are best per call)" % bandwidth)
    ours, peer = large.get("ours", {}), large.get("mxnet-1.9.1", {})
    other = next((v for k, v in large.items() if k.startswith("ours@")), None)
    print("%-30s %9s %9s %10s %10s %12s %9s %9s%s" % ("op", "ours ms", "numpy ms", "ours GB/s", "numpy GB/s",
                                                     "of bandwidth", "vs numpy", "vs 1.9.1",
                                                     " %9s" % "vs lib" if other is not None else ""))
    if "missing" in ours or "error" in ours:
        print("ours: %s" % (ours.get("missing") or ours.get("error")))
        return
    for name, r in ours.items():
        gbps = r["bytes"] / r["ours_s"] / 1e9
        np_ms = "%9.3f" % (r["numpy_s"] * 1e3) if r["numpy_s"] else "%9s" % "-"
        np_gbps = "%10.1f" % (r["bytes"] / r["numpy_s"] / 1e9) if r["numpy_s"] else "%10s" % "-"
        vs_np = "%8.2fx" % (r["numpy_s"] / r["ours_s"]) if r["numpy_s"] else "%9s" % "-"
        vs_peer = "%8.2fx" % (peer[name]["ours_s"] / r["ours_s"]) if name in peer else "%9s" % "-"
        vs_lib = ""
        if other is not None:
            vs_lib = " %8.2fx" % (other[name]["ours_s"] / r["ours_s"]) if name in other else " %9s" % "-"
        print("%-30s %9.3f %s %10.1f %s %11.0f%% %s %s%s" % (name, r["ours_s"] * 1e3, np_ms, gbps, np_gbps,
                                                            100 * gbps / bandwidth, vs_np, vs_peer, vs_lib))
    for k, v in large.items():
        if k != "ours" and ("missing" in v or "error" in v):
            print("%s: %s" % (k, v.get("missing") or v.get("error")))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ops", type=int, default=20000, help="ops per timed window")
    parser.add_argument("--sync-every", type=int, default=100, help="wait for the result every N ops")
    parser.add_argument("--json", help="write all figures here")
    parser.add_argument("--compare-lib", help="also time the large ops with this libmxnet.so (e.g. a "
                        "build from before a change), shown as a 'vs lib' column")
    parser.add_argument("--skip-tiny", action="store_true", help="only the large-op table")
    parser.add_argument("--baseline", help="also time the per-op overhead of another built checkout "
                        "(a folder with python/ and build/libmxnet.so), e.g. the commit before a change")
    args = parser.parse_args()

    print("OMP_NUM_THREADS=%s" % os.environ.get("OMP_NUM_THREADS", "2 (set for peers)"))
    tiny = {} if args.skip_tiny else measure_tiny_ops(args.ops, args.sync_every, args.baseline)
    if tiny:
        print("\nPer-op overhead (us per op, best window; lower is better): a + b, and a tiny Convolution")
        print("%-16s %12s %12s %12s" % ("framework", "add 1 elem", "add 1000", "conv 4x4"))
    for name, r in tiny.items():
        if "1" in r:
            print("%-16s %12.2f %12.2f %12.2f" % (name[:16], r["1"], r["1000"], r["conv"]))
        else:
            print("%-16s %s" % (name[:16], r.get("missing") or r.get("error")))
    for mine in ("ours", "ours-ctypes") + (("ours@" + args.baseline,) if args.baseline else ()):
        for peer in ("mxnet-1.9.1", "pytorch-eager"):
            if "1" in tiny.get(peer, {}) and "1" in tiny.get(mine, {}):
                print("%s time / %s time: %.2fx (add 1), %.2fx (add 1000), %.2fx (conv)" % (
                    mine, peer, tiny[mine]["1"] / tiny[peer]["1"], tiny[mine]["1000"] / tiny[peer]["1000"],
                    tiny[mine]["conv"] / tiny[peer]["conv"]))

    bandwidth = measure_bandwidth()
    peers = ("ours", "mxnet-1.9.1") + (("ours@" + args.compare_lib,) if args.compare_lib else ())
    large = measure_large_ops(peers)
    print_large_ops(bandwidth, large)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"tiny_op_us": tiny, "bandwidth_GBps": bandwidth, "large_ops": large}, f, indent=2)
        print("\nwrote %s" % args.json)


if __name__ == "__main__":
    main()
