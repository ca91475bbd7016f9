/*!
 * \file adam.cc
 * \brief Adam-family updates: adam_update, _adamw_update / _mp_adamw_update (decoupled weight
 *        decay, gradient scale given as an array so a non-finite scale skips the step), and
 *        LAMB's two phases (lamb_update_phase1 computes the direction, lamb_update_phase2
 *        applies it scaled by the trust ratio r1/r2 of the norms the caller computes).
 */
#include <cstring>

#include "operator/optimizer/adam_rules.h"

namespace mxnet {
namespace op {
namespace optimizer {

DMLC_REGISTER_PARAMETER(AdamParam);
DMLC_REGISTER_PARAMETER(AdamWParam);
DMLC_REGISTER_PARAMETER(LambPhase1Param);
DMLC_REGISTER_PARAMETER(LambPhase2Param);

namespace {

/*! g = clip(rescale*g + wd*w); mean, var: exponential averages of g, g^2; w -= lr*mean/(sqrt(var)+eps). */
void AdamCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  WithWeightType(in[0], [&](auto tag) {
    using DType = decltype(tag);
    RunUpdateRule(in[0].Size(), AdamRule<DType>(attrs.get<AdamParam>(), in), out[0].dptr<DType>(), req[0]);
  });
}

/*!
 * \brief AdamW (Loshchilov & Hutter): g = clip(scale*grad); moments as Adam;
 *        w -= eta * (lr * mean / (sqrt(var) + eps) + wd * w). A scale of 0, inf or nan (a
 *        loss-scaler overflow) leaves weight and states untouched.
 */
template <bool kMP>
void AdamWCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const double scale = ScalarInput(in[kMP ? 5 : 4]);
  if (!AdamWScaleSteps(scale)) {
    if (req[0] == kWriteTo && in[0].dptr_ != out[0].dptr_) std::memcpy(out[0].dptr_, in[0].dptr_, out[0].Bytes());
    return;
  }
  WithWeightType(in[0], [&](auto tag) {
    using DType = decltype(tag);
    const AdamWRule<DType, kMP> rule(attrs.get<AdamWParam>(), in);
    using C = typename AdamWRule<DType, kMP>::C;
    const C sc = C(scale);
    DType* y = out[0].dptr<DType>();
    const OpReqType r = req[0];
    ParallelFor(in[0].Size(), [&](int64_t i) { AssignReq(&y[i], r, rule(i, sc)); });
  });
}

/*! \brief LAMB phase 1: moments as Adam on clip(rescale*g); out = mean_hat/(sqrt(var_hat)+eps) + wd*w. */
void LambPhase1Compute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  WithWeightType(in[0], [&](auto tag) {
    using DType = decltype(tag);
    RunUpdateRule(in[0].Size(), LambPhase1Rule<DType>(attrs.get<LambPhase1Param>(), in), out[0].dptr<DType>(),
                  req[0]);
  });
}

/*! \brief LAMB phase 2: r1 (weight norm) clamped to the bounds; w -= lr * (r1/r2 or 1) * g. */
void LambPhase2Compute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = attrs.get<LambPhase2Param>();
  const double ratio = LambTrustRatio(ScalarInput(in[2]), ScalarInput(in[3]), p.lower_bound, p.upper_bound);
  WithWeightType(in[0], [&](auto tag) {
    using DType = decltype(tag);
    const LambPhase2Rule<DType> rule(in);
    using C = typename LambPhase2Rule<DType>::C;
    const C step = C(p.lr * ratio);
    DType* y = out[0].dptr<DType>();
    const OpReqType r = req[0];
    ParallelFor(in[0].Size(), [&](int64_t i) { AssignReq(&y[i], r, rule(i, step)); });
  });
}

[[maybe_unused]] const bool registered = [] {
  MXNET_REGISTER_OP_FAMILY(
      adam_update, UpdateFamily<AdamParam>,
      "Update function for Adam optimizer: g = clip(rescale_grad * grad + wd * weight); mean = beta1 * mean + "
      "(1 - beta1) * g; var = beta2 * var + (1 - beta2) * g^2; weight = weight - lr * mean / (sqrt(var) + "
      "epsilon). Bias correction is folded into lr by the caller.",
      Layout({"weight", "grad", "mean", "var"}, {2, 3}, -1), AdamCompute);
  MXNET_REGISTER_OP_FAMILY(
      _adamw_update, UpdateFamily<AdamWParam>,
      "Update function for AdamW optimizer (decoupled weight decay): g = clip(rescale_grad * grad); moments as "
      "Adam; weight = weight - eta * (lr * mean / (sqrt(var) + epsilon) + wd * weight). If rescale_grad is 0, "
      "inf or nan the update is skipped.",
      Layout({"weight", "grad", "mean", "var"}, {2, 3}, -1, {"rescale_grad"}), AdamWCompute<false>)
      .add_alias("_contrib_adamw_update");
  MXNET_REGISTER_OP_FAMILY(
      _mp_adamw_update, UpdateFamily<AdamWParam>,
      "Multi-precision AdamW: the update runs on the float32 master copy weight32 with float32 moments.",
      Layout({"weight", "grad", "mean", "var", "weight32"}, {2, 3, 4}, 2, {"rescale_grad"}), AdamWCompute<true>)
      .add_alias("_contrib_mp_adamw_update");
  MXNET_REGISTER_OP_FAMILY(
      lamb_update_phase1, UpdateFamily<LambPhase1Param>,
      "Phase I of the LAMB update: g = clip(rescale_grad * grad); mean and var updated as Adam; returns "
      "mean_hat / (sqrt(var_hat) + epsilon) + wd * weight, with bias-corrected moments when bias_correction.",
      Layout({"weight", "grad", "mean", "var"}, {2, 3}, -1, {}, false), LambPhase1Compute);
  MXNET_REGISTER_OP_FAMILY(
      lamb_update_phase2, UpdateFamily<LambPhase2Param>,
      "Phase II of the LAMB update: r1 = norm of the weight clamped to [lower_bound, upper_bound] (bounds <= 0 "
      "unset), r2 = norm of phase I's g; weight = weight - lr * (r1 / r2 if both are non-zero, else 1) * g.",
      Layout({"weight", "g"}, {}, -1, {"r1", "r2"}), LambPhase2Compute);
  return true;
}();

}  // namespace
}  // namespace optimizer
}  // namespace op
}  // namespace mxnet
