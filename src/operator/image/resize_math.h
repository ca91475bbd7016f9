/*!
 * \file resize_math.h
 * \brief The sampling of `_image_resize`'s own kernels (nearest and bilinear with pixel-centre
 *        alignment, as OpenCV's INTER_NEAREST / INTER_LINEAR), shared by the CPU kernel
 *        (resize_crop.cc, where OpenCV does not resize) and the CUDA kernel (cuda/image_ops.cu).
 *        Coordinates and weights are float, as OpenCV keeps them.
 */
#ifndef MXNET_OPERATOR_IMAGE_RESIZE_MATH_H_
#define MXNET_OPERATOR_IMAGE_RESIZE_MATH_H_

#include <math.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "mxnet/xinline.h"

namespace mxnet {
namespace op {
namespace image {

/*! \brief An interpolated value stored in DType: integers rounded and saturated. */
template <typename DType>
MXNET_XINLINE DType FromFloat(float v) {
  if (std::is_integral<DType>::value) {
    v = roundf(v);
    v = std::min<float>(std::max<float>(v, float(std::numeric_limits<DType>::lowest())),
                        float(std::numeric_limits<DType>::max()));
  }
  return static_cast<DType>(v);
}

/*! \brief Nearest: the source index of output index o over n source pixels, scale = n / outputs. */
MXNET_XINLINE int64_t NearestSource(int64_t o, float scale, int64_t n) {
  const int64_t i = static_cast<int64_t>(floorf(o * scale));
  return i < n - 1 ? i : n - 1;
}

/*! \brief Linear: the two source indices of output index o and the weight of the second. */
struct LinearTaps {
  int64_t i0, i1;
  float w;
};

MXNET_XINLINE LinearTaps LinearSource(int64_t o, float scale, int64_t n) {
  float f = (o + 0.5f) * scale - 0.5f;
  f = 0.f < f ? f : 0.f;  // std::max(0.f, f)
  LinearTaps t;
  t.i0 = static_cast<int64_t>(f);
  if (t.i0 > n - 1) t.i0 = n - 1;
  t.i1 = t.i0 + 1 < n - 1 ? t.i0 + 1 : n - 1;
  t.w = f - t.i0;
  return t;
}

/*! \brief a b (top row) and e f (bottom row) blended with column weight wx and row weight wy. */
MXNET_XINLINE float Bilerp(float a, float b, float e, float f, float wx, float wy) {
  return (a * (1 - wx) + b * wx) * (1 - wy) + (e * (1 - wx) + f * wx) * wy;
}

}  // namespace image
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_IMAGE_RESIZE_MATH_H_
