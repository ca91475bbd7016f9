#!/usr/bin/env bash
# Sets everything up (tools/setup.sh), then runs every test: the C++ suites through ctest
# and the Python suite through pytest. Ends with both summaries; fails if either fails.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
bash tools/setup.sh || exit 1

echo "== C++ tests (ctest)"
# The GoogleTest cases carry their own limit (tests/cpp/CMakeLists.txt); --timeout is the same
# limit for the rest (the example build takes about 5 s).
(cd build && ctest --output-on-failure -j2 --timeout 120) 2>&1 | tee build/ctest.log
cpp_status=${PIPESTATUS[0]}

echo "== Python tests (pytest)"
PYTHONPATH="$root/python" MXNET_LIBRARY_PATH="$root/build/libmxnet.so" \
  .venv/bin/python -m pytest tests/python -q -p no:cacheprovider 2>&1 | tee build/pytest.log
py_status=${PIPESTATUS[0]}

# The suite above runs on the compiled fast path (mxnet._fastpath); the ctypes binding it
# replaces (MXNET_ENABLE_CYTHON=0, or no compiled module) runs the suites that exercise every
# binding: op calls and their argument rules, arrays, indexing, autograd, sparse fallbacks.
echo "== Python tests on the ctypes path (MXNET_ENABLE_CYTHON=0)"
MXNET_ENABLE_CYTHON=0 PYTHONPATH="$root/python" MXNET_LIBRARY_PATH="$root/build/libmxnet.so" \
  .venv/bin/python -m pytest -q -p no:cacheprovider tests/python/test_fastpath.py tests/python/test_ndarray.py \
  tests/python/test_indexing_mixed.py tests/python/test_autograd.py tests/python/test_sparse_csr.py \
  tests/python/test_op_init.py tests/python/test_ndarray_contexts.py tests/python/test_gluon_trainer.py \
  2>&1 | tee build/pytest_ctypes.log
ctypes_status=${PIPESTATUS[0]}

echo "== Summary"
grep -E "tests passed|tests failed" build/ctest.log | tail -n 1
tail -n 1 build/pytest.log
echo "ctypes path: $(tail -n 1 build/pytest_ctypes.log)"
[ "$cpp_status" -eq 0 ] && [ "$py_status" -eq 0 ] && [ "$ctypes_status" -eq 0 ]
