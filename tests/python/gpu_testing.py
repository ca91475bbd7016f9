"""What the GPU tests share: the `gpu` marker's skip condition and the CPU-vs-GPU comparison
of one op-harness row (1.x's check_consistency idea: the same inputs on both contexts, compared
with the row's per-dtype tolerances)."""
import numpy as np
import pytest

import mxnet as mx
from op_testing import case_arrays, case_nd, case_ref_inputs, compare, head_for, row_params, to_np


def gpu_count():
    try:
        return mx.context.num_gpus()
    except mx.base.MXNetError:
        return 0


HAS_GPU = gpu_count() > 0
needs_gpu = pytest.mark.skipif(not HAS_GPU, reason="no CUDA device visible (GPU paths are compile-checked only)")


def has_gpu_kernel(op_name):
    """Whether op_name has a CUDA kernel; False also for ops this build lacks (OpenCV's without USE_OPENCV)."""
    try:
        return bool(mx.kernels.implementations(op_name, "gpu"))
    except mx.base.MXNetError:
        return False


def _on(arrays, ctx):
    return [a.as_in_context(ctx) for a in arrays]


def _params_on(case, dtype, ctx):
    params = row_params(case, dtype)
    if not case.inputs:  # init ops and samplers without inputs take their context as a parameter
        params["ctx"] = ctx
    return params


def _run(case, arrays, dtype, ctx, grad):
    """Forward outputs (numpy) and, when grad, the gradients of case.grad inputs."""
    from op_testing import op as op_fn
    fn = op_fn(case.op)
    arrays = _on(arrays, ctx)
    for k in (case.grad if grad else ()):
        arrays[k].attach_grad()
    if case.seed is not None:
        mx.random.seed(case.seed)
    mode = mx.autograd.train_mode() if case.train else mx.autograd.predict_mode()
    with mx.autograd.record(train_mode=case.train) if grad else mode:
        res = fn(*arrays, **_params_on(case, dtype, ctx))
    res = list(res[:case.outputs]) if isinstance(res, (list, tuple)) else [res]
    for r in res:
        assert r.context == ctx, (case.id, "output on", r.context, "expected", ctx)
    grads = []
    if grad:
        head = head_for(case, res[0].shape, dtype)
        res[0].backward(case_nd(case, -1, head, dtype).as_in_context(ctx), train_mode=case.train)
        grads = [to_np(arrays[k].grad) for k in case.grad]
    return [to_np(r) for r in res], grads


def check_consistency(case, dtype, grad=True):
    """The row on cpu(0) and gpu(0) with identical inputs: outputs and gradients agree within the
    row's tolerances (forward table for outputs, gradient table for gradients)."""
    arrays = case_arrays(case, dtype)
    do_grad = grad and bool(case.grad)
    if case.ref is None:
        # Samplers: each device has its own stream for a seed (as in 1.x), so the GPU's draws
        # are held to the row's statistical property check instead of to the CPU's draws.
        gpu_out, _ = _run(case, arrays, dtype, mx.gpu(0), False)
        case.check([g.astype(np.float64) for g in gpu_out], case_ref_inputs(case, dtype), **row_params(case, dtype))
        return
    cpu_out, cpu_grads = _run(case, arrays, dtype, mx.cpu(0), do_grad)
    gpu_out, gpu_grads = _run(case, arrays, dtype, mx.gpu(0), do_grad)
    rtol, atol = case.tol(dtype)
    for i, (g, c) in enumerate(zip(gpu_out, cpu_out)):
        compare(g, c, rtol, atol, "%s %s output %d (gpu vs cpu)" % (case.id, dtype, i))
    rtol, atol = case.tol(dtype, grad=True)
    for k, g, c in zip(case.grad, gpu_grads, cpu_grads):
        compare(g, c, rtol, atol, "%s %s gradient of input %d (gpu vs cpu)" % (case.id, dtype, k))
