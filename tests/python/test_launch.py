"""tools/launch.py: W workers as the ranks of one MPI job, their environment, the exit status,
and how the mpirun command line is built."""
import importlib.util
import os
import shutil
import subprocess
import sys

import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
LAUNCH = os.path.join(REPO, "tools", "launch.py")

needs_mpirun = pytest.mark.skipif(shutil.which("mpirun") is None and
                                  shutil.which("mpiexec") is None,
                                  reason="no mpirun on this machine")


def _load_launch():
    spec = importlib.util.spec_from_file_location("mx_launch_tool", LAUNCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _env(**extra):
    env = {k: v for k, v in os.environ.items()
           if not (k.startswith("DMLC_") or k.startswith("OMPI_COMM_WORLD"))}
    env["PYTHONPATH"] = os.path.join(REPO, "python")
    env.update(extra)
    return env


def _launch(*args, env=None, timeout=180):
    return subprocess.run([sys.executable, LAUNCH] + list(args), capture_output=True, text=True,
                          timeout=timeout, env=env or _env(), cwd=REPO)


_RANK = "import os; r = os.environ.get('OMPI_COMM_WORLD_RANK', os.environ.get('PMI_RANK'))"
# Each rank writes what it saw to its own file: the ranks' stdout can interleave in mpirun's.
def _report(expr):
    """Code that writes the value of `expr` to OUT_DIR/rank<r>."""
    return _RANK + "; open(os.path.join(os.environ['OUT_DIR'], 'rank' + r), 'w').write(" + \
        expr + ")"


def _reports(out_dir):
    return {name: open(os.path.join(out_dir, name)).read() for name in sorted(os.listdir(out_dir))}


# ---- running jobs ----------------------------------------------------------------------------
@needs_mpirun
def test_local_launcher_starts_every_rank_with_the_dmlc_environment(tmp_path):
    code = _report("'workers=%s role=%s foo=%s' % (os.environ['DMLC_NUM_WORKER'], "
                   "os.environ['DMLC_ROLE'], os.environ.get('FOO'))")
    res = _launch("-n", "2", "--launcher", "local", "--env-worker", "FOO:bar",
                  sys.executable, "-c", code, env=_env(OUT_DIR=str(tmp_path)))
    assert res.returncode == 0, res.stderr
    assert _reports(str(tmp_path)) == {"rank0": "workers=2 role=worker foo=bar",
                                       "rank1": "workers=2 role=worker foo=bar"}


@needs_mpirun
def test_exit_status_of_the_job_is_returned():
    code = _RANK + "; import sys; sys.exit(3 if r == '1' else 0)"
    res = _launch("-n", "2", "--launcher", "local", sys.executable, "-c", code)
    assert res.returncode == 3, (res.stdout, res.stderr)
    ok = _launch("-n", "2", "--launcher", "mpi", sys.executable, "-c", "pass")
    assert ok.returncode == 0, ok.stderr


@needs_mpirun
def test_servers_option_is_accepted_and_ignored(tmp_path):
    res = _launch("-n", "3", "-s", "2", "--launcher", "local", sys.executable, "-c",
                  _report("'ok'"), env=_env(OUT_DIR=str(tmp_path)))
    assert res.returncode == 0, res.stderr
    assert _reports(str(tmp_path)) == {"rank0": "ok", "rank1": "ok", "rank2": "ok"}
    assert "-s 2 ignored" in res.stderr


@needs_mpirun
def test_one_string_command_runs_through_the_shell(tmp_path):
    res = _launch("-n", "2", "--launcher", "local",
                  'echo hello-$DMLC_ROLE > "$OUT_DIR/rank$OMPI_COMM_WORLD_RANK$PMI_RANK"; exit 5',
                  env=_env(OUT_DIR=str(tmp_path)))
    assert res.returncode == 5
    assert _reports(str(tmp_path)) == {"rank0": "hello-worker\n", "rank1": "hello-worker\n"}


@needs_mpirun
def test_env_passes_this_machines_value():
    code = "import os; print('val=' + os.environ.get('MY_LAUNCH_VAR', 'unset'))"
    res = _launch("-n", "1", "--launcher", "local", "--env", "MY_LAUNCH_VAR",
                  sys.executable, "-c", code, env=_env(MY_LAUNCH_VAR="xyz"))
    assert res.returncode == 0, res.stderr
    assert "val=xyz" in res.stdout


def test_ssh_without_hostfile_is_refused():
    res = _launch("-n", "2", sys.executable, "-c", "pass")
    assert res.returncode == 2
    assert "needs a hostfile" in res.stderr


# ---- the command line ------------------------------------------------------------------------
def test_unknown_options_join_the_command():
    launch = _load_launch()
    args = launch.parse_args(["-n", "2", "--launcher", "local", "python", "-u", "train.py",
                              "--epochs", "3"])
    assert args.num_workers == 2
    assert args.command == ["python", "-u", "train.py", "--epochs", "3"]


def test_openmpi_command_as_root_with_hostfile(tmp_path):
    launch = _load_launch()
    hostfile = tmp_path / "hosts"
    hostfile.write_text("node1\nnode2\n")
    args = launch.parse_args(["-n", "4", "-H", str(hostfile), "--launcher", "mpi",
                              "--env-worker", "OMP_NUM_THREADS:2", "--env", "A:1",
                              "python", "train.py"])
    pairs = launch.worker_env(args, environ={})
    cmd, extra = launch.build_command(args, "/usr/bin/mpirun", "openmpi", True, pairs,
                                      str(hostfile))
    assert cmd[:3] == ["/usr/bin/mpirun", "-np", "4"]
    assert "--oversubscribe" in cmd
    assert cmd[cmd.index("--hostfile") + 1] == str(hostfile)
    exported = [cmd[i + 1] for i, c in enumerate(cmd) if c == "-x"]
    assert exported == ["DMLC_ROLE=worker", "DMLC_NUM_WORKER=4", "A=1", "OMP_NUM_THREADS=2"]
    assert cmd[-2:] == ["python", "train.py"]
    assert extra == {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}


def test_openmpi_command_not_root_local_and_ssh(tmp_path):
    launch = _load_launch()
    args = launch.parse_args(["-n", "2", "--launcher", "local", "python", "x.py"])
    cmd, extra = launch.build_command(args, "mpirun", "openmpi", False,
                                      launch.worker_env(args, environ={}))
    assert extra == {} and "--hostfile" not in cmd and "--oversubscribe" in cmd
    hostfile = tmp_path / "hosts"
    hostfile.write_text("node1:22\nnode2:22\n")
    args = launch.parse_args(["-n", "2", "-H", str(hostfile), "--launcher", "ssh", "python",
                              "x.py"])
    path, temporary = launch._hosts_only(str(hostfile))
    try:
        with open(path) as f:
            assert f.read().split() == ["node1", "node2"]
        cmd, _ = launch.build_command(args, "mpirun", "openmpi", False,
                                      launch.worker_env(args, environ={}), path)
        assert cmd[cmd.index("--hostfile") + 1] == path and "--oversubscribe" not in cmd
        assert cmd[cmd.index("--map-by") + 1] == "node"
    finally:
        if temporary:
            os.unlink(temporary)


def test_hydra_command_uses_genv():
    launch = _load_launch()
    args = launch.parse_args(["-n", "2", "--launcher", "mpi", "--p3", "python", "x.py"])
    cmd, extra = launch.build_command(args, "mpiexec", "hydra", True,
                                      launch.worker_env(args, environ={}))
    assert extra == {}
    assert ["-genv", "DMLC_NUM_WORKER", "2"] == cmd[cmd.index("DMLC_NUM_WORKER") - 1:
                                                    cmd.index("DMLC_NUM_WORKER") + 2]
    assert "DMLC_PS_VAN_TYPE" in cmd and "-x" not in cmd


# ---- a distributed Trainer -------------------------------------------------------------------
_LIB = os.environ.get("MXNET_LIBRARY_PATH", os.path.join(REPO, "build", "libmxnet.so"))

_GLUON_STEP = r"""
import mxnet as mx
from mxnet import gluon, autograd
update_on_kvstore = {update_on_kvstore}
x = gluon.Parameter('x', shape=(4,))
x.initialize(ctx=[mx.cpu(0), mx.cpu(1)], init='ones')
trainer = gluon.Trainer([x], 'sgd', {{'learning_rate': 1.0}}, kvstore='dist_sync',
                        update_on_kvstore=update_on_kvstore)
trainer._init_kvstore()
rank, n = trainer._kvstore.rank, trainer._kvstore.num_workers
with autograd.record():
    for w in x.list_data():
        y = w * (rank + 1)
        y.backward()
trainer.step(1)
import os
line = 'RESULT %s %s %s %s %s' % (rank, n, trainer._update_on_kvstore,
                                 x.data(mx.cpu(0)).asnumpy().tolist(),
                                 x.data(mx.cpu(1)).asnumpy().tolist())
open(os.path.join(os.environ['OUT_DIR'], 'rank%d' % rank), 'w').write(line)
"""


@needs_mpirun
@pytest.mark.skipif(not os.path.isfile(os.path.join(os.path.dirname(_LIB), "libmxnet_mpi.so")),
                    reason="the MPI kvstore plugin (libmxnet_mpi.so) is not built")
@pytest.mark.parametrize("update_on_kvstore", [None, False])
def test_dist_sync_trainer_step_over_two_workers(update_on_kvstore, tmp_path):
    code = _GLUON_STEP.format(update_on_kvstore=update_on_kvstore)
    res = _launch("-n", "2", "--launcher", "local", sys.executable, "-c", code,
                  env=_env(MXNET_LIBRARY_PATH=_LIB, OUT_DIR=str(tmp_path)), timeout=240)
    assert res.returncode == 0, res.stdout + res.stderr
    lines = list(_reports(str(tmp_path)).values())
    assert len(lines) == 2, res.stdout
    # two devices per worker, gradient rank+1 on each: 2 * 1 + 2 * 2 = 6 summed over both
    # workers; sgd(lr 1) from ones gives 1 - 6 everywhere
    expected = [1.0 - 6.0] * 4
    updated = update_on_kvstore is None  # dist_sync can run the optimizer: True by default
    for rank, line in enumerate(lines):
        assert line == "RESULT %d 2 %s %s %s" % (rank, updated, expected, expected), line
