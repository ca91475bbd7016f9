/*!
 * \file ftrl_sign.cc
 * \brief ftrl_update (FTRL-Proximal, McMahan et al. 2013), signsgd_update and signum_update
 *        (Bernstein et al. 2018).
 */
#include <cmath>

#include "operator/optimizer/optimizer_common.h"

namespace mxnet {
namespace op {
namespace optimizer {
namespace {

struct FtrlParam : public dmlc::Parameter<FtrlParam> {
  float lr, lamda1, beta, wd, rescale_grad, clip_gradient;
  DMLC_DECLARE_PARAMETER(FtrlParam) {
    DMLC_DECLARE_FIELD(lr).describe("Learning rate");
    DMLC_DECLARE_FIELD(lamda1).set_default(0.01f).describe("The L1 regularization coefficient.");
    DMLC_DECLARE_FIELD(beta).set_default(1.0f).describe("Per-Coordinate Learning Rate beta.");
    MXNET_DECLARE_GRAD_FIELDS();
  }
};
DMLC_REGISTER_PARAMETER(FtrlParam);

struct SignSGDParam : public dmlc::Parameter<SignSGDParam> {
  float lr, wd, rescale_grad, clip_gradient;
  DMLC_DECLARE_PARAMETER(SignSGDParam) {
    DMLC_DECLARE_FIELD(lr).describe("Learning rate");
    MXNET_DECLARE_GRAD_FIELDS();
  }
};
DMLC_REGISTER_PARAMETER(SignSGDParam);

struct SignumParam : public dmlc::Parameter<SignumParam> {
  float lr, momentum, wd, rescale_grad, clip_gradient, wd_lh;
  DMLC_DECLARE_PARAMETER(SignumParam) {
    DMLC_DECLARE_FIELD(lr).describe("Learning rate");
    DMLC_DECLARE_FIELD(momentum).set_default(0.0f).describe("The decay rate of momentum estimates at each epoch.");
    MXNET_DECLARE_GRAD_FIELDS();
    DMLC_DECLARE_FIELD(wd_lh).set_default(0.0f).describe(
        "The amount of weight decay that does not go into gradient/momentum calculationsotherwise do weight decay "
        "algorithmically only.");
  }
};
DMLC_REGISTER_PARAMETER(SignumParam);

template <typename C>
inline C Sign(C x) {
  return C((x > C(0)) - (x < C(0)));
}

/*!
 * g = clip(rescale*grad); z += g - (sqrt(n + g^2) - sqrt(n)) * w / lr; n += g^2;
 * w = (sign(z)*lamda1 - z) / ((beta + sqrt(n)) / lr + wd) where |z| > lamda1, else 0.
 */
void FtrlCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = attrs.get<FtrlParam>();
  WithWeightType(in[0], [&](auto tag) {
    using DType = decltype(tag);
    using C = compute_t<DType>;
    const DType* w = in[0].dptr<DType>();
    const DType* g = in[1].dptr<DType>();
    DType* z = in[2].dptr<DType>();
    DType* n = in[3].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    const C lr = p.lr, l1 = p.lamda1, beta = p.beta, wd = p.wd;
    const GradPrep<C> prep(p);
    const OpReqType r = req[0];
    ParallelFor(in[0].Size(), [&](int64_t i) {
      const C gi = prep(C(g[i]));
      const C n_old = C(n[i]);
      const C zi = C(z[i]) + gi - (std::sqrt(n_old + gi * gi) - std::sqrt(n_old)) * C(w[i]) / lr;
      const C ni = n_old + gi * gi;
      z[i] = DType(zi);
      n[i] = DType(ni);
      const C wi = std::fabs(zi) > l1 ? (Sign(zi) * l1 - zi) / ((beta + std::sqrt(ni)) / lr + wd) : C(0);
      AssignReq(&y[i], r, wi);
    });
  });
}

/*! w = (1 - lr*wd)*w - lr*sign(grad); rescaling and clipping never change a sign. */
void SignSGDCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = attrs.get<SignSGDParam>();
  WithWeightType(in[0], [&](auto tag) {
    using DType = decltype(tag);
    using C = compute_t<DType>;
    const DType* w = in[0].dptr<DType>();
    const DType* g = in[1].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    const C lr = p.lr, wd = p.wd;
    const OpReqType r = req[0];
    ParallelFor(in[0].Size(), [&](int64_t i) { AssignReq(&y[i], r, (C(1) - lr * wd) * C(w[i]) - lr * Sign(C(g[i]))); });
  });
}

/*! mom = momentum*mom - (1-momentum)*(wd*w + clip(rescale*grad)); w = (1 - lr*wd_lh)*w + lr*sign(mom). */
void SignumCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = attrs.get<SignumParam>();
  WithWeightType(in[0], [&](auto tag) {
    using DType = decltype(tag);
    using C = compute_t<DType>;
    const DType* w = in[0].dptr<DType>();
    const DType* g = in[1].dptr<DType>();
    DType* mom = in[2].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    const C lr = p.lr, m = p.momentum, wd = p.wd, wd_lh = p.wd_lh;
    const GradPrep<C> prep(p);
    const OpReqType r = req[0];
    ParallelFor(in[0].Size(), [&](int64_t i) {
      const C wi = C(w[i]);
      const C v = m * C(mom[i]) - (C(1) - m) * wd * wi - (C(1) - m) * prep(C(g[i]));
      mom[i] = DType(v);
      AssignReq(&y[i], r, (C(1) - lr * wd_lh) * wi + lr * Sign(v));
    });
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
