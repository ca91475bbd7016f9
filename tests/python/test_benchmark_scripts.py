"""Smoke tests of benchmark/python: each script in its shortest form on our runtime alone.

They check what the scripts print and write, never how fast anything ran. A peer that is
not installed must be reported as missing, so one test points the peers elsewhere.
"""
import json
import os
import statistics
import subprocess
import sys

import numpy as np
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
    assert "resnet50_v1: peak RSS, MB, per framework process" in out
    assert "(peak RSS: the high-water mark of each framework's worker process" in out
    assert "### GEMM peak" in out and "mx_dot" in out
    assert "### ResNet-50: achieved GFLOP/s" in out
    with open(tmp_path / "benchmark_score.json") as f:
        data = json.load(f)
    row = data["table"]["resnet50_v1"]["1"]
    assert row["ours"] > 0 and row["mxnet191"] is None
    assert row["peak_rss_mb"]["ours"] > 0 and row["peak_rss_mb"]["mxnet191"] is None
    assert data["frameworks"]["mxnet191"]["missing"]
    assert data["gemm_peak_gflops"] > 0
    assert 7e9 < 2 * data["macs_per_image"]["resnet50_v1"] < 8.5e9


def load_scorer():
    sys.path.insert(0, BENCH)
    try:
        import benchmark_score
    finally:
        sys.path.remove(BENCH)
    return benchmark_score


def test_benchmark_score_lockstep_records_every_window(tmp_path):
    r = run("benchmark_score.py",
            ["--models", "alexnet", "--batch-sizes", "1,2", "--frameworks", "ours",
             "--warmup", "0", "--window", "0", "--windows", "3", "--settle", "0",
             "--gemm-n", "128", "--out-dir", str(tmp_path)])
    assert r.returncode == 0, r.stderr
    assert "lockstep: the frameworks take turns window by window" in r.stdout
    assert "alexnet batch 2: 3 windows in turn over ours hybridized static" in r.stdout
    with open(tmp_path / "benchmark_score.json") as f:
        data = json.load(f)
    assert data["mode"] == "lockstep"
    records = [rec for rec in data["frameworks"]["ours"]["records"] if "images_per_s" in rec]
    assert sorted(rec["batch"] for rec in records) == [1, 2]
    for rec in records:
        assert rec["lockstep"] and len(rec["rates"]) == 3 and rec["batches_per_window"] == 1
        assert rec["images_per_s"] == sorted(rec["rates"])[1]
        assert rec["peak_rss_mb"] > 0
    # The peak-RSS table: a row per batch size, its cells under the header's columns; the
    # mark only grows between the batch sizes of one network.
    lines = r.stdout.splitlines()
    head = lines.index("alexnet: peak RSS, MB, per framework process (see the note below)")
    assert lines[head + 1] == ("| batch | ours | MXNet 1.9.1 | torch (eager + TorchScript) "
                               "| onnxruntime | ours/1.9.1 |")
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in lines[head + 3:head + 5]]
    assert [row[0] for row in rows] == ["1", "2"] and all(len(row) == 6 for row in rows)
    assert all(row[2:] == ["-", "-", "-", "-"] for row in rows)
    assert float(rows[0][1]) <= float(rows[1][1])
    load = next(rec for rec in data["frameworks"]["ours"]["records"] if "rss_mark_reset" in rec)
    assert load["model"] == "alexnet" and load["rss_at_load_mb"] > 0


def test_benchmark_score_isolated_mode(tmp_path):
    r = run("benchmark_score.py",
            ["--isolated", "--models", "alexnet", "--batch-sizes", "2", "--frameworks", "ours",
             "--warmup", "0", "--window", "0", "--windows", "2", "--gemm-n", "128",
             "--out-dir", str(tmp_path)])
    assert r.returncode == 0, r.stderr
    assert "isolated: a process per framework and model" in r.stdout
    with open(tmp_path / "benchmark_score.json") as f:
        data = json.load(f)
    assert data["mode"] == "isolated" and data["table"]["alexnet"]["2"]["ours"] > 0
    rec = next(rec for rec in data["frameworks"]["ours"]["records"] if "images_per_s" in rec)
    assert "lockstep" not in rec and len(rec["rates"]) == 2
    assert rec["peak_rss_mb"] > 0
    assert data["table"]["alexnet"]["2"]["peak_rss_mb"]["ours"] == rec["peak_rss_mb"]
    assert "in --isolated, each network has a fresh process" in r.stdout


def test_benchmark_score_rejects_an_unknown_framework(tmp_path):
    r = run("benchmark_score.py", ["--frameworks", "ours,tensorflow", "--out-dir",
                                   str(tmp_path)])
    assert r.returncode == 2 and "unknown framework tensorflow" in r.stderr


def test_paired_ratio_is_the_median_of_same_turn_ratios():
    bs = load_scorer()
    ours = [10.0, 6.0, 9.0, 12.0]
    peer = [8.0, 5.5, 10.0, 8.0]   # the host slowed both in turn 2
    peer2 = [4.0, 4.0, 4.0]        # a second round, fewer windows
    ours2 = [5.0, 4.4, 6.0]

    def rec(fw_rates, rnd, **kw):
        return dict(model="m", batch=1, round=rnd, images_per_s=statistics.median(fw_rates),
                    rates=fw_rates, **kw)
    results = {"frameworks": {
        "ours": {"records": [rec(ours, 0, lockstep=True), rec(ours2, 1, lockstep=True)]},
        "mxnet191": {"records": [rec(peer, 0, lockstep=True), rec(peer2, 1, lockstep=True)]},
        "torch": {"records": [rec(peer, 0, variant="eager")]}}}
    pairs = np.array(ours + ours2) / np.array(peer + peer2)
    q = bs.paired_ratio(results, "m", 1, ("ours", None), ("mxnet191", None))
    assert q["pairs"] == 7
    assert q["median"] == pytest.approx(np.median(pairs))
    assert (q["min"], q["max"]) == (pytest.approx(pairs.min()), pytest.approx(pairs.max()))
    # Without lockstep records, the ratio of the medians over rounds.
    q = bs.paired_ratio(results, "m", 1, ("ours", None), ("torch", "eager"))
    assert q["pairs"] == 0
    assert q["median"] == pytest.approx(np.median([np.median(ours), np.median(ours2)]) /
                                        np.median(peer))
    assert bs.paired_ratio(results, "m", 1, ("ours", None), ("onnxruntime", None)) is None
    # A window that failed (None) drops only its own pair.
    results["frameworks"]["mxnet191"]["records"][0]["rates"] = [8.0, None, 10.0, 8.0]
    q = bs.paired_ratio(results, "m", 1, ("ours", None), ("mxnet191", None))
    assert q["pairs"] == 6


def test_lockstep_worker_protocol_and_errors():
    bs = load_scorer()
    spec = {"models": [], "batch_sizes": [], "threads": 1, "warmup_s": 0, "window_s": 0,
            "windows": 1, "gemm": False}
    env = _clean_env({"OMP_NUM_THREADS": "1"})
    worker = bs.LockstepWorker(sys.executable, env, "ours", spec, timeout=300)
    try:
        assert "version" in worker.request()[0]["info"]
        bad = worker.request({"cmd": "load", "model": "lenet9"})
        assert bad[0]["model"] == "lenet9" and "KeyError" in bad[0]["error"]
        assert "unknown command 'fly'" in worker.request({"cmd": "fly"})[0]["error"]
        loaded = worker.request({"cmd": "load", "model": "alexnet"})
        assert "macs_per_image" in loaded[0]
        assert loaded[1]["model"] == "alexnet" and "rss_mark_reset" in loaded[1]
        lane = worker.request({"cmd": "prepare", "batch": 1})
        assert lane == [{"lane": "hybridized static", "batches_per_window": 1}]
        rate = worker.request({"cmd": "window", "variant": "hybridized static"})
        assert rate[0]["images_per_s"] > 0 and rate[0]["peak_rss_mb"] > 0
        assert "KeyError" in worker.request({"cmd": "window", "variant": "eager"})[0]["error"]
        assert worker.request({"cmd": "unload"}) == []
        worker.proc.kill()
        worker.proc.wait()
        with pytest.raises(bs.WorkerError, match="cannot reach the worker"):
            worker.request({"cmd": "release"})
    finally:
        worker.close()


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


def test_train_executor_quick_on_ours(tmp_path):
    r = run("train_executor.py", ["--quick", "--classes", "10", "--only", "ours executor,ours executor + mirror"])
    assert r.returncode == 0, r.stderr
    assert "| ours executor | " in r.stdout and "| ours executor + mirror | " in r.stdout
    assert "Mirroring: planned memory" in r.stdout


def test_load_bench_on_ours_quiet(tmp_path):
    r = run("load_bench.py", ["--repeats", "2", "--loads", "0,1", "--frameworks", "ours"])
    assert r.returncode == 0, r.stderr
    for case in ("LeNet training step (ms)", "ResNet-18 b1 forward (ms)", "LeakyReLU (8,16,16,16) (us)"):
        assert "| %s | 0 |" % case in r.stdout and "| %s | 1 |" % case in r.stdout


def table_rows(stdout, header):
    """The cells of the markdown table under `header` (a line of stdout), a list a row."""
    lines = stdout.splitlines()
    start = lines.index(header)
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip("|").split("|")])
    return rows


def test_train_hybrid_quick_on_ours_reports_peer_missing(tmp_path):
    r = run("train_hybrid.py", ["--quick", "--classes", "10", "--steps", "1",
                                "--only", "ours,ours-mirror,ours-imperative,mxnet191"],
            MXNET_BENCH_PEERS=str(tmp_path / "no-peers"))
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout
    assert "resnet18_v1 training, batch 4, 64x64, 10 classes" in out
    assert "mxnet191  MISSING" in out and "setup_peers.sh" in out
    assert "### resnet18_v1 training, batch 4, 64x64 (img/s: median of 1 steps" in out
    rows = table_rows(out, "| configuration | img/s | vs MXNet 1.9.1 (same round) "
                           "| peak RSS MB | RSS vs MXNet 1.9.1 |")
    assert [row[0] for row in rows] == [
        "ours hybridized (static_alloc, static_shape)",
        "ours hybridized + MXNET_BACKWARD_DO_MIRROR=1", "ours unhybridized (imperative)",
        "MXNet 1.9.1 hybridized (static_alloc, static_shape)"]
    assert all(len(row) == 5 for row in rows)
    for row in rows[:3]:
        assert float(row[1]) > 0 and float(row[3]) > 0 and row[2] == row[4] == "-"
    assert rows[3][1].startswith("MISSING: ") and "setup_peers.sh" in rows[3][1]


def test_hybrid_overhead_quick_on_ours_reports_peers_missing(tmp_path):
    r = run("hybrid_overhead.py", ["--quick", "--layers", "5", "--warmup", "0.05",
                                   "--window", "0.02", "--windows", "2", "--only",
                                   "ours-hybrid,ours-static,ours-imperative,mxnet191-static"],
            MXNET_BENCH_PEERS=str(tmp_path / "no-peers"))
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout
    assert "mxnet191  MISSING" in out
    assert "### Overhead per forward: 5 x [Dense(8), relu], batch 1" in out
    rows = table_rows(out, "| configuration | us / forward | us / layer | windows (min-max us) "
                           "| time vs MXNet 1.9.1 static (same round) |")
    assert [row[0] for row in rows] == [
        "ours hybridized", "ours hybridized (static_alloc, static_shape)",
        "ours unhybridized (imperative)",
        "MXNet 1.9.1 hybridized (static_alloc, static_shape)"]
    assert all(len(row) == 5 for row in rows)
    for row in rows[:3]:
        assert float(row[1]) > 0 and float(row[2]) == pytest.approx(float(row[1]) / 5, abs=0.03)
        assert row[4] == "-"
    assert rows[3][1].startswith("MISSING: ")


def test_jpeg_decode_speed_on_ours(tmp_path):
    out = tmp_path / "jpeg.json"
    r = run("jpeg_decode_speed.py", ["--images", "4", "--rounds", "1", "--skip-peer", "--json", str(out)])
    assert r.returncode == 0, r.stderr
    assert "4 JPEGs" in r.stdout and "MXNet 1.9.1 mx.image.imdecode" in r.stdout
    data = json.loads(out.read_text())
    assert data["ours (TurboJPEG)"]["images_per_s"] > 0
    assert data["MXNet 1.9.1 mx.image.imdecode"] is None


def test_image_pipeline_on_ours(tmp_path):
    r = run("image_pipeline.py", ["--images", "70", "--configs", "ours", "--threads", "1",
                                  "--rounds", "1", "--epochs", "1",
                                  "--workdir", str(tmp_path / "work")])
    assert r.returncode == 0, r.stderr
    assert "70 JPEGs -> 3x224x224 batches of 64" in r.stdout
    row = [line.split() for line in r.stdout.splitlines() if line.startswith("ours ")][-1]
    assert row[1] == "1" and float(row[2]) > 0


def test_kvstore_allreduce_quick_on_ours_and_mpi(tmp_path):
    import shutil
    if shutil.which("mpirun") is None or shutil.which("mpicc") is None:
        pytest.skip("needs Open MPI's mpirun and mpicc")
    out = tmp_path / "kv.json"
    r = run("kvstore_allreduce.py", ["--quick", "--frameworks", "ours,mpi", "--keys", "8",
                                     "--json", str(out)])
    assert r.returncode == 0, r.stdout + r.stderr
    head = ("| size | ours s/op | ours GB/s | MPI s/op | MPI GB/s | ours/MPI |")
    assert "### Allreduce, float32 sum, 2 ranks (seconds per op: median of 2 repeats" in r.stdout
    rows = table_rows(r.stdout, head)
    assert [row[0] for row in rows] == ["16 KB", "1 MB"]
    for row in rows:
        # the ratio is printed to 2 decimals: on a loaded machine a small size can print 0.00
        assert len(row) == 6 and float(row[2]) > 0 and float(row[4]) > 0 and float(row[5]) >= 0
    assert "ours/MPI at 1 MB and above (goal >= 0.9): min " in r.stdout
    assert "MPI: per size the faster of Open MPI's default (default: busy" in r.stdout
    assert "### Fusion: 8 keys x 4 KB, push every key then pull every key, 2 ranks" in r.stdout
    rows = table_rows(r.stdout, "| configuration | s/step | GB/s | ours fused / it (speed) |")
    assert [row[0] for row in rows] == [
        "ours, MXNET_KVSTORE_FUSION_BYTES default (fused)",
        "ours, MXNET_KVSTORE_FUSION_BYTES=0 (a collective per key)",
        "MPI, 8 x MPI_Allreduce(4 KB)",
        "MPI, 1 x MPI_Allreduce(32 KB) (one buffer of the same bytes)"]
    assert rows[0][3] == "1.00" and all(float(row[2]) > 0 for row in rows)
    data = json.loads(out.read_text())
    assert data["errors"] == [] and data["summary"]["2"]["sizes"]["1048576"]["ours"] > 0


def test_kvstore_lenet_limit_on_ours(tmp_path):
    import shutil
    if not os.path.isdir(DATA):
        pytest.skip("dataset-fashion-mnist is not installed")
    if shutil.which("mpirun") is None:
        pytest.skip("needs Open MPI's mpirun")
    out = tmp_path / "lenet.json"
    r = run("kvstore_lenet.py", ["--limit", "3", "--warmup", "1", "--json", str(out)])
    assert r.returncode == 0, r.stdout + r.stderr
    rows = table_rows(r.stdout, "| configuration | threads per process | epoch s | samples/s "
                                "| vs 1 process (speed) | test accuracy |")
    assert [row[0] for row in rows] == ["1 process", "1 process, 1 thread", "2 ranks",
                                        "2 ranks, default threads", "2 ranks, no allreduce"]
    assert rows[0][4] == "1.00" and all(float(row[2]) > 0 for row in rows)
    assert "2 ranks vs 1 process: " in r.stdout and "2-rank scaling: " in r.stdout
    assert "allreduce share of the 2-rank epoch: " in r.stdout
    data = json.loads(out.read_text())
    assert data["errors"] == [] and data["summary"]["2 ranks"]["seconds"] > 0


@pytest.mark.gpu
def test_gpu_ops_benchmark_prints_bandwidth_and_gemm_rows():
    from gpu_testing import HAS_GPU
    if not HAS_GPU:
        pytest.skip("no CUDA device visible")
    r = run("gpu_ops.py", ["--size-mb", "8", "--gemm", "256", "--repeat", "2"])
    assert r.returncode == 0, r.stderr
    for needle in ("copy (D2D)", "a + b", "sum(a)", "GEMM 256^3", "float32", "float16"):
        assert needle in r.stdout, needle
