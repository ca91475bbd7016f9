/*!
 * \file conv_bwd_data_channel_last.h
 * \brief Data gradient of a 2-D float32 convolution on channel-last (NHWC) activations as one
 *        GEMM and a col2im: dcol (N*OH*OW x kh*kw*C) = dy (N*OH*OW x F) * w' (F x kh*kw*C), then
 *        every column block added into dx at the input pixel its tap came from.
 *
 * Why not oneDNN's (AVX2): its channel-last kernel computes input channels in vectors of 8, so
 * a channel count that is not a multiple of 8 wastes lanes, and the small images of such
 * layers give its loops little to block on. LeNet's second conv (20 -> 50 5x5 on
 * 64x20x12x12): 2.48 ms, 82 GFLOP/s. oneDNN's sgemm runs the GEMM (M 4096, N 500, K 50) at
 * 180 GFLOP/s, per block of images whose columns stay in L2 for the col2im.
 */
#ifndef MXNET_OPERATOR_NN_CONV_BWD_DATA_CHANNEL_LAST_H_
#define MXNET_OPERATOR_NN_CONV_BWD_DATA_CHANNEL_LAST_H_

#include "operator/nn/conv2d_geom.h"

namespace mxnet {
namespace op {

/*! \brief Largest column matrix of one image: each thread keeps a buffer that size. */
constexpr int64_t kChannelLastMaxImageColumnBytes = int64_t{4} << 20;

/*!
 * \brief Whether a channel-last data gradient goes to this kernel: input channels off the
 *        vector width of 8, and one image's columns small enough for a per-thread buffer.
 */
inline bool UseChannelLastBackwardData(const Conv2dGeom& g) {
  const int64_t column_bytes = g.OH * g.OW * g.kh * g.kw * g.C * static_cast<int64_t>(sizeof(float));
  return g.C % 8 != 0 && column_bytes <= kChannelLastMaxImageColumnBytes;
}

/*!
 * \brief dx (N, H, W, C) = the data gradient of dy (N, OH, OW, F) through weights w (F, C, kh, kw,
 *        MXNet's layout); dx is overwritten. Any stride, padding and dilation; one group.
 */
void ChannelLastBackwardData(const Conv2dGeom& g, const float* dy, const float* w, float* dx);

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_CONV_BWD_DATA_CHANNEL_LAST_H_
