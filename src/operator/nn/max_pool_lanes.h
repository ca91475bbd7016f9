/*!
 * \file max_pool_lanes.h
 * \brief 2-D float32 max pooling, forward and backward, on data stored [N][Cb][H][W][B]:
 *        B = 1 is plain NCHW, B = 8 or 16 oneDNN's nChw8c / nChw16c, and one block of B = C
 *        lanes is NHWC. Each window's gradient goes to the first position (row-major within the
 *        window) holding its maximum, as MXNet defines it; the forward's maximum is that same
 *        element, so the two agree on ties, infinities and NaN.
 *
 * Why not oneDNN's: its backward needs the arg-max workspace, which the forward op (single
 * output) does not keep, so it had to re-run the training forward; and on AVX2 its forward
 * took 0.50 ms on LeNet's 64x20x24x24 (nChw8c), against 0.1 ms here, because all lanes of a
 * position are one vector and each window is a handful of loads and maxes.
 */
#ifndef MXNET_OPERATOR_NN_MAX_POOL_LANES_H_
#define MXNET_OPERATOR_NN_MAX_POOL_LANES_H_

#include <cstdint>

namespace mxnet {
namespace op {

struct MaxPool2DGeom {
  int64_t N, Cb, B;                // channel blocks of B lanes (C padded up to Cb * B)
  int64_t H, W, OH, OW;            // input and output spatial sizes
  int64_t kh, kw, sh, sw, ph, pw;  // window, stride, top/left padding
};

/*!
 * \brief y ([N][Cb][OH][OW][B]) = max over each window of x. A window wholly in the padding
 *        gives the lowest float, as the plain kernel does.
 */
void MaxPool2DForward(const MaxPool2DGeom& g, const float* x, float* y);

/*! \brief dx (x's storage) = gradient of max pooling given dy ([N][Cb][OH][OW][B]) and x. */
void MaxPool2DBackward(const MaxPool2DGeom& g, const float* x, const float* dy, float* dx);

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_MAX_POOL_LANES_H_
