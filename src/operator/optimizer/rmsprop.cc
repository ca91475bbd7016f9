/*!
 * \file rmsprop.cc
 * \brief rmsprop_update (Tieleman & Hinton) and rmspropalex_update (the centered variant of
 *        Graves 2013, eq. 38-45), states updated in place.
 */
#include "operator/optimizer/rmsprop_rules.h"

namespace mxnet {
namespace op {
namespace optimizer {

DMLC_REGISTER_PARAMETER(RMSPropParam);
DMLC_REGISTER_PARAMETER(RMSPropAlexParam);

namespace {

/*! g = clip(rescale*grad + wd*w); n = (1-gamma1)*g^2 + gamma1*n; w = clip_w(w - lr*g/sqrt(n + eps)). */
void RMSPropCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  WithWeightType(in[0], [&](auto tag) {
    using DType = decltype(tag);
    RunUpdateRule(in[0].Size(), RMSPropRule<DType>(attrs.get<RMSPropParam>(), in), out[0].dptr<DType>(), req[0]);
  });
}

/*!
 * g = clip(rescale*grad + wd*w); n = (1-gamma1)*g^2 + gamma1*n; gm = (1-gamma1)*g + gamma1*gm;
 * delta = gamma2*delta - lr*g/sqrt(n - gm^2 + eps); w = clip_w(w + delta).
 */
void RMSPropAlexCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  WithWeightType(in[0], [&](auto tag) {
    using DType = decltype(tag);
    RunUpdateRule(in[0].Size(), RMSPropAlexRule<DType>(attrs.get<RMSPropAlexParam>(), in), out[0].dptr<DType>(),
                  req[0]);
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
