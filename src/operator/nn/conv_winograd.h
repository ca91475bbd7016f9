/*!
 * \file conv_winograd.h
 * \brief 3x3 stride-1 float32 convolution by Winograd's minimal filtering F(4x4, 3x3) on
 *        oneDNN's nChw8c or channel-last (NHWC) activations.
 *
 * Each 6x6 input tile and each 3x3 filter move to the transform domain, where the
 * convolution of a tile is 36 elementwise products summed over input channels: 36 GEMMs of
 * (tiles x C) by (C x F). A 4x4 output tile then costs 36 multiplies per channel pair
 * instead of 144. oneDNN 2.6 has Winograd kernels for AVX-512 only; on AVX2 its direct 3x3
 * kernels were the largest share of ResNet-50's time.
 *
 * Rounding: the transforms scale values by up to 10x and back, so results differ from the
 * direct sum by a few float32 ulps of the largest partial sums (about 1e-5 relative for
 * unit-scale data), as oneDNN's own Winograd kernels do.
 */
#ifndef MXNET_OPERATOR_NN_CONV_WINOGRAD_H_
#define MXNET_OPERATOR_NN_CONV_WINOGRAD_H_

#include <cstddef>
#include <cstdint>

#include "operator/nn/conv2d_geom.h"

namespace mxnet {
namespace op {
namespace winograd {

/*!
 * \brief Where an activation (N, C, H, W) keeps the 8-channel vector of image n, channel
 *        block cb, row h, column w: at n * n_ + cb * cb_ + h * h_ + w * w_ floats. Both of
 *        oneDNN's formats the kernels read hold such vectors whole: nChw8c (its AVX2
 *        convolutions' choice) and channel-last (its AVX-512 ones').
 */
struct LaneLayout {
  int64_t n_, cb_, h_, w_;
  static LaneLayout Blocked8(int64_t C, int64_t H, int64_t W) { return {C * H * W, H * W * 8, W * 8, 8}; }
  static LaneLayout ChannelLast(int64_t C, int64_t H, int64_t W) { return {H * W * C, 8, W * C, C}; }
  int64_t At(int64_t n, int64_t cb, int64_t h, int64_t w) const { return n * n_ + cb * cb_ + h * h_ + w * w_; }
};

/*! \brief Whether the kernels take the problem: 3x3, stride 1, dilation 1, padding <= 2,
 *         C a multiple of 8 and F of 16 (whole nChw8c blocks and GEMM column tiles). */
bool Fits(const Conv2dGeom& g);

/*! \brief Floats of the transformed weights of g (36 x C x F). */
size_t PackedWeightFloats(const Conv2dGeom& g);

/*!
 * \brief Transforms the weights w of g into u, laid out for Forward.
 *        w is (F, C, 3, 3); with `for_data_grad`, w is the forward convolution's weight
 *        (C, F, 3, 3) and g is its data gradient (a convolution of dy with w flipped in space
 *        and with input and output channels swapped).
 */
void PackWeights(const Conv2dGeom& g, const float* w, bool for_data_grad, float* u);

/*! \brief The inverse of PackWeights(g, w, false, u): w (F, C, 3, 3) from u. */
void UnpackWeights(const Conv2dGeom& g, const float* u, float* w);

/*!
 * \brief y = act(conv(x, w) + bias) with x and y laid out by xl and yl; u from PackWeights,
 *        bias (F) or null, relu applies max(0, .).
 */
void Forward(const Conv2dGeom& g, const float* x, const LaneLayout& xl, const float* u, const float* bias, bool relu,
             float* y, const LaneLayout& yl);

/*! \brief Whether WeightGrad takes the problem: as Fits, but C a multiple of 16 and F of 8. */
bool WeightGradFits(const Conv2dGeom& g);

/*!
 * \brief dw (F, C, 3, 3) and, when db is not null, db (F) of the convolution g from
 *        x and dy laid out by xl and dyl. The sum over tiles runs in the transform domain:
 *        dw = G^T [sum over tiles of (A dy A^T) (.) (B^T x B)] G.
 */
void WeightGrad(const Conv2dGeom& g, const float* x, const LaneLayout& xl, const float* dy, const LaneLayout& dyl,
                float* dw, float* db);

}  // namespace winograd
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_CONV_WINOGRAD_H_
