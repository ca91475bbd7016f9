"""Per-operator overhead and large element-wise throughput, ours against the peers.

1. Python per-op overhead of a tiny `a + b` (1 and 1000 elements), measured end to end
   (the add and a wait for its result every `--sync-every` ops), for this runtime, the real
   Apache MXNet 1.9.1 and PyTorch eager, each in its own process.
2. Throughput of large element-wise, broadcast and reduction ops against numpy in the same
   process, as a fraction of the memory bandwidth measured here (a large numpy copy).

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

# One snippet per framework; each prints a JSON dict {"1": us_per_op, "1000": us_per_op}.
TINY_ADD = {
    "ours": ("mxnet", """
        import mxnet as mx
        def make(n): return mx.nd.ones((n,)), mx.nd.ones((n,))
        def add(a, b): return a + b
        def sync(c): c.wait_to_read()
    """),
    "mxnet-1.9.1": ("mxnet", """
        import mxnet as mx
        def make(n): return mx.nd.ones((n,)), mx.nd.ones((n,))
        def add(a, b): return a + b
        def sync(c): c.wait_to_read()
    """),
    "pytorch-eager": ("torch", """
        import torch
        torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "2")))
        def make(n): return torch.ones(n), torch.ones(n)
        def add(a, b): return a + b
        def sync(c): pass
    """),
}

TIMER = """
import json, os, time
{setup}
out = {{}}
for n in (1, 1000):
    a, b = make(n)
    for _ in range(2000):
        sync(add(a, b))
    best = float("inf")
    for _ in range(7):
        t0 = time.perf_counter()
        for i in range({ops}):
            c = add(a, b)
            if i % {sync_every} == 0:
                sync(c)
        sync(c)
        best = min(best, (time.perf_counter() - t0) / {ops} * 1e6)
    out[str(n)] = best
print(json.dumps(out))
"""


def peer_command(name):
    """The interpreter and environment for a peer, or (None, reason)."""
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", "2")
    if name == "ours":
        env["PYTHONPATH"] = os.path.join(REPO, "python")
        env.setdefault("MXNET_LIBRARY_PATH", os.path.join(REPO, "build", "libmxnet.so"))
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


def measure_tiny_add(ops, sync_every):
    results = {}
    for name, (_, setup) in TINY_ADD.items():
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


def measure_bandwidth_and_large_ops():
    """Runs in this process with our runtime: GB/s of numpy copy, then each op's GB/s."""
    sys.path.insert(0, os.path.join(REPO, "python"))
    os.environ.setdefault("MXNET_LIBRARY_PATH", os.path.join(REPO, "build", "libmxnet.so"))
    import time
    import numpy as np
    import mxnet as mx

    def best_of(fn, reps=5):
        fn()
        best = float("inf")
        for _ in range(reps):
            t0 = time.perf_counter()
            fn()
            best = min(best, time.perf_counter() - t0)
        return best

    n = 1 << 24  # 64 MiB per float32 array: far beyond the caches
    src = np.ones(n, np.float32)
    dst = np.empty_like(src)
    copy_s = best_of(lambda: np.copyto(dst, src))
    bandwidth = 2 * src.nbytes / copy_s / 1e9  # read + write

    a_np = np.random.rand(n).astype(np.float32)
    b_np = np.random.rand(n).astype(np.float32)
    row_np = np.random.rand(1, 4096).astype(np.float32)
    a, b = mx.nd.array(a_np), mx.nd.array(b_np)
    a2, row = a.reshape((-1, 4096)), mx.nd.array(row_np)
    a2_np = a_np.reshape(-1, 4096)
    cases = {
        # name: (ours, numpy, bytes moved)
        "add": (lambda: (a + b).wait_to_read(), lambda: a_np + b_np, 3 * a_np.nbytes),
        "exp": (lambda: mx.nd.exp(a).wait_to_read(), lambda: np.exp(a_np), 2 * a_np.nbytes),
        "broadcast_mul": (lambda: mx.nd.broadcast_mul(a2, row).wait_to_read(), lambda: a2_np * row_np,
                          2 * a_np.nbytes),
        "sum": (lambda: mx.nd.sum(a).wait_to_read(), lambda: a_np.sum(), a_np.nbytes),
        "sum_axis1": (lambda: mx.nd.sum(a2, axis=1).wait_to_read(), lambda: a2_np.sum(axis=1), a_np.nbytes),
    }
    large = {}
    for name, (ours, ref, nbytes) in cases.items():
        t_ours, t_np = best_of(ours), best_of(ref)
        large[name] = {"ours_GBps": nbytes / t_ours / 1e9, "numpy_GBps": nbytes / t_np / 1e9,
                       "ours_fraction_of_bandwidth": nbytes / t_ours / 1e9 / bandwidth,
                       "speedup_vs_numpy": t_np / t_ours}
    return bandwidth, large


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ops", type=int, default=20000, help="ops per timed window")
    parser.add_argument("--sync-every", type=int, default=100, help="wait for the result every N ops")
    parser.add_argument("--json", help="write all figures here")
    args = parser.parse_args()

    print("OMP_NUM_THREADS=%s" % os.environ.get("OMP_NUM_THREADS", "2 (set for peers)"))
    tiny = measure_tiny_add(args.ops, args.sync_every)
    print("\nPer-op overhead of a + b (us per op, best window; lower is better)")
    print("%-16s %12s %12s" % ("framework", "1 element", "1000 elem"))
    for name, r in tiny.items():
        if "1" in r:
            print("%-16s %12.2f %12.2f" % (name, r["1"], r["1000"]))
        else:
            print("%-16s %s" % (name, r.get("missing") or r.get("error")))
    for peer in ("mxnet-1.9.1", "pytorch-eager"):
        if "1" in tiny.get(peer, {}) and "1" in tiny["ours"]:
            print("ours / %s: %.2fx (1 element), %.2fx (1000)" % (
                peer, tiny["ours"]["1"] / tiny[peer]["1"], tiny["ours"]["1000"] / tiny[peer]["1000"]))

    bandwidth, large = measure_bandwidth_and_large_ops()
    print("\nLarge ops on 16M float32 (memory bandwidth measured by a numpy copy: %.1f GB/s)" % bandwidth)
    print("%-14s %10s %10s %12s %10s" % ("op", "ours GB/s", "numpy GB/s", "of bandwidth", "vs numpy"))
    for name, r in large.items():
        print("%-14s %10.1f %10.1f %11.0f%% %9.2fx" % (name, r["ours_GBps"], r["numpy_GBps"],
                                                       100 * r["ours_fraction_of_bandwidth"],
                                                       r["speedup_vs_numpy"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"tiny_add_us": tiny, "bandwidth_GBps": bandwidth, "large_ops": large}, f, indent=2)
        print("\nwrote %s" % args.json)


if __name__ == "__main__":
    main()
