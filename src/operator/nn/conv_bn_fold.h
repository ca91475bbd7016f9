/*!
 * \file conv_bn_fold.h
 * \brief A convolution followed by an inference BatchNorm is one convolution with folded
 *        parameters, per output channel c:
 *
 *            s_c = gamma_c / sqrt(moving_var_c + eps)      (gamma_c = 1 with fix_gamma)
 *            w'_c = w_c * s_c        b'_c = (b_c - moving_mean_c) * s_c + beta_c
 *
 *        BNFoldCache keeps w' and b' of one fused node and recomputes them only when a source
 *        array changed. Sources are told apart by identity (same memory) and two counts: the
 *        engine var's completed writes, exact while a kernel reads the array (no write runs
 *        concurrently, every earlier one finished), and the pushed writes (NDArray::version),
 *        which also moves for a write bulked into the same engine segment. Each result is an
 *        immutable snapshot, so a kernel keeps using its own while another node's call
 *        refolds; its weight is an NDArray, so backends cache their reordered copies of it.
 */
#ifndef MXNET_OPERATOR_NN_CONV_BN_FOLD_H_
#define MXNET_OPERATOR_NN_CONV_BN_FOLD_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "mxnet/ndarray.h"
#include "mxnet/op.h"

namespace mxnet {
namespace op {

/*! \brief BatchNorm's attributes the folding needs. */
struct BNFoldParams {
  double eps{1e-3};
  bool fix_gamma{true};
};

/*! \brief Folded weight and bias, and what they were computed from. */
struct BNFolded {
  NDArray weight, bias;
  TBlob weight_blob, bias_blob;
  std::vector<NDArray> sources;  // weight, [bias], gamma, beta, moving_mean, moving_var
  std::vector<uint64_t> completed;
  std::vector<uint32_t> pushed;
};

class BNFoldCache {
 public:
  /*!
   * \brief w' and b' for the running kernel. blobs: the plain sources in the order weight,
   *        bias (null blob pointer: none), gamma, beta, moving_mean, moving_var; arrays: the
   *        NDArrays behind them in that order (empty: unknown, computed afresh and not kept).
   */
  std::shared_ptr<const BNFolded> Get(const std::vector<const TBlob*>& blobs, const std::vector<NDArray>& arrays,
                                      const BNFoldParams& p);
  /*! \brief How many times this cache computed a folding (tests see reuse). */
  uint64_t folds() const { return folds_.load(); }
  /*! \brief Foldings computed by every cache in this process. */
  static uint64_t TotalFolds();

 private:
  std::mutex mu_;
  std::shared_ptr<const BNFolded> current_;
  std::atomic<uint64_t> folds_{0};
};

/*! \brief Computes w' (weight's dtype and shape, output channel first) and b' into out. */
void FoldBatchNorm(const std::vector<const TBlob*>& blobs, const BNFoldParams& p, const TBlob& w_out,
                   const TBlob& b_out);

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_CONV_BN_FOLD_H_
