#!/usr/bin/env bash
# The GPU checks, on a machine with an NVIDIA GPU, CUDA 13's runtime libraries and Python with
# numpy, pytest (pytest-timeout, pytest-xdist) and optionally PyTorch:
#   bash tools/gpu_device_check.sh [path/to/libmxnet.so built with USE_CUDA=ON] [output folder]
# Runs the GPU test suites against that library and the GPU benchmark, writing logs to the
# output folder. The library may come from another machine (a lean build: USE_ONEDNN, USE_OPENBLAS,
# USE_OPENMP, USE_OPENCV off, USE_NATIVE_ARCH off), so its runtime needs are checked first.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
lib="${1:-$root/build-gpu/libmxnet.so}"
out="${2:-$root/gpu_check_output}"
mkdir -p "$out"
py="${PYTHON:-python3}"
# cuBLAS and the CUDA runtime from the toolkit or from NVIDIA's pip wheels, whichever is there.
extra="$("$py" - <<'PY' 2>/dev/null
import glob, os
try:
    import nvidia
    roots = list(nvidia.__path__)
except ImportError:
    roots = []
print(":".join(sorted({os.path.dirname(p) for r in roots for p in glob.glob(os.path.join(r, "*", "lib", "lib*.so*"))})))
PY
)"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64${extra:+:$extra}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PYTHONPATH="$root/python" MXNET_LIBRARY_PATH="$lib" MXNET_ENABLE_CYTHON=0 PYTHONUNBUFFERED=1
nvidia-smi -L || true
if ldd "$lib" | grep "not found"; then
  echo "libmxnet.so misses the libraries above"; exit 1
fi
"$py" -c "import mxnet as mx; print('gpus:', mx.context.num_gpus()); a = mx.nd.ones((3,), ctx=mx.gpu(0)); print((a * 2 + 1).asnumpy())" \
  2>&1 | tee "$out/smoke.log" || exit 1
cd "$root"
workers="${GPU_TEST_WORKERS:-8}"
timeout "${GPU_TEST_TIMEOUT:-600}" "$py" -m pytest -q -p no:cacheprovider -n "$workers" --timeout 300 -rs tests/python/test_gpu_ndarray.py \
  tests/python/test_gpu_consistency.py 2>&1 | tee "$out/gpu_tests.log" | grep -v "^SKIPPED.*has no CUDA kernel" | tail -150
"$py" -m pytest -q -p no:cacheprovider -s tests/python/test_gpu_consistency.py -k coverage 2>&1 \
  | grep "GPU kernels:" | tee "$out/gpu_coverage.log"
"$py" benchmark/python/gpu_ops.py 2>&1 | tee "$out/gpu_bench.log"
