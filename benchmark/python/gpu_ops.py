"""GPU element-wise, reduction and GEMM speed, against the GPU's own copy bandwidth and against
PyTorch on the same GPU in the same run.

    python benchmark/python/gpu_ops.py [--size-mb 256] [--gemm 4096] [--repeat 20]

Element-wise and reduction figures are effective bandwidth (bytes read + written per second)
as a fraction of a device-to-device copy measured here (our copy and PyTorch's); GEMM figures
are TFLOP/s of mx.nd.dot against torch.matmul (both cuBLAS) for float32 and float16."""
import argparse
import time

import numpy as np

import mxnet as mx
from mxnet import nd


def _time_mx(fn, repeat):
    fn()
    nd.waitall()
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        for _ in range(repeat):
            fn()
        nd.waitall()
        best = min(best, (time.perf_counter() - t) / repeat)
    return best


def _time_torch(torch, fn, repeat):
    fn()
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        for _ in range(repeat):
            fn()
        torch.cuda.synchronize()
        best = min(best, (time.perf_counter() - t) / repeat)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size-mb", type=int, default=256, help="float32 megabytes per element-wise operand")
    ap.add_argument("--gemm", type=int, default=4096, help="M = N = K of the matrix products")
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()
    try:
        import torch
        has_torch = torch.cuda.is_available()
    except ImportError:
        torch, has_torch = None, False
    ctx = mx.gpu(0)
    n = args.size_mb * (1 << 20) // 4
    a = nd.ones((n,), ctx=ctx)
    b = nd.ones((n,), ctx=ctx)
    c = nd.zeros((n,), ctx=ctx)
    gb = 1e9
    rows = []

    copy_t = _time_mx(lambda: a.copyto(c), args.repeat)
    copy_bw = 2 * 4 * n / copy_t / gb
    rows.append(("copy (D2D)", copy_bw, 1.0))
    cases = [
        ("a + b", lambda: nd.elemwise_add(a, b, out=c), 3),
        ("exp(a)", lambda: nd.exp(a, out=c), 2),
        ("a * 2.5", lambda: nd._internal._mul_scalar(a, scalar=2.5, out=c), 2),
        ("sum(a)", lambda: nd.sum(a), 1),
        ("sum(a, axis=1) [n/1024, 1024]", lambda: nd.sum(a.reshape((-1, 1024)), axis=1), 1),
    ]
    for name, fn, arrays in cases:
        t = _time_mx(fn, args.repeat)
        bw = arrays * 4 * n / t / gb
        rows.append((name, bw, bw / copy_bw))

    print("device: %s" % (torch.cuda.get_device_name(0) if has_torch else "gpu(0)"))
    print("%-32s %12s %10s %12s %10s" % ("op", "ours GB/s", "of copy", "torch GB/s", "ours/torch"))
    tt = {}
    if has_torch:
        ta = torch.ones(n, device="cuda")
        tb = torch.ones(n, device="cuda")
        tc = torch.zeros(n, device="cuda")
        tcopy = _time_torch(torch, lambda: tc.copy_(ta), args.repeat)
        tt["copy (D2D)"] = 2 * 4 * n / tcopy / gb
        tt["a + b"] = 3 * 4 * n / _time_torch(torch, lambda: torch.add(ta, tb, out=tc), args.repeat) / gb
        tt["exp(a)"] = 2 * 4 * n / _time_torch(torch, lambda: torch.exp(ta, out=tc), args.repeat) / gb
        tt["a * 2.5"] = 2 * 4 * n / _time_torch(torch, lambda: torch.mul(ta, 2.5, out=tc), args.repeat) / gb
        tt["sum(a)"] = 4 * n / _time_torch(torch, lambda: ta.sum(), args.repeat) / gb
        tt["sum(a, axis=1) [n/1024, 1024]"] = 4 * n / _time_torch(torch, lambda: ta.view(-1, 1024).sum(1), args.repeat) / gb
    for name, bw, frac in rows:
        t = tt.get(name)
        print("%-32s %12.1f %10.2f %12s %10s" % (name, bw, frac, "%.1f" % t if t else "-", "%.2f" % (bw / t) if t else "-"))

    m = args.gemm
    print("\n%-20s %12s %12s %10s" % ("GEMM %d^3" % m, "ours TF/s", "torch TF/s", "ours/torch"))
    for dtype in ("float32", "float16"):
        x = nd.array(np.random.RandomState(0).rand(m, m), ctx=ctx, dtype=dtype)
        y = nd.array(np.random.RandomState(1).rand(m, m), ctx=ctx, dtype=dtype)
        t = _time_mx(lambda: nd.dot(x, y), max(3, args.repeat // 2))
        ours = 2 * m ** 3 / t / 1e12
        theirs = None
        if has_torch:
            tx = torch.rand(m, m, device="cuda", dtype=getattr(torch, dtype))
            ty = torch.rand(m, m, device="cuda", dtype=getattr(torch, dtype))
            theirs = 2 * m ** 3 / _time_torch(torch, lambda: tx @ ty, max(3, args.repeat // 2)) / 1e12
        print("%-20s %12.1f %12s %10s" % (dtype, ours, "%.1f" % theirs if theirs else "-",
                                          "%.2f" % (ours / theirs) if theirs else "-"))


if __name__ == "__main__":
    main()
