"""example/module/fashion_mnist_module.py (LeNet through mx.sym + mx.mod) on a few samples."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from conftest import REPO, _clean_env

DATA = "/usr/share/datasets/fashion-mnist"
SCRIPT = os.path.join(REPO, "example", "module", "fashion_mnist_module.py")


def test_module_example_trains_and_reloads_checkpoint(tmp_path):
    if not os.path.isfile(os.path.join(DATA, "t10k-images-idx3-ubyte.gz")):
        pytest.skip("dataset-fashion-mnist is not installed")
    out_dir = str(tmp_path / "out")
    env = _clean_env({"MXNET_HOME": str(tmp_path / "home")})
    proc = subprocess.run([sys.executable, SCRIPT, "--epochs", "1", "--limit", "300",
                           "--batch-size", "32", "--log-every", "3", "--out-dir", out_dir],
                          env=env, capture_output=True, text=True, timeout=600, cwd=str(tmp_path))
    text = proc.stdout + proc.stderr
    assert proc.returncode == 0, text
    assert re.search(r"Epoch\[0\] Batch \[\d+-\d+\]\tSpeed: [\d.]+ samples/sec\taccuracy=", text)
    assert re.search(r"Epoch\[0\] Train-accuracy=[\d.]+", text)
    assert re.search(r"Epoch\[0\] Validation-accuracy=[\d.]+", text)
    assert "same as trained" in text
    final = float(proc.stdout.strip().splitlines()[-1].split()[-1])
    assert final > 0.2  # above chance (0.1) after 300 samples

    prefix = os.path.join(out_dir, "lenet")
    assert os.path.isfile(prefix + "-symbol.json") and os.path.isfile(prefix + "-0001.params")

    # the checkpoint reloads here too, and predicts like the script said
    import mxnet as mx
    sym, arg, aux = mx.model.load_checkpoint(prefix, 1)
    assert sorted(arg) == ["conv1_bias", "conv1_weight", "conv2_bias", "conv2_weight",
                           "fc1_bias", "fc1_weight", "fc2_bias", "fc2_weight"]
    mod = mx.mod.Module.load(prefix, 1)
    mod.bind(data_shapes=[("data", (4, 1, 28, 28))], for_training=False)
    x = np.random.RandomState(0).rand(4, 1, 28, 28).astype(np.float32)
    out = mod.predict(mx.nd.array(x)).asnumpy()
    assert out.shape == (4, 10)
    np.testing.assert_allclose(out.sum(axis=1), np.ones(4), rtol=1e-5)


def test_module_example_reports_missing_data(tmp_path):
    env = _clean_env({"MXNET_HOME": str(tmp_path / "home")})
    proc = subprocess.run([sys.executable, SCRIPT, "--epochs", "1", "--limit", "10", "--batch-size", "5",
                           "--data-dir", str(tmp_path / "nothing"), "--out-dir",
                           str(tmp_path / "o")],
                          env=env, capture_output=True, text=True, timeout=300, cwd=str(tmp_path))
    if os.path.isfile(os.path.join(DATA, "t10k-images-idx3-ubyte.gz")):
        # the system copy is found as a fallback
        assert proc.returncode == 0, proc.stdout + proc.stderr
    else:
        assert proc.returncode == 1 and "fashion" in proc.stderr.lower()
