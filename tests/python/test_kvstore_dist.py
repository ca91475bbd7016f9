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


# (mode of dist/dist_sync_kvstore.py, ranks): every rank must finish the mode and print OK.
#   default     1.x's dist_sync formulas: int, str and float16 keys, a key above the big-array bound
#   pushpull    sums of this round, in place and into out, broadcast, bit-identical random sums
#   compressed  2-bit residual carries, and random gradients against a numpy model
#   gluon       Trainer steps with update_on_kvstore None, True and False
#   states      optimizer states equal on every rank; rank 0's file reloads into one process
PASSING_MODES = [("default", 2), ("default", 4), ("default", 7), ("pushpull", 2), ("pushpull", 3),
                 ("compressed", 2), ("compressed", 4), ("gluon", 2), ("gluon", 3), ("states", 2),
                 ("states", 3)]


@pytest.mark.parametrize("mode,n", PASSING_MODES)
def test_dist_mode_passes_on_every_rank(mode, n, tmp_path):
    rc, out, _ = mpirun(n, mode, {"KV_STATES_DIR": str(tmp_path)})
    assert rc == 0, out
    assert out.count("OK %s" % mode) == n, out


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
