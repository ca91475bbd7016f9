#!/usr/bin/env bash
# Sets everything up (tools/setup.sh), then runs the main job.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
bash tools/setup.sh
PYTHONPATH="$root/python" MXNET_LIBRARY_PATH="$root/build/libmxnet.so" .venv/bin/python example/python/show_runtime.py "$@"
