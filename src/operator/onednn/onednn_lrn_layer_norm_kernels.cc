/*!
 * \file onednn_lrn_layer_norm_kernels.cc
 * \brief The oneDNN-build entries of the LRN and LayerNorm kernel lists, each "onednn, reference":
 *          LRN, _backward_LRN              4-D float32, output overwritten (kWriteTo)
 *          LayerNorm, _backward_LayerNorm  float32 over the last axis, rank 2 to 5, not accumulated
 *        They read plain memory. Tagged "onednn": MXNET_ONEDNN_ENABLED=0 skips them.
 */
#if MXNET_USE_ONEDNN

#include <cmath>
#include <vector>

#include "operator/kernel_dispatch.h"
#include "operator/nn/layer_norm_param.h"
#include "operator/nn/lrn.h"
#include "operator/onednn/onednn_ops.h"

namespace mxnet {
namespace op {
namespace onednn {
namespace {

bool LRNTakes(const TBlob& x, OpReqType req) {
  return x.type_flag_ == kFloat32 && x.ndim() == 4 && x.Size() > 0 && req == kWriteTo;
}

void LRNOneDNN(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in, const std::vector<OpReqType>&,
               const std::vector<TBlob>& out) {
  const auto& p = attrs.get<LRNParam>();
  LRNForward(in[0], out[0], p.nsize, p.alpha, p.beta, p.knorm);
  // The hidden scale output is part of the op's contract; fill it for graph consumers.
  std::vector<double> scale(in[0].Size());
  LRNScale<float>(NCS(in[0].shape_), p, in[0].dptr<float>(), scale.data());
  float* s = out[1].dptr<float>();
  for (size_t i = 0; i < scale.size(); ++i) s[i] = static_cast<float>(scale[i]);
}

// _backward_LRN: inputs (dy, x), output dx.
void LRNBackwardOneDNN(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>&, const std::vector<TBlob>& out) {
  const auto& p = attrs.get<LRNParam>();
  LRNBackward(in[0], in[1], out[0], p.nsize, p.alpha, p.beta, p.knorm);
}

bool LayerNormTakes(const NodeAttrs& attrs, const TBlob& x, const std::vector<OpReqType>& req) {
  const int ax = NormAxis(attrs, attrs.get<LayerNormParam>().axis, x.ndim());
  return x.type_flag_ == kFloat32 && ax == x.ndim() - 1 && x.ndim() >= 2 && x.ndim() <= 5 && x.Size() > 0 &&
         !AnyAddTo(req);
}

// Outputs (y, mean, std): oneDNN gives the variance, the op's contract is std = sqrt(var + eps).
void LayerNormOneDNN(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>&, const std::vector<TBlob>& out) {
  const float eps = attrs.get<LayerNormParam>().eps;
  float* mean = out[1].dptr<float>();
  float* sd = out[2].dptr<float>();
  LayerNormForward(in[0], in[1].dptr<float>(), in[2].dptr<float>(), out[0], mean, sd, eps);
  for (int64_t r = 0; r < out[2].Size(); ++r) sd[r] = std::sqrt(sd[r] + eps);
}

// _backward_LayerNorm: inputs (dy, x, gamma, mean, std), outputs (dx, dgamma, dbeta).
void LayerNormBackwardOneDNN(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                             const std::vector<OpReqType>&, const std::vector<TBlob>& out) {
  const float eps = attrs.get<LayerNormParam>().eps;
  std::vector<float> var(in[4].Size());
  const float* sd = in[4].dptr<float>();
  for (size_t r = 0; r < var.size(); ++r) var[r] = sd[r] * sd[r] - eps;
  LayerNormBackward(in[0], in[1], in[2].dptr<float>(), in[3].dptr<float>(), var.data(), out[0], out[1].dptr<float>(),
                    out[2].dptr<float>(), eps);
}

}  // namespace

MXNET_REGISTER_KERNEL(LRN, kCPU, onednn)
    .set_rank(10)
    .add_tag("onednn")
    .set_accepts([](const KernelProblem& p) { return LRNTakes(p.inputs[0], p.req[0]); }, /*cheap=*/true)
    .set_compute(LRNOneDNN);
MXNET_REGISTER_KERNEL(_backward_LRN, kCPU, onednn)
    .set_rank(10)
    .add_tag("onednn")
    .set_accepts([](const KernelProblem& p) { return LRNTakes(p.inputs[1], p.req[0]); }, /*cheap=*/true)
    .set_compute(LRNBackwardOneDNN);

MXNET_REGISTER_KERNEL(LayerNorm, kCPU, onednn)
    .set_rank(10)
    .add_tag("onednn")
    .set_accepts([](const KernelProblem& p) { return LayerNormTakes(p.attrs, p.inputs[0], p.req); }, /*cheap=*/true)
    .set_compute(LayerNormOneDNN);
// oneDNN writes every gradient: a call that leaves one out takes the reference.
MXNET_REGISTER_KERNEL(_backward_LayerNorm, kCPU, onednn)
    .set_rank(10)
    .add_tag("onednn")
    .set_accepts(
        [](const KernelProblem& p) {
          return LayerNormTakes(p.attrs, p.inputs[1], p.req) && p.req[0] != kNullOp && p.req[1] != kNullOp &&
                 p.req[2] != kNullOp;
        },
        /*cheap=*/true)
    .set_compute(LayerNormBackwardOneDNN);

}  // namespace onednn
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_USE_ONEDNN
