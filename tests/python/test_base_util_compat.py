"""MXNet 1.x names of mx.base, mx.util, mx.initializer, mx.metric, mx.random and the top-level
mx namespace that scripts and extensions use: error registration and translation, Python 2
aliases, metaclass and docstring helpers, environment access, registries."""
import ctypes
import json
import os
import textwrap

import pytest

import mxnet as mx
from mxnet import base

from peer_oracle import needs_peer, run_peer


def test_python2_aliases_and_handles():
    assert base.basestring is str and base.long is int
    assert base.DataIterCreatorHandle is ctypes.c_void_p
    fields = [f[0] for f in base.MXCallbackList._fields_]
    assert fields == ["num_callbacks", "callbacks", "contexts"]
    assert mx.autograd.MXCallbackList is base.MXCallbackList


def test_with_metaclass_builds_the_class_with_the_metaclass():
    created = []

    class Meta(type):
        def __new__(mcs, name, bases, namespace):
            created.append(name)
            return super(Meta, mcs).__new__(mcs, name, bases, namespace)

    class Base(object):
        pass

    class Scope(base.with_metaclass(Meta, Base)):
        value = 3

    assert type(Scope) is Meta and Scope.value == 3
    assert Scope.__mro__ == (Scope, Base, object)  # no placeholder class left behind
    assert created == ["Scope"]                    # the placeholder never reached Meta


def test_register_error_forms_and_translation():
    @base.register_error
    class ShapeTrouble(ValueError):
        pass

    class Renamed(RuntimeError):
        pass
    assert base.register_error("OtherName", Renamed) is Renamed
    decorate = base.register_error("ViaDecorator")

    class Third(KeyError):
        pass
    assert decorate(Third) is Third
    assert base.error_types["ShapeTrouble"] is ShapeTrouble and base.error_types["OtherName"] is Renamed
    assert base.error_types["ViaDecorator"] is Third
    err = base._error_from_message("ShapeTrouble: rows do not match")
    assert type(err) is ShapeTrouble and str(err) == "rows do not match"
    assert isinstance(base._error_from_message("OtherName: x"), Renamed)
    with pytest.raises(TypeError, match="exception class"):
        base.register_error("Bad", int)
    with pytest.raises(TypeError, match="string"):
        base.register_error(3)
    assert mx.error.register_error is base.register_error


def test_get_last_ffi_error_and_check_call():
    ret = base._LIB.MXSetEnv(base.c_str("MXNET_CPU_WORKER_NTHREADS"), base.c_str("abc"))
    assert ret != 0
    err = base.get_last_ffi_error()
    assert isinstance(err, ValueError) and isinstance(err, base.MXNetError)
    assert "MXNET_CPU_WORKER_NTHREADS" in str(err)
    with pytest.raises(ValueError, match="MXNET_CPU_WORKER_NTHREADS"):
        base.check_call(base._LIB.MXSetEnv(base.c_str("MXNET_CPU_WORKER_NTHREADS"), base.c_str("abc")))


def test_c2pyerror_splits_kind_and_moves_the_stack_trace():
    text = "ValueError: bad shape\nStack trace:\n  [bt] (0) frame_a\n  [bt] (1) frame_b\nmore detail\n"
    message, kind = base.c2pyerror(text)
    assert kind == "ValueError"
    assert message == ("Traceback (most recent call last):\n  [bt] (1) frame_b\n  [bt] (0) frame_a\n"
                       "ValueError: bad shape\nmore detail")
    assert base.c2pyerror("no kind here") == ("no kind here", None)
    assert base.c2pyerror("has space: in kind")[1] is None


def test_not_available_errors_name_the_function():
    def fancy_op():
        return None
    err = base.NotImplementedForSymbol(fancy_op, "_fancy", 1, "a")
    assert str(err) == ("Function fancy_op (namely operator \"_fancy\") with arguments (<class 'int'>, "
                        "<class 'str'>) is not implemented for Symbol and only available in NDArray.")
    assert isinstance(err, base.MXNetError) and base.error_types["NotImplementedForSymbol"] is type(err)
    sparse = base.NotSupportedForSparseNDArray(fancy_op, None)
    assert str(sparse) == "Function fancy_op is not supported for SparseNDArray and only available in NDArray."


def test_build_param_doc():
    doc = base.build_param_doc(["data", "num_args", "axis", "data"], ["NDArray", "int", "int, optional", "x"],
                               ["Input.", "count", "", "dup"])
    assert doc == "Parameters\n----------\ndata : NDArray\n    Input.\naxis : int, optional\n"
    kept = base.build_param_doc(["a", "a"], ["int", "float"], ["", ""], remove_dup=False)
    assert kept == "Parameters\n----------\na : int\na : float\n"


@needs_peer
def test_base_helpers_agree_with_mxnet191():
    script = textwrap.dedent("""
        import json
        from mxnet import base
        def fancy_op():
            pass
        print(json.dumps([
            base.c2pyerror("ValueError: bad\\nStack trace:\\n  f0\\n  f1\\nafter\\n"),
            base.build_param_doc(["data", "num_args", "axis", "data"], ["NDArray", "int", "int, optional", "x"],
                                 ["Input.", "count", "", "dup"]),
            str(base.NotImplementedForSymbol(fancy_op, "_fancy", 1)),
            str(base.NotSupportedForSparseNDArray(fancy_op, None)),
        ]))
    """)
    out = run_peer(script, check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    peer = json.loads(out.stdout.strip().splitlines()[-1])

    def fancy_op():
        return None
    ours = [list(base.c2pyerror("ValueError: bad\nStack trace:\n  f0\n  f1\nafter\n")),
            base.build_param_doc(["data", "num_args", "axis", "data"], ["NDArray", "int", "int, optional", "x"],
                                 ["Input.", "count", "", "dup"]),
            str(base.NotImplementedForSymbol(fancy_op, "_fancy", 1)),
            str(base.NotSupportedForSparseNDArray(fancy_op, None))]
    assert peer == ours


def test_util_environment_and_module_helpers(monkeypatch):
    monkeypatch.delenv("MXNET_TEST_UTIL_NAME", raising=False)
    assert mx.util.getenv("MXNET_TEST_UTIL_NAME") is None
    mx.util.setenv("MXNET_TEST_UTIL_NAME", "on")
    assert mx.util.getenv("MXNET_TEST_UTIL_NAME") == "on" and os.environ["MXNET_TEST_UTIL_NAME"] == "on"
    mx.util.setenv("MXNET_TEST_UTIL_NAME", None)
    assert mx.util.getenv("MXNET_TEST_UTIL_NAME") is None and "MXNET_TEST_UTIL_NAME" not in os.environ
    assert mx.test_utils.getenv is mx.util.getenv and mx.test_utils.setenv is mx.util.setenv

    @mx.util.set_module("mxnet.somewhere")
    def moved():
        return None
    assert moved.__module__ == "mxnet.somewhere"
    assert mx.util.set_module(None)(moved) is moved and moved.__module__ == "mxnet.somewhere"


def test_util_numpy_switches():
    assert mx.util.is_np_array() is False and mx.is_np_array() is False
    prev = mx.util.set_np_shape(True)
    try:
        mx.util.reset_np()
        assert mx.util.is_np_shape() is False
    finally:
        mx.util.set_np_shape(prev)
    assert mx.is_np_shape is mx.util.is_np_shape and mx.np_shape is mx.util.np_shape
    assert mx.set_np_shape is mx.util.set_np_shape and mx.use_np_shape is mx.util.use_np_shape


def test_get_cuda_compute_capability_wants_a_gpu_context():
    with pytest.raises(ValueError, match="gpu context"):
        mx.util.get_cuda_compute_capability(mx.cpu())


@pytest.mark.skipif(mx.context.num_gpus() == 0, reason="no GPU")
def test_get_cuda_compute_capability_on_a_gpu():
    cc = mx.util.get_cuda_compute_capability(mx.gpu(0))
    assert isinstance(cc, int) and 30 <= cc < 200


def test_initializer_alias_and_create_forms():
    @mx.init.register
    @mx.init.alias("my_const_alias")
    class MyConst(mx.init.Initializer):
        def __init__(self, value=1.0):
            super(MyConst, self).__init__(value=value)
            self.value = value

        def _init_weight(self, _, arr):
            arr[:] = self.value

    assert isinstance(mx.init.create("my_const_alias", 4.0), MyConst)
    assert mx.init.create("MyConst", value=2.0).value == 2.0
    assert mx.init.create(initializer="my_const_alias").value == 1.0
    assert mx.init.create(MyConst, 5.0).value == 5.0
    inst = MyConst(3.0)
    assert mx.init.create(inst) is inst
    with pytest.raises(ValueError, match="already an initializer"):
        mx.init.create(inst, 1.0)
    with pytest.raises(TypeError, match="needs the initializer"):
        mx.init.create()


def test_metric_register_with_name_and_alias():
    class Halves(mx.metric.EvalMetric):
        def __init__(self, name="halves"):
            super(Halves, self).__init__(name)

    assert mx.metric.register(Halves, name="HalfMetric") is Halves
    assert isinstance(mx.metric.create("halfmetric"), Halves) and isinstance(mx.metric.create("halves"), Halves)

    @mx.metric.alias("twice_a", "twice_b")
    class Twice(mx.metric.EvalMetric):
        def __init__(self, name="twice"):
            super(Twice, self).__init__(name)
    assert isinstance(mx.metric.create("twice_b"), Twice) and isinstance(mx.metric.create("twice"), Twice)
    with pytest.raises(TypeError, match="EvalMetric"):
        mx.metric.register(int)


def test_random_module_has_the_binomial_samplers():
    assert mx.random.negative_binomial is mx.nd.random.negative_binomial
    assert mx.random.generalized_negative_binomial is mx.nd.random.generalized_negative_binomial
