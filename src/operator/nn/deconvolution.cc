/*!
 * \file deconvolution.cc
 * \brief Deconvolution (transposed convolution) with adj and target_shape, and
 *        `_backward_Deconvolution`. The kernels are the convolution's with forward and
 *        backward-data swapped (see MakeDeconvGeom). These are the reference kernels; oneDNN's
 *        join the kernel lists from onednn/onednn_conv_kernels.cc.
 */
#include <string>
#include <vector>

#include "operator/nn/conv_plain.h"
#include "operator/kernel_dispatch.h"
#include "operator/nn/half_via_float.h"

namespace mxnet {
namespace op {
namespace {

DeconvSetup Setup(const NodeAttrs& attrs, const TShape& data) { return MakeDeconvSetup(attrs, data); }

bool DeconvolutionShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const auto& p = attrs.get<DeconvolutionParam>();
  if (!(*in)[0].IsKnown()) return false;
  const DeconvSetup s = Setup(attrs, (*in)[0]);
  const ConvGeom& g = s.g;
  std::vector<dim_t> w{g.F};  // (in-channels, num_filter/G, k...)
  if (!s.cl) w.push_back(g.C / g.G);
  w.insert(w.end(), p.kernel.begin(), p.kernel.end());
  if (s.cl) w.push_back(g.C / g.G);
  AssignShape(attrs, &(*in)[1], TShape(w), "weight", 1);
  if (!p.no_bias) AssignShape(attrs, &(*in)[2], TShape{g.C}, "bias", 2);
  std::vector<dim_t> o{g.N, g.C};
  o.insert(o.end(), s.out.begin(), s.out.end());
  AssignShape(attrs, &(*out)[0], FromChannelFirst(TShape(o), s.cl), "output", 0);
  return true;
}

bool BackwardShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const auto& p = attrs.get<DeconvolutionParam>();
  AssignShape(attrs, &(*out)[0], (*in)[1], "output", 0);
  AssignShape(attrs, &(*out)[1], (*in)[2], "output", 1);
  if (!p.no_bias) AssignShape(attrs, &(*out)[2], TShape{static_cast<dim_t>(p.num_filter)}, "output", 2);
  return (*in)[1].IsKnown() && (*in)[2].IsKnown();
}

void DeconvolutionCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                          const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const auto& p = attrs.get<DeconvolutionParam>();
  const DeconvSetup s = Setup(attrs, in[0].shape_);
  const TBlob* bias = p.no_bias ? nullptr : &in[2];
  // float16 (and bfloat16 where oneDNN has no kernel) widen to float32 (half_via_float.h).
  if (IsHalfType(in[0].type_flag_)) {
    return ComputeInFloat32(in, req, out, [&](const std::vector<TBlob>& i, const std::vector<OpReqType>& r,
                                              const std::vector<TBlob>& o) {
      RunKernelPlain(*Op::Get("Deconvolution"), Context::kCPU, attrs, ctx, i, r, o);  // the float32 list
    });
  }
  MXNET_GEMM_TYPE_SWITCH(in[0].type_flag_, "Deconvolution", D,
                         { PlainDeconvForward<D>(s.g, s.cl, in[0], in[1], bias, out[0], req[0], ctx.requested[0]); });
}

void DeconvolutionBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                           const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = attrs.get<DeconvolutionParam>();
  const DeconvSetup s = Setup(attrs, in[1].shape_);
  const TBlob* dx = req[0] != kNullOp ? &out[0] : nullptr;
  const TBlob* dw = req[1] != kNullOp ? &out[1] : nullptr;
  const TBlob* db = !p.no_bias && req[2] != kNullOp ? &out[2] : nullptr;
  // float16 (and bfloat16 where oneDNN has no kernel) widen to float32 (half_via_float.h).
  if (IsHalfType(in[1].type_flag_)) {
    return ComputeInFloat32(in, req, out, [&](const std::vector<TBlob>& i, const std::vector<OpReqType>& r,
                                              const std::vector<TBlob>& o) {
      RunKernelPlain(*Op::Get("_backward_Deconvolution"), Context::kCPU, attrs, ctx, i, r, o);  // the float32 list
    });
  }
  MXNET_GEMM_TYPE_SWITCH(in[1].type_flag_, "_backward_Deconvolution", D, {
    PlainDeconvBackward<D>(s.g, s.cl, in[0], in[1], in[2], dx, dw, db, req, ctx.requested[0]);
  });
}

}  // namespace

MXNET_REGISTER_OP(Deconvolution)
    .describe("Computes 1-D/2-D/3-D transposed convolution (deconvolution): the gradient of Convolution with "
              "respect to its input. Output size s*(in-1) + d*(k-1)+1 - 2*pad + adj, or target_shape.")
    .add_alias("_npx_deconvolution")
    .set_num_inputs([](const NodeAttrs& a) { return a.get<DeconvolutionParam>().no_bias ? 2u : 3u; })
    .set_num_outputs(1)
    .set_list_input_names([](const NodeAttrs& a) {
      return a.get<DeconvolutionParam>().no_bias ? std::vector<std::string>{"data", "weight"}
                                                 : std::vector<std::string>{"data", "weight", "bias"};
    })
    .add_argument("data", "NDArray-or-Symbol", "Input tensor to the deconvolution operation.")
    .add_argument("weight", "NDArray-or-Symbol", "Weights representing the kernel.")
    .add_argument("bias", "NDArray-or-Symbol", "Bias added to the result.")
    .add_arguments(DeconvolutionParam::__FIELDS__())
    .set_attr_parser(ParamParser<DeconvolutionParam>)
    .set_infer_shape(DeconvolutionShape)
    .set_infer_type(ElemwiseType)
    .set_resource_request(std::vector<ResourceRequest>{ResourceRequest::kTempSpace})
    .set_compute(Context::kCPU, DeconvolutionCompute)
    .set_gradient([](const NodePtr& n, const std::vector<NodeEntry>& og) {
      return MakeNodeOutputs("_backward_Deconvolution", n->attrs.name + "_backward",
                             {og[0], n->inputs[0], n->inputs[1]}, n->attrs.dict);
    });

MXNET_REGISTER_OP(_backward_Deconvolution)
    .describe("Gradients of Deconvolution with respect to data, weight and bias.")
    .set_num_inputs(3)
    .set_num_outputs([](const NodeAttrs& a) { return a.get<DeconvolutionParam>().no_bias ? 2u : 3u; })
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output.")
    .add_argument("data", "NDArray-or-Symbol", "The forward input.")
    .add_argument("weight", "NDArray-or-Symbol", "The forward weight.")
    .add_arguments(DeconvolutionParam::__FIELDS__())
    .set_attr_parser(ParamParser<DeconvolutionParam>)
    .set_infer_shape(BackwardShape)
    .set_infer_type(ElemwiseType)
    .set_resource_request(std::vector<ResourceRequest>{ResourceRequest::kTempSpace})
    .set_compute(Context::kCPU, DeconvolutionBackward);

}  // namespace op
}  // namespace mxnet
