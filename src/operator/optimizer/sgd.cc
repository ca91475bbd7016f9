/*!
 * \file sgd.cc
 * \brief sgd_update, sgd_mom_update, nag_mom_update and their mixed-precision (float16
 *        weight + float32 master copy) variants mp_sgd_update, mp_sgd_mom_update,
 *        mp_nag_mom_update. The new weight goes to the output (usually the weight itself);
 *        momentum and master copy are updated in place.
 */
#include "operator/optimizer/sgd_rules.h"

namespace mxnet {
namespace op {
namespace optimizer {

DMLC_REGISTER_PARAMETER(SGDParam);
DMLC_REGISTER_PARAMETER(SGDMomParam);
DMLC_REGISTER_PARAMETER(NAGMomParam);

namespace {

template <typename P, SgdRule kRule, bool kMP>
void SgdCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  SgdUpdate<kRule, kMP>(CoefOf(attrs.get<P>()), in.data(), req[0], out[0]);
}

[[maybe_unused]] const bool registered = [] {
  MXNET_REGISTER_OP_FAMILY(
      sgd_update, UpdateFamily<SGDParam>,
      "Update function for Stochastic Gradient Descent (SGD) optimizer: weight = weight - learning_rate * "
      "(gradient + wd * weight), gradient rescaled by rescale_grad and clipped to clip_gradient first.",
      Layout({"weight", "grad"}, {}, -1), SgdCompute<SGDParam, SgdRule::kPlain, false>);
  MXNET_REGISTER_OP_FAMILY(
      sgd_mom_update, UpdateFamily<SGDMomParam>,
      "Momentum update function for SGD: v = momentum * v - learning_rate * (clip(rescale_grad * grad) + wd * "
      "weight); weight = weight + v. The momentum state mom is updated in place.",
      Layout({"weight", "grad", "mom"}, {2}, -1), SgdCompute<SGDMomParam, SgdRule::kMomentum, false>);
  MXNET_REGISTER_OP_FAMILY(
      mp_sgd_update, UpdateFamily<SGDParam>,
      "Updater function for multi-precision sgd optimizer: sgd_update computed on the float32 master copy "
      "weight32 (updated in place), the result rounded into weight.",
      Layout({"weight", "grad", "weight32"}, {2}, 2), SgdCompute<SGDParam, SgdRule::kPlain, true>);
  MXNET_REGISTER_OP_FAMILY(
      mp_sgd_mom_update, UpdateFamily<SGDMomParam>,
      "Updater function for multi-precision sgd optimizer with momentum: sgd_mom_update on the float32 master "
      "copy weight32 with a float32 momentum (both updated in place).",
      Layout({"weight", "grad", "mom", "weight32"}, {2, 3}, 2), SgdCompute<SGDMomParam, SgdRule::kMomentum, true>);
  MXNET_REGISTER_OP_FAMILY(
      nag_mom_update, UpdateFamily<NAGMomParam>,
      "Update function for Nesterov Accelerated Gradient (NAG) optimizer: g = clip(rescale_grad * grad) + wd * "
      "weight; m1 = momentum * mom; weight = weight - m1 + (1 + momentum) * (m1 - lr * g); mom = m1 - lr * g, "
      "where g's wd * weight term sees the new weight when the output is the weight itself.",
      Layout({"weight", "grad", "mom"}, {2}, -1), SgdCompute<NAGMomParam, SgdRule::kNesterov, false>);
  MXNET_REGISTER_OP_FAMILY(
      mp_nag_mom_update, UpdateFamily<NAGMomParam>,
      "Update function for multi-precision Nesterov Accelerated Gradient (NAG) optimizer: nag_mom_update on the "
      "float32 master copy weight32 with a float32 momentum; the momentum's wd term sees the new master weight.",
      Layout({"weight", "grad", "mom", "weight32"}, {2, 3}, 2), SgdCompute<NAGMomParam, SgdRule::kNesterov, true>);
  return true;
}();

}  // namespace
}  // namespace optimizer
}  // namespace op
}  // namespace mxnet
