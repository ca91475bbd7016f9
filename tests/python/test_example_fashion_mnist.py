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


def test_main_job_from_recordio_matches_the_idx_files(tmp_path):
    # PNG records are lossless, so reading the .rec gives the same pixels and labels in the
    # same order: with one seed both runs must print the same losses and accuracies.
    if not os.path.isfile(os.path.join(DATA, "t10k-images-idx3-ubyte.gz")):
        pytest.skip("dataset-fashion-mnist is not installed")
    env = _clean_env({"MXNET_HOME": str(tmp_path / "home")})
    example = os.path.join(REPO, "example", "gluon")
    rec_dir = str(tmp_path / "rec")
    proc = subprocess.run([sys.executable, os.path.join(example, "fashion_mnist_to_rec.py"),
                           "--out-dir", rec_dir, "--limit", "300"],
                          env=env, capture_output=True, text=True, timeout=600, cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert os.path.isfile(os.path.join(rec_dir, "train.idx"))
    results = []
    for extra in ([], ["--rec-dir", rec_dir]):
        proc = subprocess.run([sys.executable, os.path.join(example, "fashion_mnist.py"),
                               "--epochs", "1", "--limit", "300", "--no-progress",
                               "--out-dir", str(tmp_path / "o")] + extra,
                              env=env, capture_output=True, text=True, timeout=600,
                              cwd=str(tmp_path))
        assert proc.returncode == 0, proc.stdout + proc.stderr
        results.append([line.rsplit(", time", 1)[0] for line in proc.stdout.splitlines()
                        if line.startswith(("Epoch", "Final"))])
    assert results[0] and results[0] == results[1]
