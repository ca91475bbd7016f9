"""Graph vs imperative, for every registered operator.

Each row of CASES builds one op twice: imperatively (mx.nd under autograd.record, backward
with a random head gradient) and as a graph (mx.sym variables, simple_bind, forward(train),
backward with the same head gradients). Both run the same kernels, so outputs, input
gradients and mutated auxiliary states must agree tightly; so must forward(is_train=False)
against mx.nd outside autograd, a second forward/backward on the same executor (grad_req
'write' must overwrite, not accumulate), and an executor bound with grad_req 'add'.

Coverage is checked against the registry: every op (aliases and _backward_* aside) is in
CASES or in SKIP with a reason, so a newly registered op fails test_registry_coverage until
someone adds a row for it. Ops without an FGradient have forward-only rows (fwd_only) that
also assert the op really is non-differentiable, so gaining a gradient moves it to full rows.
"""
import ctypes
import os
import subprocess
import sys
import zlib

import numpy as np
import pytest

import mxnet as mx
from mxnet.base import _LIB, check_call, py_str

RTOL, ATOL = 1e-5, 1e-6


# ---- input specs ----------------------------------------------------------------------------
# ("f", shape, lo, hi, dtype): uniform floats, differentiated
# ("n", shape, lo, hi, dtype): uniform floats, not differentiated (stats, masks)
# ("i", shape, lo, hi, dtype): integers in [lo, hi) (indices, labels); their gradient is zeros
# ("c", array, dtype): a fixed array, not differentiated
def F(*shape, lo=-1.0, hi=1.0, dtype="float32"):
    return ("f", shape, lo, hi, dtype)


def N(*shape, lo=-1.0, hi=1.0, dtype="float32"):
    return ("n", shape, lo, hi, dtype)


def I(*shape, lo=0, hi=2, dtype="float32"):
    return ("i", shape, lo, hi, dtype)


def C(array, dtype="float32"):
    return ("c", np.asarray(array), dtype)


class Case:
    """op, its inputs (specs above) and parameters.

    aux: input indices that are auxiliary states of the symbol (BatchNorm's moving stats).
    train: autograd train mode / forward(is_train=True) semantics matter.
    random: the op draws random numbers; both sides re-seed before each training forward.
    fwd_only: the op has no FGradient; only forward is compared, and backward must fail.
    tol: (rtol, atol) where an op is known to differ (none so far).
    infer: input indices whose shapes and dtypes alone let inference decide every other
    (a weight from the data, one elementwise operand from the other), as in 1.x."""

    def __init__(self, op, inputs, name=None, aux=(), train=False, random=False, fwd_only=False,
                 tol=None, infer=(), **params):
        self.op, self.inputs, self.params, self.infer = op, inputs, params, tuple(infer)
        self.aux, self.train, self.random, self.fwd_only = tuple(aux), train, random, fwd_only
        self.tol = tol or (RTOL, ATOL)
        self.id = op if name is None else "%s-%s" % (op, name)


X = (3, 4)  # the default elementwise shape


def unary(op, lo=-1.0, hi=1.0, **kw):
    return Case(op, [F(*X, lo=lo, hi=hi)], **kw)


def binary(op, lhs=(-1.0, 1.0), rhs=(-1.0, 1.0), rshape=X, **kw):
    return Case(op, [F(*X, lo=lhs[0], hi=lhs[1]), F(*rshape, lo=rhs[0], hi=rhs[1])], **kw)


def scalar(op, scalar, lo=-1.0, hi=1.0, **kw):
    return Case(op, [F(*X, lo=lo, hi=hi)], scalar=scalar, **kw)


POS = dict(lo=0.5, hi=2.0)
UNIT = dict(lo=-0.9, hi=0.9)
CMP = ["equal", "not_equal", "greater", "greater_equal", "lesser", "lesser_equal"]
LOGIC = ["logical_and", "logical_or", "logical_xor"]
BN_IN = [F(2, 3, 4, 4), F(3, lo=0.5, hi=1.5), F(3), N(3), N(3, lo=0.5, hi=1.5)]

CASES = [
    # elementwise unary
    *[unary(op) for op in ["abs", "sign", "negative", "square", "exp", "expm1", "sin", "cos", "tan", "arctan",
                           "sinh", "cosh", "tanh", "arcsinh", "degrees", "radians", "sigmoid", "relu",
                           "softsign", "erf", "floor", "ceil", "round", "rint", "trunc", "fix", "logical_not",
                           "_copy", "zeros_like", "ones_like", "BlockGrad"]],
    *[unary(op, **POS) for op in ["reciprocal", "sqrt", "rsqrt", "cbrt", "rcbrt", "log", "log2", "log10",
                                  "gamma", "gammaln"]],
    *[unary(op, **UNIT) for op in ["arcsin", "arccos", "arctanh", "erfinv"]],
    unary("log1p", lo=0.0, hi=1.0),
    unary("arccosh", lo=1.1, hi=3.0),
    unary("clip", a_min=-0.5, a_max=0.5),
    unary("Cast", dtype="float64"),
    Case("Cast", [F(*X, dtype="float64")], name="from64", dtype="float32"),
    Case("Flatten", [F(2, 3, 4)]),
    # scalar ops
    *[scalar("_%s_scalar" % op, 0.7) for op in ["plus", "minus", "rminus", "mul", "maximum", "minimum", "hypot"]],
    scalar("_div_scalar", 0.7), scalar("_rdiv_scalar", 0.7, **POS),
    scalar("_mod_scalar", 0.7, lo=0.1, hi=3.0), scalar("_rmod_scalar", 3.0, **POS),
    scalar("_power_scalar", 2.5, **POS), scalar("_rpower_scalar", 2.0),
    *[scalar("_%s_scalar" % op, 0.0) for op in CMP + LOGIC],
    # elementwise binary
    *[binary(op, infer=(1,)) for op in ["elemwise_add", "elemwise_sub", "elemwise_mul", "_maximum", "_minimum",
                                        "_hypot"]],
    binary("elemwise_div", rhs=(0.5, 2.0), infer=(1,)), binary("_mod", lhs=(0.5, 3.0), rhs=(0.5, 1.0), infer=(1,)),
    binary("_power", lhs=(0.5, 2.0), infer=(1,)),
    *[binary("_" + op, infer=(1,)) for op in CMP + LOGIC],
    # broadcasting
    *[binary("broadcast_" + op, rshape=(1, 4)) for op in ["add", "sub", "mul", "maximum", "minimum", "hypot"]
      + CMP + LOGIC],
    binary("broadcast_div", rhs=(0.5, 2.0), rshape=(1, 4)),
    binary("broadcast_mod", lhs=(0.5, 3.0), rhs=(0.5, 1.0), rshape=(3, 1)),
    binary("broadcast_power", lhs=(0.5, 2.0), rshape=(1, 4)),
    Case("broadcast_to", [F(1, 4)], shape=(3, 4)),
    Case("broadcast_axis", [F(3, 1)], axis=1, size=4),
    Case("broadcast_like", [F(1, 4), F(3, 4)]),
    # variadic and multi-output
    Case("add_n", [F(*X), F(*X), F(*X)], infer=(2,)),
    Case("Concat", [F(2, 3), F(2, 2)], dim=1),
    Case("stack", [F(*X), F(*X)], axis=1),
    Case("SliceChannel", [F(3, 4)], num_outputs=2, axis=1),
    Case("_split_v2", [F(3, 5)], indices=(0, 2, 2), axis=1),
    Case("_split_v2", [F(4, 3)], name="sections_squeeze", indices=(), sections=4, axis=0, squeeze_axis=True),
    Case("shape_array", [F(3, 4)]),
    Case("size_array", [F(3, 4)]),
    # densities: one distribution per parameter element, samples along the trailing axis
    Case("_random_pdf_uniform", [F(2, 3), F(2, lo=-3.0, hi=-2.0), F(2, lo=2.0, hi=3.0)]),
    Case("_random_pdf_normal", [F(2, 3), F(2), F(2, lo=0.5, hi=1.5)], is_log=True),
    Case("_random_pdf_gamma", [F(2, 3, lo=0.3, hi=2.0), F(2, lo=1.5, hi=3.0), F(2, lo=0.5, hi=2.0)]),
    Case("_random_pdf_exponential", [F(2, 3, lo=0.3, hi=2.0), F(2, lo=0.5, hi=2.0)]),
    Case("_random_pdf_poisson", [F(2, 3, lo=0.0, hi=5.0), F(2, lo=0.5, hi=4.0)]),
    Case("_random_pdf_negative_binomial", [F(2, 3, lo=0.0, hi=5.0), F(2, lo=1.0, hi=4.0), F(2, lo=0.2, hi=0.8)]),
    Case("_random_pdf_generalized_negative_binomial",
         [F(2, 3, lo=0.0, hi=5.0), F(2, lo=1.0, hi=4.0), F(2, lo=0.2, hi=0.8)], is_log=True),
    Case("_random_pdf_dirichlet", [F(2, 3, 4, lo=0.1, hi=0.4), F(2, 4, lo=0.8, hi=3.0)]),
    Case("where", [I(*X, hi=2), F(*X), F(*X)]),
    # reductions
    Case("sum", [F(3, 4, 5)], axis=1),
    Case("mean", [F(3, 4, 5)], axis=(0, 2)),
    Case("prod", [F(3, 4, 5, lo=0.5, hi=1.5)], axis=1),
    Case("nansum", [F(3, 4, 5)], axis=2, keepdims=True),
    Case("nanprod", [F(3, 4, 5, lo=0.5, hi=1.5)], axis=0),
    Case("max", [F(3, 4, 5)], axis=1),
    Case("min", [F(3, 4, 5)], axis=2, keepdims=True),
    Case("norm", [F(3, 4, 5)], axis=1),
    Case("argmax", [F(3, 4, 5)], axis=1),
    Case("argmin", [F(3, 4, 5)], axis=2),
    # shape manipulation
    Case("Reshape", [F(2, 3, 4)], shape=(4, -1)),
    Case("reshape_like", [F(2, 6), F(3, 4)]),
    Case("expand_dims", [F(*X)], axis=1),
    Case("squeeze", [F(2, 1, 3)], axis=1),
    Case("transpose", [F(2, 3, 4)], axes=(1, 0, 2)),
    Case("SwapAxis", [F(2, 3, 4)], dim1=0, dim2=2),
    Case("reverse", [F(*X)], axis=1),
    Case("depth_to_space", [F(1, 8, 2, 3)], block_size=2),
    Case("space_to_depth", [F(1, 2, 4, 6)], block_size=2),
    Case("slice", [F(3, 4)], begin=(0, 1), end=(2, 3)),
    Case("slice_axis", [F(3, 4)], axis=1, begin=1, end=3),
    Case("slice_like", [F(3, 4), F(2, 3)]),
    Case("_slice_assign", [F(3, 4), F(2, 2)], begin=(0, 1), end=(2, 3)),
    Case("_slice_assign_scalar", [F(3, 4)], scalar=2.0, begin=(0, 1), end=(2, 3)),
    Case("tile", [F(*X)], reps=(2, 1)),
    Case("repeat", [F(*X)], repeats=2, axis=1),
    Case("diag", [F(3, 4)], k=1),
    Case("Pad", [F(1, 2, 3, 4)], mode="constant", pad_width=(0, 0, 0, 0, 1, 1, 2, 2), constant_value=0.5),
    # indexing
    Case("take", [F(5, 3), I(4, hi=5)]),
    Case("pick", [F(3, 4), I(3, hi=4)], axis=1),
    Case("gather_nd", [F(3, 4), I(2, 5, hi=3)]),
    Case("scatter_nd", [F(5), C([[0, 1, 2, 0, 2], [0, 1, 2, 3, 3]])], shape=(3, 4)),
    Case("one_hot", [I(4, hi=5)], depth=5),
    Case("Embedding", [I(2, 3, hi=5), F(5, 4)], infer=(0,), input_dim=5, output_dim=4),
    # sorting
    Case("sort", [F(3, 5)], axis=-1),
    Case("argsort", [F(3, 5)], axis=-1),
    Case("topk", [F(3, 5)], axis=-1, k=2, ret_typ="value"),
    Case("topk", [F(3, 5)], name="both", axis=-1, k=2, ret_typ="both"),
    # linear algebra
    Case("dot", [F(3, 4), F(4, 5)]),
    Case("dot", [F(4, 3), F(5, 4)], name="tt", transpose_a=True, transpose_b=True),
    # a 3x4 CSR matrix (data, indices, indptr) with an empty row; data is differentiated
    Case("_sparse_csr_dot_dense", [F(5), C([0, 3, 0, 1, 2], "int64"), C([0, 2, 2, 5], "int64"), F(4, 2)],
         shape=(3, 4)),
    Case("_sparse_csr_dot_dense", [F(5), C([0, 3, 0, 1, 2], "int64"), C([0, 2, 2, 5], "int64"), F(3, 2)],
         name="ta", shape=(3, 4), transpose_a=True),
    Case("_sparse_csr_to_dense", [F(5), C([0, 3, 0, 1, 2], "int64"), C([0, 2, 2, 5], "int64")], shape=(3, 4)),
    Case("batch_dot", [F(2, 3, 4), F(2, 4, 5)]),
    Case("batch_dot", [F(2, 3, 4), F(2, 5, 4)], name="tb", transpose_b=True),
    # nn
    *[Case("Activation", [F(2, 3)], name=a, act_type=a) for a in ["relu", "sigmoid", "tanh", "softrelu",
                                                                  "softsign"]],
    *[Case("LeakyReLU", [F(2, 3, 4)], name=a, act_type=a) for a in ["leaky", "elu", "selu", "gelu"]],
    Case("LeakyReLU", [F(2, 3, 4), F(3)], name="prelu", infer=(0,), act_type="prelu"),
    Case("BatchNorm", BN_IN, aux=(3, 4), train=True, infer=(0,), fix_gamma=False),
    Case("BatchNorm", BN_IN, name="global", aux=(3, 4), train=True, fix_gamma=False, use_global_stats=True),
    Case("BatchNorm", BN_IN, name="mean_var", aux=(3, 4), train=True, output_mean_var=True),
    Case("_contrib_BatchNormWithReLU", BN_IN, aux=(3, 4), train=True, infer=(0,), fix_gamma=False),
    Case("LayerNorm", [F(2, 3, 4), F(4, lo=0.5, hi=1.5), F(4)], infer=(0,)),
    Case("InstanceNorm", [F(2, 3, 4), F(3, lo=0.5, hi=1.5), F(3)], infer=(0,)),
    Case("GroupNorm", [F(2, 4, 3), F(2, lo=0.5, hi=1.5), F(2)], infer=(0,), num_groups=2),
    Case("L2Normalization", [F(2, 3, 4)], mode="instance"),
    Case("L2Normalization", [F(2, 3, 4)], name="channel", mode="channel"),
    Case("LRN", [F(2, 5, 3, 3)], nsize=3),
    Case("FullyConnected", [F(2, 3, 4), F(5, 12), F(5)], infer=(0,), num_hidden=5),
    Case("FullyConnected", [F(2, 3, 4), F(5, 4)], name="noflat_nobias", infer=(0,), num_hidden=5, flatten=False,
         no_bias=True),
    Case("Convolution", [F(2, 3, 6, 6), F(4, 3, 3, 3), F(4)], infer=(0,), kernel=(3, 3), num_filter=4, pad=(1, 1)),
    Case("Convolution", [F(2, 4, 5, 5), F(4, 2, 3, 3)], name="group_nobias", infer=(0,), kernel=(3, 3),
         num_filter=4, num_group=2, stride=(2, 2), no_bias=True),
    Case("Convolution", [F(2, 3, 7), F(4, 3, 3), F(4)], name="1d", infer=(0,), kernel=(3,), num_filter=4),
    Case("Deconvolution", [F(2, 3, 4, 4), F(3, 4, 3, 3), F(4)], infer=(0,), kernel=(3, 3), num_filter=4,
         no_bias=False),
    Case("Pooling", [F(2, 3, 6, 6)], name="max", kernel=(2, 2), stride=(2, 2), pool_type="max"),
    Case("Pooling", [F(2, 3, 6, 6)], name="avg", kernel=(3, 3), stride=(1, 1), pad=(1, 1), pool_type="avg"),
    Case("Pooling", [F(2, 3, 5, 5)], name="global", kernel=(1, 1), global_pool=True, pool_type="avg"),
    Case("UpSampling", [F(1, 2, 3, 3)], scale=2, sample_type="nearest"),
    Case("BilinearResize2D", [F(1, 2, 3, 4)], height=5, width=6),
    *[Case(op, [F(3, 4)], axis=-1) for op in ["softmax", "log_softmax", "softmin"]],
    Case("softmax", [F(3, 4)], name="temperature", axis=0, temperature=2.0),
    Case("SoftmaxOutput", [F(3, 4), I(3, hi=4)], infer=(0,)),
    *[Case(op, [F(3, 4), F(3, 4)], infer=(0,), grad_scale=2.0)
      for op in ["LinearRegressionOutput", "MAERegressionOutput", "LogisticRegressionOutput"]],
    Case("MakeLoss", [F(3, 4)], grad_scale=0.5, normalization="batch"),
    Case("CTCLoss", [F(5, 2, 4), C([[1, 2, 0], [3, 3, 1]])]),
    Case("CTCLoss", [F(5, 2, 4), C([[0, 1, -1], [2, 2, 0]]), C([5, 4]), C([2, 3])], name="lengths_last",
         use_data_lengths=True, use_label_lengths=True, blank_label="last"),
    Case("Dropout", [F(4, 5)], train=True, random=True, p=0.5),
    # other dtypes (same kernels both ways, so the float32 tolerances hold)
    Case("Convolution", [F(2, 3, 5, 5, dtype="float16"), F(4, 3, 3, 3, dtype="float16"), F(4, dtype="float16")],
         name="f16", kernel=(3, 3), num_filter=4),
    Case("FullyConnected", [F(2, 3, dtype="float64"), F(4, 3, dtype="float64"), F(4, dtype="float64")],
         name="f64", num_hidden=4),
    Case("BatchNorm", [F(2, 3, 4, dtype="float16"), F(3, lo=0.5, hi=1.5), F(3), N(3), N(3, lo=0.5, hi=1.5)],
         name="f16_f32_params", aux=(3, 4), train=True, fix_gamma=False),
    Case("softmax", [F(3, 4, dtype="float16")], name="f16", axis=-1),
    Case("elemwise_mul", [F(*X, dtype="float16"), F(*X, dtype="float16")], name="f16", infer=(1,)),
    Case("Cast", [F(*X, dtype="float16")], name="f16to32", dtype="float32"),
    # image
    Case("_image_flip_left_right", [F(4, 5, 3)]),
    Case("_image_flip_top_bottom", [F(4, 5, 3)]),
    Case("_image_to_tensor", [F(4, 5, 3, lo=0.0, hi=255.0)], fwd_only=True),
    Case("_image_normalize", [F(3, 4, 5)], mean=(0.1, 0.2, 0.3), std=(0.5, 1.0, 2.0)),
    Case("_image_crop", [F(5, 6, 3)], fwd_only=True, x=1, y=2, width=3, height=2),
    Case("_image_resize", [F(5, 6, 3)], fwd_only=True, size=(4, 3)),
    Case("_image_adjust_lighting", [F(4, 5, 3, lo=0.0, hi=255.0)], fwd_only=True, alpha=(0.1, -0.2, 0.3)),
    Case("_cvimresize", [F(5, 6, 3)], fwd_only=True, w=4, h=7, interp=2),
    Case("_cvcopyMakeBorder", [F(5, 6, 3)], fwd_only=True, top=1, bot=2, left=0, right=3, type=4),
]

# Ops with no row, one line each on why. Everything else registered must have a row.
SKIP = {
    "_CachedOp": "a recorded hybridized-block call; made by CachedOp, never called by name",
    "_CustomFunction": "autograd.Function's node; needs a Python function, never called by name",
    "_sg_onednn_conv": "oneDNN subgraph op made by graph partitioning, not built by users",
    "_sg_onednn_fully_connected": "oneDNN subgraph op made by graph partitioning, not built by users",
    # optimizer updates (they mutate their state inputs and are never differentiated)
    **{op: "optimizer update" for op in [
        "adam_update", "_adamw_update", "_mp_adamw_update", "lamb_update_phase1", "lamb_update_phase2",
        "ftrl_update", "signsgd_update", "signum_update", "multi_sgd_update", "multi_sgd_mom_update",
        "multi_mp_sgd_update", "multi_mp_sgd_mom_update", "rmsprop_update", "rmspropalex_update", "sgd_update",
        "sgd_mom_update", "mp_sgd_update", "mp_sgd_mom_update", "nag_mom_update", "mp_nag_mom_update"]},
    # random samplers: no deterministic output to compare
    **{op: "random sampler" for op in [
        "_sample_multinomial", "_sample_uniform", "_sample_normal", "_sample_gamma", "_sample_exponential",
        "_sample_poisson", "_sample_negative_binomial", "_sample_generalized_negative_binomial",
        "_random_uniform", "_random_normal", "_random_gamma", "_random_exponential", "_random_poisson",
        "_random_negative_binomial", "_random_generalized_negative_binomial", "_random_randint",
        "_random_uniform_like", "_random_normal_like", "_random_gamma_like", "_random_exponential_like",
        "_random_poisson_like", "_random_negative_binomial_like", "_random_generalized_negative_binomial_like",
        "_shuffle", "_image_random_flip_left_right", "_image_random_flip_top_bottom",
        "_image_random_brightness", "_image_random_contrast", "_image_random_saturation", "_image_random_hue",
        "_image_random_color_jitter", "_image_random_lighting"]},
    # creation ops: no inputs, so nothing to differentiate
    **{op: "no inputs (array creation)" for op in [
        "_zeros", "_ones", "_full", "_empty", "_arange", "_linspace", "_eye"]},
}


def _canonical_ops():
    """Registered op names without aliases (MXSymbolListAtomicSymbolCreators lists each op once)."""
    size = ctypes.c_uint()
    creators = ctypes.POINTER(ctypes.c_void_p)()
    check_call(_LIB.MXSymbolListAtomicSymbolCreators(ctypes.byref(size), ctypes.byref(creators)))
    names = []
    for i in range(size.value):
        name = ctypes.c_char_p()
        check_call(_LIB.MXSymbolGetAtomicSymbolName(ctypes.c_void_p(creators[i]), ctypes.byref(name)))
        names.append(py_str(name.value))
    return [n for n in names if not n.startswith(("_backward_", "_np_", "_npi_", "_npx_"))]


def test_registry_coverage():
    ops = set(_canonical_ops())
    covered = {c.op for c in CASES}
    missing = sorted(ops - covered - set(SKIP))
    assert not missing, "ops with neither a row in CASES nor an entry in SKIP: %s" % missing
    stale = sorted((covered | set(SKIP)) - ops)
    assert not stale, "rows or skips for ops that are not registered (renamed? removed?): %s" % stale
    both = sorted(covered & set(SKIP))
    assert not both, "ops both covered and skipped: %s" % both
    assert len({c.id for c in CASES}) == len(CASES), "duplicate case ids"


# ---- running one case -------------------------------------------------------------------------
def _fn(ns, op):
    """The generated function of op in mx.nd or mx.sym (underscore names live in _internal)."""
    return getattr(ns._internal, op) if op.startswith("_") else getattr(ns.op, op)


def _make_inputs(case, rng):
    out = []
    for spec in case.inputs:
        kind = spec[0]
        if kind == "c":
            out.append(spec[1].astype(spec[2]))
        elif kind == "i":
            out.append(rng.randint(spec[2], spec[3], spec[1]).astype(spec[4]))
        else:
            out.append(rng.uniform(spec[2], spec[3], spec[1]).astype(spec[4]))
    return out


def _listify(res):
    return list(res) if isinstance(res, (list, tuple)) else [res]


def _diff(case):
    """Inputs given a gradient buffer: all but aux states, constants and "n" inputs (index
    inputs too: their gradient is zeros, which the graph must produce as well)."""
    return [i for i, s in enumerate(case.inputs) if s[0] in "fi" and i not in case.aux]


def _seed(case):
    if case.random:
        mx.random.seed(1234)


def _close(got, want, case, what):
    got, want = got.asnumpy(), want.asnumpy()
    assert got.shape == want.shape, "%s: shape %s vs %s" % (what, got.shape, want.shape)
    assert got.dtype == want.dtype, "%s: dtype %s vs %s" % (what, got.dtype, want.dtype)
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=case.tol[0],
                               atol=case.tol[1], err_msg="%s differs between graph and imperative" % what)


def _symbol(case):
    names = ["in%d" % i for i in range(len(case.inputs))]
    sym = _fn(mx.sym, case.op)(*[mx.sym.Variable(n) for n in names], **case.params)
    args, aux = sym.list_arguments(), sym.list_auxiliary_states()
    assert sorted(args + aux) == sorted(names), "symbol inputs %s + aux %s, expected %s" % (args, aux, names)
    assert aux == ["in%d" % i for i in case.aux], "aux states %s, expected inputs %s" % (aux, case.aux)
    return sym, names


class Imperative:
    """One case run through mx.nd: inputs, recorded outputs and gradients, head gradients, and
    the outputs of a second call outside autograd (predict mode, after any state updates)."""

    def __init__(self, case):
        rng = np.random.RandomState(zlib.crc32(case.id.encode()) & 0x7FFFFFFF)
        self.rng = rng
        self.values = _make_inputs(case, rng)
        self.diff = _diff(case)
        nd_fn = _fn(mx.nd, case.op)
        self.xs = xs = [mx.nd.array(v, dtype=v.dtype) for v in self.values]
        for i in self.diff:
            xs[i].attach_grad()
        _seed(case)
        with mx.autograd.record(train_mode=case.train):
            self.outs = _listify(nd_fn(*xs, **case.params))
        self.heads = [mx.nd.array(rng.uniform(0.5, 1.5, o.shape), dtype=o.dtype) for o in self.outs]
        if case.fwd_only:
            with pytest.raises(mx.base.MXNetError, match="non-differentiable"):
                mx.autograd.backward(self.outs, self.heads, train_mode=case.train)
        else:
            mx.autograd.backward(self.outs, self.heads, train_mode=case.train)
        self.grads = [xs[i].grad for i in self.diff]
        self.pred = _listify(nd_fn(*xs, **case.params))


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_graph_matches_imperative(case):
    imp = Imperative(case)
    rng, values, diff, outs, heads, grads, pred, xs = (imp.rng, imp.values, imp.diff, imp.outs, imp.heads,
                                                       imp.grads, imp.pred, imp.xs)

    # (2) graph: simple_bind from the shapes and dtypes alone, then the same values
    sym, names = _symbol(case)
    shapes = {n: v.shape for n, v in zip(names, values)}
    types = {n: v.dtype for n, v in zip(names, values)}
    reqs = {n: ("write" if i in diff and not case.fwd_only else "null") for i, n in enumerate(names)}
    exe = sym.simple_bind(mx.cpu(), grad_req=reqs, type_dict=types, **shapes)
    for i, (n, v) in enumerate(zip(names, values)):
        (exe.aux_dict if i in case.aux else exe.arg_dict)[n][:] = v
    _seed(case)
    g_outs = exe.forward(is_train=True)
    assert len(g_outs) == len(outs), "graph has %d outputs, imperative %d" % (len(g_outs), len(outs))
    for k, (g, o) in enumerate(zip(g_outs, outs)):
        _close(g, o, case, "output %d (train)" % k)
    if case.fwd_only:
        # simple_bind reports its errors as RuntimeError, as 1.x does
        with pytest.raises((mx.base.MXNetError, RuntimeError), match="non-differentiable"):
            sym.simple_bind(mx.cpu(), grad_req="write", type_dict=types, **shapes)
    else:
        exe.backward(heads)
        for i, g in zip(diff, grads):
            _close(exe.grad_dict[names[i]], g, case, "gradient of input %d" % i)
    for i in case.aux:  # mutated states (BatchNorm moving stats) updated alike
        _close(exe.aux_dict[names[i]], xs[i], case, "auxiliary state %d" % i)

    # (3) inference forward vs mx.nd outside autograd
    for k, (g, o) in enumerate(zip(exe.forward(is_train=False), pred)):
        _close(g, o, case, "output %d (inference)" % k)
    if case.fwd_only:
        return

    # (4) running again overwrites the gradients (grad_req 'write')
    _seed(case)
    exe.forward(is_train=True)
    exe.backward(heads)
    for i, g in zip(diff, grads):
        _close(exe.grad_dict[names[i]], g, case, "gradient of input %d after a second backward" % i)

    # (5) bind over given arrays with grad_req 'add': gradients land on top of what is there
    args = {n: mx.nd.array(v, dtype=v.dtype) for i, (n, v) in enumerate(zip(names, values)) if i not in case.aux}
    aux = {names[i]: mx.nd.array(values[i], dtype=values[i].dtype) for i in case.aux}
    base = {names[i]: mx.nd.array(rng.uniform(-1, 1, values[i].shape), dtype=values[i].dtype) for i in diff}
    args_grad = {n: b.copy() for n, b in base.items()}
    exe2 = sym.bind(mx.cpu(), args=args, args_grad=args_grad, grad_req={n: "add" for n in base},
                    aux_states=aux)
    _seed(case)
    exe2.forward(is_train=True)
    exe2.backward(heads)
    for i, g in zip(diff, grads):
        _close(args_grad[names[i]], base[names[i]] + g, case, "gradient of input %d with grad_req 'add'" % i)

    # (6) only the last differentiable input asks for its gradient (the rest 'null')
    if len(diff) > 1:
        last = names[diff[-1]]
        exe3 = sym.simple_bind(mx.cpu(), grad_req={last: "write"}, type_dict=types, **shapes)
        for i, (n, v) in enumerate(zip(names, values)):
            (exe3.aux_dict if i in case.aux else exe3.arg_dict)[n][:] = v
        _seed(case)
        exe3.forward(is_train=True)
        exe3.backward(heads)
        _close(exe3.grad_dict[last], grads[-1], case, "gradient of input %d alone" % diff[-1])
        assert all(exe3.grad_dict.get(names[i]) is None for i in diff[:-1])


@pytest.mark.parametrize("case", [c for c in CASES if not c.fwd_only],
                         ids=[c.id for c in CASES if not c.fwd_only])
def test_graph_in_context_matches_imperative(case):
    """The op between other nodes (every input through x*1, every output into y*1): its inputs and
    outputs are then planned entries, open to buffer sharing and in-place reuse, not bound arrays."""
    imp = Imperative(case)
    sym, names = _symbol(case)
    ident = lambda s, tag: mx.sym._internal._mul_scalar(s, scalar=1.0, name=tag)
    inner = [mx.sym.Variable(n) if i in case.aux else ident(mx.sym.Variable(n), "pre%d" % i)
             for i, n in enumerate(names)]
    core = _fn(mx.sym, case.op)(*inner, **case.params)
    sym = mx.sym.Group([ident(core[k], "post%d" % k) for k in range(len(imp.outs))])
    shapes = {n: v.shape for n, v in zip(names, imp.values)}
    types = {n: v.dtype for n, v in zip(names, imp.values)}
    exe = sym.simple_bind(mx.cpu(), grad_req={n: ("write" if i in imp.diff else "null")
                                              for i, n in enumerate(names)}, type_dict=types, **shapes)
    for i, (n, v) in enumerate(zip(names, imp.values)):
        (exe.aux_dict if i in case.aux else exe.arg_dict)[n][:] = v
    _seed(case)
    for k, (g, o) in enumerate(zip(exe.forward(is_train=True), imp.outs)):
        _close(g, o, case, "output %d (train)" % k)
    exe.backward(imp.heads)
    for i, g in zip(imp.diff, imp.grads):
        _close(exe.grad_dict[names[i]], g, case, "gradient of input %d" % i)
    for k, (g, o) in enumerate(zip(exe.forward(is_train=False), imp.pred)):
        _close(g, o, case, "output %d (inference)" % k)


TIED_CASES = [c for c in CASES if len(c.inputs) > 1 and not c.aux and not c.fwd_only
              and all(spec[0] == "f" and (spec[1], spec[4]) == (c.inputs[0][1], c.inputs[0][4]) for spec in c.inputs)]


@pytest.mark.parametrize("case", TIED_CASES, ids=[c.id for c in TIED_CASES])
def test_one_variable_in_every_input(case):
    """op(x, x, ...): the gradient pass must sum one contribution per use, as autograd does."""
    rng = np.random.RandomState(zlib.crc32(case.id.encode()) & 0x7FFFFFFF)
    value = _make_inputs(case, rng)[0]
    x = mx.nd.array(value, dtype=value.dtype)
    x.attach_grad()
    with mx.autograd.record():
        outs = _listify(_fn(mx.nd, case.op)(*([x] * len(case.inputs)), **case.params))
    heads = [mx.nd.array(rng.uniform(0.5, 1.5, o.shape), dtype=o.dtype) for o in outs]
    mx.autograd.backward(outs, heads)
    var = mx.sym.Variable("x")
    sym = _fn(mx.sym, case.op)(*([var] * len(case.inputs)), **case.params)
    assert sym.list_arguments() == ["x"]
    exe = sym.simple_bind(mx.cpu(), x=value.shape, type_dict={"x": value.dtype})
    exe.arg_dict["x"][:] = value
    for k, (g, o) in enumerate(zip(exe.forward(is_train=True), outs)):
        _close(g, o, case, "output %d" % k)
    exe.backward(heads)
    _close(exe.grad_dict["x"], x.grad, case, "gradient of the shared input")


INFER_CASES = [c for c in CASES if c.infer]


@pytest.mark.parametrize("case", INFER_CASES, ids=[c.id for c in INFER_CASES])
def test_inference_from_some_inputs(case):
    """Shapes and dtypes of every argument, aux state and output from those of c.infer alone."""
    values = _make_inputs(case, np.random.RandomState(0))
    sym, names = _symbol(case)
    outs = _listify(_fn(mx.nd, case.op)(*[mx.nd.array(v, dtype=v.dtype) for v in values], **case.params))
    given = {names[i]: values[i] for i in case.infer}
    want_in = {n: v for n, v in zip(names, values)}
    arg_shapes, out_shapes, aux_shapes = sym.infer_shape(**{n: v.shape for n, v in given.items()})
    assert arg_shapes is not None, "infer_shape could not decide every shape from %s" % sorted(given)
    got = dict(zip(sym.list_arguments() + sym.list_auxiliary_states(), arg_shapes + aux_shapes))
    assert got == {n: v.shape for n, v in want_in.items()}
    assert out_shapes == [o.shape for o in outs]
    arg_types, out_types, aux_types = sym.infer_type(**{n: v.dtype for n, v in given.items()})
    assert arg_types is not None, "infer_type could not decide every dtype from %s" % sorted(given)
    got = dict(zip(sym.list_arguments() + sym.list_auxiliary_states(), arg_types + aux_types))
    assert {n: np.dtype(t) for n, t in got.items()} == {n: v.dtype for n, v in want_in.items()}
    assert [np.dtype(t) for t in out_types] == [o.dtype for o in outs]


# ---- whole graphs ---------------------------------------------------------------------------
# Longer graphs with fan-out, multi-output nodes and several outputs give the memory planner
# and in-place reuse something to do. Each net is written once over ns = mx.nd or mx.sym.
def _cnn(ns, x, w1, b1, gamma, beta, mm, mv, w2, b2, wf, bf):
    h = ns.Convolution(x, w1, b1, kernel=(3, 3), pad=(1, 1), num_filter=4)
    h = ns.BatchNorm(h, gamma, beta, mm, mv, fix_gamma=False)
    h = ns.Activation(h, act_type="relu")
    h = h + ns.Convolution(h, w2, b2, kernel=(3, 3), pad=(1, 1), num_filter=4)
    p = ns.Pooling(h, kernel=(2, 2), stride=(2, 2), pool_type="max")
    parts = ns.SliceChannel(p, num_outputs=2, axis=1)
    c = ns.Concat(parts[1], parts[0] * 2, dim=1)
    y = ns.FullyConnected(ns.Flatten(c), wf, bf, num_hidden=5)
    return [ns.log_softmax(y), ns.sum(ns.tanh(h), axis=(2, 3))]


def _elementwise(ns, x, y):
    a, b = ns.sin(x), ns.cos(x)
    c = a * b + a
    d = c / (b * b + 1) - ns.exp(y) * a
    e = ns.sqrt(ns.abs(d) + 1) * ns.sigmoid(y)
    return [ns.sum(e * e, axis=1), e, ns.relu(d) + ns.square(c)]


def _sequence(ns, x, w, b, gamma, beta):
    h = ns.FullyConnected(x, w, b, num_hidden=6, flatten=False)
    h = ns.LayerNorm(h, gamma, beta, axis=-1)
    s = ns.softmax(ns.batch_dot(h, h, transpose_b=True), axis=-1)
    o = ns.batch_dot(s, h)
    t = ns.broadcast_add(ns.transpose(o, axes=(0, 2, 1)), ns.expand_dims(ns.max(h, axis=1), axis=2))
    return [ns.mean(t, axis=0)]


NETS = {
    "cnn": (_cnn, [F(2, 3, 6, 6), F(4, 3, 3, 3), F(4), F(4, lo=0.5, hi=1.5), F(4), N(4), N(4, lo=0.5, hi=1.5),
                   F(4, 4, 3, 3), F(4), F(5, 36), F(5)], (5, 6)),
    "elementwise": (_elementwise, [F(4, 5), F(4, 5)], ()),
    "sequence": (_sequence, [F(2, 4, 3), F(6, 3), F(6), F(6, lo=0.5, hi=1.5), F(6)], ()),
}


@pytest.mark.parametrize("net", sorted(NETS))
def test_whole_graph_matches_imperative(net):
    fn, specs, aux = NETS[net]
    case = Case(net, specs, aux=aux, train=True)
    rng = np.random.RandomState(zlib.crc32(net.encode()) & 0x7FFFFFFF)
    values = _make_inputs(case, rng)
    diff = _diff(case)
    xs = [mx.nd.array(v) for v in values]
    for i in diff:
        xs[i].attach_grad()
    with mx.autograd.record(train_mode=True):
        outs = fn(mx.nd, *xs)
    heads = [mx.nd.array(rng.uniform(0.5, 1.5, o.shape)) for o in outs]
    mx.autograd.backward(outs, heads)
    names = ["in%d" % i for i in range(len(values))]
    sym = mx.sym.Group(fn(mx.sym, *[mx.sym.Variable(n) for n in names]))
    assert sym.list_auxiliary_states() == [names[i] for i in aux]
    exe = sym.simple_bind(mx.cpu(), grad_req={n: ("write" if i in diff else "null") for i, n in enumerate(names)},
                          **{n: v.shape for n, v in zip(names, values)})
    for i, (n, v) in enumerate(zip(names, values)):
        (exe.aux_dict if i in aux else exe.arg_dict)[n][:] = v
    for k, (g, o) in enumerate(zip(exe.forward(is_train=True), outs)):
        _close(g, o, case, "output %d" % k)
    exe.backward(heads)
    for i in diff:
        _close(exe.grad_dict[names[i]], xs[i].grad, case, "gradient of input %d" % i)
    for i in aux:
        _close(exe.aux_dict[names[i]], xs[i], case, "auxiliary state %d" % i)
    pred = fn(mx.nd, *xs)
    for k, (g, o) in enumerate(zip(exe.forward(is_train=False), pred)):
        _close(g, o, case, "output %d (inference)" % k)


# ---- the same rows under other executor settings -----------------------------------------------
@pytest.mark.parametrize("setting", [
    {"MXNET_BACKWARD_DO_MIRROR": "1", "MXNET_EXEC_INPLACE_GRAD_SUM_CAP": "2"},  # recompute, _grad_add chains
    {"MXNET_EXEC_ENABLE_INPLACE": "0", "NNVM_EXEC_MATCH_RANGE": "0"},  # no in-place, no shared blocks
], ids=["mirror", "no_reuse"])
def test_rows_under_other_executor_settings(setting):
    if os.environ.get("GRAPH_CONSISTENCY_RERUN"):
        pytest.skip("this process is a re-run")
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, GRAPH_CONSISTENCY_RERUN="1", **setting)
    env["PYTHONPATH"] = os.pathsep.join([os.path.join(here, "..", "..", "python"), env.get("PYTHONPATH", "")])
    res = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", __file__,
                          "-k", "not registry_coverage and not other_executor_settings"],
                         env=env, capture_output=True, text=True, timeout=300, cwd=here)
    assert res.returncode == 0, res.stdout[-6000:] + res.stderr[-2000:]
