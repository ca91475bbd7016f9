"""The C predict API (include/mxnet/c_predict_api.h) called through ctypes: outputs against the
executor and MXNet 1.9.1's stored outputs, partial outputs, reshape, partial forward, predictors
shared between threads, NDList, and a clean -1 with a message for every bad input."""
import ctypes
import glob
import os
import shutil
import subprocess
import threading

import numpy as np
import pytest

import mxnet as mx
from mxnet.base import _LIB
from conftest import REPO

FIXTURES = os.path.abspath(os.path.join(REPO, "..", "shared", "fixtures", "mxnet", "models"))
TOL = 1e-4

u32 = ctypes.c_uint32
vp = ctypes.c_void_p
P = ctypes.POINTER
c_strs = P(ctypes.c_char_p)
_SIGS = {
    "MXPredCreate": [ctypes.c_char_p, vp, ctypes.c_int, ctypes.c_int, ctypes.c_int, u32, c_strs, P(u32), P(u32),
                     P(vp)],
    "MXPredCreateEx": [ctypes.c_char_p, vp, ctypes.c_int, ctypes.c_int, ctypes.c_int, u32, c_strs, P(u32), P(u32),
                       u32, c_strs, P(ctypes.c_int), P(vp)],
    "MXPredCreatePartialOut": [ctypes.c_char_p, vp, ctypes.c_int, ctypes.c_int, ctypes.c_int, u32, c_strs, P(u32),
                               P(u32), u32, c_strs, P(vp)],
    "MXPredCreateMultiThread": [ctypes.c_char_p, vp, ctypes.c_int, ctypes.c_int, ctypes.c_int, u32, c_strs, P(u32),
                                P(u32), ctypes.c_int, P(vp)],
    "MXPredReshape": [u32, c_strs, P(u32), P(u32), vp, P(vp)],
    "MXPredGetOutputShape": [vp, u32, P(P(u32)), P(u32)],
    "MXPredGetOutputType": [vp, u32, P(ctypes.c_int)],
    "MXPredSetInput": [vp, ctypes.c_char_p, P(ctypes.c_float), u32],
    "MXPredForward": [vp],
    "MXPredPartialForward": [vp, ctypes.c_int, P(ctypes.c_int)],
    "MXPredGetOutput": [vp, u32, P(ctypes.c_float), u32],
    "MXPredSetMonitorCallback": [vp, vp, vp, ctypes.c_bool],
    "MXPredFree": [vp],
    "MXNDListCreate": [ctypes.c_char_p, ctypes.c_int, P(vp), P(u32)],
    "MXNDListGet": [vp, u32, P(ctypes.c_char_p), P(P(ctypes.c_float)), P(P(u32)), P(u32)],
    "MXNDListFree": [vp],
}
for _name, _args in _SIGS.items():
    getattr(_LIB, _name).argtypes = _args
    getattr(_LIB, _name).restype = ctypes.c_int
MONITOR = ctypes.CFUNCTYPE(None, ctypes.c_char_p, vp, vp)


_LIB.MXGetLastError.restype = ctypes.c_char_p


def last_error():
    return _LIB.MXGetLastError().decode()


def ok(rc):
    assert rc == 0, last_error()


def fails(rc, *words):
    """rc must be -1 and the last error must contain every word."""
    assert rc == -1
    msg = last_error()
    for w in words:
        assert w in msg, "%r not in %r" % (w, msg)
    return msg


def strs(names):
    return (ctypes.c_char_p * len(names))(*[n.encode() for n in names])


def shape_args(shapes):
    """(indptr, data) for a list of shapes."""
    indptr, data = [0], []
    for s in shapes:
        data.extend(s)
        indptr.append(len(data))
    return (u32 * len(indptr))(*indptr), (u32 * max(len(data), 1))(*data)


def floats(a):
    a = np.ascontiguousarray(a, dtype=np.float32)
    return a.ctypes.data_as(P(ctypes.c_float)), a


class Pred:
    """A thin wrapper over a PredictorHandle."""

    def __init__(self, handle, input_names):
        self.handle, self.input_names = handle, input_names

    @classmethod
    def create(cls, json, params, inputs, out_keys=None, dev_type=1, dtypes=None):
        names, shapes = list(inputs), list(inputs.values())
        indptr, data = shape_args(shapes)
        h = vp()
        if out_keys is not None:
            ok(_LIB.MXPredCreatePartialOut(json.encode(), params, len(params), dev_type, 0, len(names), strs(names),
                                           indptr, data, len(out_keys), strs(out_keys), ctypes.byref(h)))
        elif dtypes is not None:
            dt = (ctypes.c_int * len(dtypes))(*dtypes.values())
            ok(_LIB.MXPredCreateEx(json.encode(), params, len(params), dev_type, 0, len(names), strs(names), indptr,
                                   data, len(dtypes), strs(list(dtypes)), dt, ctypes.byref(h)))
        else:
            ok(_LIB.MXPredCreate(json.encode(), params, len(params), dev_type, 0, len(names), strs(names), indptr,
                                 data, ctypes.byref(h)))
        return cls(h, names)

    def set_input(self, name, value):
        ptr, keep = floats(value)
        ok(_LIB.MXPredSetInput(self.handle, name.encode(), ptr, keep.size))

    def forward(self, **inputs):
        for k, v in inputs.items():
            self.set_input(k, v)
        ok(_LIB.MXPredForward(self.handle))
        return self

    def output_shape(self, i):
        data, ndim = P(u32)(), u32()
        ok(_LIB.MXPredGetOutputShape(self.handle, i, ctypes.byref(data), ctypes.byref(ndim)))
        return tuple(data[k] for k in range(ndim.value))

    def output(self, i=0):
        out = np.empty(self.output_shape(i), dtype=np.float32)
        ok(_LIB.MXPredGetOutput(self.handle, i, out.ctypes.data_as(P(ctypes.c_float)), out.size))
        return out

    def reshape(self, inputs):
        names, shapes = list(inputs), list(inputs.values())
        indptr, data = shape_args(shapes)
        h = vp()
        ok(_LIB.MXPredReshape(len(names), strs(names), indptr, data, self.handle, ctypes.byref(h)))
        return Pred(h, names)

    def free(self):
        ok(_LIB.MXPredFree(self.handle))
        self.handle = None


# ---- a small model built here (always available) ---------------------------------------------

def small_model(seed=0):
    """fc1 -> BatchNorm -> relu -> fc2 -> softmax, with arg:/aux: params; (json, params bytes, args, aux)."""
    data = mx.sym.var("data")
    fc1 = mx.sym.FullyConnected(data, num_hidden=16, name="fc1")
    bn = mx.sym.BatchNorm(fc1, fix_gamma=False, name="bn")
    act = mx.sym.Activation(bn, act_type="relu", name="relu1")
    fc2 = mx.sym.FullyConnected(act, num_hidden=5, name="fc2")
    net = mx.sym.SoftmaxOutput(fc2, name="softmax")
    rng = np.random.RandomState(seed)
    arg_shapes, _, aux_shapes = net.infer_shape(data=(4, 12))
    args = {n: mx.nd.array(rng.uniform(-1, 1, s)) for n, s in zip(net.list_arguments(), arg_shapes)
            if n not in ("data", "softmax_label")}
    aux = {"bn_moving_mean": mx.nd.array(rng.uniform(-0.5, 0.5, aux_shapes[0])),
           "bn_moving_var": mx.nd.array(rng.uniform(0.5, 2.0, aux_shapes[1]))}
    return net, args, aux


def params_bytes(args, aux, tmp_path, name="p.params"):
    path = str(tmp_path / name)
    saved = {"arg:" + k: v for k, v in args.items()}
    saved.update({"aux:" + k: v for k, v in aux.items()})
    mx.nd.save(path, saved)
    with open(path, "rb") as f:
        return f.read()


def executor_forward(sym, args, aux, **inputs):
    shapes = {k: v.shape for k, v in inputs.items()}
    exe = sym.simple_bind(mx.cpu(), grad_req="null", **shapes)
    exe.copy_params_from(args, aux, allow_extra_params=True)
    exe.forward(is_train=False, **{k: mx.nd.array(v) for k, v in inputs.items()})
    return [o.asnumpy() for o in exe.outputs]


@pytest.fixture
def small(tmp_path):
    net, args, aux = small_model()
    return net, args, aux, net.tojson(), params_bytes(args, aux, tmp_path)


def rand_input(shape, seed=1):
    return np.random.RandomState(seed).uniform(-1, 1, shape).astype(np.float32)


def test_outputs_match_executor(small):
    net, args, aux, json, params = small
    x = rand_input((4, 12))
    p = Pred.create(json, params, {"data": (4, 12)})
    assert p.output_shape(0) == (4, 5)
    dtype = ctypes.c_int(-1)
    ok(_LIB.MXPredGetOutputType(p.handle, 0, ctypes.byref(dtype)))
    assert dtype.value == 0
    got = p.forward(data=x).output(0)
    np.testing.assert_allclose(got, executor_forward(net, args, aux, data=x)[0], rtol=1e-5, atol=1e-6)
    # a second input gives the second answer (inputs are copied in, not aliased)
    x2 = rand_input((4, 12), seed=7)
    np.testing.assert_allclose(p.forward(data=x2).output(0), executor_forward(net, args, aux, data=x2)[0],
                               rtol=1e-5, atol=1e-6)
    p.free()


def test_create_ex_with_float64_input(small):
    net, args, aux, json, params = small
    x = rand_input((4, 12))
    p = Pred.create(json, params, {"data": (4, 12)}, dtypes={"data": 1})
    dtype = ctypes.c_int(-1)
    ok(_LIB.MXPredGetOutputType(p.handle, 0, ctypes.byref(dtype)))
    assert dtype.value == 1  # float64 throughout, converted to float at the API
    np.testing.assert_allclose(p.forward(data=x).output(0), executor_forward(net, args, aux, data=x)[0],
                               rtol=1e-5, atol=1e-6)
    p.free()


def test_partial_out_by_output_and_node_name(small):
    net, args, aux, json, params = small
    x = rand_input((4, 12))
    p = Pred.create(json, params, {"data": (4, 12)}, out_keys=["fc1_output", "relu1", "softmax"])
    internals = net.get_internals()
    want = executor_forward(mx.sym.Group([internals["fc1_output"], internals["relu1_output"],
                                          internals["softmax_output"]]), args, aux, data=x)
    p.forward(data=x)
    assert [p.output_shape(i) for i in range(3)] == [(4, 16), (4, 16), (4, 5)]
    for i in range(3):
        np.testing.assert_allclose(p.output(i), want[i], rtol=1e-5, atol=1e-6)
    p.free()


def test_reshape_shares_weights_and_keeps_the_old_predictor(small):
    net, args, aux, json, params = small
    p = Pred.create(json, params, {"data": (4, 12)})
    q = p.reshape({"data": (2, 12)})
    assert q.output_shape(0) == (2, 5)
    x2, x4 = rand_input((2, 12), 3), rand_input((4, 12), 4)
    np.testing.assert_allclose(q.forward(data=x2).output(0), executor_forward(net, args, aux, data=x2)[0],
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(p.forward(data=x4).output(0), executor_forward(net, args, aux, data=x4)[0],
                               rtol=1e-5, atol=1e-6)
    # growing the batch works too (the label follows the batch; weights keep their shapes)
    r = q.reshape({"data": (6, 12)})
    x6 = rand_input((6, 12), 5)
    np.testing.assert_allclose(r.forward(data=x6).output(0), executor_forward(net, args, aux, data=x6)[0],
                               rtol=1e-5, atol=1e-6)
    # a weight would have to change shape: refused, naming it
    indptr, data = shape_args([(4, 13)])
    h = vp()
    fails(_LIB.MXPredReshape(1, strs(["data"]), indptr, data, p.handle, ctypes.byref(h)), "fc1_weight",
          "only the shapes of inputs may change")
    for pred in (p, q, r):
        pred.free()


def test_reshape_keeps_inputs_it_does_not_name(tmp_path):
    a, b = mx.sym.var("a"), mx.sym.var("b")
    net = mx.sym.Group([mx.sym.FullyConnected(a, num_hidden=3, name="fa"),
                        mx.sym.FullyConnected(b, num_hidden=2, name="fb")])
    rng = np.random.RandomState(0)
    args = {"fa_weight": mx.nd.array(rng.rand(3, 5)), "fa_bias": mx.nd.array(rng.rand(3)),
            "fb_weight": mx.nd.array(rng.rand(2, 4)), "fb_bias": mx.nd.array(rng.rand(2))}
    params = params_bytes(args, {}, tmp_path)
    p = Pred.create(net.tojson(), params, {"a": (4, 5), "b": (6, 4)})
    q = p.reshape({"a": (2, 5)})
    assert q.output_shape(0) == (2, 3) and q.output_shape(1) == (6, 2)
    xa, xb = rand_input((2, 5), 1), rand_input((6, 4), 2)
    q.forward(a=xa, b=xb)  # b is still an input of the reshaped predictor
    want = executor_forward(net, args, {}, a=xa, b=xb)
    np.testing.assert_allclose(q.output(0), want[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(q.output(1), want[1], rtol=1e-5, atol=1e-6)
    indptr, data = shape_args([(2, 5), (3, 5)])
    h = vp()
    fails(_LIB.MXPredReshape(2, strs(["a", "a"]), indptr, data, p.handle, ctypes.byref(h)), "given twice")
    p.free()
    q.free()


def test_partial_forward_steps_to_the_full_result(small):
    net, args, aux, json, params = small
    x = rand_input((4, 12))
    full = Pred.create(json, params, {"data": (4, 12)}).forward(data=x)
    p = Pred.create(json, params, {"data": (4, 12)})
    p.set_input("data", x)
    step, left, lefts = 0, ctypes.c_int(1), []
    while left.value > 0:
        ok(_LIB.MXPredPartialForward(p.handle, step, ctypes.byref(left)))
        lefts.append(left.value)
        step += 1
    assert lefts == list(range(len(lefts) - 1, -1, -1))  # counts down by one to 0
    assert len(lefts) >= 5  # at least the five ops
    np.testing.assert_allclose(p.output(0), full.output(0), rtol=1e-6, atol=1e-7)
    ok(_LIB.MXPredPartialForward(p.handle, step + 10, ctypes.byref(left)))
    assert left.value == 0
    fails(_LIB.MXPredPartialForward(p.handle, -1, ctypes.byref(left)), "step must be >= 0")
    fails(_LIB.MXPredPartialForward(p.handle, 0, None), "step_left is NULL")
    p.free()
    full.free()


def multi_thread(json, params, shape, num, inputs, iters=3):
    """Runs num predictors from MXPredCreateMultiThread on num threads; their outputs per thread."""
    indptr, data = shape_args([shape])
    handles = (vp * num)()
    ok(_LIB.MXPredCreateMultiThread(json.encode(), params, len(params), 1, 0, 1, strs(["data"]), indptr, data, num,
                                    handles))
    preds = [Pred(vp(handles[i]), ["data"]) for i in range(num)]
    results, errors = [None] * num, []

    def work(i):
        try:
            for _ in range(iters):
                results[i] = preds[i].forward(data=inputs[i]).output(0)
        except AssertionError as e:  # ok() failed on this thread
            errors.append(str(e))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(num)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for p in preds:
        p.free()
    assert not errors, errors
    return results


def test_multi_thread_predictors_agree_with_one_thread(small):
    net, args, aux, json, params = small
    inputs = [rand_input((4, 12), 10 + i) for i in range(4)]
    results = multi_thread(json, params, (4, 12), 4, inputs, iters=5)
    for x, got in zip(inputs, results):
        np.testing.assert_allclose(got, executor_forward(net, args, aux, data=x)[0], rtol=1e-5, atol=1e-6)


def test_monitor_callback_sees_op_outputs(small):
    _, _, _, json, params = small
    p = Pred.create(json, params, {"data": (4, 12)})
    seen, shapes = [], {}

    def on_output(name, arr, _):
        nd = mx.nd.NDArray(ctypes.c_void_p(arr))  # owns the handle: freed with it
        seen.append(name.decode())
        shapes[name.decode()] = nd.shape

    cb = MONITOR(on_output)
    ok(_LIB.MXPredSetMonitorCallback(p.handle, ctypes.cast(cb, vp), None, False))
    p.forward(data=rand_input((4, 12))).output(0)
    assert "fc1_output" in seen and "softmax_output" in seen
    assert shapes["fc1_output"] == (4, 16)
    ok(_LIB.MXPredSetMonitorCallback(p.handle, None, None, False))
    p.free()


# ---- NDList ----------------------------------------------------------------------------------

def ndlist(blob):
    h, n = vp(), u32()
    ok(_LIB.MXNDListCreate(blob, len(blob), ctypes.byref(h), ctypes.byref(n)))
    out = []
    for i in range(n.value):
        key, data, shape, ndim = ctypes.c_char_p(), P(ctypes.c_float)(), P(u32)(), u32()
        ok(_LIB.MXNDListGet(h, i, ctypes.byref(key), ctypes.byref(data), ctypes.byref(shape), ctypes.byref(ndim)))
        dims = tuple(shape[k] for k in range(ndim.value))
        arr = np.ctypeslib.as_array(data, shape=dims).copy() if ndim.value else None
        out.append((key.value.decode(), arr))
    return h, out


def test_ndlist_named_and_unnamed(tmp_path):
    mean = np.random.RandomState(0).uniform(0, 255, (3, 8, 8)).astype(np.float32)
    path = str(tmp_path / "mean.nd")
    mx.nd.save(path, {"mean_img": mx.nd.array(mean), "scale": mx.nd.array([1.5, 2.5], dtype="float64")})
    with open(path, "rb") as f:
        h, arrays = ndlist(f.read())
    got = dict(arrays)
    np.testing.assert_array_equal(got["mean_img"], mean)
    np.testing.assert_array_equal(got["scale"], np.array([1.5, 2.5], dtype=np.float32))  # handed out as float
    ok(_LIB.MXNDListFree(h))
    mx.nd.save(path, [mx.nd.ones((2, 3))])
    with open(path, "rb") as f:
        h, arrays = ndlist(f.read())
    assert arrays[0][0] == "" and arrays[0][1].shape == (2, 3)
    key, data, shape, ndim = ctypes.c_char_p(), P(ctypes.c_float)(), P(u32)(), u32()
    fails(_LIB.MXNDListGet(h, 1, ctypes.byref(key), ctypes.byref(data), ctypes.byref(shape), ctypes.byref(ndim)),
          "index 1 is out of range", "1 array")
    ok(_LIB.MXNDListFree(h))


def test_ndlist_errors(tmp_path):
    h, n = vp(), u32()
    fails(_LIB.MXNDListCreate(b"not an ndarray list", 19, ctypes.byref(h), ctypes.byref(n)),
          "Invalid NDArray file format", "NDArray list blob")
    path = str(tmp_path / "a.nd")
    mx.nd.save(path, {"a": mx.nd.ones((100,))})
    with open(path, "rb") as f:
        blob = f.read()
    fails(_LIB.MXNDListCreate(blob[:-40], len(blob) - 40, ctypes.byref(h), ctypes.byref(n)),
          "Invalid NDArray file format")
    fails(_LIB.MXNDListCreate(blob, -1, ctypes.byref(h), ctypes.byref(n)), "nd_file_size must be >= 0")
    fails(_LIB.MXNDListCreate(None, 10, ctypes.byref(h), ctypes.byref(n)), "nd_file_bytes is NULL")
    fails(_LIB.MXNDListCreate(blob, len(blob), None, ctypes.byref(n)), "is NULL")
    key, data, shape, ndim = ctypes.c_char_p(), P(ctypes.c_float)(), P(u32)(), u32()
    fails(_LIB.MXNDListGet(None, 0, ctypes.byref(key), ctypes.byref(data), ctypes.byref(shape), ctypes.byref(ndim)),
          "NDListHandle is NULL")


# ---- every bad input: -1 and a message naming what was wrong ---------------------------------

def create_rc(json, params, names, shapes, dev_type=1, out=True, param_size=None):
    indptr, data = shape_args(shapes)
    h = vp()
    size = len(params) if param_size is None else param_size
    rc = _LIB.MXPredCreate(json.encode() if json is not None else None, params, size, dev_type, 0, len(names),
                           strs(names), indptr, data, ctypes.byref(h) if out else None)
    if rc == 0:
        ok(_LIB.MXPredFree(h))
    return rc


def test_create_errors(small, tmp_path):
    net, args, aux, json, params = small
    d = (4, 12)
    fails(create_rc("{not json", params, ["data"], [d]), "symbol JSON")
    fails(create_rc(None, params, ["data"], [d]), "symbol_json_str is NULL")
    fails(create_rc(json, b"\x00" * 64, ["data"], [d]), "Invalid NDArray file format", "params blob")
    fails(create_rc(json, params[:len(params) // 2], ["data"], [d]), "params blob", "Invalid NDArray")
    fails(create_rc(json, params, ["data"], [d], param_size=-5), "param_size must be >= 0")
    fails(create_rc(json, params, ["datum"], [d]), "input 'datum' is not an argument", "data")
    fails(create_rc(json, params, ["data", "data"], [d, d]), "given twice")
    fails(create_rc(json, params, ["data"], [(4, 0)]), "every dimension must be positive")
    fails(create_rc(json, params, ["data"], [()]), "no dimensions")
    fails(create_rc(json, params, ["data"], [d], dev_type=7), "dev_type must be 1 (cpu) or 2 (gpu)")
    fails(create_rc(json, params, ["data"], [d], out=False), "out is NULL")
    fails(create_rc(json, params, ["data"], [(4, 13)]), "fc1_weight", "params blob")  # shape mismatch
    fails(create_rc(json, params, [], []), "cannot infer the shapes", "data")
    # a params file without arg:/aux: keys (say, Gluon's save_parameters) is refused, not zero-filled
    plain = str(tmp_path / "plain.params")
    mx.nd.save(plain, {k: v for k, v in args.items()})
    with open(plain, "rb") as f:
        fails(create_rc(json, f.read(), ["data"], [d]), "'arg:' or 'aux:'")
    # a NULL key / NULL shape pointers
    h = vp()
    keys = (ctypes.c_char_p * 1)(None)
    indptr, data = shape_args([d])
    fails(_LIB.MXPredCreate(json.encode(), params, len(params), 1, 0, 1, keys, indptr, data, ctypes.byref(h)),
          "input_keys[0] is NULL")
    fails(_LIB.MXPredCreate(json.encode(), params, len(params), 1, 0, 1, strs(["data"]), None, data,
                            ctypes.byref(h)), "input_shape_indptr is NULL")
    bad_indptr = (u32 * 2)(2, 1)
    fails(_LIB.MXPredCreate(json.encode(), params, len(params), 1, 0, 1, strs(["data"]), bad_indptr, data,
                            ctypes.byref(h)), "no dimensions")


def test_create_gpu_without_gpu_is_a_clear_error(small):
    _, _, _, json, params = small
    if mx.context.num_gpus() > 0:
        pytest.skip("this machine has a GPU")
    fails(create_rc(json, params, ["data"], [(4, 12)], dev_type=2), "gpu(0)", "not available")


def test_variant_create_errors(small):
    _, _, _, json, params = small
    indptr, data = shape_args([(4, 12)])
    h = vp()
    fails(_LIB.MXPredCreatePartialOut(json.encode(), params, len(params), 1, 0, 1, strs(["data"]), indptr, data, 1,
                                      strs(["fc9_output"]), ctypes.byref(h)), "output 'fc9_output'", "fc1_output")
    fails(_LIB.MXPredCreatePartialOut(json.encode(), params, len(params), 1, 0, 1, strs(["data"]), indptr, data, 1,
                                      None, ctypes.byref(h)), "output_keys is NULL")
    handles = (vp * 2)()
    fails(_LIB.MXPredCreateMultiThread(json.encode(), params, len(params), 1, 0, 1, strs(["data"]), indptr, data, 0,
                                       handles), "num_threads must be >= 1")
    fails(_LIB.MXPredCreateMultiThread(b"[]", params, len(params), 1, 0, 1, strs(["data"]), indptr, data, 2,
                                       handles), "symbol JSON")
    dt = (ctypes.c_int * 1)(0)
    fails(_LIB.MXPredCreateEx(json.encode(), params, len(params), 1, 0, 1, strs(["data"]), indptr, data, 1,
                              strs(["nope"]), dt, ctypes.byref(h)), "'nope'", "not an input")
    dt = (ctypes.c_int * 1)(99)
    fails(_LIB.MXPredCreateEx(json.encode(), params, len(params), 1, 0, 1, strs(["data"]), indptr, data, 1,
                              strs(["data"]), dt, ctypes.byref(h)), "dtype 99")


def test_predictor_call_errors(small):
    _, _, _, json, params = small
    p = Pred.create(json, params, {"data": (4, 12)})
    x = rand_input((4, 12))
    ptr, keep = floats(x)
    fails(_LIB.MXPredSetInput(p.handle, b"datum", ptr, keep.size), "'datum' is not an input", "data")
    fails(_LIB.MXPredSetInput(p.handle, b"fc1_weight", ptr, keep.size), "not an input")
    fails(_LIB.MXPredSetInput(p.handle, b"data", ptr, keep.size - 1), "(4, 12)", "48 elements", "47 values")
    fails(_LIB.MXPredSetInput(p.handle, None, ptr, keep.size), "key is NULL")
    fails(_LIB.MXPredSetInput(p.handle, b"data", None, keep.size), "data is NULL")
    p.forward(data=x)
    out = np.empty((4, 5), dtype=np.float32)
    optr = out.ctypes.data_as(P(ctypes.c_float))
    fails(_LIB.MXPredGetOutput(p.handle, 1, optr, out.size), "output index 1 is out of range", "1 output")
    fails(_LIB.MXPredGetOutput(p.handle, 0, optr, out.size + 1), "20 elements", "holds 21")
    fails(_LIB.MXPredGetOutput(p.handle, 0, None, out.size), "data is NULL")
    sdata, ndim, dtype = P(u32)(), u32(), ctypes.c_int()
    fails(_LIB.MXPredGetOutputShape(p.handle, 3, ctypes.byref(sdata), ctypes.byref(ndim)), "out of range")
    fails(_LIB.MXPredGetOutputShape(p.handle, 0, None, ctypes.byref(ndim)), "is NULL")
    fails(_LIB.MXPredGetOutputType(p.handle, 2, ctypes.byref(dtype)), "out of range")
    h = vp()
    indptr, data = shape_args([(2, 12)])
    fails(_LIB.MXPredReshape(1, strs(["label"]), indptr, data, p.handle, ctypes.byref(h)), "'label'")
    fails(_LIB.MXPredReshape(1, strs(["data"]), indptr, data, p.handle, None), "out is NULL")
    p.free()


def test_null_predictor_handle_everywhere():
    left, dtype, ndim = ctypes.c_int(), ctypes.c_int(), u32()
    sdata = P(u32)()
    out = np.empty(4, dtype=np.float32)
    optr = out.ctypes.data_as(P(ctypes.c_float))
    indptr, data = shape_args([(2, 12)])
    h = vp()
    for rc in (_LIB.MXPredForward(None),
               _LIB.MXPredPartialForward(None, 0, ctypes.byref(left)),
               _LIB.MXPredSetInput(None, b"data", optr, 4),
               _LIB.MXPredGetOutput(None, 0, optr, 4),
               _LIB.MXPredGetOutputShape(None, 0, ctypes.byref(sdata), ctypes.byref(ndim)),
               _LIB.MXPredGetOutputType(None, 0, ctypes.byref(dtype)),
               _LIB.MXPredSetMonitorCallback(None, None, None, False),
               _LIB.MXPredReshape(1, strs(["data"]), indptr, data, None, ctypes.byref(h))):
        fails(rc, "PredictorHandle is NULL")
    ok(_LIB.MXPredFree(None))  # like free(NULL)
    ok(_LIB.MXNDListFree(None))


# ---- MXNet 1.9.1's fixtures ------------------------------------------------------------------

def _models():
    out = []
    for sym_file in sorted(glob.glob(os.path.join(FIXTURES, "*-symbol.json"))):
        prefix = sym_file[:-len("-symbol.json")]
        params = sorted(glob.glob(prefix + "-[0-9][0-9][0-9][0-9].params"))
        if params and os.path.isfile(prefix + "-input.npy") and os.path.isfile(prefix + "-output.npy"):
            out.append((prefix, params[-1]))
    return out


MODELS = _models()
IDS = [os.path.basename(p) for p, _ in MODELS]


def load_fixture(prefix, params_file):
    with open(prefix + "-symbol.json") as f:
        json = f.read()
    with open(params_file, "rb") as f:
        params = f.read()
    return json, params, np.load(prefix + "-input.npy"), np.load(prefix + "-output.npy")


@pytest.mark.skipif(not MODELS, reason="no MXNet model fixtures")
@pytest.mark.parametrize("prefix,params_file", MODELS, ids=IDS)
def test_fixture_outputs_match_mxnet_and_module(prefix, params_file):
    json, params, x, expected = load_fixture(prefix, params_file)
    p = Pred.create(json, params, {"data": x.shape})
    got = p.forward(data=x).output(0)
    p.free()
    np.testing.assert_allclose(got, expected, rtol=TOL, atol=TOL)
    sym = mx.sym.load_json(json)
    labels = tuple(n for n in sym.list_arguments() if n.endswith("_label"))
    arg, aux = mx.model.load_params(prefix, int(params_file[-11:-7]))
    mod = mx.mod.Module(sym, data_names=("data",), label_names=labels)
    mod.bind(data_shapes=[("data", x.shape)], label_shapes=[(n, x.shape[:1]) for n in labels] or None,
             for_training=False)
    mod.set_params(arg, aux)
    mod.forward(mx.io.DataBatch([mx.nd.array(x)]), is_train=False)
    np.testing.assert_allclose(got, mod.get_outputs()[0].asnumpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.skipif(not MODELS, reason="no MXNet model fixtures")
def test_fixture_multi_thread():
    prefix, params_file = [m for m in MODELS if os.path.basename(m[0]) == "opsnet"][0] if any(
        os.path.basename(m[0]) == "opsnet" for m in MODELS) else MODELS[0]
    json, params, x, expected = load_fixture(prefix, params_file)
    results = multi_thread(json, params, x.shape, 4, [x] * 4, iters=4)
    for got in results:
        np.testing.assert_allclose(got, expected, rtol=TOL, atol=TOL)


# ---- the header is plain C -------------------------------------------------------------------

@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
@pytest.mark.parametrize("order", [("c_api.h", "c_predict_api.h"), ("c_predict_api.h", "c_api.h"),
                                   ("c_predict_api.h",)])
def test_header_compiles_as_c(order):
    src = "".join("#include <mxnet/%s>\n" % h for h in order) + "int main(void) { return MXPredForward(0); }\n"
    r = subprocess.run(["cc", "-std=c11", "-Wall", "-Werror", "-fsyntax-only", "-I",
                        os.path.join(REPO, "include"), "-x", "c", "-"], input=src, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
