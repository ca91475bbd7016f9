#!/usr/bin/env bash
# Checks CI runs besides the test suites: sanitizer builds of the suites they exist for
# (engine, storage: they link only the core objects, so these builds stay small; the CachedOp
# thread test links the whole library under ThreadSanitizer), and a
# compile-and-link check of the GPU sources (there is no GPU here to run them).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
jobs="$(nproc)"
lean=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DUSE_ONEDNN=OFF -DUSE_OPENBLAS=OFF -DUSE_OPENMP=OFF -DUSE_NATIVE_ARCH=OFF)

echo "== ThreadSanitizer: engine and storage suites"
cmake -S . -B build-tsan "${lean[@]}" -DENABLE_TSAN=ON > build-tsan.configure.log 2>&1 || { cat build-tsan.configure.log; exit 1; }
cmake --build build-tsan -j"$jobs" --target test_engine test_storage
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" build-tsan/tests/cpp/test_engine --gtest_brief=1
TSAN_OPTIONS="halt_on_error=1" build-tsan/tests/cpp/test_storage --gtest_brief=1

echo "== ThreadSanitizer: one CachedOp called from 8 threads (the whole library, instrumented)"
cmake --build build-tsan -j"$jobs" --target test_imperative
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" build-tsan/tests/cpp/test_imperative \
  --gtest_filter='CachedOp.*' --gtest_brief=1

echo "== AddressSanitizer: engine and storage suites"
cmake -S . -B build-asan "${lean[@]}" -DENABLE_ASAN=ON > build-asan.configure.log 2>&1 || { cat build-asan.configure.log; exit 1; }
cmake --build build-asan -j"$jobs" --target test_engine test_storage
ASAN_OPTIONS="detect_leaks=1" build-asan/tests/cpp/test_storage --gtest_brief=1
ASAN_OPTIONS="detect_leaks=0" build-asan/tests/cpp/test_engine --gtest_brief=1

if [ -x /usr/local/cuda/bin/nvcc ]; then
  echo "== CUDA: compile and link the GPU sources (USE_CUDA, USE_CUDNN, USE_NCCL)"
  cmake -S . -B build-cuda -DCMAKE_BUILD_TYPE=Release -DUSE_CUDA=ON -DUSE_CUDNN=ON -DUSE_NCCL=ON \
    -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc -DCMAKE_CUDA_ARCHITECTURES=90 -DBUILD_TESTING=OFF \
    > build-cuda.configure.log 2>&1 || { cat build-cuda.configure.log; exit 1; }
  cmake --build build-cuda -j"$jobs" --target mxnet_core_link_check
else
  echo "== CUDA toolkit not found at /usr/local/cuda: GPU compile check skipped"
fi
