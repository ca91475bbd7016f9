#!/usr/bin/env bash
# Checks CI runs besides the test suites: sanitizer builds (TSAN over the engine, storage and
# kvstore suites and a CachedOp called from many threads; ASAN+UBSAN over the production
# configuration, oneDNN, OpenMP and native vector ISA included, running the engine, storage,
# operator and kvstore suites and a Python operator subset), a link check of the lower layers on
# their own, and the whole library built with CUDA (there is no GPU here: its Python suites check
# that it loads, runs CPU work and fails GPU use clearly, and the GPU tests skip).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
jobs="$(nproc)"
lean=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DUSE_ONEDNN=OFF -DUSE_OPENBLAS=OFF -DUSE_OPENMP=OFF -DUSE_NATIVE_ARCH=OFF)
section_start=$SECONDS
section() {
  [ "$section_start" -eq "$SECONDS" ] || echo "   ($((SECONDS - section_start)) s)"
  section_start=$SECONDS
  echo "== $*"
}

# Production options (oneDNN, OpenBLAS, OpenMP, -march=native: the hand-written SIMD kernels
# take their vector paths only there) with asserts on. -O1 and line tables only: UBSAN makes
# compiling several times slower, and these two halve that; reports still name file and line.
san=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1"
     "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g1" -DENABLE_ASAN=ON -DENABLE_UBSAN=ON)
cmake -S . -B build-asan "${san[@]}" > build-asan.configure.log 2>&1 || { cat build-asan.configure.log; exit 1; }

section "Link check: the lower layers (env, engine, storage, profiler) link alone, nothing undefined"
# Fails on any call from them up into operators, NDArrays or the graph (DESIGN.md: nothing
# below calls up). Built first as it compiles only the core objects.
cmake --build build-asan -j"$jobs" --target mxnet_core_link_check

section "ThreadSanitizer: engine and storage suites"
cmake -S . -B build-tsan "${lean[@]}" -DENABLE_TSAN=ON > build-tsan.configure.log 2>&1 || { cat build-tsan.configure.log; exit 1; }
cmake --build build-tsan -j"$jobs" --target test_engine test_storage
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" build-tsan/tests/cpp/test_engine --gtest_brief=1
TSAN_OPTIONS="halt_on_error=1" build-tsan/tests/cpp/test_storage --gtest_brief=1

section "ThreadSanitizer: one CachedOp called from 8 threads (the whole library, instrumented)"
cmake --build build-tsan -j"$jobs" --target test_imperative
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" build-tsan/tests/cpp/test_imperative \
  --gtest_filter='CachedOp.*' --gtest_brief=1

section "ThreadSanitizer: kvstore suites (collective group thread, engine-driven stores, trees, compression)"
cmake --build build-tsan -j"$jobs" --target test_kvstore
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" build-tsan/tests/cpp/test_kvstore --gtest_brief=1

# UBSAN findings abort (-fno-sanitize-recover=undefined; halt_on_error for the runtime too).
ubsan_opts="halt_on_error=1:print_stacktrace=1"
section "AddressSanitizer + UBSAN: engine and storage suites, leak checking on"
cmake --build build-asan -j"$jobs" --target test_engine test_storage
ASAN_OPTIONS="detect_leaks=1" UBSAN_OPTIONS="$ubsan_opts" build-asan/tests/cpp/test_storage --gtest_brief=1
ASAN_OPTIONS="detect_leaks=1" LSAN_OPTIONS="suppressions=$root/tools/lsan_engine.supp print_suppressions=0" \
  UBSAN_OPTIONS="$ubsan_opts" build-asan/tests/cpp/test_engine --gtest_brief=1

section "AddressSanitizer + UBSAN: the operator suite (oneDNN paths, hand-written SIMD kernels)"
cmake --build build-asan -j"$jobs" --target test_operator_nn mxnet
ASAN_OPTIONS="detect_leaks=1" UBSAN_OPTIONS="$ubsan_opts" build-asan/tests/cpp/test_operator_nn --gtest_brief=1

section "AddressSanitizer + UBSAN: kvstore suites"
cmake --build build-asan -j"$jobs" --target test_kvstore
ASAN_OPTIONS="detect_leaks=1" UBSAN_OPTIONS="$ubsan_opts" build-asan/tests/cpp/test_kvstore --gtest_brief=1

section "AddressSanitizer + UBSAN: Python operator tests against the instrumented libmxnet.so"
# The ASAN runtime must be the first library in the interpreter; libubsan comes in as a
# dependency of libmxnet.so. libstdc++ is preloaded too: ASAN finds the real __cxa_throw only
# in what is loaded when it starts, and without it the first C++ exception aborts the process.
# CPython keeps its objects to the end by design: no leak checking.
preload="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libstdc++.so.6)"
LD_PRELOAD="$preload" ASAN_OPTIONS="detect_leaks=0" UBSAN_OPTIONS="$ubsan_opts" \
  PYTHONPATH="$root/python" MXNET_LIBRARY_PATH="$root/build-asan/libmxnet.so" \
  .venv/bin/python -m pytest -q -p no:cacheprovider \
  tests/python/test_op_nn_conv.py tests/python/test_op_nn_pool.py tests/python/test_op_nn_layers.py \
  tests/python/test_op_nn_blocked_layout.py tests/python/test_op_nn_blocked_backward.py \
  tests/python/test_op_nn_weight_cache.py tests/python/test_op_elemwise.py tests/python/test_op_vector_math.py

if [ -x /usr/local/cuda/bin/nvcc ]; then
  section "CUDA: the whole library with USE_CUDA, USE_CUDNN, USE_NCCL (sm_90), loaded without a GPU"
  # The same options as the main build (tools/setup.sh) plus CUDA: only the .cu files and the few
  # that include mxnet/build_config.h compile; the rest come from the main build's compiler cache.
  cmake -S . -B build-cuda -DCMAKE_BUILD_TYPE=Release -DPython3_EXECUTABLE="$root/.venv/bin/python" \
    -DUSE_CUDA=ON -DUSE_CUDNN=ON -DUSE_NCCL=ON -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc \
    -DCMAKE_CUDA_ARCHITECTURES=90 ${MXNET_CMAKE_ARGS:-} > build-cuda.configure.log 2>&1 \
    || { cat build-cuda.configure.log; exit 1; }
  cmake --build build-cuda -j"$jobs" --target mxnet_core_link_check mxnet
  # This machine has no GPU: the CUDA build must import, run CPU work, report no GPU, and fail
  # the first GPU use with a clear error; the GPU suites skip.
  PYTHONPATH="$root/python" MXNET_LIBRARY_PATH="$root/build-cuda/libmxnet.so" .venv/bin/python -m pytest -q \
    -p no:cacheprovider tests/python/test_gpu_ndarray.py tests/python/test_gpu_consistency.py \
    tests/python/test_op_elemwise.py
else
  section "CUDA toolkit not found at /usr/local/cuda: GPU compile check skipped"
fi
section "done"
