/*!
 * \file ftrl_sign_rules.h
 * \brief Parameters of ftrl_update, signsgd_update and signum_update (ftrl_sign.cc) and the update
 *        of one element of each, host+device: the CPU loops and the CUDA kernels call the same rule.
 */
#ifndef MXNET_OPERATOR_OPTIMIZER_FTRL_SIGN_RULES_H_
#define MXNET_OPERATOR_OPTIMIZER_FTRL_SIGN_RULES_H_

#include <cmath>
#include <vector>

#include "operator/optimizer/optimizer_common.h"

namespace mxnet {
namespace op {
namespace optimizer {

struct FtrlParam : public dmlc::Parameter<FtrlParam> {
  float lr, lamda1, beta, wd, rescale_grad, clip_gradient;
  DMLC_DECLARE_PARAMETER(FtrlParam) {
    DMLC_DECLARE_FIELD(lr).describe("Learning rate");
    DMLC_DECLARE_FIELD(lamda1).set_default(0.01f).describe("The L1 regularization coefficient.");
    DMLC_DECLARE_FIELD(beta).set_default(1.0f).describe("Per-Coordinate Learning Rate beta.");
    MXNET_DECLARE_GRAD_FIELDS();
  }
};

struct SignSGDParam : public dmlc::Parameter<SignSGDParam> {
  float lr, wd, rescale_grad, clip_gradient;
  DMLC_DECLARE_PARAMETER(SignSGDParam) {
    DMLC_DECLARE_FIELD(lr).describe("Learning rate");
    MXNET_DECLARE_GRAD_FIELDS();
  }
};

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

template <typename C>
MXNET_XINLINE C Sign(C x) {
  return C((x > C(0)) - (x < C(0)));
}

/*!
 * \brief g = clip(rescale*grad); z += g - (sqrt(n + g^2) - sqrt(n)) * w / lr; n += g^2; returns
 *        (sign(z)*lamda1 - z) / ((beta + sqrt(n)) / lr + wd) where |z| > lamda1, else 0.
 *        in = weight, grad, z, n.
 */
template <typename DType>
struct FtrlRule {
  using C = compute_t<DType>;
  const DType* w;
  const DType* g;
  DType* z;
  DType* n;
  C lr, l1, beta, wd;
  GradPrep<C> prep;
  FtrlRule(const FtrlParam& p, const std::vector<TBlob>& in)
      : w(in[0].dptr<DType>()),
        g(in[1].dptr<DType>()),
        z(in[2].dptr<DType>()),
        n(in[3].dptr<DType>()),
        lr(p.lr),
        l1(p.lamda1),
        beta(p.beta),
        wd(p.wd),
        prep(p) {}
  MXNET_XINLINE C operator()(int64_t i) const {
    const C gi = prep(C(g[i]));
    const C n_old = C(n[i]);
    const C zi = C(z[i]) + gi - (std::sqrt(n_old + gi * gi) - std::sqrt(n_old)) * C(w[i]) / lr;
    const C ni = n_old + gi * gi;
    z[i] = DType(zi);
    n[i] = DType(ni);
    return std::fabs(zi) > l1 ? (Sign(zi) * l1 - zi) / ((beta + std::sqrt(ni)) / lr + wd) : C(0);
  }
};

/*! \brief Returns (1 - lr*wd)*w - lr*sign(grad); rescaling and clipping never change a sign. in = weight, grad. */
template <typename DType>
struct SignSGDRule {
  using C = compute_t<DType>;
  const DType* w;
  const DType* g;
  C lr, wd;
  SignSGDRule(const SignSGDParam& p, const std::vector<TBlob>& in)
      : w(in[0].dptr<DType>()), g(in[1].dptr<DType>()), lr(p.lr), wd(p.wd) {}
  MXNET_XINLINE C operator()(int64_t i) const { return (C(1) - lr * wd) * C(w[i]) - lr * Sign(C(g[i])); }
};

/*!
 * \brief mom = momentum*mom - (1-momentum)*(wd*w + clip(rescale*grad)); returns
 *        (1 - lr*wd_lh)*w + lr*sign(mom). in = weight, grad, mom.
 */
template <typename DType>
struct SignumRule {
  using C = compute_t<DType>;
  const DType* w;
  const DType* g;
  DType* mom;
  C lr, m, wd, wd_lh;
  GradPrep<C> prep;
  SignumRule(const SignumParam& p, const std::vector<TBlob>& in)
      : w(in[0].dptr<DType>()),
        g(in[1].dptr<DType>()),
        mom(in[2].dptr<DType>()),
        lr(p.lr),
        m(p.momentum),
        wd(p.wd),
        wd_lh(p.wd_lh),
        prep(p) {}
  MXNET_XINLINE C operator()(int64_t i) const {
    const C wi = C(w[i]);
    const C v = m * C(mom[i]) - (C(1) - m) * wd * wi - (C(1) - m) * prep(C(g[i]));
    mom[i] = DType(v);
    return (C(1) - lr * wd_lh) * wi + lr * Sign(v);
  }
};

}  // namespace optimizer
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_OPTIMIZER_FTRL_SIGN_RULES_H_
