"""The MXNet 1.9.1 peer (benchmark/.peers/mxnet191): an oracle that tests run in a subprocess.

The peer must import its own mxnet. This process's PYTHONPATH (our python/ first), MXNET_*
variables (MXNET_LIBRARY_PATH names our libmxnet.so) and LD_PRELOAD would make it load this
package or library instead, and a comparison would then check us against ourselves; peer_env()
leaves them out.
"""
import os
import subprocess
import textwrap

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PEER_PYTHON = os.path.join(REPO, "benchmark", ".peers", "mxnet191", "bin", "python")
# Prefixes of variables that would point the peer at this checkout.
LEAKING_PREFIXES = ("MXNET_", "PYTHONPATH", "PYTHONHOME", "LD_PRELOAD")


def peer_available():
    return os.access(PEER_PYTHON, os.X_OK)


needs_peer = pytest.mark.skipif(not peer_available(),
                                reason="MXNet 1.9.1 peer not installed (bash benchmark/python/setup_peers.sh)")


def peer_env(drop=(), **extra):
    """This process's environment without the leaking variables (and any name starting with one of
    `drop`), then `extra` set on top (values are turned into strings)."""
    prefixes = LEAKING_PREFIXES + tuple(drop)
    env = {k: v for k, v in os.environ.items() if not k.startswith(prefixes)}
    env.update({k: str(v) for k, v in extra.items()})
    return env


def run_peer(code, args=(), cwd=None, timeout=300, check=True, env=None):
    """Runs `code` (dedented) with the peer's python; returns the CompletedProcess (text output).
    check: assert a zero exit status, showing the tail of its output otherwise."""
    if not peer_available():
        pytest.skip("MXNet 1.9.1 peer not installed (%s)" % PEER_PYTHON)
    proc = subprocess.run([PEER_PYTHON, "-c", textwrap.dedent(code)] + [str(a) for a in args], cwd=cwd,
                          env=peer_env() if env is None else env, capture_output=True, text=True, timeout=timeout)
    if check:
        assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    return proc


def run_script_in_both(script, tmp_path, label):
    """Runs `script`, which saves its results with np.savez(OUT, ...), in the peer and in this
    process; returns (peer results, our results) as loaded .npz files."""
    import numpy as np
    peer_out, our_out = str(tmp_path / "peer.npz"), str(tmp_path / "ours.npz")
    run_peer("OUT = %r\n" % peer_out + script)
    exec(compile(script, "<%s>" % label, "exec"), {"OUT": our_out})  # pylint: disable=exec-used
    return np.load(peer_out), np.load(our_out)
