/*!
 * \file lrn.h
 * \brief LRN's parameters and its scale (knorm + alpha/nsize * the sum of x^2 over nsize
 *        neighbouring channels), shared by the reference kernels (lrn_l2norm.cc) and the oneDNN
 *        entries (onednn/onednn_lrn_layer_norm_kernels.cc), which fill the hidden scale output,
 *        and the CUDA kernels (cuda/lrn_l2norm.cu), which call LRNScaleAt per element.
 */
#ifndef MXNET_OPERATOR_NN_LRN_H_
#define MXNET_OPERATOR_NN_LRN_H_

#include <algorithm>
#include <cmath>

#include "mxnet/xinline.h"
#include "operator/nn/nn_util.h"

namespace mxnet {
namespace op {

struct LRNParam : public dmlc::Parameter<LRNParam> {
  float alpha, beta, knorm;
  uint32_t nsize;
  DMLC_DECLARE_PARAMETER(LRNParam) {
    DMLC_DECLARE_FIELD(alpha).set_default(1e-4f).describe("The variance scaling parameter alpha in the LRN expression.");
    DMLC_DECLARE_FIELD(beta).set_default(0.75f).describe("The power parameter beta in the LRN expression.");
    DMLC_DECLARE_FIELD(knorm).set_default(2.0f).describe("The parameter k in the LRN expression.");
    DMLC_DECLARE_FIELD(nsize).set_lower_bound(1).describe("normalization window width in elements.");
  }
};
/*! \brief data as (N, C, S): LRN sums x^2 over the nsize channels centred on each channel. */
struct NCS {
  int64_t N, C, S;
  explicit NCS(const TShape& s) : N(s[0]), C(s.ndim() > 1 ? s[1] : 1), S(s.ndim() > 2 ? s.ProdShape(2, s.ndim()) : 1) {}
};

/*! \brief The channels [*lo, *hi] of the window centred on channel c, clipped to [0, C). */
MXNET_XINLINE void LRNWindow(int64_t c, int64_t half, int64_t C, int64_t* lo, int64_t* hi) {
  *lo = c - half > 0 ? c - half : 0;
  *hi = c + half < C - 1 ? c + half : C - 1;
}

/*!
 * \brief The scale at (n, c, i): knorm + a * the sum of x^2 over the window of channel c,
 *        with half = nsize / 2 and a = alpha / nsize.
 */
template <typename D>
MXNET_XINLINE double LRNScaleAt(const NCS& v, int64_t half, double a, float knorm, const D* x, int64_t n, int64_t c,
                                int64_t i) {
  int64_t lo, hi;
  LRNWindow(c, half, v.C, &lo, &hi);
  double s = 0;
  for (int64_t j = lo; j <= hi; ++j) {
    const double xv = static_cast<double>(x[(n * v.C + j) * v.S + i]);
    s += xv * xv;
  }
  return knorm + a * s;
}

/*! \brief out = x * scale^-beta. */
MXNET_XINLINE double LRNOut(double x, double scale, float beta) {
  return x * std::pow(scale, static_cast<double>(-beta));
}

/*! \brief dy x scale^(-beta-1): an element's term in the window sums of the gradient. */
MXNET_XINLINE double LRNGradTerm(double dy, double x, double scale, float beta) {
  return dy * x * std::pow(scale, static_cast<double>(-beta - 1));
}

/*! \brief dx = dy scale^-beta - k x sum, k = 2 alpha beta / nsize, sum: the terms over the window. */
MXNET_XINLINE double LRNGrad(double dy, double x, double scale, float beta, double k, double sum) {
  return dy * std::pow(scale, static_cast<double>(-beta)) - k * x * sum;
}

template <typename D>
void LRNScale(const NCS& v, const LRNParam& p, const D* x, double* scale) {
  const int64_t half = p.nsize / 2;
  const double a = static_cast<double>(p.alpha) / p.nsize;
#pragma omp parallel for schedule(static) if (UseParallel(v.N * v.C * v.S * p.nsize))
  for (int64_t n = 0; n < v.N; ++n)
    for (int64_t c = 0; c < v.C; ++c)
      for (int64_t i = 0; i < v.S; ++i) scale[(n * v.C + c) * v.S + i] = LRNScaleAt(v, half, a, p.knorm, x, n, c, i);
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_LRN_H_
