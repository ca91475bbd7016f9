/*!
 * \file fully_connected.cc
 * \brief FullyConnected: y = x W^T + b with flatten (x viewed as (N, prod(rest))) or not
 *        (applied to the last axis), and `_backward_FullyConnected`. Kernel lists:
 *          FullyConnected            sparse_input_gemv, gemv, onednn, reference
 *          _backward_FullyConnected  onednn, reference
 *        The reference kernels are OpenBLAS GEMMs; the float32 GEMV for batches of 1-2 rows
 *        registers here, the oneDNN entries in onednn/onednn_fc_kernels.cc.
 */
#include <string>
#include <vector>

#include "operator/kernel_dispatch.h"
#include "operator/nn/conv_im2col.h"
#include "operator/nn/fc_gemv.h"
#include "operator/nn/fc_param.h"
#include "operator/nn/half_via_float.h"
#include "operator/nn/nn_util.h"

namespace mxnet {
namespace op {

DMLC_REGISTER_PARAMETER(FullyConnectedParam);

namespace {

bool FCShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const auto& p = attrs.get<FullyConnectedParam>();
  const TShape& ds = (*in)[0];
  if (!ds.IsKnown()) return false;
  int64_t M, K;
  FCDims(attrs, ds, &M, &K);
  AssignShape(attrs, &(*in)[1], TShape{p.num_hidden, K}, "weight", 1);
  if (!p.no_bias) AssignShape(attrs, &(*in)[2], TShape{p.num_hidden}, "bias", 2);
  TShape o;
  if (p.flatten) {
    o = TShape{ds[0], p.num_hidden};
  } else {
    std::vector<dim_t> d(ds.begin(), ds.end());
    d.back() = p.num_hidden;
    o = TShape(d);
  }
  AssignShape(attrs, &(*out)[0], o, "output", 0);
  return true;
}

bool BackwardShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const auto& p = attrs.get<FullyConnectedParam>();
  AssignShape(attrs, &(*out)[0], (*in)[1], "output", 0);
  AssignShape(attrs, &(*out)[1], (*in)[2], "output", 1);
  if (!p.no_bias) AssignShape(attrs, &(*out)[2], TShape{p.num_hidden}, "output", 2);
  return (*in)[1].IsKnown() && (*in)[2].IsKnown();
}

void FCCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
               const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const auto& p = attrs.get<FullyConnectedParam>();
  int64_t M, K;
  FCDims(attrs, in[0].shape_, &M, &K);
  const int64_t H = p.num_hidden;
  const TBlob* bias = p.no_bias ? nullptr : &in[2];
  // float16 (and bfloat16 where oneDNN has no kernel) widen to float32 (half_via_float.h).
  if (IsHalfType(in[0].type_flag_)) {
    return ComputeInFloat32(in, req, out, [&](const std::vector<TBlob>& i, const std::vector<OpReqType>& r,
                                              const std::vector<TBlob>& o) {
      RunKernelPlain(*Op::Get("FullyConnected"), Context::kCPU, attrs, ctx, i, r, o);  // the float32 list
    });
  }
  MXNET_GEMM_TYPE_SWITCH(in[0].type_flag_, "FullyConnected", D, {
    D* y = out[0].dptr<D>();
    Gemm(false, true, M, H, K, D(1), in[0].dptr<D>(), K, in[1].dptr<D>(), K, BetaFor<D>(req[0]), y, H);
    if (bias) AddBias(bias->dptr<D>(), y, M, H, 1);
  });
}

/*! \brief Batches of 1-2 float32 rows: a matrix-vector product bound by reading the weight (fc_gemv.h). */
bool GemvAccepts(const KernelProblem& p) {
  if (p.inputs[0].type_flag_ != kFloat32) return false;
  int64_t M, K;
  FCDims(p.attrs, p.inputs[0].shape_, &M, &K);
  return M <= kFCGemvMaxRows;
}

void GemvCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const auto& p = attrs.get<FullyConnectedParam>();
  int64_t M, K;
  FCDims(attrs, in[0].shape_, &M, &K);
  const float* bias = p.no_bias ? nullptr : in[2].dptr<float>();
  FCGemv(in[0].dptr<float>(), in[1].dptr<float>(), bias, out[0].dptr<float>(), M, K, p.num_hidden, req[0] == kAddTo);
}

void FCBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  // inputs (ograd, data, weight); outputs (ddata, dweight [, dbias])
  const auto& p = attrs.get<FullyConnectedParam>();
  int64_t M, K;
  FCDims(attrs, in[1].shape_, &M, &K);
  const int64_t H = p.num_hidden;
  const TBlob* dx = req[0] != kNullOp ? &out[0] : nullptr;
  const TBlob* dw = req[1] != kNullOp ? &out[1] : nullptr;
  const TBlob* db = !p.no_bias && req[2] != kNullOp ? &out[2] : nullptr;
  // float16 (and bfloat16 where oneDNN has no kernel) widen to float32 (half_via_float.h).
  if (IsHalfType(in[1].type_flag_)) {
    return ComputeInFloat32(in, req, out, [&](const std::vector<TBlob>& i, const std::vector<OpReqType>& r,
                                              const std::vector<TBlob>& o) {
      RunKernelPlain(*Op::Get("_backward_FullyConnected"), Context::kCPU, attrs, ctx, i, r, o);  // the float32 list
    });
  }
  MXNET_GEMM_TYPE_SWITCH(in[1].type_flag_, "_backward_FullyConnected", D, {
    const D* dy = in[0].dptr<D>();
    if (dx) Gemm(false, false, M, K, H, D(1), dy, H, in[2].dptr<D>(), K, BetaFor<D>(req[0]), dx->dptr<D>(), K);
    if (dw) Gemm(true, false, H, K, M, D(1), dy, H, in[1].dptr<D>(), K, BetaFor<D>(req[1]), dw->dptr<D>(), K);
    if (db) BiasGrad(dy, db->dptr<D>(), M, H, 1, req[2]);
  });
}

}  // namespace

MXNET_REGISTER_OP(FullyConnected)
    .describe(
        "Applies a linear transformation: Y = X W^T + b. With flatten=True the input is reshaped to "
        "(N, prod(shape[1:])); otherwise the transform applies to the last axis.")
    .add_alias("_npx_fully_connected")
    .set_num_inputs([](const NodeAttrs& a) { return a.get<FullyConnectedParam>().no_bias ? 2u : 3u; })
    .set_num_outputs(1)
    .set_list_input_names([](const NodeAttrs& a) {
      return a.get<FullyConnectedParam>().no_bias ? std::vector<std::string>{"data", "weight"}
                                                  : std::vector<std::string>{"data", "weight", "bias"};
    })
    .add_argument("data", "NDArray-or-Symbol", "Input data.")
    .add_argument("weight", "NDArray-or-Symbol", "Weight matrix.")
    .add_argument("bias", "NDArray-or-Symbol", "Bias parameter.")
    .add_arguments(FullyConnectedParam::__FIELDS__())
    .set_attr_parser(ParamParser<FullyConnectedParam>)
    .set_infer_shape(FCShape)
    .set_infer_type(ElemwiseType)
    .set_compute(Context::kCPU, FCCompute)
    .set_gradient([](const NodePtr& n, const std::vector<NodeEntry>& og) {
      return MakeNodeOutputs("_backward_FullyConnected", n->attrs.name + "_backward",
                             {og[0], n->inputs[0], n->inputs[1]}, n->attrs.dict);
    });

MXNET_REGISTER_OP(_backward_FullyConnected)
    .describe("Gradients of FullyConnected with respect to data, weight and bias.")
    .set_num_inputs(3)
    .set_num_outputs([](const NodeAttrs& a) { return a.get<FullyConnectedParam>().no_bias ? 2u : 3u; })
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output.")
    .add_argument("data", "NDArray-or-Symbol", "The forward input.")
    .add_argument("weight", "NDArray-or-Symbol", "The forward weight.")
    .add_arguments(FullyConnectedParam::__FIELDS__())
    .set_attr_parser(ParamParser<FullyConnectedParam>)
    .set_infer_shape(BackwardShape)
    .set_infer_type(ElemwiseType)
    .set_compute(Context::kCPU, FCBackward);

// Ahead of oneDNN's inner product (rank 30): at 1-2 rows streaming the plain weight is faster.
MXNET_REGISTER_KERNEL(FullyConnected, kCPU, gemv)
    .set_rank(20)
    .set_accepts(GemvAccepts, /*cheap=*/true)
    .set_compute(GemvCompute);

}  // namespace op
}  // namespace mxnet
