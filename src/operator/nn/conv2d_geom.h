/*!
 * \file conv2d_geom.h
 * \brief The geometry of one 2-D convolution, as the hand-written convolution kernels take it
 *        (the few-channel kernels, the channel-last data gradient).
 */
#ifndef MXNET_OPERATOR_NN_CONV2D_GEOM_H_
#define MXNET_OPERATOR_NN_CONV2D_GEOM_H_

#include <cstdint>

namespace mxnet {
namespace op {

struct Conv2dGeom {
  int64_t N, C, F;                 // batch, input channels, output channels
  int64_t H, W, OH, OW;            // input and output spatial sizes
  int64_t kh, kw, sh, sw, ph, pw;  // kernel, stride, top/left padding
  int64_t dh, dw;                  // dilation (1 = dense)
};

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_CONV2D_GEOM_H_
