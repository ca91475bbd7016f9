"""mx.executor.Executor via Symbol.bind / simple_bind: forward and backward against numpy,
grad_req handling, argument forms, reshape, monitor callbacks and the memory plan."""
import numpy as np
import pytest

import mxnet as mx


def rand(*shape, low=-1.0, high=1.0, seed=None):
    rng = np.random.RandomState(seed)
    return rng.uniform(low, high, shape).astype(np.float32)


# ---- binary ops: forward and gradients vs numpy --------------------------------------------------
BINARY = [
    ("add", lambda a, b: a + b, lambda x, y: x + y, lambda g, x, y: (g, g)),
    ("sub", lambda a, b: a - b, lambda x, y: x - y, lambda g, x, y: (g, -g)),
    ("mul", lambda a, b: a * b, lambda x, y: x * y, lambda g, x, y: (g * y, g * x)),
    ("div", lambda a, b: a / b, lambda x, y: x / y, lambda g, x, y: (g / y, -x * g / (y ** 2))),
    ("maximum", mx.sym.maximum, np.maximum, lambda g, x, y: (g * (x >= y), g * (y > x))),
    ("minimum", mx.sym.minimum, np.minimum, lambda g, x, y: (g * (x <= y), g * (y < x))),
]


def check_bind(sym_fn, np_fn, grad_fn, lshape, rshape, seed=0):
    lhs, rhs = mx.sym.Variable("lhs"), mx.sym.Variable("rhs")
    ret = sym_fn(lhs, rhs)
    assert ret.list_arguments() == ["lhs", "rhs"]
    x = rand(*lshape, seed=seed)
    y = rand(*rshape, seed=seed + 1)
    y[np.abs(y) < 0.1] = 0.5  # keep away from division by ~0
    lhs_arr, rhs_arr = mx.nd.array(x), mx.nd.array(y)
    lhs_grad, rhs_grad = mx.nd.empty(lshape), mx.nd.empty(rshape)
    exe1 = ret.bind(mx.cpu(), args=[lhs_arr, rhs_arr], args_grad=[lhs_grad, rhs_grad])
    exe2 = ret.bind(mx.cpu(), args=[lhs_arr, rhs_arr])
    exe3 = ret.bind(mx.cpu(), args={"rhs": rhs_arr, "lhs": lhs_arr},
                    args_grad={"lhs": lhs_grad, "rhs": rhs_grad})
    want = np_fn(x, y)
    for exe in (exe1, exe2, exe3):
        exe.forward()
        np.testing.assert_allclose(exe.outputs[0].asnumpy(), want, rtol=1e-5, atol=1e-6)
    g = rand(*want.shape, seed=seed + 2)
    gx, gy = grad_fn(g, x, y)
    exe1.backward([mx.nd.array(g)])
    np.testing.assert_allclose(lhs_grad.asnumpy(), gx, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(rhs_grad.asnumpy(), gy, rtol=1e-4, atol=1e-5)
    assert exe2.grad_arrays == [None, None]


@pytest.mark.parametrize("name,sym_fn,np_fn,grad_fn", BINARY, ids=[b[0] for b in BINARY])
@pytest.mark.parametrize("shape", [(7,), (4, 5), (2, 3, 4)])
def test_bind_binary_ops(name, sym_fn, np_fn, grad_fn, shape):
    check_bind(sym_fn, np_fn, grad_fn, shape, shape)


@pytest.mark.parametrize("bulk", ["0", "1"])
def test_bind_with_and_without_bulking(run_python, bulk):
    code = ("import numpy as np, mxnet as mx\n"
            "a, b = mx.sym.var('a'), mx.sym.var('b')\n"
            "out = ((a + b) * a - b) / (b * b + 1)\n"
            "x = np.linspace(-1, 1, 12).reshape(3, 4).astype(np.float32); y = x[::-1].copy() + 0.5\n"
            "ga, gb = mx.nd.zeros((3, 4)), mx.nd.zeros((3, 4))\n"
            "exe = out.bind(mx.cpu(), {'a': mx.nd.array(x), 'b': mx.nd.array(y)}, {'a': ga, 'b': gb})\n"
            "exe.forward(is_train=True); exe.backward(mx.nd.ones((3, 4)))\n"
            "want = ((x + y) * x - y) / (y * y + 1)\n"
            "assert np.allclose(exe.outputs[0].asnumpy(), want, rtol=1e-5, atol=1e-6)\n"
            "d = y * y + 1\n"
            "assert np.allclose(ga.asnumpy(), (2 * x + y) / d, rtol=1e-4, atol=1e-5)\n"
            "gb_want = (x - 1) / d - ((x + y) * x - y) * 2 * y / d ** 2\n"
            "assert np.allclose(gb.asnumpy(), gb_want, rtol=1e-4, atol=1e-5)\n"
            "print('ok')\n")
    r = run_python(code, MXNET_EXEC_BULK_EXEC_INFERENCE=bulk, MXNET_EXEC_BULK_EXEC_TRAIN=bulk)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"


def test_dot():
    check_bind(mx.sym.dot, np.dot, lambda g, x, y: (np.dot(g, y.T), np.dot(x.T, g)), (5, 7), (7, 3))
    check_bind(mx.sym.dot, lambda x, y: np.array([np.dot(x, y)]), lambda g, x, y: (g * y, g * x), (6,), (6,))


def test_fully_connected_forward_backward():
    x, w, b = rand(4, 6, seed=1), rand(3, 6, seed=2), rand(3, seed=3)
    fc = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3, name="fc")
    grads = {n: mx.nd.zeros(s) for n, s in (("data", (4, 6)), ("fc_weight", (3, 6)), ("fc_bias", (3,)))}
    exe = fc.bind(mx.cpu(), {"data": mx.nd.array(x), "fc_weight": mx.nd.array(w), "fc_bias": mx.nd.array(b)},
                  args_grad=grads)
    out = exe.forward(is_train=True)[0].asnumpy()
    np.testing.assert_allclose(out, x @ w.T + b, rtol=1e-5, atol=1e-6)
    g = rand(4, 3, seed=4)
    exe.backward(mx.nd.array(g))
    np.testing.assert_allclose(grads["data"].asnumpy(), g @ w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(grads["fc_weight"].asnumpy(), g.T @ x, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(grads["fc_bias"].asnumpy(), g.sum(0), rtol=1e-5, atol=1e-6)
    assert exe.grad_dict["fc_weight"] is grads["fc_weight"]


def _im2col(x, kh, kw, stride, pad):
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = (h + 2 * pad - kh) // stride + 1, (w + 2 * pad - kw) // stride + 1
    cols = np.empty((n, oh, ow, c, kh, kw), dtype=x.dtype)
    for i in range(oh):
        for j in range(ow):
            cols[:, i, j] = xp[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
    return cols, (oh, ow)


def _col2im(dcols, xshape, kh, kw, stride, pad):
    n, c, h, w = xshape
    dxp = np.zeros((n, c, h + 2 * pad, w + 2 * pad), dtype=dcols.dtype)
    oh, ow = dcols.shape[1:3]
    for i in range(oh):
        for j in range(ow):
            dxp[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw] += dcols[:, i, j]
    return dxp[:, :, pad:pad + h, pad:pad + w]


def test_convolution_forward_backward():
    x, w, b = rand(2, 3, 7, 7, seed=5), rand(4, 3, 3, 3, seed=6), rand(4, seed=7)
    conv = mx.sym.Convolution(mx.sym.var("data"), kernel=(3, 3), stride=(2, 2), pad=(1, 1), num_filter=4,
                              name="conv")
    exe = conv.simple_bind(mx.cpu(), data=x.shape)
    assert exe.arg_dict["conv_weight"].shape == w.shape
    exe.copy_params_from({"conv_weight": mx.nd.array(w), "conv_bias": mx.nd.array(b)})
    out = exe.forward(is_train=True, data=mx.nd.array(x))[0].asnumpy()
    cols, (oh, ow) = _im2col(x.astype(np.float64), 3, 3, 2, 1)
    wmat = w.reshape(4, -1).astype(np.float64)
    want = (cols.reshape(2, oh, ow, -1) @ wmat.T + b).transpose(0, 3, 1, 2)
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-5)
    g = rand(*want.shape, seed=8).astype(np.float64)
    exe.backward(mx.nd.array(g))
    gmat = g.transpose(0, 2, 3, 1)  # n, oh, ow, f
    dw = np.einsum("nijf,nijk->fk", gmat, cols.reshape(2, oh, ow, -1)).reshape(w.shape)
    dcols = (gmat @ wmat).reshape(cols.shape)
    dx = _col2im(dcols, x.shape, 3, 3, 2, 1)
    np.testing.assert_allclose(exe.grad_dict["conv_weight"].asnumpy(), dw, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(exe.grad_dict["conv_bias"].asnumpy(), g.sum(axis=(0, 2, 3)), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(exe.grad_dict["data"].asnumpy(), dx, rtol=1e-4, atol=1e-4)


def test_chain_of_ops_mlp_gradients():
    x, w1, w2 = rand(5, 4, seed=9), rand(6, 4, seed=10), rand(3, 6, seed=11)
    data = mx.sym.var("data")
    h = mx.sym.FullyConnected(data, num_hidden=6, no_bias=True, name="fc1")
    a = mx.sym.Activation(h, act_type="tanh", name="act")
    out = mx.sym.FullyConnected(a, num_hidden=3, no_bias=True, name="fc2")
    exe = out.simple_bind(mx.cpu(), data=(5, 4))
    exe.copy_params_from({"fc1_weight": mx.nd.array(w1), "fc2_weight": mx.nd.array(w2)})
    exe.forward(is_train=True, data=x)
    hv = x @ w1.T
    av = np.tanh(hv)
    np.testing.assert_allclose(exe.outputs[0].asnumpy(), av @ w2.T, rtol=1e-5, atol=1e-5)
    g = rand(5, 3, seed=12)
    exe.backward([mx.nd.array(g)])
    da = g @ w2
    dh = da * (1 - av ** 2)
    np.testing.assert_allclose(exe.grad_dict["fc2_weight"].asnumpy(), g.T @ av, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(exe.grad_dict["fc1_weight"].asnumpy(), dh.T @ x, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(exe.grad_dict["data"].asnumpy(), dh @ w1, rtol=1e-4, atol=1e-5)


# ---- grad_req -----------------------------------------------------------------------------------
def _mul_exe(grad_req, grads=True):
    a, b = mx.sym.var("a"), mx.sym.var("b")
    x, y = rand(3, seed=20), rand(3, seed=21)
    args = {"a": mx.nd.array(x), "b": mx.nd.array(y)}
    grad_arrays = {"a": mx.nd.ones((3,)), "b": mx.nd.ones((3,))} if grads else None
    exe = (a * b).bind(mx.cpu(), args, args_grad=grad_arrays, grad_req=grad_req)
    return exe, x, y, grad_arrays


def test_grad_req_write_add_null():
    exe, x, y, grads = _mul_exe("write")
    for _ in range(2):
        exe.forward(is_train=True)
        exe.backward(mx.nd.ones((3,)))
    np.testing.assert_allclose(grads["a"].asnumpy(), y, rtol=1e-6)

    exe, x, y, grads = _mul_exe("add")
    for _ in range(2):
        exe.forward(is_train=True)
        exe.backward(mx.nd.ones((3,)))
    np.testing.assert_allclose(grads["a"].asnumpy(), 1 + 2 * y, rtol=1e-6)  # started at ones
    np.testing.assert_allclose(grads["b"].asnumpy(), 1 + 2 * x, rtol=1e-6)

    exe, x, y, grads = _mul_exe("null")
    exe.forward(is_train=True)
    exe.backward(mx.nd.ones((3,)))
    np.testing.assert_array_equal(grads["a"].asnumpy(), np.ones(3))


def test_grad_req_list_and_dict():
    exe, x, y, grads = _mul_exe(["null", "write"])
    exe.forward(is_train=True)
    exe.backward(mx.nd.ones((3,)))
    np.testing.assert_array_equal(grads["a"].asnumpy(), np.ones(3))
    np.testing.assert_allclose(grads["b"].asnumpy(), x, rtol=1e-6)

    exe, x, y, grads = _mul_exe({"a": "add"})  # b missing -> null
    exe.forward(is_train=True)
    exe.backward(mx.nd.ones((3,)))
    np.testing.assert_allclose(grads["a"].asnumpy(), 1 + y, rtol=1e-6)
    np.testing.assert_array_equal(grads["b"].asnumpy(), np.ones(3))

    with pytest.raises(ValueError):
        _mul_exe("sometimes")


def test_none_grad_array_forces_null():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    ga = mx.nd.zeros((3,))
    exe = (a * b).bind(mx.cpu(), [mx.nd.array([1, 2, 3]), mx.nd.array([4, 5, 6])], args_grad=[ga, None])
    exe.forward(is_train=True)
    exe.backward(mx.nd.ones((3,)))
    np.testing.assert_array_equal(ga.asnumpy(), [4, 5, 6])
    assert exe.grad_dict["b"] is None


def test_simple_bind_grad_req_forms():
    net = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2, name="fc")
    exe = net.simple_bind(mx.cpu(), data=(3, 4))
    assert all(g is not None for g in exe.grad_arrays)
    exe = net.simple_bind(mx.cpu(), grad_req="null", data=(3, 4))
    assert exe.grad_arrays == [None, None, None]
    exe = net.simple_bind(mx.cpu(), grad_req={"fc_weight": "write"}, data=(3, 4))
    assert [g is not None for g in exe.grad_arrays] == [False, True, False]
    exe = net.simple_bind(mx.cpu(), grad_req=["null", "write", "add"], data=(3, 4))
    assert [g is not None for g in exe.grad_arrays] == [False, True, True]
    assert exe.grad_dict["fc_bias"].shape == (2,)


# ---- argument forms and errors ------------------------------------------------------------------
def test_bind_argument_errors():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    c = a + b
    with pytest.raises(ValueError, match="key `b` is missing in `args`"):
        c.bind(mx.cpu(), {"a": mx.nd.ones((2,))})
    with pytest.raises(ValueError):
        c.bind(mx.cpu(), [mx.nd.ones((2,))])
    with pytest.raises(TypeError):
        c.bind(mx.cpu(), [np.ones(2), np.ones(2)])
    with pytest.raises(TypeError):
        c.bind("cpu", [mx.nd.ones((2,)), mx.nd.ones((2,))])
    with pytest.raises(mx.MXNetError):
        c.bind(mx.cpu(), [mx.nd.ones((2,)), mx.nd.ones((3,))])  # inconsistent shapes


def test_simple_bind_allocates_zeros_and_infers_shapes():
    net = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=5, name="fc")
    net = mx.sym.BatchNorm(net, name="bn")
    exe = net.simple_bind(mx.cpu(), data=(4, 3))
    assert [a.shape for a in exe.arg_arrays] == [(4, 3), (5, 3), (5,), (5,), (5,)]
    assert [a.shape for a in exe.aux_arrays] == [(5,), (5,)]
    assert sorted(exe.aux_dict) == ["bn_moving_mean", "bn_moving_var"]
    for arr in exe.arg_arrays + exe.grad_arrays:
        np.testing.assert_array_equal(arr.asnumpy(), np.zeros(arr.shape))
    assert exe.outputs[0].shape == (4, 5)
    assert list(exe.output_dict) == ["bn_output"]
    with pytest.raises(RuntimeError, match="simple_bind error"):
        net.simple_bind(mx.cpu(), data=(4, 3), fc_weight=(7, 7))


def test_simple_bind_type_dict():
    net = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2, name="fc")
    exe = net.simple_bind(mx.cpu(), type_dict={"data": np.float64}, data=(3, 4))
    assert all(a.dtype == np.float64 for a in exe.arg_arrays)
    assert exe.outputs[0].dtype == np.float64
    dvar = mx.sym.var("data", dtype=np.float16)
    exe = mx.sym.FullyConnected(dvar, num_hidden=2, name="fc").simple_bind(mx.cpu(), data=(3, 4))
    assert exe.arg_dict["data"].dtype == np.float16
    assert exe.arg_dict["fc_weight"].dtype == np.float16


def test_forward_kwargs_copy_and_check_shapes():
    a = mx.sym.var("a")
    exe = (a * 2).simple_bind(mx.cpu(), a=(2, 3))
    out = exe.forward(a=np.ones((2, 3), dtype=np.float32))
    np.testing.assert_array_equal(out[0].asnumpy(), np.full((2, 3), 2))
    np.testing.assert_array_equal(exe.arg_dict["a"].asnumpy(), np.ones((2, 3)))
    with pytest.raises(ValueError, match="Shape not match!"):
        exe.forward(a=mx.nd.ones((3, 2)))
    with pytest.raises(TypeError):
        exe.forward(b=mx.nd.ones((2, 3)))


def test_outputs_are_fixed_buffers_refreshed_by_forward():
    a = mx.sym.var("a")
    exe = (a + 1).simple_bind(mx.cpu(), a=(2,))
    first = exe.forward(a=mx.nd.array([1, 2]))[0]
    np.testing.assert_array_equal(first.asnumpy(), [2, 3])
    exe.forward(a=mx.nd.array([10, 20]))
    np.testing.assert_array_equal(exe.outputs[0].asnumpy(), [11, 21])
    np.testing.assert_array_equal(first.asnumpy(), [11, 21])  # the same buffer, overwritten


def test_backward_out_grads_forms():
    a = mx.sym.var("a")
    net = mx.sym.Group([a * 2, a * 3])
    exe = net.simple_bind(mx.cpu(), a=(2,))
    names = net.list_outputs()
    exe.forward(is_train=True, a=mx.nd.array([1, 1]))
    exe.backward({names[1]: mx.nd.array([1, 1]), names[0]: mx.nd.array([10, 10])})
    np.testing.assert_array_equal(exe.grad_dict["a"].asnumpy(), [23, 23])
    exe.backward([mx.nd.array([1, 0]), mx.nd.array([0, 1])])
    np.testing.assert_array_equal(exe.grad_dict["a"].asnumpy(), [2, 3])
    with pytest.raises(TypeError):
        exe.backward([np.ones(2), np.ones(2)])


def test_loss_output_needs_no_head_gradient():
    data, label = mx.sym.var("data"), mx.sym.var("label")
    out = mx.sym.SoftmaxOutput(data, label, name="sm")
    exe = out.simple_bind(mx.cpu(), data=(2, 3), label=(2,))
    x = np.array([[1, 2, 3], [1, 1, 1]], dtype=np.float32)
    exe.forward(is_train=True, data=x, label=np.array([2, 0], dtype=np.float32))
    exe.backward()
    p = np.exp(x) / np.exp(x).sum(1, keepdims=True)
    onehot = np.eye(3)[[2, 0]]
    np.testing.assert_allclose(exe.grad_dict["data"].asnumpy(), p - onehot, rtol=1e-5, atol=1e-6)


def test_duplicate_output_names_raise():
    a = mx.sym.var("a")
    exe = mx.sym.Group([a, a]).bind(mx.cpu(), {"a": mx.nd.ones((2,))})
    exe.forward()
    assert len(exe.outputs) == 2
    with pytest.raises(ValueError, match="Duplicate names"):
        exe.output_dict


def test_copy_params_from_casts_and_checks_names():
    net = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2, name="fc")
    exe = net.simple_bind(mx.cpu(), type_dict={"data": np.float64}, data=(1, 3))
    w = np.arange(6, dtype=np.float32).reshape(2, 3)
    exe.copy_params_from({"fc_weight": mx.nd.array(w)})
    assert exe.arg_dict["fc_weight"].dtype == np.float64
    np.testing.assert_array_equal(exe.arg_dict["fc_weight"].asnumpy(), w)
    with pytest.raises(ValueError):
        exe.copy_params_from({"nope": mx.nd.ones((1,))})
    exe.copy_params_from({"nope": mx.nd.ones((1,))}, allow_extra_params=True)
    with pytest.raises(ValueError):
        exe.copy_params_from({}, {"nope_aux": mx.nd.ones((1,))})


def test_batchnorm_training_updates_moving_stats():
    data = mx.sym.var("data")
    bn = mx.sym.BatchNorm(data, name="bn", momentum=0.9, fix_gamma=False, eps=1e-5)
    exe = bn.simple_bind(mx.cpu(), data=(8, 3))
    x = rand(8, 3, seed=30) * 3 + 1
    exe.copy_params_from({"bn_gamma": mx.nd.ones((3,)), "bn_beta": mx.nd.zeros((3,))},
                         {"bn_moving_mean": mx.nd.zeros((3,)), "bn_moving_var": mx.nd.ones((3,))})
    out = exe.forward(is_train=True, data=x)[0].asnumpy()
    mean, var = x.mean(0), x.var(0)
    np.testing.assert_allclose(out, (x - mean) / np.sqrt(var + 1e-5), rtol=1e-4, atol=1e-4)
    exe.backward(mx.nd.ones((8, 3)))
    np.testing.assert_allclose(exe.aux_dict["bn_moving_mean"].asnumpy(), 0.1 * mean, rtol=1e-4, atol=1e-5)
    # inference uses the moving statistics
    mm, mv = exe.aux_dict["bn_moving_mean"].asnumpy(), exe.aux_dict["bn_moving_var"].asnumpy()
    out = exe.forward(is_train=False, data=x)[0].asnumpy()
    np.testing.assert_allclose(out, (x - mm) / np.sqrt(mv + 1e-5), rtol=1e-4, atol=1e-4)


# ---- reshape ------------------------------------------------------------------------------------
def test_reshape_shares_parameters_and_memory():
    x = mx.sym.Variable("x")
    y = mx.sym.FullyConnected(x, num_hidden=4)
    exe = y.simple_bind(mx.cpu(), x=(5, 4), grad_req="null")
    exe.arg_arrays[0][:] = 1
    exe.arg_arrays[1][:] = mx.nd.ones((4, 4))
    exe.arg_arrays[2][:] = 0
    new_exe = exe.reshape(x=(3, 4))
    assert new_exe.arg_arrays[0].shape == (3, 4)
    assert new_exe.outputs[0].shape == (3, 4)
    new_exe.forward(is_train=False)
    np.testing.assert_array_equal(new_exe.outputs[0].asnumpy(), np.full((3, 4), 4))
    exe.forward(is_train=False)
    np.testing.assert_array_equal(exe.outputs[0].asnumpy(), np.full((5, 4), 4))
    # the weight is the same array in both executors
    new_exe.arg_arrays[1][:] = 2
    np.testing.assert_array_equal(exe.arg_arrays[1].asnumpy(), np.full((4, 4), 2))
    exe.forward(is_train=False)
    np.testing.assert_array_equal(exe.outputs[0].asnumpy(), np.full((5, 4), 8))


def test_reshape_up_sizing_needs_permission():
    x = mx.sym.Variable("x")
    y = mx.sym.FullyConnected(x, num_hidden=4, name="fc")
    exe = y.simple_bind(mx.cpu(), x=(2, 4))
    with pytest.raises(mx.MXNetError, match="larger than original"):
        exe.reshape(x=(6, 4))
    big = exe.reshape(allow_up_sizing=True, x=(6, 4))
    assert big.arg_dict["x"].shape == (6, 4)
    assert big.grad_dict["x"].shape == (6, 4)
    big.arg_dict["fc_weight"][:] = 1
    big.forward(x=np.ones((6, 4), dtype=np.float32))
    np.testing.assert_array_equal(big.outputs[0].asnumpy(), np.full((6, 4), 4))
    np.testing.assert_array_equal(exe.arg_dict["fc_weight"].asnumpy(), np.ones((4, 4)))


# ---- inspection ---------------------------------------------------------------------------------
def _mlp():
    data = mx.sym.var("data")
    net = mx.sym.FullyConnected(data, num_hidden=4, name="fc1")
    net = mx.sym.Activation(net, act_type="relu", name="act1")
    return mx.sym.FullyConnected(net, num_hidden=2, name="fc2")


def test_monitor_callback_sees_op_outputs():
    exe = _mlp().simple_bind(mx.cpu(), data=(3, 5))
    seen = []

    def callback(name, handle):
        seen.append(name.decode() if isinstance(name, bytes) else name)
        arr = mx.nd.NDArray(mx.base.NDArrayHandle(handle))  # the callback owns the handle
        assert arr.shape is not None
    exe.set_monitor_callback(callback)
    exe.forward(is_train=False, data=np.ones((3, 5), dtype=np.float32))
    mx.nd.waitall()
    assert seen == ["fc1_output", "act1_output", "fc2_output"]
    seen.clear()
    exe.set_monitor_callback(callback, monitor_all=True)
    exe.forward(is_train=False)
    mx.nd.waitall()
    for name in ("data", "fc1_weight", "fc1_output", "act1_output", "fc2_output"):
        assert name in seen, (name, seen)
    assert seen.index("fc1_weight") < seen.index("fc1_output")


def test_monitor_callback_sees_backward_outputs():
    exe = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=4, name="fc1").simple_bind(mx.cpu(), data=(3, 5))
    seen = []

    def callback(name, handle):
        mx.nd.NDArray(mx.base.NDArrayHandle(handle))  # the callback owns (and here frees) the handle
        seen.append(name.decode())
    exe.set_monitor_callback(callback)
    exe.forward(is_train=True)
    exe.backward(mx.nd.ones((3, 4)))
    mx.nd.waitall()
    assert seen[0] == "fc1_output"
    assert "fc1_backward_output0" in seen


def test_debug_str_and_optimized_symbol_and_memory_plan():
    exe = _mlp().simple_bind(mx.cpu(), data=(3, 5))
    text = exe.debug_str()
    assert "Op:FullyConnected, Name=fc1" in text
    assert "MB allocated" in text
    opt = exe.get_optimized_symbol()
    assert isinstance(opt, mx.sym.Symbol)
    assert opt.list_arguments() == ["data", "fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias"]
    plan = exe.memory_plan()
    assert set(plan) == {"planned_bytes", "unshared_bytes", "num_inplace", "num_shared"}
    assert 0 < plan["planned_bytes"] <= plan["unshared_bytes"]


def test_stop_gradient_memory_equals_null_grad_memory():
    data = mx.sym.var("data")
    w = mx.sym.var("w")
    net = mx.sym.FullyConnected(data, w, num_hidden=8, no_bias=True, name="fc")
    stopped = mx.sym.FullyConnected(mx.sym.stop_gradient(data), w, num_hidden=8, no_bias=True, name="fc")
    a = stopped.simple_bind(mx.cpu(), data=(16, 32))
    b = net.simple_bind(mx.cpu(), grad_req={"w": "write"}, data=(16, 32))
    assert a.memory_plan()["planned_bytes"] <= b.memory_plan()["planned_bytes"] + 16 * 32 * 4


def test_long_sum_binds_without_cycle():
    xs = [mx.sym.var("x%d" % i) for i in range(8)]
    total = xs[0]
    for x in xs[1:]:
        total = total + x
    args = {"x%d" % i: mx.nd.full((2,), i) for i in range(8)}
    exe = total.bind(mx.cpu(), args)
    np.testing.assert_array_equal(exe.forward()[0].asnumpy(), [28, 28])


# ---- sharing between executors (bucketing) ------------------------------------------------------
def test_simple_bind_shares_args_and_buffer_with_shared_exec():
    net = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3, name="fc")
    big = net.simple_bind(mx.cpu(), data=(4, 5))
    big.arg_dict["fc_weight"][:] = 1
    buf = {}
    small = net.simple_bind(mx.cpu(), data=(2, 5), shared_arg_names=["fc_weight", "fc_bias"], shared_exec=big,
                            shared_buffer=buf)
    # shared parameters are the big executor's arrays
    np.testing.assert_array_equal(small.arg_dict["fc_weight"].asnumpy(), np.ones((3, 5)))
    small.arg_dict["fc_bias"][:] = 7
    np.testing.assert_array_equal(big.arg_dict["fc_bias"].asnumpy(), np.full((3,), 7))
    # the others were allocated into the shared buffer, which the call updated in place
    assert "data" in buf and buf["data"].shape == (2, 5)
    out = small.forward(data=np.ones((2, 5), dtype=np.float32))[0].asnumpy()
    np.testing.assert_array_equal(out, np.full((2, 3), 12))
    smaller = net.simple_bind(mx.cpu(), data=(1, 5), shared_arg_names=["fc_weight", "fc_bias"], shared_exec=big,
                              shared_buffer=buf)
    assert smaller.arg_dict["data"].shape == (1, 5)
    smaller.arg_dict["data"][:] = 3
    np.testing.assert_array_equal(buf["data"].asnumpy()[0], np.full((5,), 3))  # a view of the buffer entry


def test_bind_with_shared_exec_runs():
    net = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2, name="fc")
    first = net.simple_bind(mx.cpu(), data=(3, 4))
    args = {"data": mx.nd.ones((3, 4)), "fc_weight": mx.nd.ones((2, 4)), "fc_bias": mx.nd.zeros((2,))}
    second = net.bind(mx.cpu(), args, shared_exec=first)
    np.testing.assert_array_equal(second.forward()[0].asnumpy(), np.full((3, 2), 4))


# ---- graph passes seen through the executor ------------------------------------------------------
_CSE_SCRIPT = r"""
import json, numpy as np, mxnet as mx
a, b, c = mx.sym.var('a'), mx.sym.var('b'), mx.sym.var('c')
d = a + 1
cases = [(a + 5) + (a + 5), (a + 1) + (a + 2), (1 + a) + (a + 1), (a + b) + (a + b),
         ((a + b) + c) + ((a + b) + c), mx.sym.Group([a * d, a * d]), mx.sym.Group([a * d + b, a * d + b]),
         mx.sym.Dropout(a) + mx.sym.Dropout(a)]
rng = np.random.RandomState(0)
data = {n: rng.uniform(size=(3, 4)).astype(np.float32) for n in 'abc'}
res = []
for sym in cases:
    shapes = {n: (3, 4) for n in sym.list_inputs()}
    exe = sym.simple_bind(mx.cpu(), **shapes)
    outs = exe.forward(is_train=True, **{n: data[n] for n in shapes})
    exe.backward([mx.nd.ones_like(o) for o in outs])
    grads = [g.asnumpy().tolist() for g in exe.grad_arrays]
    res.append({'internals': len(exe.get_optimized_symbol().get_internals()),
                'outs': [o.asnumpy().tolist() for o in outs], 'grads': grads})
print(json.dumps(res))
"""


def _cse_runs(run_python):
    import json
    runs = {}
    for flag in ("0", "1"):
        r = run_python(_CSE_SCRIPT, MXNET_ELIMINATE_COMMON_EXPR=flag)
        assert r.returncode == 0, r.stderr
        runs[flag] = json.loads(r.stdout.strip().splitlines()[-1])
    return runs


def test_common_expression_elimination_savings(run_python):
    runs = _cse_runs(run_python)
    expected_savings = [1, 0, 1, 1, 2, None, None, 0]  # cases 5, 6: see the test below
    for i, saving in enumerate(expected_savings):
        plain, cse = runs["0"][i], runs["1"][i]
        if saving is not None:
            assert plain["internals"] - cse["internals"] == saving, (i, plain["internals"], cse["internals"])
        if i < 7:  # dropout draws differ between runs
            np.testing.assert_allclose(np.array(cse["outs"]), np.array(plain["outs"]), rtol=1e-6)
            np.testing.assert_allclose(np.array(cse["grads"]), np.array(plain["grads"]), rtol=1e-6)


def test_cse_keeps_merged_outputs_distinct(run_python):
    runs = _cse_runs(run_python)
    assert runs["0"][5]["internals"] - runs["1"][5]["internals"] == 0
    assert runs["0"][6]["internals"] - runs["1"][6]["internals"] == 1


def test_stop_gradient_needs_no_more_memory_than_grad_req_null():
    import re
    data = mx.sym.var("data")
    for _ in range(6):
        data = data * data
    shape = (4, 3, 64, 64)
    big = data.simple_bind(mx.cpu(), data=shape)
    null = data.simple_bind(mx.cpu(), grad_req="null", data=shape)
    stopped = mx.sym.stop_gradient(data).simple_bind(mx.cpu(), data=shape)
    assert re.search(r"Total \d+ MB allocated", big.debug_str())
    assert big.memory_plan()["planned_bytes"] > stopped.memory_plan()["planned_bytes"]
    assert stopped.memory_plan()["planned_bytes"] == null.memory_plan()["planned_bytes"]
