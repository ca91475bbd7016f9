/*!
 * \file ndarray_patterns.h
 * \brief Deterministic NDArray contents for the engine-level NN tests, and host copies of
 *        arrays (through SyncCopyToCPU, so blocked layouts are read back plainly).
 */
#ifndef MXNET_TESTS_CPP_OPERATOR_NN_NDARRAY_PATTERNS_H_
#define MXNET_TESTS_CPP_OPERATOR_NN_NDARRAY_PATTERNS_H_

#include <vector>

#include "mxnet/ndarray.h"

namespace mxnet {
namespace test {

/*! \brief A CPU array of values in [-scale, scale] that repeat every 23 elements; salt shifts them. */
inline NDArray Pattern(const TShape& s, float scale, int salt = 0) {
  NDArray a(s, Context::CPU());
  std::vector<float> h(s.Size());
  for (size_t i = 0; i < h.size(); ++i)
    h[i] = scale * static_cast<float>(static_cast<int>((i + salt) * 7 % 23) - 11) / 11.f;
  a.SyncCopyFromCPU(h.data(), h.size());
  return a;
}

/*! \brief The array's values in plain row-major order. */
inline std::vector<float> Host(const NDArray& a) {
  std::vector<float> h(a.Size());
  a.SyncCopyToCPU(h.data(), h.size());
  return h;
}

}  // namespace test
}  // namespace mxnet

#endif  // MXNET_TESTS_CPP_OPERATOR_NN_NDARRAY_PATTERNS_H_
