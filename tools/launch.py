#!/usr/bin/env python3
"""Starts a distributed training job: W workers that share 'dist_*' kvstores.

    launch.py -n W [-s S] [-H hostfile] [--launcher local|ssh|mpi] [--env-server K:V]...
              [--env-worker K:V]... [--env K[:V]]... command...

This runtime's distributed kvstores run over MPI and need no server or scheduler processes: the
W workers are the ranks of one MPI job, started with mpirun. Every worker gets DMLC_ROLE=worker
and DMLC_NUM_WORKER=W (its rank is the MPI rank, e.g. OMPI_COMM_WORLD_RANK under Open MPI).

Launchers:
  local  all workers on this machine (the hostfile, if any, is not used);
  mpi    mpirun with the hostfile when one is given, else on this machine;
  ssh    mpirun over the hosts listed in the hostfile (required); Open MPI reaches them by ssh,
         and workers are placed on the hosts round-robin.

The exit status is the MPI job's. Options this script does not know are appended to the
command. A command given as one string with spaces (or shell syntax) runs through /bin/sh -c;
several words run as they are, with their quoting kept.
"""
import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile

_SHELL_CHARS = set(" \t\n;&|<>()$`\\\"'*?[]#~=%")


def _note(text):
    sys.stderr.write("launch.py: %s\n" % text)


def make_parser():
    parser = argparse.ArgumentParser(
        description="Launch a distributed job: W workers as the ranks of one MPI job (this "
                    "runtime's distributed kvstores need no servers).")
    parser.add_argument("-n", "--num-workers", required=True, type=int,
                        help="number of worker processes (MPI ranks)")
    parser.add_argument("-s", "--num-servers", type=int,
                        help="accepted for compatibility and ignored: no server processes are "
                             "needed")
    parser.add_argument("-H", "--hostfile", type=str,
                        help="file of hosts to run on, one per line (passed to mpirun as "
                             "--hostfile; 'host:port' lines are reduced to the host)")
    parser.add_argument("--sync-dst-dir", type=str,
                        help="accepted for compatibility and ignored: the command must already "
                             "be present on every host")
    parser.add_argument("--launcher", type=str, default="ssh",
                        choices=["local", "ssh", "mpi", "sge", "yarn"],
                        help="local: all workers on this machine; mpi: mpirun (with the "
                             "hostfile when given); ssh: mpirun over the hostfile's hosts, which "
                             "it reaches by ssh (needs -H). sge and yarn are not supported.")
    parser.add_argument("--env-server", action="append", default=[],
                        help="K:V for server processes; accepted and ignored (there are none)")
    parser.add_argument("--env-worker", action="append", default=[],
                        help="K:V: sets environment variable K to V in every worker (overrides "
                             "--env)")
    parser.add_argument("--env", action="append", default=[],
                        help="K: passes this machine's value of environment variable K to every "
                             "worker; K:V sets it to V")
    parser.add_argument("--p3", action="store_true", default=False,
                        help="sets DMLC_PS_VAN_TYPE=p3 and DMLC_PS_WATER_MARK=10 in the workers")
    parser.add_argument("command", nargs="+", help="the command every worker runs")
    return parser


def parse_args(argv=None):
    parser = make_parser()
    args, unknown = parser.parse_known_args(argv)
    args.command += unknown
    if args.num_workers < 1:
        parser.error("-n must be at least 1")
    if args.launcher in ("sge", "yarn"):
        parser.error("launcher '%s' is not supported by this runtime; use local, mpi or ssh"
                     % args.launcher)
    if args.launcher == "ssh" and not args.hostfile:
        parser.error("launcher 'ssh' needs a hostfile (-H); use --launcher local to run every "
                     "worker on this machine")
    if args.hostfile and not os.path.isfile(args.hostfile):
        parser.error("hostfile %r does not exist" % args.hostfile)
    return args


def _split_pair(text, option):
    if ":" not in text:
        raise SystemExit("launch.py: %s expects NAME:VALUE, got %r" % (option, text))
    name, value = text.split(":", 1)
    return name.strip(), value


def worker_env(args, environ=None):
    """[(name, value)] every worker gets, in order (later ones win)."""
    environ = os.environ if environ is None else environ
    pairs = [("DMLC_ROLE", "worker"), ("DMLC_NUM_WORKER", str(args.num_workers))]
    if args.p3:
        pairs += [("DMLC_PS_VAN_TYPE", "p3"), ("DMLC_PS_WATER_MARK", "10")]
    for item in args.env:
        if ":" in item:
            pairs.append(_split_pair(item, "--env"))
        elif item in environ:
            pairs.append((item, environ[item]))
        else:
            _note("--env %s: not set here, not passed" % item)
    for item in args.env_worker:
        pairs.append(_split_pair(item, "--env-worker"))
    return pairs


def find_mpirun():
    for name in ("mpirun", "mpiexec"):
        path = shutil.which(name)
        if path:
            return path
    return None


def mpi_flavor(mpirun):
    """'openmpi' or 'hydra' (MPICH, Intel MPI), from `mpirun --version`."""
    try:
        out = subprocess.run([mpirun, "--version"], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, timeout=30).stdout.decode("utf-8", "replace")
    except (OSError, subprocess.SubprocessError):
        return "openmpi"
    if "HYDRA" in out.upper() or "MPICH" in out.upper() or "INTEL" in out.upper():
        return "hydra"
    return "openmpi"


def _hosts_only(hostfile):
    """A hostfile usable by mpirun: 'host:port' lines become 'host' (written to a temporary
    file when any line changes); returns (path, temporary or None)."""
    with open(hostfile) as f:
        lines = f.read().splitlines()
    out, changed = [], False
    for line in lines:
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        first = text.split()[0]
        if ":" in first and first.rsplit(":", 1)[1].isdigit():
            text = first.rsplit(":", 1)[0] + text[len(first):]
            changed = True
        out.append(text)
    if not changed:
        return hostfile, None
    _note("ports in %s are not used: mpirun reaches the hosts by its own means" % hostfile)
    fd, path = tempfile.mkstemp(prefix="launch_hosts_", text=True)
    with os.fdopen(fd, "w") as f:
        f.write("\n".join(out) + "\n")
    return path, path


def build_command(args, mpirun, flavor, is_root, pairs, hostfile=None):
    """(argv, extra environment for mpirun itself) of the MPI job; pairs: worker_env()."""
    cmd = [mpirun, "-np", str(args.num_workers)]
    extra_env = {}
    use_hostfile = hostfile if args.launcher in ("mpi", "ssh") else None
    if flavor == "hydra":
        if use_hostfile:
            cmd += ["-f", use_hostfile]
        for name, value in pairs:
            cmd += ["-genv", name, value]
    else:
        if is_root:
            extra_env["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
            extra_env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
        if is_root or args.launcher == "local":
            # more workers than cores is allowed, as separate processes would be
            cmd.append("--oversubscribe")
        if use_hostfile:
            cmd += ["--hostfile", use_hostfile]
        if args.launcher == "ssh":
            cmd += ["--map-by", "node"]
        for name, value in pairs:
            cmd += ["-x", "%s=%s" % (name, value)]
    command = list(args.command)
    if len(command) == 1 and any(c in _SHELL_CHARS for c in command[0]):
        command = ["/bin/sh", "-c", command[0]]
    return cmd + command, extra_env


def main(argv=None):
    args = parse_args(argv)
    if args.num_servers is not None:
        _note("-s %d ignored: distributed kvstores here run over MPI without server processes"
              % args.num_servers)
    if args.env_server:
        _note("--env-server ignored: there are no server processes")
    if args.sync_dst_dir:
        _note("--sync-dst-dir ignored: copy the command to every host beforehand")
    if args.hostfile and args.launcher == "local":
        _note("launcher 'local' runs every worker on this machine; %s is not used"
              % args.hostfile)
    mpirun = find_mpirun()
    if mpirun is None:
        _note("mpirun not found: install an MPI (e.g. Open MPI) to launch distributed jobs")
        return 127
    flavor = mpi_flavor(mpirun)
    hostfile, temporary = (None, None)
    if args.hostfile and args.launcher in ("mpi", "ssh"):
        hostfile, temporary = _hosts_only(args.hostfile)
    try:
        pairs = worker_env(args)
        cmd, extra_env = build_command(args, mpirun, flavor, os.geteuid() == 0, pairs,
                                       hostfile)
        env = dict(os.environ)
        env.update(extra_env)
        env.update(pairs)  # ranks on this machine inherit mpirun's environment as well
        proc = subprocess.Popen(cmd, env=env)
        try:
            code = proc.wait()
        except KeyboardInterrupt:
            proc.send_signal(signal.SIGINT)
            code = proc.wait()
    finally:
        if temporary:
            os.unlink(temporary)
    if code < 0:
        return 128 - code
    return code


if __name__ == "__main__":
    sys.exit(main())
