"""MXNet 1.x's symbolic checks of mx.test_utils: symbols bound and run against expected values
(simple_forward, check_symbolic_forward/backward, numeric_grad, check_numeric_gradient,
check_speed, check_consistency), and the graph comparisons same_symbol_structure and
check_gluon_hybridize_consistency. mx.test_utils re-exports them; import them from there."""
import time as _time
import warnings as _warnings

import numpy as _np

from .test_utils import _as_numpy, _check_numeric_gradient_fn, assert_almost_equal, default_context, get_atol

# ---- binding symbols for the checks ----------------------------------------------------------
def _ctx(ctx):
    return ctx if ctx is not None else default_context()


def _named(sym, values, names, what):
    """A {name: value} dict from a list in `names` order or a dict."""
    if values is None:
        return {}
    if isinstance(values, dict):
        unknown = set(values) - set(names)
        if unknown:
            raise ValueError("%s names %s are not in the symbol's %s" % (what, sorted(unknown),
                                                                        names))
        return dict(values)
    values = list(values)
    if len(values) != len(names):
        raise ValueError("%d %s given, the symbol has %d: %s" % (len(values), what, len(names),
                                                                 names))
    return dict(zip(names, values))


def _to_nd(values, ctx, dtype):
    from .ndarray import NDArray, array
    out = {}
    for k, v in values.items():
        if isinstance(v, NDArray):
            out[k] = v.as_in_context(ctx) if dtype is None or v.dtype == _np.dtype(dtype) \
                else v.astype(dtype).as_in_context(ctx)
        else:
            v = _np.asarray(v)
            out[k] = array(v, ctx=ctx, dtype=dtype if dtype is not None else v.dtype)
    return out


def simple_forward(sym, ctx=None, is_train=False, **inputs):
    """Binds sym to the numpy inputs and returns its outputs as numpy (one array if one)."""
    ctx = _ctx(ctx)
    args = _to_nd(inputs, ctx, None)
    exe = sym.bind(ctx, args=args)
    exe.forward(is_train=is_train)
    outputs = [x.asnumpy() for x in exe.outputs]
    return outputs[0] if len(outputs) == 1 else outputs


def check_symbolic_forward(sym, location, expected, rtol=None, atol=None, aux_states=None,
                           ctx=None, equal_nan=False, dtype=_np.float32):
    """Binds sym to `location` (list in list_arguments order, or dict), runs forward and
    compares each output with `expected` (list in list_outputs order, or dict). Returns the
    executor's outputs."""
    ctx = _ctx(ctx)
    arg_names = sym.list_arguments()
    location = _to_nd(_named(sym, location, arg_names, "arguments"), ctx, dtype)
    aux = _to_nd(_named(sym, aux_states, sym.list_auxiliary_states(), "auxiliary states"),
                 ctx, dtype)
    if isinstance(expected, dict):
        expected = [expected[k] for k in sym.list_outputs()]
    exe = sym.bind(ctx, args=location, aux_states=aux or None)
    exe.forward(is_train=False)
    outputs = exe.outputs
    for name, expect, output in zip(sym.list_outputs(), expected, outputs):
        assert_almost_equal(expect, output, rtol, atol,
                            ("EXPECTED_%s" % name, "FORWARD_%s" % name), equal_nan=equal_nan)
    return outputs


def check_symbolic_backward(sym, location, out_grads, expected, rtol=None, atol=None,
                            aux_states=None, grad_req="write", ctx=None, grad_stypes=None,
                            equal_nan=False, dtype=_np.float32):
    """Binds sym, runs forward(is_train=True) and backward(out_grads), and compares the
    gradients of the arguments named in `expected` (list in list_arguments order, or dict).

    grad_req 'add' starts each gradient from random values and checks grad - start; 'null'
    checks the gradient array was left alone. Returns the gradient arrays by name.
    """
    from .ndarray import array
    ctx = _ctx(ctx)
    arg_names = sym.list_arguments()
    location = _to_nd(_named(sym, location, arg_names, "arguments"), ctx, dtype)
    aux = _to_nd(_named(sym, aux_states, sym.list_auxiliary_states(), "auxiliary states"),
                 ctx, dtype)
    expected = _named(sym, expected, arg_names, "expected gradients")
    start = {k: _np.random.normal(size=_np.shape(v)) for k, v in expected.items()}
    grads = {k: array(v, ctx=ctx, dtype=dtype) for k, v in start.items()}
    if isinstance(grad_req, str):
        reqs = {k: (grad_req if k in grads else "null") for k in arg_names}
    elif isinstance(grad_req, (list, tuple)):
        reqs = dict(zip(arg_names, grad_req))
    else:
        reqs = {k: grad_req.get(k, "null") for k in arg_names}
    for k in arg_names:
        if k not in grads:
            reqs[k] = "null"
    exe = sym.bind(ctx, args=location, args_grad=grads, grad_req=reqs,
                   aux_states=aux or None)
    exe.forward(is_train=True)
    if isinstance(out_grads, (list, tuple)):
        out_grads = [array(_as_numpy(v), ctx=ctx, dtype=dtype) for v in out_grads]
    elif isinstance(out_grads, dict):
        out_grads = {k: array(_as_numpy(v), ctx=ctx, dtype=dtype) for k, v in out_grads.items()}
    elif out_grads is not None:
        out_grads = [array(_as_numpy(out_grads), ctx=ctx, dtype=dtype)]
    exe.backward(out_grads)
    for name, expect in expected.items():
        got = grads[name].asnumpy()
        req = reqs[name]
        names = ("EXPECTED_%s" % name, "BACKWARD_%s" % name)
        if req == "write":
            assert_almost_equal(expect, got, rtol, atol, names, equal_nan=equal_nan)
        elif req == "add":
            assert_almost_equal(expect, got - start[name].astype(got.dtype), rtol, atol, names,
                                equal_nan=equal_nan)
        elif req == "null":
            assert_almost_equal(start[name].astype(got.dtype), got, rtol, atol, names,
                                equal_nan=equal_nan)
        else:
            raise ValueError("invalid grad_req %r for %s" % (req, name))
    return grads


def numeric_grad(executor, location, aux_states=None, eps=1e-4, use_forward_train=True,
                 dtype=_np.float32):
    """Central-difference gradients of sum(outputs[0]) w.r.t. each array in `location`
    ({name: numpy}), evaluated through `executor` (whose arrays are restored afterwards)."""
    from .ndarray import array
    for k, v in location.items():
        executor.arg_dict[k][:] = _np.asarray(v, dtype=executor.arg_dict[k].dtype)
    for k, v in (aux_states or {}).items():
        executor.aux_dict[k][:] = _np.asarray(v, dtype=executor.aux_dict[k].dtype)

    def total():
        executor.forward(is_train=use_forward_train)
        return _np.asarray(executor.outputs[0].asnumpy(), dtype=_np.float64).sum()

    grads = {}
    for k, v in location.items():
        base = _np.array(v, dtype=dtype)
        grad = _np.zeros(base.shape, dtype=_np.float64)
        flat = base.reshape(-1)
        target = executor.arg_dict[k]
        for i in range(flat.size):
            orig = flat[i]
            flat[i] = orig + eps / 2.0
            target[:] = array(base, dtype=target.dtype)
            if aux_states:
                for ak, av in aux_states.items():
                    executor.aux_dict[ak][:] = _np.asarray(av, dtype=executor.aux_dict[ak].dtype)
            f_plus = total()
            flat[i] = orig - eps / 2.0
            target[:] = array(base, dtype=target.dtype)
            if aux_states:
                for ak, av in aux_states.items():
                    executor.aux_dict[ak][:] = _np.asarray(av, dtype=executor.aux_dict[ak].dtype)
            f_minus = total()
            flat[i] = orig
            grad.reshape(-1)[i] = (f_plus - f_minus) / eps
        target[:] = array(base, dtype=target.dtype)
        grads[k] = grad
    return grads


def _check_numeric_gradient_symbolic(sym, location, aux_states=None, numeric_eps=1e-3,
                                     rtol=1e-2, atol=None, grad_nodes=None,
                                     use_forward_train=True, ctx=None, grad_stype_dict=None,
                                     dtype=_np.float64):
    from . import symbol as _sym
    from .base import MXNetError
    ctx = _ctx(ctx)
    arg_names = sym.list_arguments()
    location = {k: _as_numpy(v) for k, v in
                _named(sym, location, arg_names, "arguments").items()}
    aux_names = sym.list_auxiliary_states()
    aux_np = {k: _as_numpy(v) for k, v in
              _named(sym, aux_states, aux_names, "auxiliary states").items()}
    if grad_nodes is None:
        grad_nodes = {k: "write" for k in arg_names}
    elif isinstance(grad_nodes, (list, tuple)):
        grad_nodes = {k: "write" for k in grad_nodes}
    else:
        grad_nodes = dict(grad_nodes)

    # A random projection makes any output a scalar loss with non-trivial head gradients.
    shapes = {k: v.shape for k, v in location.items()}
    _, out_shapes, _ = sym.infer_shape(**shapes)
    proj = _sym.Variable("__random_proj")
    loss = _sym.sum(sym * proj)  # a scalar; backward from a head gradient of 1
    proj_value = _np.random.uniform(-1, 1, size=out_shapes[0])

    def run(run_dtype):
        loc = dict(location)
        loc["__random_proj"] = proj_value
        args = _to_nd(loc, ctx, run_dtype)
        grads = {k: _to_nd({k: _np.zeros(location[k].shape)}, ctx, run_dtype)[k]
                 for k in grad_nodes}
        reqs = {k: grad_nodes.get(k, "null") for k in loss.list_arguments()}
        exe = loss.bind(ctx, args=args, args_grad=grads, grad_req=reqs,
                        aux_states=_to_nd(aux_np, ctx, run_dtype) or None)
        exe.forward(is_train=use_forward_train)
        exe.backward([_to_nd({"h": _np.ones(exe.outputs[0].shape)}, ctx, run_dtype)["h"]])
        symbolic = {k: grads[k].asnumpy() for k in grad_nodes}
        numeric = numeric_grad(exe, {k: location[k] for k in grad_nodes}, aux_np,
                               eps=numeric_eps, use_forward_train=use_forward_train,
                               dtype=run_dtype)
        return symbolic, numeric

    try:
        symbolic, numeric = run(dtype)
        used = dtype
    except MXNetError as err:
        if _np.dtype(dtype) == _np.float32:
            raise
        _warnings.warn("check_numeric_gradient: %s not supported by %s (%s); using float32"
                       % (_np.dtype(dtype).name, sym.name, str(err).splitlines()[0]))
        symbolic, numeric = run(_np.float32)
        used = _np.float32
    atol = get_atol(atol, used)
    for name in grad_nodes:
        if grad_nodes[name] == "null":
            continue
        assert_almost_equal(numeric[name], symbolic[name], rtol, atol,
                            ("NUMERICAL_%s" % name, "BACKWARD_%s" % name))


def check_numeric_gradient(sym, location, *args, **kwargs):
    """Central-difference gradient check.

    1.x form: check_numeric_gradient(sym, location, aux_states=None, numeric_eps=1e-3,
    rtol=1e-2, atol=None, grad_nodes=None, use_forward_train=True, ctx=None,
    grad_stype_dict=None, dtype=np.float64) on a Symbol (differences in float64 unless the
    ops lack float64 kernels). Also: check_numeric_gradient(fn, inputs, head_grad=None,
    eps=1e-3, rtol=1e-2, atol=1e-4, dtype=np.float64) on a function of NDArrays, through
    autograd.
    """
    from .symbol import Symbol
    if isinstance(sym, Symbol):
        return _check_numeric_gradient_symbolic(sym, location, *args, **kwargs)
    return _check_numeric_gradient_fn(sym, location, *args, **kwargs)


def check_speed(sym, location=None, ctx=None, N=20, grad_req=None, typ="whole", **kwargs):
    """Seconds per run of forward+backward (typ='whole') or forward only ('forward')."""
    from .ndarray import waitall
    ctx = _ctx(ctx)
    if grad_req is None:
        grad_req = "write"
    if location is None:
        shapes = {k: v for k, v in kwargs.items() if isinstance(v, tuple)}
        arg_shapes, _, _ = sym.infer_shape(**shapes)
        location = {name: _np.random.normal(size=s, scale=1.0)
                    for name, s in zip(sym.list_arguments(), arg_shapes)}
    else:
        location = _named(sym, location, sym.list_arguments(), "arguments")
    args = _to_nd(location, ctx, _np.float32)
    if typ == "whole":
        grads = {k: _to_nd({k: _np.zeros(_np.shape(v))}, ctx, _np.float32)[k]
                 for k, v in args.items()}
        exe = sym.bind(ctx, args=args, args_grad=grads, grad_req=grad_req)
        exe.forward(is_train=True)
        exe.backward(exe.outputs)  # warm up
        waitall()
        tic = _time.time()
        for _ in range(N):
            exe.forward(is_train=True)
            exe.backward(exe.outputs)
        waitall()
    elif typ == "forward":
        exe = sym.bind(ctx, args=args)
        exe.forward(is_train=False)
        waitall()
        tic = _time.time()
        for _ in range(N):
            exe.forward(is_train=False)
        waitall()
    else:
        raise ValueError("typ must be 'whole' or 'forward', got %r" % (typ,))
    return (_time.time() - tic) / N


def check_consistency(sym, ctx_list, scale=1.0, grad_req="write", arg_params=None,
                      aux_params=None, tol=None, raise_on_err=True, ground_truth=None,
                      equal_nan=False, use_uniform=False, rand_type=_np.float64):
    """Runs sym under each configuration of ctx_list (dicts with 'ctx', input shapes and an
    optional 'type_dict') from the same random inputs and compares outputs and gradients
    with the most precise configuration. Returns that configuration's results."""
    from .ndarray import array
    if tol is None:
        tol = {_np.dtype(_np.float16): 1e-1, _np.dtype(_np.float32): 1e-3,
               _np.dtype(_np.float64): 1e-5, _np.dtype(_np.uint8): 0,
               _np.dtype(_np.int32): 0, _np.dtype(_np.int64): 0}
    elif isinstance(tol, (int, float)):
        tol = {_np.dtype(t): tol for t in (_np.float16, _np.float32, _np.float64, _np.uint8,
                                           _np.int32, _np.int64)}
    if not isinstance(sym, (list, tuple)):
        sym = [sym] * len(ctx_list)
    arg_names = sym[0].list_arguments()
    aux_names = sym[0].list_auxiliary_states()
    output_names = sym[0].list_outputs()

    configs = []
    for s, cfg in zip(sym, ctx_list):
        cfg = dict(cfg)
        ctx = cfg.pop("ctx", default_context())
        type_dict = cfg.pop("type_dict", {})
        shapes = {k: v for k, v in cfg.items() if isinstance(v, tuple)}
        arg_shapes, _, aux_shapes = s.infer_shape(**shapes)
        arg_types, _, aux_types = s.infer_type(**type_dict) if type_dict else (None, None, None)
        arg_types = arg_types or [_np.float32] * len(arg_names)
        aux_types = aux_types or [_np.float32] * len(aux_names)
        configs.append((s, ctx, dict(zip(arg_names, zip(arg_shapes, arg_types))),
                        dict(zip(aux_names, zip(aux_shapes, aux_types)))))

    args0, aux0 = configs[0][2], configs[0][3]
    arg_params = dict(arg_params or {})
    aux_params = dict(aux_params or {})
    for name, (shape, _) in args0.items():
        if name not in arg_params:
            arg_params[name] = (_np.random.uniform(-scale, scale, size=shape) if use_uniform
                                else _np.random.normal(size=shape, scale=scale)).astype(rand_type)
    for name, (shape, _) in aux0.items():
        if name not in aux_params:
            aux_params[name] = _np.zeros(shape, dtype=rand_type)

    precision = [max(_np.dtype(t).itemsize if _np.dtype(t).kind == "f" else 0
                     for _, t in c[2].values()) for c in configs]
    gt_index = int(_np.argmax(precision))

    results = []
    out_grads = None
    for s, ctx, args, auxs in configs:
        arrays = {k: array(_as_numpy(arg_params[k]), ctx=ctx, dtype=t) for k, (_, t) in args.items()}
        aux_arrays = {k: array(_as_numpy(aux_params[k]), ctx=ctx, dtype=t)
                      for k, (_, t) in auxs.items()}
        grads = None
        if grad_req != "null":
            grads = {k: array(_np.zeros(shp), ctx=ctx, dtype=t) for k, (shp, t) in args.items()}
        exe = s.bind(ctx, args=arrays, args_grad=grads, grad_req=grad_req,
                     aux_states=aux_arrays or None)
        exe.forward(is_train=grad_req != "null")
        outs = [o.asnumpy() for o in exe.outputs]
        res = dict(zip(output_names, outs))
        if grad_req != "null":
            if out_grads is None:
                out_grads = [_np.random.normal(size=o.shape, scale=scale) for o in outs]
            exe.backward([array(g, ctx=ctx, dtype=o.dtype) for g, o in zip(out_grads, outs)])
            res.update({k + "_grad": v.asnumpy() for k, v in grads.items()})
        results.append((res, max([_np.dtype(t) for _, t in args.values()],
                                 key=lambda d: d.itemsize if d.kind == "f" else 0)))

    gt = ground_truth if ground_truth is not None else results[gt_index][0]
    for i, (res, dt) in enumerate(results):
        if i == gt_index and ground_truth is None:
            continue
        t = tol.get(_np.dtype(dt), 1e-3)
        for name, value in res.items():
            if name not in gt:
                continue
            try:
                assert_almost_equal(gt[name].astype(value.dtype), value, rtol=t, atol=t,
                                    names=("%s[gt]" % name, "%s[config %d]" % (name, i)),
                                    equal_nan=equal_nan)
            except AssertionError as err:
                if raise_on_err:
                    raise
                print("Predict Err: ctx %d vs ctx %d at %s: %s" % (i, gt_index, name, err))
    return gt


# ---- graph comparisons -----------------------------------------------------------------------
def same_symbol_structure(sym1, sym2):
    """Whether node i runs the same operator in both symbols, for every node of the shorter."""
    import json
    nodes1 = json.loads(sym1.tojson())["nodes"]
    nodes2 = json.loads(sym2.tojson())["nodes"]
    return all(a["op"] == b["op"] for a, b in zip(nodes1, nodes2))


def check_gluon_hybridize_consistency(net_builder, data_l, numpy_func=None, test_grad=True,
                                      rtol=1E-4, atol=1E-4):
    """Runs net_builder(prefix='net_') imperatively and hybridized, with and without autograd
    (backward with the output as head gradient), from the same parameters, and asserts equal
    outputs and input gradients (and outputs equal to numpy_func(*inputs) when given). The
    network must not draw random numbers."""
    from . import autograd
    saved_params, saved_out, saved_grads = None, None, None
    for hybridize in (False, True):
        for use_autograd in ((False, True) if test_grad else (False,)):
            net = net_builder(prefix="net_")
            net.initialize()
            params = net.collect_params()
            if saved_params is None:
                saved_params = {name: p.data().asnumpy() for name, p in params.items()}
            else:
                for name, p in params.items():
                    p.set_data(saved_params[name])
            if hybridize:
                net.hybridize()
            inputs = [x.copy() for x in data_l]
            if use_autograd:
                for x in inputs:
                    x.attach_grad()
                with autograd.record():
                    out = net(*inputs)
                out.backward(out)
            else:
                out = net(*inputs)
            where = "hybridize=%s, autograd=%s" % (hybridize, use_autograd)
            if saved_out is None:
                saved_out = out.asnumpy()
            else:
                assert_almost_equal(out.asnumpy(), saved_out, rtol=rtol, atol=atol,
                                    names=("output (%s)" % where, "output (first run)"))
            if use_autograd:
                grads = [x.grad.asnumpy() for x in inputs]
                if saved_grads is None:
                    saved_grads = grads
                else:
                    for k, (grad, saved) in enumerate(zip(grads, saved_grads)):
                        assert_almost_equal(grad, saved, rtol=rtol, atol=atol,
                                            names=("input %d gradient (%s)" % (k, where),
                                                   "input %d gradient (first run)" % k))
    if numpy_func is not None:
        expected = numpy_func(*[_as_numpy(x) for x in data_l])
        assert_almost_equal(saved_out, expected, rtol=rtol, atol=atol, names=("output", "numpy_func"))
