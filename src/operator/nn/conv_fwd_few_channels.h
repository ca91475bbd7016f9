/*!
 * \file conv_fwd_few_channels.h
 * \brief Forward of a 2-D float32 convolution with few input channels (a network's first layer),
 *        writing oneDNN's nChw8c blocking: 8 output channels per vector, each input pixel
 *        multiplied into them, 4 output columns and 2 channel blocks at a time in registers.
 *
 * Used where oneDNN would run its gemm-based kernel (see onednn_conv.cc): AlexNet's 3 -> 64
 * 11x11/4 first layer, which oneDNN's AVX2 direct kernels do not take, ran at about 47 GFLOP/s
 * (3 ms at batch 1).
 */
#ifndef MXNET_OPERATOR_NN_CONV_FWD_FEW_CHANNELS_H_
#define MXNET_OPERATOR_NN_CONV_FWD_FEW_CHANNELS_H_

#include "operator/nn/conv_few_channels.h"

namespace mxnet {
namespace op {

/*!
 * \brief y8 ([N][ceil(F/8)][OH][OW][8]) = conv(x, w) + bias, then max(., 0) when relu. x is plain
 *        NCHW, w plain (F, C, kh, kw), bias (F) or null. Lanes past F are written as 0, as oneDNN
 *        expects of padded blocks.
 */
void FewChannelConvForward(const Conv2dGeom& g, const float* x, const float* w, const float* bias, bool relu,
                           float* y8);

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_CONV_FWD_FEW_CHANNELS_H_
