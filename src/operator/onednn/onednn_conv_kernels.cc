/*!
 * \file onednn_conv_kernels.cc
 * \brief The oneDNN-build entries of the (de)convolution kernel lists:
 *          Convolution            winograd, few_channel, onednn, reference
 *          _backward_Convolution  channel_last_gemm, few_channel, winograd, onednn, reference
 *          Deconvolution, _backward_Deconvolution   onednn, reference
 *        Every entry is tagged "onednn" (MXNET_ONEDNN_ENABLED=0 skips them; the hand-written
 *        kernels use oneDNN's reorders and layouts) and the Winograd ones also "winograd"
 *        (MXNET_CPU_WINOGRAD_CONV=0 skips those).
 */
#if MXNET_USE_ONEDNN

#include <vector>

#include "mxnet/env.h"
#include "operator/kernel_dispatch.h"
#include "operator/nn/conv_param.h"
#include "operator/nn/nn_util.h"
#include "operator/onednn/onednn_conv.h"

namespace mxnet {
namespace op {
namespace onednn {
namespace {

/*! \brief kAddTo on the forward is a sum post-op (the primitive accumulates into the output). */
PostOps ForwardPostOps(OpReqType req) {
  PostOps post;
  if (req == kAddTo) post.sum_scale = 1.f;
  return post;
}

const TBlob* BiasOf(const NodeAttrs& attrs, const std::vector<TBlob>& in) {
  return attrs.get<ConvolutionParam>().no_bias ? nullptr : &in[2];
}

bool ConvChannelLast(const NodeAttrs& attrs) { return ChannelLast(attrs.get<ConvolutionParam>().layout); }

FAccepts ForwardAccepts(ConvFwdPath path) {
  return [path](const KernelProblem& p) {
    if (p.req[0] == kNullOp) return path == ConvFwdPath::kPrimitive;
    const ConvGeom g = ConvGeomOf(p.attrs, p.inputs[0].shape_);
    return ConvForwardTakes(path, g, ConvChannelLast(p.attrs), p.ctx.is_train, p.inputs[0].type_flag_,
                            BiasOf(p.attrs, p.inputs) != nullptr, ForwardPostOps(p.req[0]));
  };
}

FAccepts ForwardWorthIt(ConvFwdPath path) {
  return [path](const KernelProblem& p) {
    const ConvGeom g = ConvGeomOf(p.attrs, p.inputs[0].shape_);
    return ConvForwardWorthIt(path, g, ConvChannelLast(p.attrs), p.ctx.is_train, p.inputs[0].type_flag_,
                              BiasOf(p.attrs, p.inputs) != nullptr, ForwardPostOps(p.req[0]));
  };
}

FCompute ForwardCompute(ConvFwdPath path) {
  return [path](const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
    if (req[0] == kNullOp) return;
    ConvForward(path, ConvGeomOf(attrs, in[0].shape_), ConvChannelLast(attrs), ctx.is_train, in[0], in[1],
                BiasOf(attrs, in), out[0], ForwardPostOps(req[0]));
  };
}

// _backward_Convolution: inputs (dy, x, w), outputs (dx, dw[, db]).
FAccepts BackwardAccepts(ConvBwdPath path) {
  return [path](const KernelProblem& p) {
    // oneDNN's backward primitives overwrite; accumulation (kAddTo) takes the reference.
    if (AnyAddTo(p.req)) return false;
    const ConvGeom g = ConvGeomOf(p.attrs, p.inputs[1].shape_);
    const bool has_bias = !p.attrs.get<ConvolutionParam>().no_bias;
    return ConvBackwardTakes(path, g, ConvChannelLast(p.attrs), p.inputs[1].type_flag_, has_bias);
  };
}

FCompute BackwardCompute(ConvBwdPath path) {
  return [path](const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
    const bool no_bias = attrs.get<ConvolutionParam>().no_bias;
    const TBlob* dx = req[0] != kNullOp ? &out[0] : nullptr;
    const TBlob* dw = req[1] != kNullOp ? &out[1] : nullptr;
    const TBlob* db = !no_bias && req[2] != kNullOp ? &out[2] : nullptr;
    ConvBackward(path, ConvGeomOf(attrs, in[1].shape_), ConvChannelLast(attrs), in[0], in[1], in[2], dx, dw, db);
  };
}

bool DeconvTakes(const NodeAttrs& attrs, const TBlob& data) {
  const DeconvSetup s = MakeDeconvSetup(attrs, data.shape_);
  return DeconvSupported(s.g, s.adj, data.type_flag_);
}

void DeconvolutionForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                          const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const DeconvSetup s = MakeDeconvSetup(attrs, in[0].shape_);
  const TBlob* bias = attrs.get<DeconvolutionParam>().no_bias ? nullptr : &in[2];
  DeconvForward(s.g, s.adj, s.cl, ctx.is_train, in[0], in[1], bias, out[0], ForwardPostOps(req[0]));
}

void DeconvolutionBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                           const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const DeconvSetup s = MakeDeconvSetup(attrs, in[1].shape_);
  const TBlob* dx = req[0] != kNullOp ? &out[0] : nullptr;
  const TBlob* dw = req[1] != kNullOp ? &out[1] : nullptr;
  const TBlob* db = !attrs.get<DeconvolutionParam>().no_bias && req[2] != kNullOp ? &out[2] : nullptr;
  DeconvBackward(s.g, s.adj, s.cl, in[0], in[1], in[2], dx, dw, db);
}

const bool winograd_switch [[maybe_unused]] = [] {
  RegisterKernelTagSwitch("winograd", [] { return env::GetBool(env::Var::MXNET_CPU_WINOGRAD_CONV); });
  return true;
}();

}  // namespace

// Convolution: the conv kernels read x in the layout the previous oneDNN op left (kAny).
MXNET_REGISTER_KERNEL(Convolution, kCPU, winograd)
    .set_rank(10)
    .add_tag("onednn")
    .add_tag("winograd")
    .set_layouts(KernelLayouts::kAny)
    .set_accepts(ForwardAccepts(ConvFwdPath::kWinograd))
    .set_worth(ForwardWorthIt(ConvFwdPath::kWinograd))
    .set_compute(ForwardCompute(ConvFwdPath::kWinograd));
MXNET_REGISTER_KERNEL(Convolution, kCPU, few_channel)
    .set_rank(20)
    .add_tag("onednn")
    .set_layouts(KernelLayouts::kAny)
    .set_accepts(ForwardAccepts(ConvFwdPath::kFewChannel))
    .set_worth(ForwardWorthIt(ConvFwdPath::kFewChannel))
    .set_compute(ForwardCompute(ConvFwdPath::kFewChannel));
MXNET_REGISTER_KERNEL(Convolution, kCPU, onednn)
    .set_rank(30)
    .add_tag("onednn")
    .set_layouts(KernelLayouts::kAny)
    .set_accepts(ForwardAccepts(ConvFwdPath::kPrimitive))
    .set_compute(ForwardCompute(ConvFwdPath::kPrimitive));

MXNET_REGISTER_KERNEL(_backward_Convolution, kCPU, channel_last_gemm)
    .set_rank(10)
    .add_tag("onednn")
    .set_layouts(KernelLayouts::kAny)
    .set_accepts(BackwardAccepts(ConvBwdPath::kChannelLastGemm))
    .set_compute(BackwardCompute(ConvBwdPath::kChannelLastGemm));
MXNET_REGISTER_KERNEL(_backward_Convolution, kCPU, few_channel)
    .set_rank(20)
    .add_tag("onednn")
    .set_layouts(KernelLayouts::kAny)
    .set_accepts(BackwardAccepts(ConvBwdPath::kFewChannel))
    .set_compute(BackwardCompute(ConvBwdPath::kFewChannel));
MXNET_REGISTER_KERNEL(_backward_Convolution, kCPU, winograd)
    .set_rank(30)
    .add_tag("onednn")
    .add_tag("winograd")
    .set_layouts(KernelLayouts::kAny)
    .set_accepts(BackwardAccepts(ConvBwdPath::kWinograd))
    .set_worth([](const KernelProblem& p) {
      const ConvGeom g = ConvGeomOf(p.attrs, p.inputs[1].shape_);
      return ConvBackwardWorthIt(ConvBwdPath::kWinograd, g, ConvChannelLast(p.attrs), p.inputs[1].type_flag_,
                                 !p.attrs.get<ConvolutionParam>().no_bias);
    })
    .set_compute(BackwardCompute(ConvBwdPath::kWinograd));
MXNET_REGISTER_KERNEL(_backward_Convolution, kCPU, onednn)
    .set_rank(40)
    .add_tag("onednn")
    .set_layouts(KernelLayouts::kAny)
    .set_accepts(BackwardAccepts(ConvBwdPath::kPrimitive))
    .set_compute(BackwardCompute(ConvBwdPath::kPrimitive));

// Deconvolution reads and writes plain memory.
MXNET_REGISTER_KERNEL(Deconvolution, kCPU, onednn)
    .set_rank(30)
    .add_tag("onednn")
    .set_accepts([](const KernelProblem& p) { return DeconvTakes(p.attrs, p.inputs[0]); })
    .set_compute(DeconvolutionForward);
MXNET_REGISTER_KERNEL(_backward_Deconvolution, kCPU, onednn)
    .set_rank(30)
    .add_tag("onednn")
    .set_accepts([](const KernelProblem& p) { return !AnyAddTo(p.req) && DeconvTakes(p.attrs, p.inputs[1]); })
    .set_compute(DeconvolutionBackward);

}  // namespace onednn
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_USE_ONEDNN
