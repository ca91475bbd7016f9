/*!
 * \file rmsprop_rules.h
 * \brief Parameters of rmsprop_update and rmspropalex_update (rmsprop.cc) and the update of one
 *        element of each, host+device: the CPU loops and the CUDA kernels call the same rule.
 */
#ifndef MXNET_OPERATOR_OPTIMIZER_RMSPROP_RULES_H_
#define MXNET_OPERATOR_OPTIMIZER_RMSPROP_RULES_H_

#include <cmath>
#include <vector>

#include "operator/optimizer/optimizer_common.h"

namespace mxnet {
namespace op {
namespace optimizer {

struct RMSPropParam : public dmlc::Parameter<RMSPropParam> {
  float lr, gamma1, epsilon, wd, rescale_grad, clip_gradient, clip_weights;
  DMLC_DECLARE_PARAMETER(RMSPropParam) {
    DMLC_DECLARE_FIELD(lr).describe("Learning rate");
    DMLC_DECLARE_FIELD(gamma1).set_default(0.95f).describe("The decay rate of momentum estimates.");
    DMLC_DECLARE_FIELD(epsilon).set_default(1e-8f).describe("A small constant for numerical stability.");
    MXNET_DECLARE_GRAD_FIELDS();
    DMLC_DECLARE_FIELD(clip_weights)
        .set_default(-1.0f)
        .describe(
            "Clip weights to the range of [-clip_weights, clip_weights] If clip_weights <= 0, weight clipping is "
            "turned off. weights = max(min(weights, clip_weights), -clip_weights).");
  }
};

struct RMSPropAlexParam : public dmlc::Parameter<RMSPropAlexParam> {
  float lr, gamma1, gamma2, epsilon, wd, rescale_grad, clip_gradient, clip_weights;
  DMLC_DECLARE_PARAMETER(RMSPropAlexParam) {
    DMLC_DECLARE_FIELD(lr).describe("Learning rate");
    DMLC_DECLARE_FIELD(gamma1).set_default(0.95f).describe("Decay rate.");
    DMLC_DECLARE_FIELD(gamma2).set_default(0.9f).describe("Decay rate.");
    DMLC_DECLARE_FIELD(epsilon).set_default(1e-8f).describe("A small constant for numerical stability.");
    MXNET_DECLARE_GRAD_FIELDS();
    DMLC_DECLARE_FIELD(clip_weights)
        .set_default(-1.0f)
        .describe(
            "Clip weights to the range of [-clip_weights, clip_weights] If clip_weights <= 0, weight clipping is "
            "turned off. weights = max(min(weights, clip_weights), -clip_weights).");
  }
};

/*!
 * \brief g = clip(rescale*grad + wd*w); n = (1-gamma1)*g^2 + gamma1*n; returns
 *        clip_w(w - lr*g/sqrt(n + eps)). in = weight, grad, n.
 */
template <typename DType>
struct RMSPropRule {
  using C = compute_t<DType>;
  const DType* w;
  const DType* g;
  DType* n;
  C lr, g1, eps, clip_w;
  GradPrep<C> prep;
  RMSPropRule(const RMSPropParam& p, const std::vector<TBlob>& in)
      : w(in[0].dptr<DType>()),
        g(in[1].dptr<DType>()),
        n(in[2].dptr<DType>()),
        lr(p.lr),
        g1(p.gamma1),
        eps(p.epsilon),
        clip_w(p.clip_weights),
        prep(p) {}
  MXNET_XINLINE C operator()(int64_t i) const {
    const C wi = C(w[i]);
    const C gi = prep(C(g[i]), wi);
    const C ni = (C(1) - g1) * gi * gi + g1 * C(n[i]);
    n[i] = DType(ni);
    return ClipGrad(wi - lr * (gi / std::sqrt(ni + eps)), clip_w);
  }
};

/*!
 * \brief g = clip(rescale*grad + wd*w); n = (1-gamma1)*g^2 + gamma1*n; gm = (1-gamma1)*g + gamma1*gm;
 *        delta = gamma2*delta - lr*g/sqrt(n - gm^2 + eps); returns clip_w(w + delta).
 *        in = weight, grad, n, g (gm), delta.
 */
template <typename DType>
struct RMSPropAlexRule {
  using C = compute_t<DType>;
  const DType* w;
  const DType* g;
  DType* n;
  DType* gm;
  DType* delta;
  C lr, g1, g2, eps, clip_w;
  GradPrep<C> prep;
  RMSPropAlexRule(const RMSPropAlexParam& p, const std::vector<TBlob>& in)
      : w(in[0].dptr<DType>()),
        g(in[1].dptr<DType>()),
        n(in[2].dptr<DType>()),
        gm(in[3].dptr<DType>()),
        delta(in[4].dptr<DType>()),
        lr(p.lr),
        g1(p.gamma1),
        g2(p.gamma2),
        eps(p.epsilon),
        clip_w(p.clip_weights),
        prep(p) {}
  MXNET_XINLINE C operator()(int64_t i) const {
    const C wi = C(w[i]);
    const C gi = prep(C(g[i]), wi);
    const C ni = (C(1) - g1) * gi * gi + g1 * C(n[i]);
    const C gmi = (C(1) - g1) * gi + g1 * C(gm[i]);
    const C di = g2 * C(delta[i]) - lr * (gi / std::sqrt(ni - gmi * gmi + eps));
    n[i] = DType(ni);
    gm[i] = DType(gmi);
    delta[i] = DType(di);
    return ClipGrad(wi + di, clip_w);
  }
};

}  // namespace optimizer
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_OPTIMIZER_RMSPROP_RULES_H_
