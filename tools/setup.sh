#!/usr/bin/env bash
# One-time set-up on a fresh Debian/Ubuntu machine: system packages, the Python venv, and
# a Release build (assertions on) in build/. Safe to run again: every step is incremental.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

packages=(build-essential cmake ccache git pkg-config libdnnl-dev ocl-icd-opencl-dev libopenblas-dev libopenblas0-openmp
          libdmlc-dev libopencv-core-dev libopencv-imgproc-dev libturbojpeg0-dev libpng-dev
          libgtest-dev libgmock-dev libbenchmark-dev libomp-dev libopenmpi-dev openmpi-bin python3 python3-venv python3-dev python3-numpy
          dataset-fashion-mnist)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "== installing: ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ ! -x .venv/bin/python ]; then
  echo "== creating .venv"
  python3 -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -r requirements.txt

echo "== building (build/)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DPython3_EXECUTABLE="$PWD/.venv/bin/python" ${MXNET_CMAKE_ARGS:-} > build.configure.log 2>&1 \
  || { cat build.configure.log; exit 1; }
cmake --build build -j"$(nproc)"
