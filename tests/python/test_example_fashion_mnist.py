"""The main job (example/gluon/fashion_mnist.py) end to end on a few hundred samples."""
import os
import subprocess
import sys

import pytest

from conftest import REPO, _clean_env

DATA = "/usr/share/datasets/fashion-mnist"


def test_main_job_runs_end_to_end(tmp_path):
    if not os.path.isfile(os.path.join(DATA, "t10k-images-idx3-ubyte.gz")):
        pytest.skip("dataset-fashion-mnist is not installed")
    out_dir = str(tmp_path / "out")
    env = _clean_env({"MXNET_HOME": str(tmp_path / "home")})
    proc = subprocess.run([sys.executable, os.path.join(REPO, "example", "gluon", "fashion_mnist.py"),
                           "--epochs", "2", "--limit", "300", "--out-dir", out_dir, "--hybridize",
                           "--no-progress"],
                          env=env, capture_output=True, text=True, timeout=600, cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Epoch 2:" in proc.stdout and "same as trained" in proc.stdout
    assert os.path.isfile(os.path.join(out_dir, "fashion_mnist_lenet.params"))
    final = float(proc.stdout.strip().splitlines()[-1].split()[-1])
    assert final > 0.3  # far above chance (0.1) after 600 samples


def test_main_job_with_progress_bar_and_workers(tmp_path):
    if not os.path.isfile(os.path.join(DATA, "t10k-images-idx3-ubyte.gz")):
        pytest.skip("dataset-fashion-mnist is not installed")
    env = _clean_env({"MXNET_HOME": str(tmp_path / "home")})
    proc = subprocess.run([sys.executable, os.path.join(REPO, "example", "gluon", "fashion_mnist.py"),
                           "--epochs", "1", "--limit", "200", "--workers", "2",
                           "--out-dir", str(tmp_path / "o")],
                          env=env, capture_output=True, text=True, timeout=600, cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "samples/s" in proc.stdout + proc.stderr  # the progress line or bar
