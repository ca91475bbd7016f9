/*!
 * \file adam.cc
 * \brief Adam-family updates: adam_update, _adamw_update / _mp_adamw_update (decoupled weight
 *        decay, gradient scale given as an array so a non-finite scale skips the step), and
 *        LAMB's two phases (lamb_update_phase1 computes the direction, lamb_update_phase2
 *        applies it scaled by the trust ratio r1/r2 of the norms the caller computes).
 */
#include <cmath>
#include <cstring>
#include <type_traits>

#include "operator/optimizer/optimizer_common.h"

namespace mxnet {
namespace op {
namespace optimizer {
namespace {

struct AdamParam : public dmlc::Parameter<AdamParam> {
  float lr, beta1, beta2, epsilon, wd, rescale_grad, clip_gradient;
  bool lazy_update;
  DMLC_DECLARE_PARAMETER(AdamParam) {
    DMLC_DECLARE_FIELD(lr).describe("Learning rate");
    DMLC_DECLARE_FIELD(beta1).set_default(0.9f).describe("The decay rate for the 1st moment estimates.");
    DMLC_DECLARE_FIELD(beta2).set_default(0.999f).describe("The decay rate for the 2nd moment estimates.");
    DMLC_DECLARE_FIELD(epsilon).set_default(1e-8f).describe("A small constant for numerical stability.");
    MXNET_DECLARE_GRAD_FIELDS();
    DMLC_DECLARE_FIELD(lazy_update)
        .set_default(true)
        .describe(
            "If true, lazy updates are applied if gradient's stype is row_sparse and all of w, m and v have the same "
            "stype (dense arrays always update every row).");
  }
};
DMLC_REGISTER_PARAMETER(AdamParam);

struct AdamWParam : public dmlc::Parameter<AdamWParam> {
  float lr, beta1, beta2, epsilon, wd, eta, clip_gradient;
  DMLC_DECLARE_PARAMETER(AdamWParam) {
    DMLC_DECLARE_FIELD(lr).describe("Learning rate");
    DMLC_DECLARE_FIELD(beta1).set_default(0.9f).describe("The decay rate for the 1st moment estimates.");
    DMLC_DECLARE_FIELD(beta2).set_default(0.999f).describe("The decay rate for the 2nd moment estimates.");
    DMLC_DECLARE_FIELD(epsilon).set_default(1e-8f).describe("A small constant for numerical stability.");
    DMLC_DECLARE_FIELD(wd).set_default(0.0f).describe(kWdDoc);
    DMLC_DECLARE_FIELD(eta).describe("Learning rate schedule multiplier");
    DMLC_DECLARE_FIELD(clip_gradient).set_default(-1.0f).describe(kClipGradientDoc);
  }
};
DMLC_REGISTER_PARAMETER(AdamWParam);

struct LambPhase1Param : public dmlc::Parameter<LambPhase1Param> {
  float beta1, beta2, epsilon;
  int t;
  bool bias_correction;
  float wd, rescale_grad, clip_gradient;
  DMLC_DECLARE_PARAMETER(LambPhase1Param) {
    DMLC_DECLARE_FIELD(beta1).set_default(0.9f).describe("The decay rate for the 1st moment estimates.");
    DMLC_DECLARE_FIELD(beta2).set_default(0.999f).describe("The decay rate for the 2nd moment estimates.");
    DMLC_DECLARE_FIELD(epsilon).set_default(1e-6f).describe("A small constant for numerical stability.");
    DMLC_DECLARE_FIELD(t).set_lower_bound(1).describe("Index update count.");
    DMLC_DECLARE_FIELD(bias_correction).set_default(true).describe("Whether to use bias correction.");
    DMLC_DECLARE_FIELD(wd).describe(kWdDoc);
    DMLC_DECLARE_FIELD(rescale_grad).set_default(1.0f).describe(kRescaleGradDoc);
    DMLC_DECLARE_FIELD(clip_gradient).set_default(-1.0f).describe(kClipGradientDoc);
  }
};
DMLC_REGISTER_PARAMETER(LambPhase1Param);

struct LambPhase2Param : public dmlc::Parameter<LambPhase2Param> {
  float lr, lower_bound, upper_bound;
  DMLC_DECLARE_PARAMETER(LambPhase2Param) {
    DMLC_DECLARE_FIELD(lr).describe("Learning rate");
    DMLC_DECLARE_FIELD(lower_bound)
        .set_default(-1.0f)
        .describe("Lower limit of norm of weight. If lower_bound <= 0, Lower limit is not set");
    DMLC_DECLARE_FIELD(upper_bound)
        .set_default(-1.0f)
        .describe("Upper limit of norm of weight. If upper_bound <= 0, Upper limit is not set");
  }
};
DMLC_REGISTER_PARAMETER(LambPhase2Param);

/*! g = clip(rescale*g + wd*w); mean, var: exponential averages of g, g^2; w -= lr*mean/(sqrt(var)+eps). */
void AdamCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = attrs.get<AdamParam>();
  WithWeightType(in[0], [&](auto tag) {
    using DType = decltype(tag);
    using C = compute_t<DType>;
    const DType* w = in[0].dptr<DType>();
    const DType* g = in[1].dptr<DType>();
    DType* mean = in[2].dptr<DType>();
    DType* var = in[3].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    const C lr = p.lr, b1 = p.beta1, b2 = p.beta2, eps = p.epsilon;
    const GradPrep<C> prep(p);
    const OpReqType r = req[0];
    ParallelFor(in[0].Size(), [&](int64_t i) {
      const C wi = C(w[i]);
      const C gi = prep(C(g[i]), wi);
      const C m = b1 * C(mean[i]) + (C(1) - b1) * gi;
      const C v = b2 * C(var[i]) + (C(1) - b2) * gi * gi;
      mean[i] = DType(m);
      var[i] = DType(v);
      AssignReq(&y[i], r, wi - lr * m / (std::sqrt(v) + eps));
    });
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
  const auto& p = attrs.get<AdamWParam>();
  const double scale = ScalarInput(in[kMP ? 5 : 4]);
  if (!std::isfinite(scale) || scale == 0.0) {
    if (req[0] == kWriteTo && in[0].dptr_ != out[0].dptr_) std::memcpy(out[0].dptr_, in[0].dptr_, out[0].Bytes());
    return;
  }
  WithWeightType(in[0], [&](auto tag) {
    using DType = decltype(tag);
    using C = std::conditional_t<kMP, float, compute_t<DType>>;
    using S = std::conditional_t<kMP, float, DType>;
    const DType* w = in[0].dptr<DType>();
    const DType* g = in[1].dptr<DType>();
    S* mean = in[2].dptr<S>();
    S* var = in[3].dptr<S>();
    float* w32 = kMP ? in[4].dptr<float>() : nullptr;
    DType* y = out[0].dptr<DType>();
    const C lr = p.lr, b1 = p.beta1, b2 = p.beta2, eps = p.epsilon, wd = p.wd, eta = p.eta, clip = p.clip_gradient,
            sc = C(scale);
    const OpReqType r = req[0];
    ParallelFor(in[0].Size(), [&](int64_t i) {
      C wi = kMP ? C(w32[i]) : C(w[i]);
      const C gi = ClipGrad(sc * C(g[i]), clip);
      const C m = b1 * C(mean[i]) + (C(1) - b1) * gi;
      const C v = b2 * C(var[i]) + (C(1) - b2) * gi * gi;
      mean[i] = S(m);
      var[i] = S(v);
      wi = wi - eta * (lr * m / (std::sqrt(v) + eps) + wd * wi);
      if (kMP) w32[i] = float(wi);
      AssignReq(&y[i], r, wi);
    });
  });
}

/*! \brief LAMB phase 1: moments as Adam on clip(rescale*g); out = mean_hat/(sqrt(var_hat)+eps) + wd*w. */
void LambPhase1Compute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = attrs.get<LambPhase1Param>();
  const double c1 = p.bias_correction ? 1.0 - std::pow(static_cast<double>(p.beta1), p.t) : 1.0;
  const double c2 = p.bias_correction ? 1.0 - std::pow(static_cast<double>(p.beta2), p.t) : 1.0;
  WithWeightType(in[0], [&](auto tag) {
    using DType = decltype(tag);
    using C = compute_t<DType>;
    const DType* w = in[0].dptr<DType>();
    const DType* g = in[1].dptr<DType>();
    DType* mean = in[2].dptr<DType>();
    DType* var = in[3].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    const C b1 = p.beta1, b2 = p.beta2, eps = p.epsilon, wd = p.wd, bc1 = C(c1), bc2 = C(c2);
    const GradPrep<C> prep(p);
    const OpReqType r = req[0];
    ParallelFor(in[0].Size(), [&](int64_t i) {
      const C gi = prep(C(g[i]));
      const C m = b1 * C(mean[i]) + (C(1) - b1) * gi;
      const C v = b2 * C(var[i]) + (C(1) - b2) * gi * gi;
      mean[i] = DType(m);
      var[i] = DType(v);
      AssignReq(&y[i], r, (m / bc1) / (std::sqrt(v / bc2) + eps) + wd * C(w[i]));
    });
  });
}

/*! \brief LAMB phase 2: r1 (weight norm) clamped to the bounds; w -= lr * (r1/r2 or 1) * g. */
void LambPhase2Compute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = attrs.get<LambPhase2Param>();
  double r1 = ScalarInput(in[2]);
  const double r2 = ScalarInput(in[3]);
  if (p.lower_bound >= 0) r1 = std::max(r1, static_cast<double>(p.lower_bound));
  if (p.upper_bound >= 0) r1 = std::min(r1, static_cast<double>(p.upper_bound));
  const double ratio = (r1 == 0.0 || r2 == 0.0) ? 1.0 : r1 / r2;
  WithWeightType(in[0], [&](auto tag) {
    using DType = decltype(tag);
    using C = compute_t<DType>;
    const DType* w = in[0].dptr<DType>();
    const DType* g = in[1].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    const C step = C(p.lr * ratio);
    const OpReqType r = req[0];
    ParallelFor(in[0].Size(), [&](int64_t i) { AssignReq(&y[i], r, C(w[i]) - step * C(g[i])); });
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
