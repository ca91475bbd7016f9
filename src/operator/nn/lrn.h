/*!
 * \file lrn.h
 * \brief LRN's parameters and its scale (knorm + alpha/nsize * the sum of x^2 over nsize
 *        neighbouring channels), shared by the reference kernels (lrn_l2norm.cc) and the oneDNN
 *        entries (onednn/onednn_lrn_layer_norm_kernels.cc), which fill the hidden scale output.
 */
#ifndef MXNET_OPERATOR_NN_LRN_H_
#define MXNET_OPERATOR_NN_LRN_H_

#include <algorithm>

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

template <typename D>
void LRNScale(const NCS& v, const LRNParam& p, const D* x, double* scale) {
  const int64_t half = p.nsize / 2;
  const double a = static_cast<double>(p.alpha) / p.nsize;
#pragma omp parallel for schedule(static) if (UseParallel(v.N * v.C * v.S * p.nsize))
  for (int64_t n = 0; n < v.N; ++n)
    for (int64_t c = 0; c < v.C; ++c)
      for (int64_t i = 0; i < v.S; ++i) {
        double s = 0;
        for (int64_t j = std::max<int64_t>(0, c - half); j <= std::min<int64_t>(v.C - 1, c + half); ++j) {
          const double xv = static_cast<double>(x[(n * v.C + j) * v.S + i]);
          s += xv * xv;
        }
        scale[(n * v.C + c) * v.S + i] = p.knorm + a * s;
      }
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_LRN_H_
