/*!
 * \file conv_act_fused.cc
 * \brief `_sg_onednn_conv`: a Convolution with, in this order, an optional inference BatchNorm
 *        (with_bn, folded into the weight and bias, conv_bn_fold.h), an optional residual added
 *        (with_sum) and an optional activation (act_type), as one op:
 *
 *            act(bn(conv(data) + bias) + sum)
 *
 *        The CPU subgraph backend (src/graph/subgraph/) rewrites inference graphs into it.
 *        With oneDNN the sum and the activation are post-ops of the convolution primitive (no
 *        extra pass over the output); otherwise Convolution's own kernel runs (accumulating
 *        onto a copy of the sum) and Activation's kernel applies in place. Inference only: the
 *        op has no gradient, and BatchNorm always uses its moving statistics.
 */
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "mxnet/env.h"
#include "mxnet/ndarray.h"
#include "operator/common/broadcast_util.h"
#include "operator/kernel_dispatch.h"
#include "operator/nn/conv_fused_attrs.h"
#include "operator/nn/nn_util.h"
#include "operator/onednn/onednn_conv.h"
#include "operator/onednn/onednn_layout.h"

namespace mxnet {
namespace op {
namespace {

/*! \brief The convolution's weight and bias as the kernels see them: the inputs, or folded. */
struct ConvOperands {
  TBlob weight, bias;
  bool has_bias{false};
  std::shared_ptr<const BNFolded> folded;  // keeps the folded arrays alive while in use
};

ConvOperands Operands(const ConvFusedAttrs& f, const std::vector<TBlob>& in) {
  const ConvFusedSlots& s = f.slots;
  ConvOperands o;
  if (!f.param.with_bn) {
    o.weight = in[s.weight];
    o.has_bias = s.bias >= 0;
    if (o.has_bias) o.bias = in[s.bias];
    return o;
  }
  // The fold reads plain memory; the arrays identify the sources across calls.
  std::vector<int> src{s.weight, s.bias, s.gamma, s.gamma + 1, s.gamma + 2, s.gamma + 3};
  const KernelArrays* cur = KernelArrays::Current();
  std::vector<NDArray> arrays;
  std::vector<const TBlob*> blobs;
  for (int i : src) {
#if MXNET_USE_ONEDNN
    if (i >= 0) onednn::PlainInput(i);
#endif
    blobs.push_back(i >= 0 ? &in[i] : nullptr);
    if (cur && cur->inputs) arrays.push_back(i >= 0 ? (*cur->inputs)[i] : NDArray());
  }
  BNFoldParams bp;
  bp.eps = f.param.eps;
  bp.fix_gamma = f.param.fix_gamma;
  o.folded = f.fold->Get(blobs, arrays, bp);
  o.weight = o.folded->weight_blob;
  o.bias = o.folded->bias_blob;
  o.has_bias = true;
  return o;
}

/*! \brief Whether the sum is added in place: it has the shape of the convolution's output and of y. */
bool SumInPlace(const ConvFusedAttrs& f, const std::vector<TBlob>& in, const ConvOperands& w, const TBlob& y) {
  const ConvFusedSlots& s = f.slots;
  if (in[s.sum].shape_ != y.shape_) return false;
  std::vector<TShape> shapes{in[s.data].shape_, w.weight.shape_}, out(1);
  if (w.has_bias) shapes.push_back(w.bias.shape_);
  Op::Get("Convolution")->infer_shape(w.folded ? f.conv_folded : f.conv, &shapes, &out);
  return out[0] == y.shape_;
}

#if MXNET_USE_ONEDNN
/*!
 * \brief The convolution with its post-ops as one oneDNN primitive; false (nothing done) when
 *        oneDNN declines the problem or a post-op. The kernel is shown its arrays in
 *        Convolution's order (data, weight, bias, then the sum) with the folded weight in place
 *        of the input, so blocked inputs and outputs and cached weight copies work as they do
 *        for Convolution.
 */
bool RunOneDNN(const ConvFusedAttrs& f, const OpContext& ctx, const std::vector<TBlob>& in, const ConvOperands& w,
               const TBlob& y) {
  const ConvFusedSlots& s = f.slots;
  const ConvolutionParam& p = f.conv.get<ConvolutionParam>();
  const bool cl = ChannelLast(p.layout);
  const ConvGeom g = MakeConvGeom(f.conv, p, ToChannelFirst(in[s.data].shape_, cl));
  if (!onednn::Enabled() || !onednn::ConvSupported(g, in[s.data].type_flag_)) return false;
  dnnl::algorithm alg{};
  if (f.with_act && !OneDNNEltwise(f.param.act_type.value(), &alg)) return false;
  if (s.sum >= 0 && !SumInPlace(f, in, w, y)) return false;
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
  onednn::PostOps post;
  if (s.sum >= 0) {
    post.sum_scale = 1.f;
    post.sum_src = &blobs[3];
    post.sum_input = 3;
  }
  if (f.with_act) post.eltwise.push_back({alg, 0.f, 0.f});
  onednn::ConvFwdPath path = onednn::ConvFwdPath::kPrimitive;
  for (onednn::ConvFwdPath c : {onednn::ConvFwdPath::kWinograd, onednn::ConvFwdPath::kFewChannel}) {
    if (c == onednn::ConvFwdPath::kWinograd && !env::GetBool(env::Var::MXNET_CPU_WINOGRAD_CONV)) continue;
    if (onednn::ConvForwardTakes(c, g, cl, ctx.is_train, blobs[0].type_flag_, w.has_bias, post)) {
      path = c;
      break;
    }
  }
  onednn::ConvForward(path, g, cl, ctx.is_train, blobs[0], blobs[1], w.has_bias ? &blobs[2] : nullptr, y, post);
  return true;
}
#endif

/*! \brief y = sum + c with NumPy broadcasting (the residual of another shape). */
void BroadcastAdd(const TBlob& c, const TBlob& sum, const TBlob& y) {
  MXNET_REAL_TYPE_SWITCH(y.type_flag_, DType, {
    BroadcastBinary(c.shape_, c.dptr<DType>(), sum.shape_, sum.dptr<DType>(), y.shape_, y.dptr<DType>(), kWriteTo,
                    [](compute_t<DType> a, compute_t<DType> b) { return a + b; });
  });
}

/*! \brief Convolution's kernel (whatever path it takes), then the sum, then Activation's kernel. */
void RunUnfused(const ConvFusedAttrs& f, const OpContext& ctx, const std::vector<TBlob>& in, const ConvOperands& w,
                const TBlob& y) {
  const ConvFusedSlots& s = f.slots;
#if MXNET_USE_ONEDNN
  // The activation and the sum read the convolution's output plainly, so it must not be left
  // in a blocked layout: inputs are made plain and the arrays hidden from the kernels.
  onednn::PlainInputs();
#endif
  KernelArraysScope plain_only(nullptr);
  const NodeAttrs& conv = w.folded ? f.conv_folded : f.conv;
  std::vector<TBlob> conv_in{in[s.data], w.weight};
  if (w.has_bias) conv_in.push_back(w.bias);
  auto conv_fn = [](const NodeAttrs& a, const OpContext& c, const std::vector<TBlob>& i,
                    const std::vector<OpReqType>& r, const std::vector<TBlob>& o) {
    RunKernelPlain(*Op::Get("Convolution"), Context::kCPU, a, c, i, r, o);
  };
  if (s.sum < 0) {
    conv_fn(conv, ctx, conv_in, {kWriteTo}, {y});
  } else if (SumInPlace(f, in, w, y)) {  // the convolution accumulates onto a copy of the sum
    const TBlob& sum = in[s.sum];
    if (sum.dptr_ != y.dptr_) std::memcpy(y.dptr_, sum.dptr_, sum.Bytes());
    conv_fn(conv, ctx, conv_in, {kAddTo}, {y});
  } else {
    std::vector<TShape> shapes, out(1);
    for (const TBlob& b : conv_in) shapes.push_back(b.shape_);
    Op::Get("Convolution")->infer_shape(conv, &shapes, &out);
    const TBlob c(ctx.requested[1].GetSpace(out[0].Size() * DTypeSize(y.type_flag_)), out[0], y.type_flag_, y.ctx_);
    conv_fn(conv, ctx, conv_in, {kWriteTo}, {c});
    BroadcastAdd(c, in[s.sum], y);
  }
  if (f.with_act) ApplyActivationInPlace(f.act, ctx, y);
}

void ConvFusedCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  // act(y + conv) is not y + act(conv): the op only overwrites (imperative forward calls do).
  MX_CHECK_KIND(req[0] != kAddTo, "ValueError")
      << OpNameOf(attrs) << ": cannot accumulate into its output (req kAddTo); use Convolution and Activation";
  const ConvFusedAttrs& f = ConvFusedOf(attrs);
  const ConvOperands w = Operands(f, in);
#if MXNET_USE_ONEDNN
  if (RunOneDNN(f, ctx, in, w, out[0])) return;
#endif
  RunUnfused(f, ctx, in, w, out[0]);
}

}  // namespace

MXNET_REGISTER_OP(_sg_onednn_conv)
    .describe(
        "Convolution with an optional inference BatchNorm folded into it (with_bn), an optional residual "
        "added (with_sum) and an optional activation (relu, sigmoid, tanh, softrelu, softsign) in one op; "
        "with oneDNN the sum and the activation run as post-ops of the convolution. Inference only (no "
        "gradient).")
    .set_num_inputs([](const NodeAttrs& a) { return ConvFusedOf(a).slots.count; })
    .set_num_outputs(1)
    .set_list_input_names(ConvFusedInputNames)
    .add_argument("data", "NDArray-or-Symbol", "Input data.")
    .add_argument("weight", "NDArray-or-Symbol", "Convolution weight.")
    .add_argument("bias", "NDArray-or-Symbol", "Convolution bias.")
    .add_argument("gamma", "NDArray-or-Symbol", "With with_bn: BatchNorm's gamma.")
    .add_argument("beta", "NDArray-or-Symbol", "With with_bn: BatchNorm's beta.")
    .add_argument("moving_mean", "NDArray-or-Symbol", "With with_bn: BatchNorm's moving mean (auxiliary state).")
    .add_argument("moving_var", "NDArray-or-Symbol", "With with_bn: BatchNorm's moving variance (auxiliary state).")
    .add_argument("sum", "NDArray-or-Symbol", "With with_sum: the residual added before the activation.")
    .add_arguments(ConvolutionParam::__FIELDS__())
    .add_arguments(ConvFusedParam::__FIELDS__())
    .set_attr_parser(ParseConvFused)
    .set_infer_shape(ConvFusedShape)
    .set_infer_type(ConvFusedType)
    .set_aux_inputs([](const NodeAttrs& a) {
      const int g = ConvFusedOf(a).slots.gamma;
      return g < 0 ? std::vector<uint32_t>{} : std::vector<uint32_t>{static_cast<uint32_t>(g + 2), static_cast<uint32_t>(g + 3)};
    })
    .set_resource_request(std::vector<ResourceRequest>{ResourceRequest::kTempSpace, ResourceRequest::kTempSpace})
    .set_compute(Context::kCPU, ConvFusedCompute)
    .set_accepts_opaque_layout(true);

}  // namespace op
}  // namespace mxnet
