/*!
 * \file fc_gemv.h
 * \brief FullyConnected at batch 1-2 in float32: a matrix-vector product that reads MXNet's
 *        (H, K) weight once, in place. It is bound by memory bandwidth (AlexNet's and VGG's
 *        4096 x 9216 / 25088 layers are 150 / 410 MB); row blocks streamed by OpenMP threads
 *        beat oneDNN's gemm on the same plain weight (4096 x 9216: 4.0-4.4 ms against
 *        5.5-6.9 ms here) and its blocked kernel, which would also need a reordered copy.
 */
#ifndef MXNET_OPERATOR_NN_FC_GEMV_H_
#define MXNET_OPERATOR_NN_FC_GEMV_H_

#include <cstdint>

namespace mxnet {
namespace op {

/*! \brief Batches up to this size take FCGemv. */
constexpr int64_t kFCGemvMaxRows = 2;

/*!
 * \brief y (M x H) = x (M x K) w^T + bias (bias may be null); w is (H, K) row-major. With add,
 *        the product is added to y instead of overwriting it.
 */
void FCGemv(const float* x, const float* w, const float* bias, float* y, int64_t M, int64_t K, int64_t H, bool add);

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_FC_GEMV_H_
