/*!
 * \file ftrl_sign.cc
 * \brief ftrl_update (FTRL-Proximal, McMahan et al. 2013), signsgd_update and signum_update
 *        (Bernstein et al. 2018).
 */
#include "operator/optimizer/ftrl_sign_rules.h"

namespace mxnet {
namespace op {
namespace optimizer {

DMLC_REGISTER_PARAMETER(FtrlParam);
DMLC_REGISTER_PARAMETER(SignSGDParam);
DMLC_REGISTER_PARAMETER(SignumParam);

namespace {

/*!
 * g = clip(rescale*grad); z += g - (sqrt(n + g^2) - sqrt(n)) * w / lr; n += g^2;
 * w = (sign(z)*lamda1 - z) / ((beta + sqrt(n)) / lr + wd) where |z| > lamda1, else 0.
 */
void FtrlCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  WithWeightType(in[0], [&](auto tag) {
    using DType = decltype(tag);
    RunUpdateRule(in[0].Size(), FtrlRule<DType>(attrs.get<FtrlParam>(), in), out[0].dptr<DType>(), req[0]);
  });
}

/*! w = (1 - lr*wd)*w - lr*sign(grad); rescaling and clipping never change a sign. */
void SignSGDCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  WithWeightType(in[0], [&](auto tag) {
    using DType = decltype(tag);
    RunUpdateRule(in[0].Size(), SignSGDRule<DType>(attrs.get<SignSGDParam>(), in), out[0].dptr<DType>(), req[0]);
  });
}

/*! mom = momentum*mom - (1-momentum)*(wd*w + clip(rescale*grad)); w = (1 - lr*wd_lh)*w + lr*sign(mom). */
void SignumCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  WithWeightType(in[0], [&](auto tag) {
    using DType = decltype(tag);
    RunUpdateRule(in[0].Size(), SignumRule<DType>(attrs.get<SignumParam>(), in), out[0].dptr<DType>(), req[0]);
  });
}

[[maybe_unused]] const bool registered = [] {
  MXNET_REGISTER_OP_FAMILY(
      ftrl_update, UpdateFamily<FtrlParam>,
      "Update function for Ftrl optimizer (FTRL-Proximal): z += g - (sqrt(n + g^2) - sqrt(n)) * weight / lr; "
      "n += g^2; weight = (sign(z) * lamda1 - z) / ((beta + sqrt(n)) / lr + wd) * (|z| > lamda1), with g = "
      "clip(rescale_grad * grad).",
      Layout({"weight", "grad", "z", "n"}, {2, 3}), FtrlCompute);
  MXNET_REGISTER_OP_FAMILY(signsgd_update, UpdateFamily<SignSGDParam>,
                           "Update function for SignSGD optimizer: weight = (1 - lr * wd) * weight - lr * sign(grad).",
                           Layout({"weight", "grad"}, {}), SignSGDCompute);
  MXNET_REGISTER_OP_FAMILY(signum_update, UpdateFamily<SignumParam>,
                           "SIGN momentUM (Signum) optimizer: mom = momentum * mom - (1 - momentum) * (wd * weight + "
                           "clip(rescale_grad * grad)); weight = (1 - lr * wd_lh) * weight + lr * sign(mom).",
                           Layout({"weight", "grad", "mom"}, {2}), SignumCompute);
  return true;
}();

}  // namespace
}  // namespace optimizer
}  // namespace op
}  // namespace mxnet
