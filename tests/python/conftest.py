"""Shared fixtures: running Python snippets in a subprocess with a chosen environment."""
import os
import subprocess
import sys

import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SEEDS = os.path.abspath(os.path.join(REPO, "..", "shared", "seeds"))


def _clean_env(extra):
    env = {k: v for k, v in os.environ.items()
           if not (k.startswith("MXNET_") or k.startswith("NNVM_") or k.startswith("DMLC_"))}
    env["PYTHONPATH"] = os.path.join(REPO, "python")
    if "MXNET_LIBRARY_PATH" in os.environ:
        env["MXNET_LIBRARY_PATH"] = os.environ["MXNET_LIBRARY_PATH"]
    for k, v in extra.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    return env


@pytest.fixture
def run_python():
    """run_python(code, **env) -> CompletedProcess of `python -c code` with that environment."""
    def run(code, **extra_env):
        return subprocess.run([sys.executable, "-c", code], env=_clean_env(extra_env), capture_output=True,
                              text=True, timeout=120, cwd=REPO)
    return run
