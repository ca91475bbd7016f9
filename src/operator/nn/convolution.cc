/*!
 * \file convolution.cc
 * \brief Convolution (1-D/2-D/3-D, groups, dilation, NC* and N*C layouts) and its
 *        `_backward_Convolution`, with their reference kernels (im2col + OpenBLAS). The oneDNN,
 *        Winograd, few-channel and channel-last kernels join the lists from
 *        onednn/onednn_conv_kernels.cc.
 */
#include <string>
#include <vector>

#include "operator/nn/conv_plain.h"
#include "operator/kernel_dispatch.h"
#include "operator/nn/half_via_float.h"

namespace mxnet {
namespace op {
namespace {

std::vector<std::string> ConvInputNames(bool no_bias) {
  if (no_bias) return {"data", "weight"};
  return {"data", "weight", "bias"};
}

/*! \brief MXNet's weight shape: (F, C/G, k...) or (F, k..., C/G) channel-last. */
TShape ConvWeightShape(const ConvGeom& g, const TShape& kernel, bool cl) {
  std::vector<dim_t> d{g.F};
  if (!cl) d.push_back(g.C / g.G);
  d.insert(d.end(), kernel.begin(), kernel.end());
  if (cl) d.push_back(g.C / g.G);
  return TShape(d);
}

TShape ConvOutShape(const ConvGeom& g, bool cl) {
  std::vector<dim_t> d{g.N, g.F};
  for (int i = 3 - g.nsp; i < 3; ++i) d.push_back(g.out[i]);
  return FromChannelFirst(TShape(d), cl);
}

bool ConvolutionShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const auto& p = attrs.get<ConvolutionParam>();
  const TShape& ds = (*in)[0];
  if (!ds.IsKnown()) return false;
  const bool cl = ChannelLast(p.layout);
  const ConvGeom g = MakeConvGeom(attrs, p, ToChannelFirst(ds, cl));
  AssignShape(attrs, &(*in)[1], ConvWeightShape(g, p.kernel, cl), "weight", 1);
  if (!p.no_bias) AssignShape(attrs, &(*in)[2], TShape{g.F}, "bias", 2);
  AssignShape(attrs, &(*out)[0], ConvOutShape(g, cl), "output", 0);
  return true;
}

bool BackwardShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  // inputs (ograd, data, weight); outputs are the gradients of data, weight [, bias]
  const auto& p = attrs.get<ConvolutionParam>();
  AssignShape(attrs, &(*out)[0], (*in)[1], "output", 0);
  AssignShape(attrs, &(*out)[1], (*in)[2], "output", 1);
  if (!p.no_bias) AssignShape(attrs, &(*out)[2], TShape{static_cast<dim_t>(p.num_filter)}, "output", 2);
  return (*in)[1].IsKnown() && (*in)[2].IsKnown();
}

void ConvolutionCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const auto& p = attrs.get<ConvolutionParam>();
  const bool cl = ChannelLast(p.layout);
  const ConvGeom g = MakeConvGeom(attrs, p, ToChannelFirst(in[0].shape_, cl));
  const TBlob* bias = p.no_bias ? nullptr : &in[2];
  // float16 (and bfloat16 where oneDNN has no kernel) widen to float32 (half_via_float.h).
  if (IsHalfType(in[0].type_flag_)) {
    return ComputeInFloat32(in, req, out, [&](const std::vector<TBlob>& i, const std::vector<OpReqType>& r,
                                              const std::vector<TBlob>& o) {
      RunKernelPlain(*Op::Get("Convolution"), Context::kCPU, attrs, ctx, i, r, o);  // the float32 list
    });
  }
  MXNET_GEMM_TYPE_SWITCH(in[0].type_flag_, "Convolution", D,
                         { PlainConvForward<D>(g, cl, in[0], in[1], bias, out[0], req[0], ctx.requested[0]); });
}

void ConvolutionBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                         const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = attrs.get<ConvolutionParam>();
  const bool cl = ChannelLast(p.layout);
  const ConvGeom g = MakeConvGeom(attrs, p, ToChannelFirst(in[1].shape_, cl));
  const TBlob* dx = req[0] != kNullOp ? &out[0] : nullptr;
  const TBlob* dw = req[1] != kNullOp ? &out[1] : nullptr;
  const TBlob* db = !p.no_bias && req[2] != kNullOp ? &out[2] : nullptr;
  // float16 (and bfloat16 where oneDNN has no kernel) widen to float32 (half_via_float.h).
  if (IsHalfType(in[1].type_flag_)) {
    return ComputeInFloat32(in, req, out, [&](const std::vector<TBlob>& i, const std::vector<OpReqType>& r,
                                              const std::vector<TBlob>& o) {
      RunKernelPlain(*Op::Get("_backward_Convolution"), Context::kCPU, attrs, ctx, i, r, o);  // the float32 list
    });
  }
  MXNET_GEMM_TYPE_SWITCH(in[1].type_flag_, "_backward_Convolution", D, {
    PlainConvBackward<D>(g, cl, in[0], in[1], in[2], dx, dw, db, req, ctx.requested[0]);
  });
}

}  // namespace

MXNET_REGISTER_OP(Convolution)
    .describe("Compute N-D convolution on (N+2)-D input: out = conv(data, weight) + bias, with stride, dilation, "
              "zero padding and channel groups. Layouts NCW/NCHW/NCDHW (default) or NWC/NHWC/NDHWC.")
    .add_alias("_npx_convolution")
    .set_num_inputs([](const NodeAttrs& a) { return a.get<ConvolutionParam>().no_bias ? 2u : 3u; })
    .set_num_outputs(1)
    .set_list_input_names([](const NodeAttrs& a) { return ConvInputNames(a.get<ConvolutionParam>().no_bias); })
    .add_argument("data", "NDArray-or-Symbol", "Input data to the ConvolutionOp.")
    .add_argument("weight", "NDArray-or-Symbol", "Weight matrix.")
    .add_argument("bias", "NDArray-or-Symbol", "Bias parameter.")
    .add_arguments(ConvolutionParam::__FIELDS__())
    .set_attr_parser(ParamParser<ConvolutionParam>)
    .set_infer_shape(ConvolutionShape)
    .set_infer_type(ElemwiseType)
    .set_resource_request(std::vector<ResourceRequest>{ResourceRequest::kTempSpace})
    .set_compute(Context::kCPU, ConvolutionCompute)
    .set_gradient([](const NodePtr& n, const std::vector<NodeEntry>& og) {
      return MakeNodeOutputs("_backward_Convolution", n->attrs.name + "_backward",
                             {og[0], n->inputs[0], n->inputs[1]}, n->attrs.dict);
    });

MXNET_REGISTER_OP(_backward_Convolution)
    .describe("Gradients of Convolution with respect to data, weight and bias.")
    .set_num_inputs(3)
    .set_num_outputs([](const NodeAttrs& a) { return a.get<ConvolutionParam>().no_bias ? 2u : 3u; })
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output.")
    .add_argument("data", "NDArray-or-Symbol", "The forward input.")
    .add_argument("weight", "NDArray-or-Symbol", "The forward weight.")
    .add_arguments(ConvolutionParam::__FIELDS__())
    .set_attr_parser(ParamParser<ConvolutionParam>)
    .set_infer_shape(BackwardShape)
    .set_infer_type(ElemwiseType)
    .set_resource_request(std::vector<ResourceRequest>{ResourceRequest::kTempSpace})
    .set_compute(Context::kCPU, ConvolutionBackward);

}  // namespace op
}  // namespace mxnet
