"""Installs the `mxnet` package; the library built in ../build is shipped inside it."""
import os
import shutil

from setuptools import find_packages, setup

HERE = os.path.dirname(os.path.abspath(__file__))
BUILT = os.path.join(HERE, "..", "build", "libmxnet.so")
if os.path.isfile(BUILT):
    shutil.copy2(BUILT, os.path.join(HERE, "mxnet", "libmxnet.so"))

setup(
    name="mxnet",
    version="1.9.1",
    description="MXNet-compatible deep learning runtime",
    packages=find_packages(include=["mxnet", "mxnet.*"]),
    package_data={"mxnet": ["libmxnet.so"]},
    install_requires=["numpy"],
    python_requires=">=3.8",
    license="Apache-2.0",
)
