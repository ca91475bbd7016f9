"""Installs the `mxnet` package; the library built in ../build is shipped inside it, with the
MPI plugin of the distributed kvstore (libmxnet_mpi.so) when the build made one: libmxnet.so
loads it from its own directory. The compiled fast path (_fastpath.<python tag>.so), when the
build made one, goes into the package too: mxnet/_fast.py looks for it there."""
import glob
import os
import shutil

from setuptools import find_packages, setup

HERE = os.path.dirname(os.path.abspath(__file__))
LIBRARIES = ["libmxnet.so", "libmxnet_mpi.so"] + \
    sorted(os.path.basename(p) for p in glob.glob(os.path.join(HERE, "..", "build", "_fastpath.*.so")))
for name in LIBRARIES:
    built = os.path.join(HERE, "..", "build", name)
    if os.path.isfile(built):
        shutil.copy2(built, os.path.join(HERE, "mxnet", name))

setup(
    name="mxnet",
    version="1.9.1",
    description="MXNet-compatible deep learning runtime",
    packages=find_packages(include=["mxnet", "mxnet.*"]),
    package_data={"mxnet": LIBRARIES},
    install_requires=["numpy"],
    python_requires=">=3.8",
    license="Apache-2.0",
)
