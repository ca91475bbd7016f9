/*!
 * \file conv_few_channels.h
 * \brief What the few-channel convolution kernels (a network's first layer, under 8 input
 *        channels; conv_fwd_few_channels.h, conv_wgrad_few_channels.h) share: the problem's
 *        geometry, vectors of 8 output channels (oneDNN's nChw8c blocking), and the zero-padded
 *        input they read so that no tap is out of range.
 */
#ifndef MXNET_OPERATOR_NN_CONV_FEW_CHANNELS_H_
#define MXNET_OPERATOR_NN_CONV_FEW_CHANNELS_H_

#include <algorithm>
#include <cstdint>

#include "operator/nn/conv2d_geom.h"
#include "operator/nn/float_lanes.h"

namespace mxnet {
namespace op {

/*! \brief Output channels per vector and per dy / y block (nChw8c). */
constexpr int64_t kFewChannelLanes = lanes::kLanes;

/*! \brief Whether a 2-D float32 convolution with C input channels goes to these kernels. */
inline bool UseFewChannelKernels(int64_t C) { return C < kFewChannelLanes; }

namespace few_channel {

using lanes::Lanes;
using lanes::Load;
using lanes::Store;

/*! \brief `planes` HxW planes of x into out ([planes][H + 2ph][W + 2pw]) with zero borders. */
inline void PadPlanes(const Conv2dGeom& g, const float* x, int64_t planes, float* out) {
  const int64_t Hp = g.H + 2 * g.ph, Wp = g.W + 2 * g.pw;
  std::fill(out, out + planes * Hp * Wp, 0.f);
  for (int64_t c = 0; c < planes; ++c)
    for (int64_t h = 0; h < g.H; ++h)
      std::copy(x + (c * g.H + h) * g.W, x + (c * g.H + h + 1) * g.W, out + (c * Hp + h + g.ph) * Wp + g.pw);
}

}  // namespace few_channel
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_CONV_FEW_CHANNELS_H_
