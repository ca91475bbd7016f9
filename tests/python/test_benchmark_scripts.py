"""Smoke tests of benchmark/python: each script in its shortest form on our runtime alone.

They check what the scripts print and write, never how fast anything ran. A peer that is
not installed must be reported as missing, so one test points the peers elsewhere.
"""
import json
import os
import subprocess
import sys

import pytest

from conftest import REPO, _clean_env

BENCH = os.path.join(REPO, "benchmark", "python")
DATA = "/usr/share/datasets/fashion-mnist"


def run(script, args, **env):
    return subprocess.run([sys.executable, os.path.join(BENCH, script)] + args,
                          env=_clean_env(env), capture_output=True, text=True, timeout=600,
                          cwd=REPO)


def test_benchmark_score_quick_on_ours_reports_peers_missing(tmp_path):
    r = run("benchmark_score.py",
            ["--quick", "--models", "resnet50_v1", "--batch-sizes", "1",
             "--frameworks", "ours,mxnet191", "--warmup", "0", "--window", "0",
             "--windows", "1", "--gemm-n", "128", "--out-dir", str(tmp_path)],
            MXNET_BENCH_PEERS=str(tmp_path / "no-peers"))
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "threads: " in out
    assert "mxnet191    MISSING" in out and "setup_peers.sh" in out
    assert "### resnet50_v1 (224x224, images/s" in out
    assert "| batch | ours | MXNet 1.9.1 |" in out
    assert "### GEMM peak" in out and "mx_dot" in out
    assert "### ResNet-50: achieved GFLOP/s" in out
    with open(tmp_path / "benchmark_score.json") as f:
        data = json.load(f)
    row = data["table"]["resnet50_v1"]["1"]
    assert row["ours"] > 0 and row["mxnet191"] is None
    assert data["frameworks"]["mxnet191"]["missing"]
    assert data["gemm_peak_gflops"] > 0
    assert 7e9 < 2 * data["macs_per_image"]["resnet50_v1"] < 8.5e9


def test_train_lenet_limit_on_ours(tmp_path):
    if not os.path.isdir(DATA):
        pytest.skip("dataset-fashion-mnist is not installed")
    r = run("train_lenet.py", ["--limit", "3", "--resnet-steps", "1", "--resnet-batch", "2",
                               "--resnet-warmup", "1", "--frameworks", "ours",
                               "--out-dir", str(tmp_path)])
    assert r.returncode == 0, r.stderr
    assert "### LeNet on Fashion-MNIST, batch 64, 3 batches" in r.stdout
    assert "| ours | out of the box |" in r.stdout
    assert "### ResNet-50 training, batch 2 (images/s, median of 1 steps after 1 warm-up" in r.stdout
    with open(tmp_path / "train_lenet.json") as f:
        data = json.load(f)
    tasks = {rec.get("task"): rec for rec in data["frameworks"]["ours"]["records"]}
    assert tasks["lenet"]["batches"] == 3 and 0 <= tasks["lenet"]["test_accuracy"] <= 1
    assert tasks["resnet50"]["images_per_s"] > 0


def test_train_lenet_rounds_report_medians(tmp_path):
    if not os.path.isdir(DATA):
        pytest.skip("dataset-fashion-mnist is not installed")
    r = run("train_lenet.py", ["--limit", "2", "--resnet-steps", "1", "--resnet-batch", "2",
                               "--resnet-warmup", "1", "--frameworks", "ours", "--rounds", "3",
                               "--out-dir", str(tmp_path)])
    assert r.returncode == 0, r.stderr
    assert "### LeNet on Fashion-MNIST, batch 64, 2 batches; medians of 3 rounds" in r.stdout
    assert r.stdout.count("ours      running with out of the box (round") == 3
    with open(tmp_path / "train_lenet.json") as f:
        data = json.load(f)
    records = data["frameworks"]["ours"]["records"]
    lenet = sorted(rec["seconds"] for rec in records if rec.get("task") == "lenet")
    resnet = sorted(rec["images_per_s"] for rec in records if rec.get("task") == "resnet50")
    assert len(lenet) == 3 and len(resnet) == 3
    assert sorted(rec["round"] for rec in records if rec.get("task") == "lenet") == [0, 1, 2]
    row = next(line for line in r.stdout.splitlines() if line.startswith("| ours |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert float(cells[2]) == pytest.approx(lenet[1], abs=0.006)  # the median, as printed
    assert cells[7] == " / ".join("%.2f" % rec["seconds"] for rec in records
                                  if rec.get("task") == "lenet")
