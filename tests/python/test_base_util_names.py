"""Names 1.x modules export that scripts rely on: mxnet.base's type groups and helpers,
mxnet.util, and `from mxnet.test_utils import *` giving np and mx."""
import ctypes
import os

import numpy

import mxnet as mx
from mxnet import base


def test_base_type_groups():
    assert isinstance(3, base.integer_types) and isinstance(numpy.int64(3), base.integer_types)
    assert isinstance(2.5, base.numeric_types) and isinstance(numpy.float32(1), base.numeric_types)
    assert isinstance("a", base.string_types) and not isinstance(b"a", base.string_types)
    assert base.mx_real_t is numpy.float32
    assert base.py_str(b"abc") == "abc"


def test_base_helpers(monkeypatch, tmp_path):
    monkeypatch.setenv("MXNET_HOME", str(tmp_path))
    assert base.data_dir() == str(tmp_path)
    monkeypatch.delenv("MXNET_HOME")
    assert base.data_dir() == os.path.join(os.path.expanduser("~"), ".mxnet")

    class Thing(object):
        @base.classproperty
        def kind(cls):
            return cls.__name__.lower()
    assert Thing.kind == "thing"
    values = (ctypes.c_float * 6)(*range(6))
    shared = base.ctypes2numpy_shared(ctypes.cast(values, ctypes.POINTER(ctypes.c_float)), (2, 3))
    values[4] = 40.0
    assert shared.shape == (2, 3) and shared[1, 1] == 40.0


def test_util_module(tmp_path):
    target = tmp_path / "a" / "b"
    mx.util.makedirs(str(target))
    mx.util.makedirs(str(target))
    assert target.is_dir()
    assert mx.util.get_gpu_count() == mx.context.num_gpus()
    before = mx.util.is_np_shape()
    with mx.util.np_shape(True):
        assert mx.util.is_np_shape()

    @mx.util.use_np_shape
    def inside():
        return mx.util.is_np_shape()
    assert inside() is True
    assert mx.util.is_np_shape() == before


def test_star_import_of_test_utils_gives_np_and_mx():
    ns = {}
    exec("from mxnet.test_utils import *", ns)  # noqa: S102
    assert ns["np"] is numpy and ns["mx"] is mx
    assert "assert_almost_equal" in ns
