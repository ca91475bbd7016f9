/*!
 * \file adam_rules.h
 * \brief Parameters of the Adam-family update ops (adam.cc) and the update of one element of
 *        each, host+device: the CPU loops and the CUDA kernels (cuda/optimizer_adam.cu) call the
 *        same rule, so both devices compute the same arithmetic in the same types.
 */
#ifndef MXNET_OPERATOR_OPTIMIZER_ADAM_RULES_H_
#define MXNET_OPERATOR_OPTIMIZER_ADAM_RULES_H_

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "operator/optimizer/optimizer_common.h"

namespace mxnet {
namespace op {
namespace optimizer {

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

/*!
 * \brief adam_update: g = clip(rescale*g + wd*w); mean, var: exponential averages of g, g^2;
 *        returns w - lr*mean/(sqrt(var)+eps). in = weight, grad, mean, var.
 */
template <typename DType>
struct AdamRule {
  using C = compute_t<DType>;
  const DType* w;
  const DType* g;
  DType* mean;
  DType* var;
  C lr, b1, b2, eps;
  GradPrep<C> prep;
  AdamRule(const AdamParam& p, const std::vector<TBlob>& in)
      : w(in[0].dptr<DType>()),
        g(in[1].dptr<DType>()),
        mean(in[2].dptr<DType>()),
        var(in[3].dptr<DType>()),
        lr(p.lr),
        b1(p.beta1),
        b2(p.beta2),
        eps(p.epsilon),
        prep(p) {}
  MXNET_XINLINE C operator()(int64_t i) const {
    const C wi = C(w[i]);
    const C gi = prep(C(g[i]), wi);
    const C m = b1 * C(mean[i]) + (C(1) - b1) * gi;
    const C v = b2 * C(var[i]) + (C(1) - b2) * gi * gi;
    mean[i] = DType(m);
    var[i] = DType(v);
    return wi - lr * m / (std::sqrt(v) + eps);
  }
};

/*! \brief Whether an AdamW gradient scale takes the step: 0, inf or nan (a loss-scaler overflow) skip it. */
MXNET_XINLINE bool AdamWScaleSteps(double scale) { return std::isfinite(scale) && scale != 0.0; }

/*!
 * \brief AdamW (Loshchilov & Hutter): g = clip(scale*grad); moments as Adam; returns
 *        w - eta * (lr * mean / (sqrt(var) + eps) + wd * w). With kMP the arithmetic runs on the
 *        float32 master copy (float32 moments), which is written back. in = weight, grad, mean,
 *        var, [weight32]; the scale (an input array) is passed per call.
 */
template <typename DType, bool kMP>
struct AdamWRule {
  using C = std::conditional_t<kMP, float, compute_t<DType>>;
  using S = std::conditional_t<kMP, float, DType>;
  const DType* w;
  const DType* g;
  S* mean;
  S* var;
  float* w32;
  C lr, b1, b2, eps, wd, eta, clip;
  AdamWRule(const AdamWParam& p, const std::vector<TBlob>& in)
      : w(in[0].dptr<DType>()),
        g(in[1].dptr<DType>()),
        mean(in[2].dptr<S>()),
        var(in[3].dptr<S>()),
        w32(kMP ? in[4].dptr<float>() : nullptr),
        lr(p.lr),
        b1(p.beta1),
        b2(p.beta2),
        eps(p.epsilon),
        wd(p.wd),
        eta(p.eta),
        clip(p.clip_gradient) {}
  MXNET_XINLINE C operator()(int64_t i, C sc) const {
    C wi = kMP ? C(w32[i]) : C(w[i]);
    const C gi = ClipGrad(sc * C(g[i]), clip);
    const C m = b1 * C(mean[i]) + (C(1) - b1) * gi;
    const C v = b2 * C(var[i]) + (C(1) - b2) * gi * gi;
    mean[i] = S(m);
    var[i] = S(v);
    wi = wi - eta * (lr * m / (std::sqrt(v) + eps) + wd * wi);
    if (kMP) w32[i] = float(wi);
    return wi;
  }
};

/*!
 * \brief LAMB phase 1: moments as Adam on clip(rescale*g); returns mean_hat/(sqrt(var_hat)+eps) + wd*w.
 *        in = weight, grad, mean, var.
 */
template <typename DType>
struct LambPhase1Rule {
  using C = compute_t<DType>;
  const DType* w;
  const DType* g;
  DType* mean;
  DType* var;
  C b1, b2, eps, wd, bc1, bc2;
  GradPrep<C> prep;
  LambPhase1Rule(const LambPhase1Param& p, const std::vector<TBlob>& in)
      : w(in[0].dptr<DType>()),
        g(in[1].dptr<DType>()),
        mean(in[2].dptr<DType>()),
        var(in[3].dptr<DType>()),
        b1(p.beta1),
        b2(p.beta2),
        eps(p.epsilon),
        wd(p.wd),
        bc1(C(p.bias_correction ? 1.0 - std::pow(static_cast<double>(p.beta1), p.t) : 1.0)),
        bc2(C(p.bias_correction ? 1.0 - std::pow(static_cast<double>(p.beta2), p.t) : 1.0)),
        prep(p) {}
  MXNET_XINLINE C operator()(int64_t i) const {
    const C gi = prep(C(g[i]));
    const C m = b1 * C(mean[i]) + (C(1) - b1) * gi;
    const C v = b2 * C(var[i]) + (C(1) - b2) * gi * gi;
    mean[i] = DType(m);
    var[i] = DType(v);
    return (m / bc1) / (std::sqrt(v / bc2) + eps) + wd * C(w[i]);
  }
};

/*!
 * \brief LAMB phase 2's trust ratio from the norms r1 (weight) and r2 (phase 1's g): r1 clamped
 *        to the bounds that are >= 0, then r1/r2, or 1 when either is 0.
 */
MXNET_XINLINE double LambTrustRatio(double r1, double r2, float lower_bound, float upper_bound) {
  if (lower_bound >= 0) r1 = std::max(r1, static_cast<double>(lower_bound));
  if (upper_bound >= 0) r1 = std::min(r1, static_cast<double>(upper_bound));
  return (r1 == 0.0 || r2 == 0.0) ? 1.0 : r1 / r2;
}

/*! \brief LAMB phase 2: returns w - step * g, step = lr * trust ratio (passed per call). in = weight, g. */
template <typename DType>
struct LambPhase2Rule {
  using C = compute_t<DType>;
  const DType* w;
  const DType* g;
  explicit LambPhase2Rule(const std::vector<TBlob>& in) : w(in[0].dptr<DType>()), g(in[1].dptr<DType>()) {}
  MXNET_XINLINE C operator()(int64_t i, C step) const { return C(w[i]) - step * C(g[i]); }
};

}  // namespace optimizer
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_OPTIMIZER_ADAM_RULES_H_
