/*!
 * \file shuffle.h
 * \brief _shuffle's permutation, shared by its CPU and CUDA kernels: Fisher-Yates from the last
 *        row down, step i drawing from element sub-stream i, so the permutation depends only
 *        on seed and call order (and is the same on every device).
 */
#ifndef MXNET_OPERATOR_RANDOM_SHUFFLE_H_
#define MXNET_OPERATOR_RANDOM_SHUFFLE_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "mxnet/op_context.h"

namespace mxnet {
namespace op {
namespace random {

/*! \brief perm[i] = the input row that output row i takes. */
inline std::vector<int64_t> ShufflePermutation(int64_t n, const RandomStream& rs) {
  std::vector<int64_t> perm(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) perm[i] = i;
  for (int64_t i = n - 1; i > 0; --i) {
    int64_t j = static_cast<int64_t>(rs.ForElement(i).UniformD() * static_cast<double>(i + 1));
    if (j > i) j = i;
    std::swap(perm[i], perm[j]);
  }
  return perm;
}

}  // namespace random
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_RANDOM_SHUFFLE_H_
