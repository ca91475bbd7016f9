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
#include <vector>

namespace mxnet {
namespace op {

/*! \brief Batches up to this size take FCGemv. */
constexpr int64_t kFCGemvMaxRows = 2;

/*!
 * \brief y (M x H) = x (M x K) w^T + bias (bias may be null); w is (H, K) row-major. With add,
 *        the product is added to y instead of overwriting it.
 */
void FCGemv(const float* x, const float* w, const float* bias, float* y, int64_t M, int64_t K, int64_t H, bool add);

/*!
 * \brief Below this share of nonzero inputs, a single row of x is cheaper through the input's
 *        zeros: FCGemvSparseInput reads only the weight rows of its nonzero inputs. Measured
 *        on 4096 x 4096 (67 MB) from memory: 1.9x the dense kernel's speed at half zeros,
 *        1.2x at a quarter, 0.96x with none (its outputs pass through cache once per 4 rows).
 */
constexpr double kFCSparseInputMaxDensity = 0.9;

/*! \brief The indices k of x's nonzero entries (of K), into nz; returns their count. */
int64_t NonzeroIndices(const float* x, int64_t K, std::vector<int64_t>* nz);

/*!
 * \brief One row y (H) = x (K) w^T + bias, from wt = w^T (K, H) row-major and the indices nz of
 *        x's nonzero entries: the weight rows of zero inputs are not read. After ReLU, half of
 *        a dense layer's inputs are zero, and at batch 1 the layer is bound by reading its
 *        weight, so this reads half the memory. Exact when w is finite (0 * w = 0); callers
 *        check that once per weight value. With add, the product is added to y.
 */
void FCGemvSparseInput(const float* x, const float* wt, const std::vector<int64_t>& nz, const float* bias, float* y,
                       int64_t H, bool add);

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_FC_GEMV_H_
