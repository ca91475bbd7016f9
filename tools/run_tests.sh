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

echo "== Summary"
grep -E "tests passed|tests failed" build/ctest.log | tail -n 1
tail -n 1 build/pytest.log
[ "$cpp_status" -eq 0 ] && [ "$py_status" -eq 0 ]
