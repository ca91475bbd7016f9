"""Processes of the benchmarks: the interpreter, environment and thread settings each
framework runs with, whether it is installed, and waiting for a quiet machine. Shared by
benchmark_score.py, train_hybrid.py, hybrid_overhead.py."""
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PEERS = os.environ.get("MXNET_BENCH_PEERS", os.path.join(ROOT, "benchmark", ".peers"))
SETUP = "bash benchmark/python/setup_peers.sh"


def openblas_coretype():
    """The OpenBLAS kernels every framework gets: what our runtime picks on import.

    An OpenBLAS older than the CPU (Debian's 0.3.21 here, used by Debian's torch and by our
    library) falls back to SSE3 kernels on an AVX-512 Xeon it does not know; mxnet's Python
    package sets OPENBLAS_CORETYPE=SkylakeX then, so the peers get the same, for a fair race.
    """
    if "OPENBLAS_CORETYPE" in os.environ:
        return os.environ["OPENBLAS_CORETYPE"]
    try:
        with open("/proc/cpuinfo") as f:
            text = f.read()
    except OSError:
        return None
    flags = set(text.split("flags", 1)[1].split("\n", 1)[0].split(":", 1)[1].split()) \
        if "flags" in text else set()
    if "GenuineIntel" in text and \
            {"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"} <= flags:
        return "SkylakeX"
    return None


# Per-framework additions to the common thread settings. Debian's torch links the pthread
# OpenBLAS, whose threads fight torch's OpenMP pool for the two cores (a 2-7x loss here);
# torch keeps its 2 OpenMP threads and runs OpenBLAS single-threaded.
EXTRA_ENV = {"torch": {"OPENBLAS_NUM_THREADS": "1"}}


def thread_env(threads, framework=None):
    """The environment for a worker: one thread count for every threading layer."""
    env = dict(os.environ)
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        env[var] = str(threads)
    core = openblas_coretype()
    if core:
        env["OPENBLAS_CORETYPE"] = core
    env.update(EXTRA_ENV.get(framework, {}))
    return env


def peer_env(threads, framework=None):
    """A peer must not pick up our package or library."""
    env = thread_env(threads, framework)
    for var in ("PYTHONPATH", "MXNET_LIBRARY_PATH", "PYTHONHOME", "VIRTUAL_ENV"):
        env.pop(var, None)
    return env


def ours_interpreter(threads, python=None, runtime_settings=True):
    """(interpreter, env, import probe, install hint) of this runtime; runtime_settings=False
    drops the caller's MXNET_/NNVM_ variables (each configuration then sets its own)."""
    env = thread_env(threads, "ours")
    if not runtime_settings:
        env = {k: v for k, v in env.items()
               if not k.startswith(("MXNET_", "NNVM_")) or k == "MXNET_LIBRARY_PATH"}
    env["PYTHONPATH"] = os.path.join(ROOT, "python") + (
        os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    default_lib = os.path.join(ROOT, "build", "libmxnet.so")
    if "MXNET_LIBRARY_PATH" not in env and os.path.exists(default_lib):
        env["MXNET_LIBRARY_PATH"] = default_lib
    return (python or sys.executable, env, "import mxnet",
            "build the library (cmake --build build) and run with the project's .venv")


def peer_interpreters(threads, torch_probe="import torch, torchvision"):
    """MXNet 1.9.1's and PyTorch's (interpreter, env, import probe, install hint)."""
    return {
        "mxnet191": (os.path.join(PEERS, "mxnet191", "bin", "python"),
                     peer_env(threads, "mxnet191"),
                     "import mxnet; assert mxnet.__version__ == '1.9.1'", SETUP),
        "torch": ("/usr/bin/python3", peer_env(threads, "torch"), torch_probe,
                  "apt-get install python3-torch python3-torchvision (or %s)" % SETUP),
    }


def report_missing(interp, frameworks):
    """{framework: why} for the frameworks that cannot run, each printed as MISSING with its
    install hint (a missing peer is reported, never skipped silently)."""
    missing = {}
    for fw in sorted(frameworks):
        why = available(interp[fw][0], interp[fw][1], interp[fw][2])
        if why:
            missing[fw] = why
            print("%-9s MISSING (%s); install: %s" % (fw, why, interp[fw][3]), flush=True)
    return missing


def available(py, env, probe):
    if not os.path.exists(py):
        return "no interpreter at %s" % py
    proc = subprocess.run([py, "-c", probe], env=env, capture_output=True, text=True)
    if proc.returncode:
        return (proc.stderr.strip().splitlines() or ["import failed"])[-1]
    return None


def wait_quiet(max_load, max_wait=1800):
    """Waits (up to max_wait s) until the 1-minute load average is below max_load (0: no)."""
    start = time.time()
    while max_load and os.getloadavg()[0] > max_load and time.time() - start < max_wait:
        print("  waiting for a quiet machine: load %.2f > %.2f" % (os.getloadavg()[0],
                                                               max_load), flush=True)
        time.sleep(15)
