/*!
 * \file batch_norm.h
 * \brief What BatchNorm's reference kernels (batch_norm.cc) and its oneDNN entries
 *        (onednn/onednn_batch_norm_kernels.cc) share: the parameters, the steps every forward
 *        kernel takes around the normalization, and BatchNormWithReLU's masked backward.
 */
#ifndef MXNET_OPERATOR_NN_BATCH_NORM_H_
#define MXNET_OPERATOR_NN_BATCH_NORM_H_

#include <algorithm>
#include <vector>

#include "operator/nn/nn_util.h"

namespace mxnet {
namespace op {

struct BatchNormParam : public dmlc::Parameter<BatchNormParam> {
  double eps;
  float momentum;
  bool fix_gamma, use_global_stats, output_mean_var;
  int axis;
  bool cudnn_off;
  dmlc::optional<float> min_calib_range, max_calib_range;
  DMLC_DECLARE_PARAMETER(BatchNormParam) {
    DMLC_DECLARE_FIELD(eps).set_default(1e-3).describe("Epsilon to prevent div 0. Must be no less than 1e-5.");
    DMLC_DECLARE_FIELD(momentum).set_default(0.9f).describe("Momentum for moving average.");
    DMLC_DECLARE_FIELD(fix_gamma).set_default(true).describe("Fix gamma while training (gamma treated as 1).");
    DMLC_DECLARE_FIELD(use_global_stats)
        .set_default(false)
        .describe("Whether use global moving statistics instead of local batch-norm.");
    DMLC_DECLARE_FIELD(output_mean_var).set_default(false).describe("Output the mean and var as well.");
    DMLC_DECLARE_FIELD(axis).set_default(1).describe("Specify which shape axis the channel is specified.");
    DMLC_DECLARE_FIELD(cudnn_off).set_default(false).describe("Do not select CUDNN operator, if available.");
    DMLC_DECLARE_FIELD(min_calib_range)
        .set_default(dmlc::optional<float>())
        .describe("The minimum scalar value in the form of float32 obtained through calibration (quantization).");
    DMLC_DECLARE_FIELD(max_calib_range)
        .set_default(dmlc::optional<float>())
        .describe("The maximum scalar value in the form of float32 obtained through calibration (quantization).");
  }
};
/*! \brief Batch statistics (training) or the moving ones. */
inline bool BNTraining(const BatchNormParam& p, const OpContext& ctx) { return ctx.is_train && !p.use_global_stats; }

/*! \brief The channel axis of data of rank ndim. */
inline int BNAxis(const NodeAttrs& attrs, int ndim) { return NormAxis(attrs, attrs.get<BatchNormParam>().axis, ndim); }

/*! \brief data viewed as (outer, C, inner) around the channel axis. */
struct BNView {
  int64_t outer, C, inner;
  BNView(const NodeAttrs& attrs, const TShape& s) {
    const int ax = BNAxis(attrs, s.ndim());
    outer = s.ProdShape(0, ax);
    C = s[ax];
    inner = s.ProdShape(ax + 1, s.ndim());
  }
  int64_t M() const { return outer * inner; }
};

/*!
 * \brief After BatchNormWithReLU's ReLU mask in its workspace: the tag of the oneDNN primitive that
 *        wrote it (0: none did, the backward masks the gradient with the output instead).
 */
constexpr int64_t kReluTagBytes = 8;

/*!
 * \brief Before a forward kernel normalizes: clears the ReLU mask's tag (relu) and, outside
 *        training, puts the moving statistics (inputs 3, 4) in the mean and var outputs, which
 *        the normalization then reads. P: the statistics' type.
 */
template <typename P>
void BNBeginForward(bool training, bool relu, const std::vector<TBlob>& in, const std::vector<TBlob>& out) {
  if (relu) {
    uint8_t* tag = out[3].dptr<uint8_t>() + in[0].Size();
    std::fill(tag, tag + kReluTagBytes, uint8_t(0));
  }
  if (training) return;
  std::copy(in[3].dptr<P>(), in[3].dptr<P>() + in[3].Size(), out[1].dptr<P>());
  std::copy(in[4].dptr<P>(), in[4].dptr<P>() + in[4].Size(), out[2].dptr<P>());
}

/*!
 * \brief In a training backward (MXNet 1.x's rule: a forward alone, even under
 *        autograd.record(), leaves the moving statistics as they were): moving = moving *
 *        momentum + saved * (1 - momentum), from the batch mean and variance the forward saved
 *        (in[mean_at], in[mean_at + 1]) into the moving statistics (in[moving_at], in[moving_at + 1]).
 *        Nothing changes outside training or with use_global_stats. P: the statistics' type.
 */
template <typename P>
void BNUpdateMovingStats(const BatchNormParam& p, const OpContext& ctx, const std::vector<TBlob>& in, size_t mean_at,
                         size_t moving_at) {
  if (!BNTraining(p, ctx)) return;
  const P mom = static_cast<P>(p.momentum);
  P *mmean = in[moving_at].dptr<P>(), *mvar = in[moving_at + 1].dptr<P>();
  const P *mean = in[mean_at].dptr<P>(), *var = in[mean_at + 1].dptr<P>();
  for (int64_t c = 0; c < in[moving_at].Size(); ++c) {
    mmean[c] = mmean[c] * mom + mean[c] * (P(1) - mom);
    mvar[c] = mvar[c] * mom + var[c] * (P(1) - mom);
  }
}

/*! \brief Inputs of _backward_BatchNorm: (ograd, data, gamma, mean, var, moving_mean, moving_var). */
constexpr size_t kBNBackwardMovingAt = 5;
/*! \brief Of _backward_BatchNormWithReLU: (..., var, output, workspace, moving_mean, moving_var). */
constexpr size_t kBNReluBackwardMovingAt = 7;

/*!
 * \brief _backward_BatchNormWithReLU from plain memory: the ReLU's gradient taken from the
 *        forward output (input 5), then _backward_BatchNorm's reference kernel (which also
 *        updates the moving statistics).
 */
void BNReluBackwardByMask(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                          const std::vector<OpReqType>& req, const std::vector<TBlob>& out);

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_BATCH_NORM_H_
