"""JPEG decoding speed: this runtime's decoder (libjpeg-turbo's TurboJPEG API inside
libmxnet.so, reached through mx.image.imdecode) against the same TurboJPEG API called directly
(tjDecompress2 through ctypes) and MXNet 1.9.1's mx.image.imdecode (OpenCV), on the same
generated JPEGs.

    export PYTHONPATH=$PWD/python MXNET_LIBRARY_PATH=$PWD/build/libmxnet.so
    .venv/bin/python benchmark/python/jpeg_decode_speed.py [--images 200] [--rounds 5]

Every decoder produces BGR (H, W, 3) uint8 pixels into a newly allocated array per image, on
one thread (one row also times mx.image.imdecode's default RGB output). Reported: images/s
and megapixels/s (median over rounds of a pass over all images; the in-process decoders take
turns pass by pass, the 1.9.1 peer runs after them in its own process) and each decoder's
rate relative to ours. The direct TurboJPEG row is the ceiling: ours adds the C API call,
the NDArray and the Python wrapper around the same decode. libturbojpeg is looked up at run
time for it (Debian: libturbojpeg0, which the runtime links too).
"""
import argparse
import ctypes
import ctypes.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PEER_PYTHON = os.path.join(REPO, "benchmark", ".peers", "mxnet191", "bin", "python")
TJPF_BGR = 1


def make_jpegs(count, seed):
    """`count` JPEGs (quality 90) of photo-like content, sides drawn from 200-800 px."""
    import mxnet as mx
    rs = np.random.RandomState(seed)
    out = []
    for _ in range(count):
        h, w = rs.randint(200, 801, size=2)
        y, x = np.mgrid[0:h, 0:w].astype(np.float32)
        phase = rs.rand(3) * 6.28
        base = np.stack([np.sin(x / (17 + 9 * k) + y / (23 + 5 * k) + phase[k]) for k in range(3)], -1)
        img = (127 + 100 * base + rs.normal(0, 12, (h, w, 3))).clip(0, 255).astype(np.uint8)
        out.append(mx.image._imencode(img, ".jpg", 90))
    return out


def timed_pass(decode_all, blobs):
    """(seconds, pixels) of one pass over blobs."""
    start = time.perf_counter()
    pixels = decode_all(blobs)
    return time.perf_counter() - start, pixels


def rate(decode_all, blobs, rounds):
    """(images/s, MPix/s): the median of `rounds` passes after a warm-up."""
    decode_all(blobs[:5])
    passes = [timed_pass(decode_all, blobs) for _ in range(rounds)]
    t = statistics.median(p[0] for p in passes)
    return len(blobs) / t, passes[0][1] / t / 1e6


def lockstep(decoders, blobs, rounds):
    """rate() of each decoder, their passes taking turns so that drift of a shared machine's
    speed hits all of them alike."""
    for fn in decoders.values():
        fn(blobs[:5])
    times = {name: [] for name in decoders}
    pixels = {}
    for r in range(rounds):
        order = list(decoders) if r % 2 == 0 else list(reversed(list(decoders)))
        for name in order:
            t, pixels[name] = timed_pass(decoders[name], blobs)
            times[name].append(t)
    return {name: (len(blobs) / statistics.median(times[name]),
                   pixels[name] / statistics.median(times[name]) / 1e6) for name in decoders}


def ours(to_rgb=False):
    import mxnet as mx

    def decode_all(items):
        pixels = 0
        for b in items:
            img = mx.image.imdecode(b, to_rgb=to_rgb)
            pixels += img.shape[0] * img.shape[1]
        return pixels
    return decode_all


def turbojpeg():
    path = ctypes.util.find_library("turbojpeg")
    if not path:
        return None
    tj = ctypes.CDLL(path)
    tj.tjInitDecompress.restype = ctypes.c_void_p
    tj.tjDecompressHeader3.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_ulong] + \
        [ctypes.POINTER(ctypes.c_int)] * 4
    tj.tjDecompress2.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_void_p,
                                 ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int]
    handle = tj.tjInitDecompress()
    w, h, sub, cs = ctypes.c_int(), ctypes.c_int(), ctypes.c_int(), ctypes.c_int()

    def decode_all(items):
        pixels = 0
        for b in items:
            if tj.tjDecompressHeader3(handle, b, len(b), ctypes.byref(w), ctypes.byref(h),
                                      ctypes.byref(sub), ctypes.byref(cs)) != 0:
                raise RuntimeError("tjDecompressHeader3 failed")
            out = np.empty((h.value, w.value, 3), dtype=np.uint8)
            if tj.tjDecompress2(handle, b, len(b), out.ctypes.data, w.value, 0, h.value, TJPF_BGR, 0) != 0:
                raise RuntimeError("tjDecompress2 failed")
            pixels += h.value * w.value
        return pixels
    return decode_all


def peer(blob_dir, count, rounds):
    if not os.access(PEER_PYTHON, os.X_OK):
        return None
    code = """
import json, os, sys
sys.path.insert(0, %r)
import jpeg_decode_speed as bench
import mxnet as mx
blobs = [open(os.path.join(%r, '%%d.jpg' %% i), 'rb').read() for i in range(%d)]
def decode_all(items):
    pixels = 0
    for b in items:
        img = mx.image.imdecode(b, to_rgb=0)
        img.wait_to_read()
        pixels += img.shape[0] * img.shape[1]
    return pixels
print(json.dumps(bench.rate(decode_all, blobs, %d)))
""" % (os.path.dirname(os.path.abspath(__file__)), blob_dir, count, rounds)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MXNET_", "PYTHONPATH"))}
    proc = subprocess.run([PEER_PYTHON, "-c", code], env=env, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError("MXNet 1.9.1 peer failed:\n" + proc.stderr)
    return tuple(json.loads(proc.stdout.strip().splitlines()[-1]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--images", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--skip-peer", action="store_true", help="do not run MXNet 1.9.1")
    args = parser.parse_args()

    blobs = make_jpegs(args.images, args.seed)
    in_process = {"ours (TurboJPEG)": ours(), "ours, to_rgb=True (the default)": ours(to_rgb=True),
                  "libjpeg-turbo tjDecompress2": turbojpeg()}
    rows = lockstep({k: v for k, v in in_process.items() if v is not None}, blobs, args.rounds)
    rows.setdefault("libjpeg-turbo tjDecompress2", None)
    with tempfile.TemporaryDirectory() as tmp:
        for i, b in enumerate(blobs):
            with open(os.path.join(tmp, "%d.jpg" % i), "wb") as f:
                f.write(b)
        rows["MXNet 1.9.1 mx.image.imdecode"] = None if args.skip_peer else peer(tmp, len(blobs), args.rounds)

    mean_kb = sum(len(b) for b in blobs) / len(blobs) / 1024.0
    print("%d JPEGs (200-800 px sides, quality 90, %.0f KiB on average), one thread, median of %d passes; "
          "load average %.2f" % (len(blobs), mean_kb, args.rounds, os.getloadavg()[0]))
    base = rows["ours (TurboJPEG)"][0]
    print("%-32s %10s %10s %8s" % ("decoder", "images/s", "MPix/s", "vs ours"))
    for name, value in rows.items():
        if value is None:
            how = ("apt-get install libturbojpeg0" if "turbo" in name
                   else "skipped" if args.skip_peer else "bash benchmark/python/setup_peers.sh")
            print("%-32s %10s   (%s)" % (name, "MISSING", how))
            continue
        print("%-32s %10.1f %10.1f %8.2f" % (name, value[0], value[1], value[0] / base))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({k: (None if v is None else {"images_per_s": v[0], "mpix_per_s": v[1]})
                       for k, v in rows.items()}, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
