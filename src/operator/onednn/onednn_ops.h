/*!
 * \file onednn_ops.h
 * \brief oneDNN paths of the NN ops other than (de)convolution. Each takes plain tensors,
 *        builds (or finds in its per-thread cache) the primitive, and writes its outputs
 *        with kWriteTo semantics unless it says otherwise; callers fall back to the plain
 *        kernels when a *Supported() check says no.
 */
#ifndef MXNET_OPERATOR_ONEDNN_ONEDNN_OPS_H_
#define MXNET_OPERATOR_ONEDNN_ONEDNN_OPS_H_

#if MXNET_USE_ONEDNN

#include <vector>

#include "operator/onednn/onednn_base.h"

namespace mxnet {
namespace op {
namespace onednn {

// ---- inner product (FullyConnected); x is (M, K), w (H, K), y (M, H) ----
void FCForward(const TBlob& x, const TBlob& w, const TBlob* bias, const TBlob& y, int64_t M, int64_t K, int64_t H,
               bool training, const PostOps& post);
void FCBackward(const TBlob& dy, const TBlob& x, const TBlob& w, const TBlob* dx, const TBlob* dw, const TBlob* db,
                int64_t M, int64_t K, int64_t H);
/*!
 * \brief Inference FullyConnected of one float32 row x through its zeros (FCGemvSparseInput),
 *        reading the transpose of w kept on the weight array. False, having done nothing, when
 *        x has too few zeros, the array cannot keep the transpose or keeps another copy, or w
 *        holds a value that is not finite (0 * inf is NaN: skipping it would differ).
 */
bool FCSparseInputForward(const TBlob& x, const TBlob& w, const TBlob* bias, const TBlob& y, int64_t K, int64_t H,
                          bool add);

// ---- pooling on channel-first (N, C, spatial...) data ----
struct PoolDesc {
  bool max;          // else average
  bool include_pad;  // average only
  std::vector<int64_t> kernel, stride, pad_l, pad_r;
};
/*! \brief Reads a blocked x and leaves y blocked when the op allows (onednn_layout.h). */
void PoolForward(const PoolDesc& p, const TBlob& x, const TBlob& y);
/*! \brief Average pooling backward. */
void AvgPoolBackward(const PoolDesc& p, const TBlob& dy, const TBlob& dx);
/*! \brief Max pooling backward from the forward input x (re-runs the forward for the arg-max workspace). */
void MaxPoolBackward(const PoolDesc& p, const TBlob& dy, const TBlob& x, const TBlob& dx);

// ---- batch normalization over axis 1 ----
/*! \brief Training: writes batch mean and (biased) variance; inference: reads them. relu applies a
 *         ReLU to the output; in training it needs workspace: x.Size() bytes for the mask, then
 *         8 for the tag of the primitive that wrote it. */
void BatchNormForward(const TBlob& x, const float* gamma, const float* beta, float* mean, float* var, const TBlob& y,
                      float eps, bool use_stats, bool relu = false, uint8_t* workspace = nullptr);
/*! \brief With relu_workspace (a fused ReLU's training forward wrote it), dy is the gradient of the
 *         ReLU's output; false, computing nothing, when the workspace was not written by this
 *         format's forward (the caller then masks dy itself). */
bool BatchNormBackward(const TBlob& dy, const TBlob& x, const float* gamma, const float* mean, const float* var,
                       const TBlob& dx, float* dgamma, float* dbeta, float eps, bool use_stats,
                       const uint8_t* relu_workspace = nullptr);

// ---- element-wise activations ----
bool EltwiseSupported(dnnl::algorithm alg);
void EltwiseForward(dnnl::algorithm alg, float alpha, float beta, const TBlob& x, const TBlob& y);
class BlockedData;
/*! \brief Forward on a blocked input; the output (kernel output 0) is left in the same format. */
void EltwiseForwardBlocked(dnnl::algorithm alg, float alpha, float beta, const BlockedData& x, const TBlob& y);
/*! \brief Backward from the forward input (src). */
void EltwiseBackward(dnnl::algorithm alg, float alpha, float beta, const TBlob& dy, const TBlob& x, const TBlob& dx);

// ---- softmax / log-softmax along one axis ----
void SoftmaxForward(bool log, const TBlob& x, const TBlob& y, int axis);
void SoftmaxBackward(bool log, const TBlob& dy, const TBlob& y, const TBlob& dx, int axis);

// ---- local response normalization across channels (axis 1) ----
void LRNForward(const TBlob& x, const TBlob& y, int64_t nsize, float alpha, float beta, float knorm);
void LRNBackward(const TBlob& dy, const TBlob& x, const TBlob& dx, int64_t nsize, float alpha, float beta, float knorm);

// ---- layer normalization over the last axis; mean and var per row ----
void LayerNormForward(const TBlob& x, const float* gamma, const float* beta, const TBlob& y, float* mean, float* var,
                      float eps);
void LayerNormBackward(const TBlob& dy, const TBlob& x, const float* gamma, const float* mean, const float* var,
                       const TBlob& dx, float* dgamma, float* dbeta, float eps);

}  // namespace onednn
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_USE_ONEDNN
#endif  // MXNET_OPERATOR_ONEDNN_ONEDNN_OPS_H_
