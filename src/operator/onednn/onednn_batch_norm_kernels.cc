/*!
 * \file onednn_batch_norm_kernels.cc
 * \brief The oneDNN-build entries of the batch-norm kernel lists, each "onednn, reference":
 *          BatchNorm, _contrib_BatchNormWithReLU (oneDNN's fuse_norm_relu),
 *          _backward_BatchNorm, _backward_BatchNormWithReLU.
 *        They take float32 data with the channel on axis 1, rank 2 to 5, written (not
 *        accumulated); they read the data (and the gradient) in the format the previous oneDNN op
 *        left and leave outputs blocked where the op allows (onednn_batch_norm.cc). Tagged
 *        "onednn": MXNET_ONEDNN_ENABLED=0 skips them.
 */
#if MXNET_USE_ONEDNN

#include <algorithm>
#include <vector>

#include "operator/kernel_dispatch.h"
#include "operator/nn/batch_norm.h"
#include "operator/onednn/onednn_layout.h"
#include "operator/onednn/onednn_ops.h"

namespace mxnet {
namespace op {
namespace onednn {
namespace {

/*! \brief x: the data (forward input 0, backward input 1). */
bool Takes(const NodeAttrs& attrs, const TBlob& x, const std::vector<OpReqType>& req) {
  return x.type_flag_ == kFloat32 && BNAxis(attrs, x.ndim()) == 1 && x.ndim() >= 2 && x.ndim() <= 5 &&
         x.Size() > 0 && !AnyAddTo(req);
}

/*! \brief gamma, or ones when fix_gamma (ones: the storage for them). */
const float* Gamma(const BatchNormParam& p, const TBlob& gamma, std::vector<float>* ones) {
  if (!p.fix_gamma) return gamma.dptr<float>();
  ones->assign(gamma.Size(), 1.f);
  return ones->data();
}

void Forward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
             const std::vector<OpReqType>&, const std::vector<TBlob>& out, bool relu) {
  const auto& p = attrs.get<BatchNormParam>();
  const bool training = BNTraining(p, ctx);
  // Only the data may be read in a blocked format: parameters and statistics are read plainly.
  for (size_t i = 1; i < in.size(); ++i) PlainInput(i);
  BNBeginForward<float>(training, relu, in, out);
  std::vector<float> ones;
  BatchNormForward(in[0], Gamma(p, in[1], &ones), in[2].dptr<float>(), out[1].dptr<float>(), out[2].dptr<float>(),
                   out[0], static_cast<float>(p.eps), !training, relu, relu ? out[3].dptr<uint8_t>() : nullptr);
}

/*!
 * \brief inputs (dy, x, gamma, mean, var, ..., moving_mean, moving_var from moving_at); false,
 *        computing nothing, when relu_workspace was not written by the forward primitive of x's
 *        format (onednn::BatchNormBackward). Updates the moving statistics when it computes.
 */
bool Backward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
              const std::vector<OpReqType>& req, const std::vector<TBlob>& out, const uint8_t* relu_workspace,
              size_t moving_at) {
  const auto& p = attrs.get<BatchNormParam>();
  for (size_t i = 2; i < 5; ++i) PlainInput(i);  // parameters and statistics
  // oneDNN writes all three gradients: an unrequested dgamma/dbeta (frozen scale or shift) goes
  // to scratch.
  const int64_t C = in[2].Size();
  std::vector<float> scratch(req[1] == kNullOp || req[2] == kNullOp ? 2 * C : 0);
  float* dgamma = req[1] == kNullOp ? scratch.data() : out[1].dptr<float>();
  float* dbeta = req[2] == kNullOp ? scratch.data() + C : out[2].dptr<float>();
  std::vector<float> ones;
  if (!BatchNormBackward(in[0], in[1], Gamma(p, in[2], &ones), in[3].dptr<float>(), in[4].dptr<float>(), out[0],
                         dgamma, dbeta, static_cast<float>(p.eps), !BNTraining(p, ctx), relu_workspace))
    return false;
  if (p.fix_gamma) std::fill(dgamma, dgamma + C, 0.f);
  PlainInput(moving_at);
  PlainInput(moving_at + 1);
  BNUpdateMovingStats<float>(p, ctx, in, 3, moving_at);
  return true;
}

// An unrequested dx (BatchNorm on a network's input) takes the reference.
bool TakesBackward(const KernelProblem& p) { return p.req[0] != kNullOp && Takes(p.attrs, p.inputs[1], p.req); }

}  // namespace

MXNET_REGISTER_KERNEL(BatchNorm, kCPU, onednn)
    .set_rank(10)
    .add_tag("onednn")
    .set_layouts(KernelLayouts::kAny)
    .set_accepts([](const KernelProblem& p) { return Takes(p.attrs, p.inputs[0], p.req); }, /*cheap=*/true)
    .set_compute([](const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
      Forward(attrs, ctx, in, req, out, false);
    });
MXNET_REGISTER_KERNEL(_contrib_BatchNormWithReLU, kCPU, onednn)
    .set_rank(10)
    .add_tag("onednn")
    .set_layouts(KernelLayouts::kAny)
    .set_accepts([](const KernelProblem& p) { return Takes(p.attrs, p.inputs[0], p.req); }, /*cheap=*/true)
    .set_compute([](const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
      Forward(attrs, ctx, in, req, out, true);
    });

MXNET_REGISTER_KERNEL(_backward_BatchNorm, kCPU, onednn)
    .set_rank(10)
    .add_tag("onednn")
    .set_layouts(KernelLayouts::kAny)
    .set_accepts(TakesBackward, /*cheap=*/true)
    .set_compute([](const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
      Backward(attrs, ctx, in, req, out, nullptr, kBNBackwardMovingAt);
    });
// inputs (dy, x, gamma, mean, var, output, workspace, moving_mean, moving_var): oneDNN applies the mask its forward kept;
// a mask it did not write (another format, or the reference forward ran) leaves the gradient to
// the reference's masking by the output.
MXNET_REGISTER_KERNEL(_backward_BatchNormWithReLU, kCPU, onednn)
    .set_rank(10)
    .add_tag("onednn")
    .set_layouts(KernelLayouts::kAny)
    .set_accepts(TakesBackward, /*cheap=*/true)
    .set_compute([](const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
      if (Backward(attrs, ctx, in, req, out, in[6].dptr<uint8_t>(), kBNReluBackwardMovingAt)) return;
      PlainInputs();
      BNReluBackwardByMask(attrs, ctx, in, req, out);
    });

}  // namespace onednn
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_USE_ONEDNN
