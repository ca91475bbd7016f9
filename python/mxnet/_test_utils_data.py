"""MXNet 1.x's data helpers of mx.test_utils: downloading files and the datasets 1.x tests used
(kept in ./data like 1.x did), the path of im2rec.py, and DummyIter. mx.test_utils re-exports
them; import them from there.

A file already in place is used as it is, so these work offline once the data is present;
a download that fails raises an IOError naming the URL and where the file was expected.
"""
import bz2
import logging
import os
import shutil
import tempfile
import time
import urllib.request
import zipfile

from .io import DataIter

# Where MXNet 1.x fetched its test data and pretrained models from.
_DATA_URL = "http://data.mxnet.io/mxnet/data/"
_MODEL_URL = "http://data.mxnet.io/models/"
# model name -> (folder under _MODEL_URL, file prefix): files <prefix>-symbol.json, -0000.params
# (Inception-BN's parameters are those of epoch 126).
_MODELS = {
    "imagenet1k-inception-bn": ("imagenet/inception-bn", "Inception-BN"),
    "imagenet1k-resnet-18": ("imagenet/resnet/18-layers", "resnet-18"),
    "imagenet1k-resnet-34": ("imagenet/resnet/34-layers", "resnet-34"),
    "imagenet1k-resnet-50": ("imagenet/resnet/50-layers", "resnet-50"),
    "imagenet1k-resnet-101": ("imagenet/resnet/101-layers", "resnet-101"),
    "imagenet1k-resnet-152": ("imagenet/resnet/152-layers", "resnet-152"),
    "imagenet1k-resnext-50": ("imagenet/resnext/50-layers", "resnext-50"),
    "imagenet1k-resnext-101": ("imagenet/resnext/101-layers", "resnext-101"),
    "imagenet1k-resnext-101-64x4d": ("imagenet/resnext/101-layers", "resnext-101-64x4d"),
    "imagenet11k-resnet-152": ("imagenet-11k/resnet-152", "resnet-152"),
    "imagenet11k-place365ch-resnet-152": ("imagenet-11k-place365-ch", "resnet-152"),
    "imagenet11k-place365ch-resnet-50": ("imagenet-11k-place365-ch", "resnet-50"),
}
_MODEL_EPOCHS = {"imagenet1k-inception-bn": 126}


def _fetch(url, fname):
    """Writes url's content to fname through a temporary file (no partial file is left)."""
    folder = os.path.dirname(os.path.abspath(fname))
    handle, tmp = tempfile.mkstemp(prefix=".download-", dir=folder)
    try:
        with os.fdopen(handle, "wb") as out, urllib.request.urlopen(url, timeout=60) as response:
            shutil.copyfileobj(response, out, 1 << 20)
        os.replace(tmp, fname)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def download(url, fname=None, dirname=None, overwrite=False, retries=5):
    """Downloads url to fname (default: the URL's last component) in dirname (default: fname's
    folder) and returns the file's path; an existing file is kept unless overwrite. Up to
    `retries` attempts (at least one)."""
    if retries < 0:
        raise ValueError("download: retries must be at least 0, got %r" % (retries,))
    if fname is None:
        fname = url.split("/")[-1]
    if dirname is None:
        dirname = os.path.dirname(fname)
    else:
        fname = os.path.join(dirname, fname)
    if dirname:
        os.makedirs(dirname, exist_ok=True)
    if not overwrite and os.path.exists(fname):
        logging.info("%s exists, skipping download", fname)
        return fname
    attempts = max(1, retries)
    for attempt in range(1, attempts + 1):
        try:
            _fetch(url, fname)
            break
        except (OSError, ValueError) as err:  # URLError and HTTPError are OSErrors
            if attempt == attempts:
                raise IOError("download of %s to %s failed after %d attempt(s): %s (place the file there "
                              "to use it without downloading)" % (url, fname, attempts, err)) from err
            logging.warning("download of %s failed (%s); %d attempt(s) left", url, err, attempts - attempt)
            time.sleep(min(2 ** attempt, 10) * 0.1)
    logging.info("downloaded %s into %s", url, fname)
    return fname


def download_model(model_name, dst_dir="./", meta_info=None):
    """Downloads a pretrained model's symbol JSON and parameters into dst_dir and returns
    (dst_dir/model_name, epoch), or (None, 0) for an unknown name. meta_info maps names to
    {'symbol': url, 'params': url} in place of MXNet 1.x's model list (epoch 0 then)."""
    if meta_info is None:
        meta_info = {name: {"symbol": "%s%s/%s-symbol.json" % (_MODEL_URL, folder, prefix),
                            "params": "%s%s/%s-%04d.params" % (_MODEL_URL, folder, prefix,
                                                               _MODEL_EPOCHS.get(name, 0))}
                     for name, (folder, prefix) in _MODELS.items()}
    meta_info = dict(meta_info)
    if model_name not in meta_info:
        return None, 0
    meta = dict(meta_info[model_name])
    for key in ("symbol", "params"):
        if key not in meta:
            raise ValueError("download_model: meta_info[%r] has no %r URL" % (model_name, key))
    os.makedirs(dst_dir, exist_ok=True)
    prefix = os.path.join(dst_dir, model_name)
    download(meta["symbol"], prefix + "-symbol.json")
    download(meta["params"], prefix + "-0000.params")
    return prefix, 0


def _fetch_zip_into_data(zip_name, wanted):
    os.makedirs("data", exist_ok=True)
    if all(os.path.exists(os.path.join("data", f)) for f in wanted):
        return
    path = download(_DATA_URL + zip_name, dirname="data")
    with zipfile.ZipFile(path) as archive:
        archive.extractall("data")


def get_mnist_ubyte():
    """Makes sure ./data holds MNIST's four idx files (downloading and unpacking mnist.zip)."""
    _fetch_zip_into_data("mnist.zip", ("train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                                       "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"))


def get_cifar10():
    """Makes sure ./data/cifar holds CIFAR-10's train/test .rec and .lst files."""
    _fetch_zip_into_data("cifar10.zip", [os.path.join("cifar", f) for f in
                                         ("train.rec", "test.rec", "train.lst", "test.lst")])


def get_mnist_pkl():
    """Makes sure ./data/mnist.pkl.gz exists (downloading it)."""
    os.makedirs("data", exist_ok=True)
    if not os.path.exists(os.path.join("data", "mnist.pkl.gz")):
        download("http://deeplearning.net/data/mnist/mnist.pkl.gz", dirname="data")


def get_mnist_iterator(batch_size, input_shape, num_parts=1, part_index=0):
    """(train, validation) MNISTIters over ./data (see get_mnist_ubyte); images come flat
    unless input_shape has three dimensions; the training one shuffles."""
    from .io import MNISTIter
    get_mnist_ubyte()
    flat = len(input_shape) != 3
    common = dict(batch_size=batch_size, flat=flat, num_parts=num_parts, part_index=part_index)
    train = MNISTIter(image="data/train-images-idx3-ubyte", label="data/train-labels-idx1-ubyte",
                      shuffle=True, **common)
    val = MNISTIter(image="data/t10k-images-idx3-ubyte", label="data/t10k-labels-idx1-ubyte", **common)
    return train, val


def get_zip_data(data_dir, url, data_origin_name):
    """Downloads url as data_dir/data_origin_name and unpacks it there, unless that file exists."""
    archive = os.path.join(data_dir, data_origin_name)
    if not os.path.exists(archive):
        download(url, dirname=data_dir, overwrite=False)
        with zipfile.ZipFile(archive) as zf:
            zf.extractall(path=data_dir)


def get_bz2_data(data_dir, data_name, url, data_origin_name):
    """Downloads url as data_dir/data_origin_name and decompresses it to data_dir/data_name
    (removing the .bz2), unless data_name exists."""
    target = os.path.join(data_dir, data_name)
    archive = os.path.join(data_dir, data_origin_name)
    if os.path.exists(target):
        return
    download(url, fname=data_origin_name, dirname=data_dir, overwrite=False)
    with bz2.BZ2File(archive, "rb") as src, open(target, "wb") as dst:
        shutil.copyfileobj(src, dst, 1 << 20)
    os.remove(archive)


def get_im2rec_path(home_env="MXNET_HOME"):
    """Path of tools/im2rec.py: under $home_env when set, else next to the mxnet package or in
    the source tree it was loaded from."""
    import mxnet
    root = os.environ.get(home_env) or os.path.dirname(mxnet.__file__)
    for candidate in (os.path.join(root, "tools", "im2rec.py"),
                      os.path.join(root, "..", "..", "tools", "im2rec.py")):
        if os.path.isfile(candidate):
            return candidate
    raise IOError("Could not find tools/im2rec.py under %s" % root)


class DummyIter(DataIter):
    """Returns the first batch of real_iter forever (for timing without input cost)."""

    def __init__(self, real_iter):
        super(DummyIter, self).__init__(real_iter.batch_size)
        self.real_iter = real_iter
        self.provide_data = real_iter.provide_data
        self.provide_label = real_iter.provide_label
        self.the_batch = next(real_iter)

    def __iter__(self):
        return self

    def next(self):
        return self.the_batch
