"""Symbol.infer_shape / infer_shape_partial / infer_type / infer_type_partial (1.x legacy shape
semantics: an unknown shape is (), an unknown dim 0)."""
import warnings

import numpy as np
import pytest

import mxnet as mx


def mlp2():
    data = mx.sym.Variable("data")
    out = mx.sym.FullyConnected(data=data, name="fc1", num_hidden=1000)
    out = mx.sym.Activation(data=out, act_type="relu")
    return mx.sym.FullyConnected(data=out, name="fc2", num_hidden=10)


def shapes_by_name(sym, arg_shapes):
    return dict(zip(sym.list_arguments(), arg_shapes))


def test_mlp2_infer_shape():
    out = mlp2()
    arg_shapes, out_shapes, aux_shapes = out.infer_shape(data=(100, 100))
    assert out_shapes == [(100, 10)]
    assert aux_shapes == []
    assert shapes_by_name(out, arg_shapes) == {"data": (100, 100), "fc1_weight": (1000, 100), "fc1_bias": (1000,),
                                               "fc2_weight": (10, 1000), "fc2_bias": (10,)}
    # positional shapes follow list_arguments
    assert out.infer_shape((100, 100)) == (arg_shapes, out_shapes, aux_shapes)


def test_mlp2_infer_error():
    out = mlp2()
    with pytest.raises(mx.MXNetError):
        out.infer_shape(data=(100, 100), fc1_weight=(1, 100))


def test_batchnorm_aux_shapes():
    net = mx.sym.BatchNorm(mx.sym.Convolution(mx.sym.var("data"), kernel=(3, 3), num_filter=6, name="c"), name="bn")
    arg_shapes, out_shapes, aux_shapes = net.infer_shape(data=(2, 3, 10, 10))
    assert out_shapes == [(2, 6, 8, 8)]
    assert aux_shapes == [(6,), (6,)]
    assert shapes_by_name(net, arg_shapes)["c_weight"] == (6, 3, 3, 3)


def test_incomplete_infer_returns_nones_and_warns():
    data = mx.sym.Variable("data")
    prev = mx.sym.Variable("prevstate")
    x2h = mx.sym.FullyConnected(data=data, name="x2h", num_hidden=128)
    h2h = mx.sym.FullyConnected(data=prev, name="h2h", num_hidden=128)
    out = mx.sym.Activation(data=mx.sym.elemwise_add(x2h, h2h), name="out", act_type="relu")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert out.infer_shape(data=(10, 64)) == (None, None, None)
    assert any("Cannot decide shape" in str(w.message) and "prevstate" in str(w.message) for w in caught)
    arg, out_shapes, _ = out.infer_shape_partial(data=(10, 64))
    arg_shapes = shapes_by_name(out, arg)
    assert arg_shapes["data"] == (10, 64)
    assert arg_shapes["x2h_weight"] == (128, 64)
    assert arg_shapes["h2h_weight"] == ()
    assert out_shapes == [(10, 128)]
    arg, _, _ = out.infer_shape(data=(10, 64), prevstate=(10, 128))
    assert shapes_by_name(out, arg)["h2h_weight"] == (128, 128)


def test_shape_completely_unknown():
    ret = mx.sym.sin(mx.sym.var("data"))
    arg_shapes, out_shapes, _ = ret.infer_shape_partial()
    assert arg_shapes == [()]
    assert out_shapes == [()]


def test_backward_infer_through_identity_with_attr_like_rhs():
    if not hasattr(mx.sym._internal, "_identity_with_attr_like_rhs"):
        pytest.skip("operator _identity_with_attr_like_rhs is not registered in this build")
    w = mx.sym.Variable("weight")
    wshift = mx.sym.Variable("wshift", shape=(1,))
    data = mx.sym.Variable("data")
    wt = mx.sym.broadcast_add(w, wshift)
    wt = mx.sym._internal._identity_with_attr_like_rhs(wt, w)
    net = mx.sym.FullyConnected(data=data, weight=wt, num_hidden=11, no_bias=True)
    arg_shapes, _, _ = net.infer_shape(data=(7, 100))
    assert shapes_by_name(net, arg_shapes)["weight"] == (11, 100)


@pytest.mark.xfail(reason="C side: shape inference only runs an op once its first input is fully known and "
                          "merges only fully known results, so partly known shapes (0 dims) do not propagate",
                   strict=True)
def test_incomplete_infer_elemwise():
    a = mx.sym.Variable("a", shape=(0, 10))
    b = mx.sym.Variable("b", shape=(12, 0))
    c = a + b
    arg_shapes, _, _ = c.infer_shape()
    assert shapes_by_name(c, arg_shapes) == {"a": (12, 10), "b": (12, 10)}


@pytest.mark.xfail(reason="C side: shape inference only runs an op once its first input is fully known and "
                          "merges only fully known results, so partly known shapes (0 dims) do not propagate",
                   strict=True)
def test_incomplete_infer_mlp():
    a = mx.sym.Variable("a", shape=(0, 10))
    b = mx.sym.FullyConnected(data=a, num_hidden=21)
    c = mx.sym.Variable("c", shape=(5, 0))
    d = b + c
    arg_shapes, _, _ = d.infer_shape()
    s = shapes_by_name(d, arg_shapes)
    assert s["a"] == (5, 10)
    assert s["c"] == (5, 21)


@pytest.mark.xfail(reason="C side: shape inference only runs an op once its first input is fully known and "
                          "merges only fully known results, so partly known shapes (0 dims) do not propagate",
                   strict=True)
def test_incomplete_infer_slicechannel():
    a = mx.sym.Variable("a", shape=(0, 10))
    b = mx.sym.SliceChannel(data=a, num_outputs=10, axis=1, squeeze_axis=True)
    c = mx.sym.Variable("c", shape=(5,))
    d = b[1] + c
    arg_shapes, _, _ = d.infer_shape()
    assert shapes_by_name(d, arg_shapes)["a"] == (5, 10)

    a = mx.sym.Variable("a", shape=(0, 15, 0))
    b = mx.sym.SliceChannel(data=a, num_outputs=3, squeeze_axis=False)
    c = mx.sym.Variable("c", shape=(3, 5, 2))
    d = b[1] + c
    arg_shapes, _, _ = d.infer_shape()
    assert shapes_by_name(d, arg_shapes)["a"] == (3, 15, 2)


@pytest.mark.xfail(reason="C side: shape inference only runs an op once its first input is fully known and "
                          "merges only fully known results, so partly known shapes (0 dims) do not propagate",
                   strict=True)
def test_incomplete_infer_convolution():
    a = mx.sym.Variable("a", shape=(0, 10, 0, 0))
    b = mx.sym.Convolution(data=a, num_filter=21, kernel=(3, 3), dilate=(1, 1), pad=(1, 1))
    c = mx.sym.Variable("c", shape=(5, 21, 32, 32))
    d = b + c
    arg_shapes, _, _ = d.infer_shape()
    assert shapes_by_name(d, arg_shapes)["a"] == (5, 10, 32, 32)


@pytest.mark.xfail(reason="C side: shape inference only runs an op once its first input is fully known and "
                          "merges only fully known results, so partly known shapes (0 dims) do not propagate",
                   strict=True)
def test_incomplete_infer_concat():
    a = mx.sym.Variable("a", shape=(0, 10))
    b = mx.sym.Variable("b", shape=(0, 5))
    c = mx.sym.Concat(a, b, num_args=2, dim=1)
    d = mx.sym.Variable("d", shape=(2, 0))
    d = d + c
    arg_shapes, _, _ = d.infer_shape()
    s = shapes_by_name(d, arg_shapes)
    assert s["a"] == (2, 10)
    assert s["b"] == (2, 5)
    assert s["d"] == (2, 15)


@pytest.mark.xfail(reason="C side: shape inference only runs an op once its first input is fully known and "
                          "merges only fully known results, so partly known shapes (0 dims) do not propagate",
                   strict=True)
def test_partial_shapes_through_ops():
    x, y = mx.sym.Variable("x"), mx.sym.Variable("y")
    _, result, _ = mx.sym.dot(x, y).infer_shape_partial(x=(0, 3, 4), y=(4, 5))
    assert result == [(0, 3, 5)]
    z = mx.sym.batch_dot(x, y)
    _, result, _ = z.infer_shape_partial(x=(0, 3, 4), y=(0, 4, 5))
    assert result == [(0, 3, 5)]
    _, result, _ = mx.sym.Embedding(data=x, weight=y, input_dim=100, output_dim=10).infer_shape_partial(
        x=(0, 5), y=(100, 10))
    assert result == [(0, 5, 10)]
    _, result, _ = mx.sym.transpose(x, axes=[0, 3, 2, 1]).infer_shape_partial(x=(0, 3, 224, 224))
    assert result == [(0, 224, 224, 3)]


def test_infer_shape_argument_errors():
    out = mlp2()
    with pytest.raises(TypeError):
        out.infer_shape(data="100x100")
    with pytest.raises(ValueError):
        out.infer_shape((100, 100), fc1_weight=(1000, 100))


# ---- types --------------------------------------------------------------------------------------
def test_fc_infer_type():
    out = mx.sym.FullyConnected(data=mx.sym.Variable("data"), name="fc1", num_hidden=1000)
    arg_types, out_types, aux_types = out.infer_type(data=np.float32)
    assert out_types == [np.float32]
    assert dict(zip(out.list_arguments(), arg_types)) == {"data": np.float32, "fc1_weight": np.float32,
                                                          "fc1_bias": np.float32}
    assert aux_types == []
    arg_types, out_types, _ = out.infer_type(data="float64")
    assert arg_types == [np.float64] * 3 and out_types == [np.float64]


def test_infer_type_through_cast_and_partial():
    data = mx.sym.Variable("data")
    f32data = mx.sym.Cast(data=data, dtype="float32")
    fc1 = mx.sym.FullyConnected(data=f32data, name="fc1", num_hidden=128)
    mlp = mx.sym.SoftmaxOutput(data=fc1, name="softmax")
    arg, out, aux = mlp.infer_type(data=np.float16)
    assert arg == [np.float16, np.float32, np.float32, np.float32]
    assert out == [np.float32]
    assert aux == []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert mlp.infer_type() == (None, None, None)
    assert any("Cannot decide type" in str(w.message) for w in caught)


def test_infer_type_partial_through_cast():
    data = mx.sym.Variable("data")
    fc1 = mx.sym.FullyConnected(data=mx.sym.Cast(data=data, dtype="float32"), name="fc1", num_hidden=128)
    mlp = mx.sym.SoftmaxOutput(data=fc1, name="softmax")
    arg, out, aux = mlp.infer_type_partial()
    assert arg == [None, np.float32, np.float32, np.float32]
    assert out == [np.float32]


def test_infer_type_mismatch_is_an_error():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    with pytest.raises(mx.MXNetError):
        (a + b).infer_type(a=np.float32, b=np.float64)


def test_batchnorm_aux_types():
    bn = mx.sym.BatchNorm(mx.sym.var("data"), name="bn")
    arg, out, aux = bn.infer_type(data=np.float32)
    assert aux == [np.float32, np.float32]
    assert out == [np.float32]
