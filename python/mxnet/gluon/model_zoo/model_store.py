"""Where pretrained model files are found: $MXNET_HOME/models (~/.mxnet/models by default).

MXNet's published files are named `<model>-<first 8 hex digits of their SHA-1>.params`; any
file `<model>-*.params` (or `<model>.params`) in the directory is accepted. This runtime does
not download: when no file is there, the error says which file to put where.
"""
import glob
import os

from ..utils import _repo_url, data_home

__all__ = ["get_model_file", "default_root"]


def default_root():
    """$MXNET_HOME/models."""
    return os.path.join(data_home(), "models")


def get_model_file(name, root=None):
    """The path of the pretrained parameters of model `name` under `root`."""
    root = os.path.expanduser(root) if root is not None else default_root()
    exact = os.path.join(root, name + ".params")
    if os.path.isfile(exact):
        return exact
    matches = sorted(glob.glob(os.path.join(root, glob.escape(name) + "-*.params")))
    matches = [m for m in matches
               if all(c in "0123456789abcdef" for c in os.path.basename(m)[len(name) + 1:-7])]
    if matches:
        return matches[-1]
    raise IOError("Pretrained parameters for model '%s' are not in %s. Put MXNet's file "
                  "%s-<hash>.params there (published as %sgluon/models/%s-<hash>.zip; unzip "
                  "it), or set MXNET_HOME to the directory that holds models/. This runtime "
                  "does not download files." % (name, root, name, _repo_url(), name))
