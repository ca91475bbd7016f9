"""Gluon helpers: splitting batches across devices, gradient clipping, file checks, download."""
import hashlib
import math
import os

import numpy as np

from .. import ndarray as nd

__all__ = ["split_data", "split_and_load", "clip_global_norm", "check_sha1", "download"]


def split_data(data, num_slice, batch_axis=0, even_split=True):
    """Splits `data` into num_slice pieces along batch_axis.

    even_split=True requires the size to be divisible; otherwise the last pieces are one
    element shorter.
    """
    size = data.shape[batch_axis]
    if even_split and size % num_slice != 0:
        raise ValueError("data with shape %s cannot be evenly split into %d slices along axis "
                         "%d. Use a batch size that's multiple of %d or set even_split=False "
                         "to allow uneven partitioning of data."
                         % (str(data.shape), num_slice, batch_axis, num_slice))
    if size < num_slice:
        raise ValueError("Too many slices for data with shape %s. Arguments are num_slice=%d "
                         "and batch_axis=%d." % (str(data.shape), num_slice, batch_axis))
    n_each, extra = divmod(size, num_slice)
    bounds = []
    start = 0
    for i in range(num_slice):
        stop = start + n_each + (1 if i < extra else 0)
        bounds.append((start, stop))
        start = stop
    if num_slice == 1:
        return [data]
    if isinstance(data, np.ndarray):
        return [np.take(data, np.arange(a, b), axis=batch_axis) for a, b in bounds]
    if batch_axis == 0:
        return [data[a:b] for a, b in bounds]
    return [nd.slice_axis(data, axis=batch_axis, begin=a, end=b) for a, b in bounds]


def split_and_load(data, ctx_list, batch_axis=0, even_split=True):
    """Splits `data` (NDArray or NumPy) and copies piece i to ctx_list[i]."""
    if isinstance(data, np.ndarray):
        data = nd.array(data, ctx=ctx_list[0])
    if len(ctx_list) == 1:
        return [data.as_in_context(ctx_list[0])]
    slices = split_data(data, len(ctx_list), batch_axis, even_split)
    return [s.as_in_context(c) for s, c in zip(slices, ctx_list)]


def clip_global_norm(arrays, max_norm, check_isfinite=True):
    """Scales the arrays in place so their joint L2 norm is at most max_norm; returns the
    norm before scaling (a float, or an NDArray when check_isfinite is False)."""
    if not arrays:
        raise ValueError("clip_global_norm needs at least one array")
    ctx = arrays[0].context
    total = None
    for arr in arrays:
        sq = nd.sum(nd.square(arr.reshape((-1,)))).as_in_context(ctx)
        total = sq if total is None else total + sq
    total_norm = nd.sqrt(total)
    if check_isfinite:
        value = float(total_norm.asscalar())
        if not math.isfinite(value):
            import warnings
            warnings.warn(UserWarning("nan or inf is detected. Clipping results will be "
                                      "undefined."), stacklevel=2)
        scale = max_norm / (value + 1e-8)
        if scale < 1.0:
            for arr in arrays:
                arr *= scale
        return value
    scale = nd.minimum(max_norm / (total_norm + 1e-8), 1.0)
    for arr in arrays:
        arr *= scale.as_in_context(arr.context)
    return total_norm


def check_sha1(filename, sha1_hash):
    """True when the file's SHA-1 hex digest equals sha1_hash (a prefix is accepted)."""
    sha1 = hashlib.sha1()
    with open(filename, "rb") as f:
        while True:
            chunk = f.read(1 << 20)
            if not chunk:
                break
            sha1.update(chunk)
    digest = sha1.hexdigest()
    return digest == sha1_hash or (len(sha1_hash) < len(digest) and
                                   digest.startswith(sha1_hash))


def runtime_env(name, fallback=""):
    """A variable's value as the runtime's env registry sees it (fallback when empty)."""
    from ..test_utils import getenv
    value = getenv(name)
    return value if value else fallback


def _repo_url():
    repo = runtime_env("MXNET_GLUON_REPO",
                       "https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/")
    return repo if repo.endswith("/") else repo + "/"


def data_home():
    """$MXNET_HOME, or ~/.mxnet when it is not set."""
    return os.path.expanduser(runtime_env("MXNET_HOME", os.path.join("~", ".mxnet")))


def download(url, path=None, overwrite=False, sha1_hash=None, retries=5, verify_ssl=True):
    """Returns the local file for `url` when it is already there (and matches sha1_hash);
    this runtime does not fetch files from the network, so otherwise it raises an error
    naming the URL and where to put the file."""
    fname = url.split("/")[-1]
    if path is None:
        target = fname
    else:
        path = os.path.expanduser(path)
        target = os.path.join(path, fname) if os.path.isdir(path) or path.endswith("/") else path
    if os.path.exists(target) and not overwrite and (not sha1_hash or check_sha1(target, sha1_hash)):
        return target
    raise IOError("Cannot download %s: this runtime does not access the network. Fetch the "
                  "file yourself (MXNET_GLUON_REPO is %s) and place it at %s%s."
                  % (url, _repo_url(), os.path.abspath(target),
                     "" if not sha1_hash else " (expected SHA-1 %s)" % sha1_hash))


def _indent(s_, num_spaces):
    """Indents every line of s_ but the first by num_spaces."""
    lines = s_.split("\n")
    if len(lines) == 1:
        return s_
    first = lines.pop(0)
    return first + "\n" + "\n".join((num_spaces * " ") + line for line in lines)
