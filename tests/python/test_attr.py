"""Symbol attributes: mx.AttrScope, var(...) keyword attributes, lr_mult <-> __lr_mult__,
list_attr / attr_dict, and attributes surviving pickling and JSON."""
import pickle

import numpy as np
import pytest

import mxnet as mx


def test_attr_scope_basic():
    with mx.AttrScope(group="4", data="great"):
        data = mx.sym.Variable("data", attr={"dtype": "data", "group": "1", "force_mirroring": "True"}, lr_mult=1)
        gdata = mx.sym.Variable("data2")
    assert gdata.attr("group") == "4"
    assert gdata.attr("data") == "great"
    assert data.attr("group") == "1"
    assert data.attr("lr_mult") == "1"
    assert data.attr("__lr_mult__") == "1"
    assert data.attr("force_mirroring") == "True"
    assert data.attr("__force_mirroring__") == "True"
    data2 = pickle.loads(pickle.dumps(data))
    assert data.attr("dtype") == data2.attr("dtype")
    outside = mx.sym.Variable("data3")
    assert outside.attr("group") is None


def test_attr_scope_on_operators_and_nesting():
    data = mx.sym.Variable("data")
    with mx.AttrScope(__group__="4", __data__="great"):
        fc1 = mx.sym.Activation(data, act_type="relu")
        with mx.AttrScope(__init_bias__="0.0", __group__="5"):
            fc2 = mx.sym.FullyConnected(fc1, num_hidden=10, name="fc2")
        fc3 = mx.sym.FullyConnected(fc2, num_hidden=10, name="fc3")
    assert fc1.attr("__data__") == "great"
    assert fc1.attr("__group__") == "4"
    assert fc2.attr("__data__") == "great"
    assert fc2.attr("__init_bias__") == "0.0"
    assert fc2.attr("__group__") == "5"
    assert fc3.attr("__group__") == "4"
    assert fc3.attr("__init_bias__") is None
    fc2copy = pickle.loads(pickle.dumps(fc2))
    assert fc2copy.tojson() == fc2.tojson()
    fc2weight = fc2.get_internals()["fc2_weight"]
    assert fc2weight.attr("__data__") == "great"  # auto-created inputs copy the op's attributes


def test_explicit_attr_wins_over_scope():
    with mx.AttrScope(__mood__="scope"):
        fc = mx.sym.FullyConnected(mx.sym.var("x"), num_hidden=2, name="fc", attr={"__mood__": "explicit"})
    assert fc.attr("__mood__") == "explicit"


def test_attr_scope_values_must_be_strings():
    with pytest.raises(ValueError):
        mx.AttrScope(x=1)
    assert mx.attribute.AttrScope is mx.AttrScope


def test_attr_scope_is_restored_after_exit_and_errors():
    with pytest.raises(RuntimeError):
        with mx.AttrScope(__a__="1"):
            raise RuntimeError("boom")
    assert mx.sym.var("v").attr("__a__") is None
    assert mx.attribute.current().get(None) == {}


def test_var_attributes():
    init = mx.init.Uniform(0.5)
    v = mx.sym.var("v", shape=(2, 3), lr_mult=0.5, wd_mult=2, dtype="float16", init=init, __extra__="yes")
    assert v.attr("__shape__") == "(2, 3)"
    assert v.attr("__lr_mult__") == "0.5"
    assert v.attr("lr_mult") == "0.5"
    assert v.attr("__wd_mult__") == "2"
    assert v.attr("__dtype__") == "2"  # float16's type code
    assert v.attr("__init__") == init.dumps()
    assert v.attr("__extra__") == "yes"
    assert mx.sym.var("w", init="zeros").attr("__init__") == "zeros"
    assert mx.sym.var("s", stype="default").attr("__storage_type__") == "0"
    with pytest.raises(ValueError, match="double underscores"):
        mx.sym.var("bad", extra="no")
    with pytest.raises(TypeError):
        mx.sym.var(3)


def test_var_shape_and_dtype_feed_inference():
    v = mx.sym.var("v", shape=(4, 2), dtype=np.float64)
    out = v * 2
    arg_shapes, out_shapes, _ = out.infer_shape()
    assert arg_shapes == [(4, 2)] and out_shapes == [(4, 2)]
    arg_types, out_types, _ = out.infer_type()
    assert arg_types == [np.float64] and out_types == [np.float64]


def test_list_attr():
    data = mx.sym.Variable("data", attr={"mood": "angry"})
    op = mx.sym.Convolution(data=data, name="conv", kernel=(1, 1), num_filter=1,
                            attr={"__mood__": "so so", "wd_mult": "x"})
    attrs = op.list_attr()
    assert attrs["__mood__"] == "so so"
    assert attrs["__wd_mult__"] == "x"
    assert attrs["kernel"] == "(1, 1)"
    assert attrs["num_filter"] == "1"
    assert op.attr("wd_mult") == "x"
    assert data.list_attr() == {"mood": "angry"}
    with pytest.raises(DeprecationWarning):
        op.list_attr(recursive=True)


def test_list_attr_reports_both_spellings_of_hidden_keys():
    op = mx.sym.Convolution(data=mx.sym.var("data"), name="conv", kernel=(1, 1), num_filter=1,
                            attr={"wd_mult": "x"}, lr_mult=1)
    attrs = op.list_attr()
    assert attrs["wd_mult"] == "x" and attrs["__wd_mult__"] == "x"
    assert attrs["lr_mult"] == "1" and attrs["__lr_mult__"] == "1"
    assert op.attr_dict()["conv"]["lr_mult"] == "1"


def test_attr_dict_and_lr_mult_on_auto_inputs():
    data = mx.sym.Variable("data", attr={"mood": "angry"})
    op = mx.sym.Convolution(data=data, name="conv", kernel=(1, 1), num_filter=1, attr={"__mood__": "so so"},
                            lr_mult=1)
    d = op.attr_dict()
    assert set(d) == {"data", "conv", "conv_weight", "conv_bias"}
    assert d["data"] == {"mood": "angry"}
    assert d["conv"]["__mood__"] == "so so"
    assert d["conv"]["kernel"] == "(1, 1)"
    assert d["conv"]["__lr_mult__"] == "1"
    # the variables made for missing inputs carry a copy of the op's attributes
    for var in ("conv_weight", "conv_bias"):
        assert d[var]["__mood__"] == "so so"
        assert d[var]["__lr_mult__"] == "1"
    weight = op.get_internals()["conv_weight"]
    assert weight.attr("lr_mult") == "1"


def test_hidden_key_suffix_is_rejected():
    with pytest.raises(mx.MXNetError, match="deprecated"):
        mx.sym.FullyConnected(mx.sym.var("x"), num_hidden=2, weight_lr_mult=2)


def test_batchnorm_sets_aux_initializers():
    bn = mx.sym.BatchNorm(mx.sym.var("data"), name="bn")
    d = bn.attr_dict()
    assert d["bn_moving_mean"]["__init__"] == '["zero", {}]'
    assert d["bn_moving_var"]["__init__"] == '["one", {}]'


def test_set_attr_and_attributes_survive_json():
    v = mx.sym.var("v")
    v._set_attr(__note__="hello", ctx_group="dev1")
    assert v.attr("__note__") == "hello"
    assert v.attr("ctx_group") == "dev1"
    with pytest.raises(ValueError):
        v._set_attr(__note__=3)
    again = mx.sym.load_json((v * 2).tojson())
    assert again.get_internals()["v"].attr("__note__") == "hello"


def test_unknown_op_parameter_is_an_error():
    with pytest.raises(mx.MXNetError):
        mx.sym.FullyConnected(mx.sym.var("x"), num_hidden=2, not_a_param=3)
    # an AttrScope key without underscores reaches the parameter parser too (as in 1.x)
    with pytest.raises(mx.MXNetError):
        with mx.AttrScope(group="4"):
            mx.sym.FullyConnected(mx.sym.var("x"), num_hidden=2)
