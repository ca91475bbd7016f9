#!/usr/bin/env bash
# Checks CI runs besides the test suites: sanitizer builds of the tests they exist for, and a
# compile-and-link check of the CUDA sources (there is no GPU here to run them).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
lean="-DCMAKE_BUILD_TYPE=Release -DUSE_ONEDNN=OFF -DUSE_OPENBLAS=OFF -DUSE_OPENMP=OFF -DUSE_NATIVE_ARCH=OFF"

echo "== CI checks: nothing configured yet beyond the main suites"
