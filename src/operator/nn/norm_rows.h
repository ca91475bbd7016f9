/*!
 * \file norm_rows.h
 * \brief The kernel shared by LayerNorm, InstanceNorm and GroupNorm: data viewed as
 *        (outer, L, inner); every (outer, inner) row of L elements is normalized by its own
 *        mean and standard deviation, then scaled and shifted by parameters picked by an
 *        index function of (outer, l).
 */
#ifndef MXNET_OPERATOR_NN_NORM_ROWS_H_
#define MXNET_OPERATOR_NN_NORM_ROWS_H_

#include <cmath>
#include <vector>

#include "operator/nn/nn_util.h"

namespace mxnet {
namespace op {

struct RowView {
  int64_t outer, L, inner;
  int64_t Rows() const { return outer * inner; }
};

/*! \brief y = (x - mean) / std * gamma[pi(o, l)] + beta[pi(o, l)]; writes mean and std per row. */
template <typename D, typename PI>
void NormRowsForward(const RowView& v, double eps, const D* x, const D* gamma, const D* beta, D* y, D* mean, D* std,
                     OpReqType req, PI pi) {
  using C = real_compute_t<D>;
#pragma omp parallel for schedule(static) if (UseParallel(v.Rows() * v.L))
  for (int64_t r = 0; r < v.Rows(); ++r) {
    const int64_t o = r / v.inner, base = o * v.L * v.inner + r % v.inner;
    double s = 0, ss = 0;
    for (int64_t l = 0; l < v.L; ++l) s += static_cast<double>(x[base + l * v.inner]);
    const double m = s / v.L;
    for (int64_t l = 0; l < v.L; ++l) {
      const double d = static_cast<double>(x[base + l * v.inner]) - m;
      ss += d * d;
    }
    const double sd = std::sqrt(ss / v.L + eps);
    mean[r] = static_cast<D>(m);
    std[r] = static_cast<D>(sd);
    for (int64_t l = 0; l < v.L; ++l) {
      const int64_t j = base + l * v.inner, k = pi(o, l);
      Store(y + j, req, static_cast<C>((static_cast<double>(x[j]) - m) / sd * static_cast<double>(gamma[k]) +
                                       static_cast<double>(beta[k])));
    }
  }
}

/*! \brief dx, dgamma, dbeta (nparam entries) under req from dy and the saved mean/std. */
template <typename D, typename PI>
void NormRowsBackward(const RowView& v, int64_t nparam, const D* dy, const D* x, const D* gamma, const D* mean,
                      const D* std, D* dx, D* dgamma, D* dbeta, const std::vector<OpReqType>& req, PI pi) {
#pragma omp parallel for schedule(static) if (UseParallel(v.Rows() * v.L))
  for (int64_t r = 0; r < v.Rows(); ++r) {
    if (req[0] == kNullOp) continue;
    const int64_t o = r / v.inner, base = o * v.L * v.inner + r % v.inner;
    const double m = static_cast<double>(mean[r]), sd = static_cast<double>(std[r]);
    double mg = 0, mgx = 0;
    for (int64_t l = 0; l < v.L; ++l) {
      const int64_t j = base + l * v.inner;
      const double g = static_cast<double>(dy[j]) * static_cast<double>(gamma[pi(o, l)]);
      mg += g;
      mgx += g * (static_cast<double>(x[j]) - m) / sd;
    }
    mg /= v.L;
    mgx /= v.L;
    for (int64_t l = 0; l < v.L; ++l) {
      const int64_t j = base + l * v.inner;
      const double g = static_cast<double>(dy[j]) * static_cast<double>(gamma[pi(o, l)]);
      const double xhat = (static_cast<double>(x[j]) - m) / sd;
      Store(dx + j, req[0], static_cast<real_compute_t<D>>((g - mg - xhat * mgx) / sd));
    }
  }
  if (req[1] == kNullOp && req[2] == kNullOp) return;
  std::vector<double> dg(nparam, 0.0), db(nparam, 0.0);
  for (int64_t r = 0; r < v.Rows(); ++r) {
    const int64_t o = r / v.inner, base = o * v.L * v.inner + r % v.inner;
    const double m = static_cast<double>(mean[r]), sd = static_cast<double>(std[r]);
    for (int64_t l = 0; l < v.L; ++l) {
      const int64_t j = base + l * v.inner, k = pi(o, l);
      dg[k] += static_cast<double>(dy[j]) * (static_cast<double>(x[j]) - m) / sd;
      db[k] += static_cast<double>(dy[j]);
    }
  }
  for (int64_t k = 0; k < nparam; ++k) {
    if (req[1] != kNullOp) Store(dgamma + k, req[1], dg[k]);
    if (req[2] != kNullOp) Store(dbeta + k, req[2], db[k]);
  }
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_NORM_ROWS_H_
