/*!
 * \file conv_act_fused.cc
 * \brief `_sg_onednn_conv`: a Convolution with, in this order, an optional inference BatchNorm
 *        (with_bn, folded into the weight and bias, conv_bn_fold.h), an optional residual added
 *        (with_sum) and an optional activation (act_type), as one op:
 *
 *            act(bn(conv(data) + bias) + sum)
 *
 *        The CPU subgraph backend (src/graph/subgraph/) rewrites inference graphs into it.
 *        The reference kernel here runs the parts: Convolution's kernel list (accumulating onto
 *        a copy of the sum), then Activation's kernel in place. The oneDNN-build entries
 *        (onednn/onednn_conv_fused_kernels.cc) run the sum and the activation as post-ops of
 *        the convolution (no extra pass over the output). Inference only: the op has no
 *        gradient, and BatchNorm always uses its moving statistics.
 */
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "mxnet/ndarray.h"
#include "operator/common/broadcast_util.h"
#include "operator/kernel_dispatch.h"
#include "operator/nn/conv_fused_attrs.h"
#include "operator/nn/nn_util.h"

namespace mxnet {
namespace op {
ConvOperands ConvFusedOperands(const ConvFusedAttrs& f, const std::vector<TBlob>& in) {
  const ConvFusedSlots& s = f.slots;
  ConvOperands o;
  if (!f.param.with_bn) {
    o.weight = in[s.weight];
    o.has_bias = s.bias >= 0;
    if (o.has_bias) o.bias = in[s.bias];
    return o;
  }
  // The fold reads plain memory (kernels reading layouts convert its sources first); the arrays
  // identify the sources across calls.
  std::vector<int> src{s.weight, s.bias, s.gamma, s.gamma + 1, s.gamma + 2, s.gamma + 3};
  const KernelArrays* cur = KernelArrays::Current();
  std::vector<NDArray> arrays;
  std::vector<const TBlob*> blobs;
  for (int i : src) {
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

bool ConvFusedSumInPlace(const ConvFusedAttrs& f, const std::vector<TBlob>& in, const TBlob& y) {
  const ConvFusedSlots& s = f.slots;
  if (in[s.sum].shape_ != y.shape_) return false;
  // The folded weight has the weight's shape, and the folded bias one entry per filter.
  const NodeAttrs& conv = f.param.with_bn ? f.conv_folded : f.conv;
  std::vector<TShape> shapes{in[s.data].shape_, in[s.weight].shape_}, out(1);
  if (f.param.with_bn) shapes.push_back(TShape{static_cast<dim_t>(conv.get<ConvolutionParam>().num_filter)});
  else if (s.bias >= 0) shapes.push_back(in[s.bias].shape_);
  Op::Get("Convolution")->infer_shape(conv, &shapes, &out);
  return out[0] == y.shape_;
}

namespace {

/*! \brief y = sum + c with NumPy broadcasting (the residual of another shape). */
void BroadcastAdd(const TBlob& c, const TBlob& sum, const TBlob& y) {
  MXNET_REAL_TYPE_SWITCH(y.type_flag_, DType, {
    BroadcastBinary(c.shape_, c.dptr<DType>(), sum.shape_, sum.dptr<DType>(), y.shape_, y.dptr<DType>(), kWriteTo,
                    [](compute_t<DType> a, compute_t<DType> b) { return a + b; });
  });
}

/*! \brief Convolution's kernel list, then the sum, then Activation's kernel. */
void RunUnfused(const ConvFusedAttrs& f, const OpContext& ctx, const std::vector<TBlob>& in, const ConvOperands& w,
                const TBlob& y) {
  const ConvFusedSlots& s = f.slots;
  // The activation and the sum read the convolution's output plainly, so it must not be left
  // in a blocked layout: the arrays are hidden from the kernels.
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
  } else if (ConvFusedSumInPlace(f, in, y)) {  // the convolution accumulates onto a copy of the sum
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
  RunUnfused(f, ctx, in, ConvFusedOperands(f, in), out[0]);
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
    .set_compute(Context::kCPU, ConvFusedCompute);

}  // namespace op
}  // namespace mxnet
