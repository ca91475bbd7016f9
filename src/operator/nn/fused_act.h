/*!
 * \file fused_act.h
 * \brief The activations fused ops apply after their main computation (`_sg_onednn_conv`,
 *        `_sg_onednn_fully_connected`): Activation's act_type names and codes, and the oneDNN
 *        eltwise post-op each maps to.
 */
#ifndef MXNET_OPERATOR_NN_FUSED_ACT_H_
#define MXNET_OPERATOR_NN_FUSED_ACT_H_

#include <string>

#include "mxnet/op.h"
#include "operator/kernel_dispatch.h"
#include "operator/nn/nn_util.h"
#include "operator/onednn/onednn_base.h"

namespace mxnet {
namespace op {

// Same names and codes as Activation's act_type, so Activation's kernel can apply them.
enum FusedActType { kFusedReLU = 0, kFusedSigmoid = 1, kFusedTanh = 2, kFusedSoftReLU = 3, kFusedSoftSign = 4 };

/*! \brief Adds the act_type names to a dmlc enum field. */
#define MXNET_ADD_FUSED_ACTS                                                                         \
  add_enum("relu", ::mxnet::op::kFusedReLU).add_enum("sigmoid", ::mxnet::op::kFusedSigmoid)          \
      .add_enum("tanh", ::mxnet::op::kFusedTanh).add_enum("softrelu", ::mxnet::op::kFusedSoftReLU) \
      .add_enum("softsign", ::mxnet::op::kFusedSoftSign)

/*! \brief Attrs of an Activation node applying act_type (its kernel runs the fallback path). */
inline NodeAttrs FusedActivationAttrs(const std::string& act_type, const std::string& node_name) {
  return MakeAttrs(Op::Get("Activation"), {{"act_type", act_type}}, node_name);
}

/*! \brief Applies the Activation described by act in place on y (the plain fallback). */
inline void ApplyActivationInPlace(const NodeAttrs& act, const OpContext& ctx, const TBlob& y) {
  RunKernelPlain(*Op::Get("Activation"), Context::kCPU, act, ctx, {y}, {kWriteInplace}, {y});
}

#if MXNET_USE_ONEDNN
/*! \brief The oneDNN eltwise algorithm of act_type; false when oneDNN has none (softsign). */
inline bool OneDNNEltwise(int act_type, dnnl::algorithm* alg) {
  switch (act_type) {
    case kFusedReLU:
      *alg = dnnl::algorithm::eltwise_relu;
      return true;
    case kFusedSigmoid:
      *alg = dnnl::algorithm::eltwise_logistic;
      return true;
    case kFusedTanh:
      *alg = dnnl::algorithm::eltwise_tanh;
      return true;
    case kFusedSoftReLU:
      *alg = dnnl::algorithm::eltwise_soft_relu;
      return true;
    default:
      return false;
  }
}
#endif

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_FUSED_ACT_H_
