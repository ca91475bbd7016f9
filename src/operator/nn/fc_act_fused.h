/*!
 * \file fc_act_fused.h
 * \brief The parsed attributes of `_sg_onednn_fully_connected` (FullyConnected then an
 *        activation), shared by its reference kernel (fc_act_fused.cc) and its oneDNN post-op
 *        entry (onednn/onednn_fc_kernels.cc).
 */
#ifndef MXNET_OPERATOR_NN_FC_ACT_FUSED_H_
#define MXNET_OPERATOR_NN_FC_ACT_FUSED_H_

#include "mxnet/op.h"
#include "operator/nn/fc_param.h"
#include "operator/nn/fused_act.h"

namespace mxnet {
namespace op {

struct FCActAttrs {
  NodeAttrs fc;   // FullyConnected's attrs (parsed FullyConnectedParam)
  NodeAttrs act;  // Activation's attrs (the plain path applies Activation's kernels)
  int act_type{kFusedReLU};
};

inline const FCActAttrs& FCActOf(const NodeAttrs& attrs) { return attrs.get<FCActAttrs>(); }

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_FC_ACT_FUSED_H_
