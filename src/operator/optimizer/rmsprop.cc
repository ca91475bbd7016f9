/*!
 * \file rmsprop.cc
 * \brief rmsprop_update (Tieleman & Hinton) and rmspropalex_update (the centered variant of
 *        Graves 2013, eq. 38-45), states updated in place.
 */
#include <cmath>

#include "operator/optimizer/optimizer_common.h"

namespace mxnet {
namespace op {
namespace optimizer {
namespace {

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
DMLC_REGISTER_PARAMETER(RMSPropParam);

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
DMLC_REGISTER_PARAMETER(RMSPropAlexParam);

/*! g = clip(rescale*grad + wd*w); n = (1-gamma1)*g^2 + gamma1*n; w = clip_w(w - lr*g/sqrt(n + eps)). */
void RMSPropCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = attrs.get<RMSPropParam>();
  WithWeightType(in[0], [&](auto tag) {
    using DType = decltype(tag);
    using C = compute_t<DType>;
    const DType* w = in[0].dptr<DType>();
    const DType* g = in[1].dptr<DType>();
    DType* n = in[2].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    const C lr = p.lr, g1 = p.gamma1, eps = p.epsilon, clip_w = p.clip_weights;
    const GradPrep<C> prep(p);
    const OpReqType r = req[0];
    ParallelFor(in[0].Size(), [&](int64_t i) {
      const C wi = C(w[i]);
      const C gi = prep(C(g[i]), wi);
      const C ni = (C(1) - g1) * gi * gi + g1 * C(n[i]);
      n[i] = DType(ni);
      AssignReq(&y[i], r, ClipGrad(wi - lr * (gi / std::sqrt(ni + eps)), clip_w));
    });
  });
}

/*!
 * g = clip(rescale*grad + wd*w); n = (1-gamma1)*g^2 + gamma1*n; gm = (1-gamma1)*g + gamma1*gm;
 * delta = gamma2*delta - lr*g/sqrt(n - gm^2 + eps); w = clip_w(w + delta).
 */
void RMSPropAlexCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = attrs.get<RMSPropAlexParam>();
  WithWeightType(in[0], [&](auto tag) {
    using DType = decltype(tag);
    using C = compute_t<DType>;
    const DType* w = in[0].dptr<DType>();
    const DType* g = in[1].dptr<DType>();
    DType* n = in[2].dptr<DType>();
    DType* gm = in[3].dptr<DType>();
    DType* delta = in[4].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    const C lr = p.lr, g1 = p.gamma1, g2 = p.gamma2, eps = p.epsilon, clip_w = p.clip_weights;
    const GradPrep<C> prep(p);
    const OpReqType r = req[0];
    ParallelFor(in[0].Size(), [&](int64_t i) {
      const C wi = C(w[i]);
      const C gi = prep(C(g[i]), wi);
      const C ni = (C(1) - g1) * gi * gi + g1 * C(n[i]);
      const C gmi = (C(1) - g1) * gi + g1 * C(gm[i]);
      const C di = g2 * C(delta[i]) - lr * (gi / std::sqrt(ni - gmi * gmi + eps));
      n[i] = DType(ni);
      gm[i] = DType(gmi);
      delta[i] = DType(di);
      AssignReq(&y[i], r, ClipGrad(wi + di, clip_w));
    });
  });
}

[[maybe_unused]] const bool registered = [] {
  MXNET_REGISTER_OP_FAMILY(
      rmsprop_update, UpdateFamily<RMSPropParam>,
      "Update function for RMSProp optimizer: g = clip(rescale_grad * grad + wd * weight); n = (1 - gamma1) * "
      "g^2 + gamma1 * n; weight = weight - lr * g / sqrt(n + epsilon), then clipped to clip_weights if set.",
      Layout({"weight", "grad", "n"}, {2}), RMSPropCompute);
  MXNET_REGISTER_OP_FAMILY(
      rmspropalex_update, UpdateFamily<RMSPropAlexParam>,
      "Update function for RMSPropAlex optimizer (centered RMSProp, Graves 2013): n and g track g^2 and g; "
      "delta = gamma2 * delta - lr * g / sqrt(n - g_mean^2 + epsilon); weight = weight + delta.",
      Layout({"weight", "grad", "n", "g", "delta"}, {2, 3, 4}), RMSPropAlexCompute);
  return true;
}();

}  // namespace
}  // namespace optimizer
}  // namespace op
}  // namespace mxnet
