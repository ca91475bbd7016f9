/*!
 * \file multinomial.h
 * \brief What _sample_multinomial's CPU and CUDA kernels share: the inverse-CDF pick of one draw
 *        (host+device) and the check of one row of probabilities, with its error message.
 */
#ifndef MXNET_OPERATOR_RANDOM_MULTINOMIAL_H_
#define MXNET_OPERATOR_RANDOM_MULTINOMIAL_H_

#include <cmath>
#include <cstdint>
#include <string>

#include "mxnet/error.h"
#include "mxnet/xinline.h"

namespace mxnet {
namespace op {
namespace random {

/*!
 * \brief The category a uniform u in [0, 1) picks from a row of k probabilities (inverse CDF,
 *        summed in double); rounding can leave u above the total, then the last category with
 *        non-zero probability wins.
 */
template <typename T>
MXNET_XINLINE int64_t InverseCdfPick(const T* row, int64_t k, double u) {
  double acc = 0.0;
  int64_t j = 0, last = 0;
  for (; j < k; ++j) {
    const double v = static_cast<double>(row[j]);
    if (v > 0.0) last = j;
    acc += v;
    if (u < acc) break;
  }
  return j < k ? j : last;
}

/*! \brief Throws ValueError unless row r (k values) is finite, non-negative and not all zero. */
inline void CheckProbabilityRow(const std::string& op, const double* row, int64_t k, int64_t r) {
  double sum = 0.0;
  for (int64_t j = 0; j < k; ++j) {
    const double v = row[j];
    MX_CHECK_KIND(v >= 0.0 && std::isfinite(v), "ValueError")
        << op << ": probabilities must be finite and non-negative, got " << v << " in row " << r;
    sum += v;
  }
  MX_CHECK_KIND(sum > 0.0, "ValueError") << op << ": row " << r << " of the probabilities sums to 0";
}

}  // namespace random
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_RANDOM_MULTINOMIAL_H_
