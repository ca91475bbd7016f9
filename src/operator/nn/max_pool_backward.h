/*!
 * \file max_pool_backward.h
 * \brief 2-D max-pooling backward on float32 data stored [N][C/B][H][W][B]: B = 1 is plain
 *        NCHW, B = 8 or 16 oneDNN's nChw8c/nChw16c, one block of B = C lanes NHWC. Each window's gradient goes to the
 * first position (row-major within the window) holding its maximum, as MXNet defines it.
 *
 * Why not oneDNN's: its backward needs the arg-max workspace, which our forward (single
 * output, inference propagation) does not keep, so it had to re-run the training forward;
 * the two passes cost about ten times this kernel's one pass on LeNet's 64x20x24x24.
 */
#ifndef MXNET_OPERATOR_NN_MAX_POOL_BACKWARD_H_
#define MXNET_OPERATOR_NN_MAX_POOL_BACKWARD_H_

#include <cstdint>

namespace mxnet {
namespace op {

struct MaxPool2DGeom {
  int64_t N, Cb, B;                // channel blocks of B lanes (C padded up to Cb * B)
  int64_t H, W, OH, OW;            // input and output spatial sizes
  int64_t kh, kw, sh, sw, ph, pw;  // window, stride, top/left padding
};

/*! \brief dx (x's storage) = gradient of max pooling given dy ([N][Cb][OH][OW][B]) and x. */
void MaxPool2DBackward(const MaxPool2DGeom& g, const float* x, const float* dy, float* dx);

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_MAX_POOL_BACKWARD_H_
