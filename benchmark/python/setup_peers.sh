#!/usr/bin/env bash
# Installs the peers that benchmark_score.py and train_lenet.py compare against. None of
# them is a dependency of the product: they live in their own virtual environments under
# benchmark/.peers (git-ignored) or come from Debian packages, so the product's .venv and
# requirements.txt never see them.
#
#   benchmark/.peers/mxnet191   Apache MXNet 1.9.1 from PyPI; it uses np.bool and friends,
#                               so it needs numpy<1.24.
#   benchmark/.peers/ort        onnxruntime from PyPI (runs the ONNX files that the PyTorch
#                               peer exports from torchvision's models).
#   Debian python3-torch, python3-torchvision (used with /usr/bin/python3), and
#   python3-matplotlib for the bar chart: installed with apt-get when run as root and
#   SKIP_APT is not set.
#
# Usage: bash benchmark/python/setup_peers.sh        (idempotent; reruns are quick)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
peers="$(cd "$here/.." && pwd)/.peers"
mkdir -p "$peers"
# The interpreter for the venvs: any CPython 3.8-3.11 works for the mxnet 1.9.1 wheel
# (py3-none) together with a numpy<1.24 wheel.
py="${PEER_PYTHON:-python3}"

if [ "$(id -u)" = 0 ] && [ -z "${SKIP_APT:-}" ]; then
  if ! /usr/bin/python3 -c 'import torch, torchvision, matplotlib' 2>/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      python3-torch python3-torchvision python3-matplotlib
  fi
fi

make_venv() {  # name, pip packages...
  local name="$1"; shift
  local dir="$peers/$name"
  if [ ! -x "$dir/bin/python" ]; then
    "$py" -m venv "$dir"
  fi
  "$dir/bin/python" -m pip install -q --disable-pip-version-check "$@"
}

make_venv mxnet191 "mxnet==1.9.1" "numpy<1.24"
make_venv ort onnxruntime "numpy<2"

echo "peers:"
"$peers/mxnet191/bin/python" -c 'import mxnet; print("  mxnet", mxnet.__version__)'
"$peers/ort/bin/python" -c 'import onnxruntime; print("  onnxruntime", onnxruntime.__version__)'
/usr/bin/python3 -c 'import torch; print("  torch", torch.__version__)' ||
  echo "  torch: missing (apt-get install python3-torch python3-torchvision)"
