// The convolution geometry the hand-written convolution kernel tests build their cases from.
#ifndef MXNET_TESTS_CPP_OPERATOR_NN_CONV2D_GEOMETRY_H_
#define MXNET_TESTS_CPP_OPERATOR_NN_CONV2D_GEOMETRY_H_

#include <cstdint>

#include "operator/nn/conv2d_geom.h"

namespace mxnet {
namespace op {
namespace test {

inline int64_t OutSize(int64_t n, int64_t k, int64_t s, int64_t p, int64_t d) {
  return (n + 2 * p - d * (k - 1) - 1) / s + 1;
}

/*! \brief A square kernel with its output size computed; strides per dimension, pad and dilation alike. */
inline Conv2dGeom Geom(int64_t N, int64_t C, int64_t F, int64_t H, int64_t W, int64_t kh, int64_t kw, int64_t sh,
                       int64_t sw, int64_t p, int64_t d) {
  return Conv2dGeom{N, C, F, H, W, OutSize(H, kh, sh, p, d), OutSize(W, kw, sw, p, d), kh, kw, sh, sw, p, p, d, d};
}

}  // namespace test
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_TESTS_CPP_OPERATOR_NN_CONV2D_GEOMETRY_H_
