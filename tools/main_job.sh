#!/usr/bin/env bash
# Sets everything up (tools/setup.sh), then runs the main job: LeNet on Fashion-MNIST with
# Gluon (example/gluon/fashion_mnist.py; extra arguments go to it, e.g. --epochs 1).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
bash tools/setup.sh
PYTHONPATH="$root/python" MXNET_LIBRARY_PATH="$root/build/libmxnet.so" .venv/bin/python example/gluon/fashion_mnist.py "$@"
