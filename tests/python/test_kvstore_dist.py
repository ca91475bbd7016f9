"""The distributed kvstore under mpirun: 1.x's dist_sync formulas for 2, 4 and 7 ranks
(oversubscribed on this machine), Gluon Trainer steps, and the failure reports (mismatched
key, silent rank, killed rank)."""
import os
import shutil
import subprocess
import sys
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "dist", "dist_sync_kvstore.py")
ROOT = os.path.dirname(os.path.dirname(HERE))

pytestmark = pytest.mark.skipif(shutil.which("mpirun") is None, reason="needs OpenMPI's mpirun")


def mpirun(n, mode, env_extra=None, timeout=240):
    env = dict(os.environ)
    env.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                "OMPI_MCA_btl_vader_single_copy_mechanism": "none",
                "PYTHONPATH": os.path.join(ROOT, "python") + os.pathsep + env.get("PYTHONPATH", "")})
    env.update(env_extra or {})
    cmd = ["mpirun", "-np", str(n), "--oversubscribe", "--bind-to", "none", sys.executable, SCRIPT, mode]
    start = time.time()
    proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
    return proc.returncode, proc.stdout.decode(errors="replace"), time.time() - start


@pytest.mark.parametrize("n", [2, 4, 7])
def test_dist_sync_formulas(n):
    rc, out, _ = mpirun(n, "default")
    assert rc == 0, out
    assert out.count("OK default") == n, out


@pytest.mark.parametrize("n", [2, 3])
def test_dist_pushpull_broadcast_deterministic(n):
    rc, out, _ = mpirun(n, "pushpull")
    assert rc == 0, out
    assert out.count("OK pushpull") == n, out


@pytest.mark.parametrize("n", [2, 4])
def test_dist_gradient_compression(n):
    rc, out, _ = mpirun(n, "compressed")
    assert rc == 0, out
    assert out.count("OK compressed") == n, out


@pytest.mark.parametrize("n", [2, 3])
def test_dist_gluon_trainer_step(n):
    rc, out, _ = mpirun(n, "gluon")
    assert rc == 0, out
    assert out.count("OK gluon") == n, out


@pytest.mark.parametrize("n", [2, 3])
def test_dist_optimizer_states_agree_and_reload(n, tmp_path):
    rc, out, _ = mpirun(n, "states", {"KV_STATES_DIR": str(tmp_path)})
    assert rc == 0, out
    assert out.count("OK states") == n, out


def test_dist_mismatched_key_names_rank():
    rc, out, _ = mpirun(2, "mismatch", {"MXNET_KVSTORE_TIMEOUT": "20"})
    assert out.count("NAMED") == 2, out


def test_dist_silent_rank_named_within_timeout():
    rc, out, took = mpirun(3, "silent", {"MXNET_KVSTORE_TIMEOUT": "3"})
    assert out.count("NAMED") == 2, out
    assert took < 60, took


def test_dist_killed_rank_named_quickly():
    rc, out, took = mpirun(3, "killed", {"MXNET_KVSTORE_TIMEOUT": "30"})
    assert out.count("NAMED") == 2, out
    assert took < 60, took
