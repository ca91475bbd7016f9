/*!
 * \file layer_norm_param.h
 * \brief LayerNorm's parameters, shared by its reference kernels (norm_layers.cc) and its
 *        oneDNN entries (onednn/onednn_lrn_layer_norm_kernels.cc).
 */
#ifndef MXNET_OPERATOR_NN_LAYER_NORM_PARAM_H_
#define MXNET_OPERATOR_NN_LAYER_NORM_PARAM_H_

#include "operator/nn/nn_util.h"

namespace mxnet {
namespace op {

struct LayerNormParam : public dmlc::Parameter<LayerNormParam> {
  int axis;
  float eps;
  bool output_mean_var;
  DMLC_DECLARE_PARAMETER(LayerNormParam) {
    DMLC_DECLARE_FIELD(axis).set_default(-1).describe("The axis to perform layer normalization.");
    DMLC_DECLARE_FIELD(eps).set_default(1e-5f).describe("An `epsilon` parameter to prevent division by 0.");
    DMLC_DECLARE_FIELD(output_mean_var).set_default(false).describe("Output the mean and std calculated along the given axis.");
  }
};
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_LAYER_NORM_PARAM_H_
