/*!
 * \file conv_wgrad_few_channels.h
 * \brief Weight (and bias) gradient of a 2-D float32 convolution with few input channels (a
 *        network's first layer), reading dy in oneDNN's nChw8c blocking: 8 output channels per
 *        vector, each multiplied by one input pixel.
 *
 * Why not oneDNN's (AVX2, single thread, float32): with a 1-channel input it pads the channels
 * to 8 (LeNet's 1 -> 20 5x5 on 64x1x28x28: 5.1 ms, this kernel 1.2 ms); with 3 channels it
 * runs unpadded but at about two thirds of this kernel's rate (ResNet's 7x7/2 stem at batch 32: 173
 * against 114 ms; AlexNet's 11x11/4 at batch 16: 60 against 47 ms). Pinning its input plain
 * or channel-last selects its reference kernel, slower still.
 */
#ifndef MXNET_OPERATOR_NN_CONV_WGRAD_FEW_CHANNELS_H_
#define MXNET_OPERATOR_NN_CONV_WGRAD_FEW_CHANNELS_H_

#include "operator/nn/conv_few_channels.h"

namespace mxnet {
namespace op {

/*!
 * \brief dw (F, C, kh, kw) = sum over images and output pixels of dy * the input pixel each
 *        weight met; db (F), when not null, = sum of dy. x is plain NCHW; dy8 is
 *        [N][ceil(F/8)][OH][OW][8]. Both are overwritten. The sum runs over fixed chunks of
 *        images added in order, so the result does not depend on the thread count.
 */
void FewChannelWeightGrad(const Conv2dGeom& g, const float* x, const float* dy8, float* dw, float* db);

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_CONV_WGRAD_FEW_CHANNELS_H_
