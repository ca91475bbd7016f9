/*!
 * \file onednn_conv_fused_kernels.cc
 * \brief The oneDNN-build entries of `_sg_onednn_conv`'s kernel list, Convolution's forward paths
 *        with the sum and the activation as post-ops of the one kernel:
 *          winograd, few_channel, onednn, reference (conv_act_fused.cc: the parts one by one)
 *        They take what Convolution's entries of the same name take with those post-ops, when
 *        oneDNN has the activation and the sum has the convolution's output shape. Tagged like
 *        Convolution's: "onednn", and "winograd" for the Winograd one.
 */
#if MXNET_USE_ONEDNN

#include <vector>

#include "mxnet/ndarray.h"
#include "operator/kernel_dispatch.h"
#include "operator/nn/conv_fused_attrs.h"
#include "operator/onednn/onednn_conv.h"
#include "operator/onednn/onednn_layout.h"

namespace mxnet {
namespace op {
namespace onednn {
namespace {

/*! \brief The convolution's geometry and post-ops for one call; ok: oneDNN can express them. */
struct FusedProblem {
  ConvGeom g;
  bool channel_last{false}, has_bias{false}, ok{false};
  PostOps post;
};

FusedProblem MakeFusedProblem(const NodeAttrs& attrs, const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                              const TBlob& y) {
  FusedProblem fp;
  // act(y + conv) is not y + act(conv): accumulation is the reference's to refuse.
  if (req[0] != kWriteTo && req[0] != kWriteInplace) return fp;
  const ConvFusedAttrs& f = ConvFusedOf(attrs);
  const ConvFusedSlots& s = f.slots;
  const ConvolutionParam& p = f.conv.get<ConvolutionParam>();
  fp.channel_last = ChannelLast(p.layout);
  fp.g = MakeConvGeom(f.conv, p, ToChannelFirst(in[s.data].shape_, fp.channel_last));
  fp.has_bias = f.param.with_bn || s.bias >= 0;
  dnnl::algorithm alg{};
  if (f.with_act && !OneDNNEltwise(f.param.act_type.value(), &alg)) return fp;
  if (s.sum >= 0 && !ConvFusedSumInPlace(f, in, y)) return fp;
  if (s.sum >= 0) fp.post.sum_scale = 1.f;
  if (f.with_act) fp.post.eltwise.push_back({alg, 0.f, 0.f});
  fp.ok = true;
  return fp;
}

FAccepts FusedAccepts(ConvFwdPath path) {
  return [path](const KernelProblem& p) {
    const FusedProblem fp = MakeFusedProblem(p.attrs, p.inputs, p.req, p.outputs[0]);
    return fp.ok && ConvForwardTakes(path, fp.g, fp.channel_last, p.ctx.is_train,
                                     p.inputs[ConvFusedOf(p.attrs).slots.data].type_flag_, fp.has_bias, fp.post);
  };
}

FAccepts FusedWorthIt(ConvFwdPath path) {
  return [path](const KernelProblem& p) {
    const FusedProblem fp = MakeFusedProblem(p.attrs, p.inputs, p.req, p.outputs[0]);
    return ConvForwardWorthIt(path, fp.g, fp.channel_last, p.ctx.is_train,
                              p.inputs[ConvFusedOf(p.attrs).slots.data].type_flag_, fp.has_bias, fp.post);
  };
}

/*!
 * \brief The convolution with its post-ops by `path`. The kernel is shown its arrays in
 *        Convolution's order (data, weight, bias, then the sum) with the folded weight in place
 *        of the input, so blocked inputs and outputs and cached weight copies work as they do
 *        for Convolution.
 */
FCompute FusedCompute(ConvFwdPath path) {
  return [path](const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
    const ConvFusedAttrs& f = ConvFusedOf(attrs);
    const ConvFusedSlots& s = f.slots;
    if (f.param.with_bn)  // the fold reads its sources plainly
      for (int i : {s.weight, s.bias, s.gamma, s.gamma + 1, s.gamma + 2, s.gamma + 3})
        if (i >= 0) PlainInput(i);
    const ConvOperands w = ConvFusedOperands(f, in);
    FusedProblem fp = MakeFusedProblem(attrs, in, req, out[0]);
    const KernelArrays* cur = KernelArrays::Current();
    std::vector<NDArray> arrays(4);
    std::vector<TBlob> blobs(4);
    auto take = [&](size_t to, int from) {
      if (from < 0) return;
      blobs[to] = in[from];
      if (cur && cur->inputs) arrays[to] = (*cur->inputs)[from];
    };
    take(0, s.data);
    take(3, s.sum);
    if (w.folded) {
      arrays[1] = w.folded->weight;
      arrays[2] = w.folded->bias;
      blobs[1] = w.weight;
      blobs[2] = w.bias;
    } else {
      take(1, s.weight);
      take(2, s.bias);
    }
    const KernelArrays shown{&arrays, cur ? cur->outputs : nullptr, &blobs, cur ? cur->output_blobs : nullptr,
                             cur && cur->accepts_layouts};
    KernelArraysScope scope(cur ? &shown : nullptr);
    if (s.sum >= 0) {
      fp.post.sum_src = &blobs[3];
      fp.post.sum_input = 3;
    }
    ConvForward(path, fp.g, fp.channel_last, ctx.is_train, blobs[0], blobs[1], w.has_bias ? &blobs[2] : nullptr,
                out[0], fp.post);
  };
}

}  // namespace

MXNET_REGISTER_KERNEL(_sg_onednn_conv, kCPU, winograd)
    .set_rank(10)
    .add_tag("onednn")
    .add_tag("winograd")
    .set_layouts(KernelLayouts::kAny)
    .set_accepts(FusedAccepts(ConvFwdPath::kWinograd))
    .set_worth(FusedWorthIt(ConvFwdPath::kWinograd))
    .set_compute(FusedCompute(ConvFwdPath::kWinograd));
MXNET_REGISTER_KERNEL(_sg_onednn_conv, kCPU, few_channel)
    .set_rank(20)
    .add_tag("onednn")
    .set_layouts(KernelLayouts::kAny)
    .set_accepts(FusedAccepts(ConvFwdPath::kFewChannel))
    .set_worth(FusedWorthIt(ConvFwdPath::kFewChannel))
    .set_compute(FusedCompute(ConvFwdPath::kFewChannel));
MXNET_REGISTER_KERNEL(_sg_onednn_conv, kCPU, onednn)
    .set_rank(30)
    .add_tag("onednn")
    .set_layouts(KernelLayouts::kAny)
    .set_accepts(FusedAccepts(ConvFwdPath::kPrimitive))
    .set_compute(FusedCompute(ConvFwdPath::kPrimitive));

}  // namespace onednn
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_USE_ONEDNN
