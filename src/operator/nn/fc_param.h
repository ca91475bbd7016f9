/*!
 * \file fc_param.h
 * \brief FullyConnected's parameters, shared with the fused `_sg_onednn_fully_connected`.
 */
#ifndef MXNET_OPERATOR_NN_FC_PARAM_H_
#define MXNET_OPERATOR_NN_FC_PARAM_H_

#include <dmlc/parameter.h>

namespace mxnet {
namespace op {

struct FullyConnectedParam : public dmlc::Parameter<FullyConnectedParam> {
  int num_hidden;
  bool no_bias;
  bool flatten;
  DMLC_DECLARE_PARAMETER(FullyConnectedParam) {
    DMLC_DECLARE_FIELD(num_hidden).set_lower_bound(1).describe("Number of hidden nodes of the output.");
    DMLC_DECLARE_FIELD(no_bias).set_default(false).describe("Whether to disable bias parameter.");
    DMLC_DECLARE_FIELD(flatten).set_default(true).describe("Whether to collapse all but the first axis of the input.");
  }
};

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_FC_PARAM_H_
