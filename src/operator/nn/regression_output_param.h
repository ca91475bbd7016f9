/*!
 * \file regression_output_param.h
 * \brief Parameters and element math of the regression heads and MakeLoss, shared by the CPU
 *        kernels (regression_output.cc) and the CUDA kernels (cuda/nn_heads.cu).
 */
#ifndef MXNET_OPERATOR_NN_REGRESSION_OUTPUT_PARAM_H_
#define MXNET_OPERATOR_NN_REGRESSION_OUTPUT_PARAM_H_

#include <dmlc/parameter.h>

#include <cmath>

#include "mxnet/tensor.h"
#include "mxnet/xinline.h"

namespace mxnet {
namespace op {

struct RegressionOutputParam : public dmlc::Parameter<RegressionOutputParam> {
  float grad_scale;
  DMLC_DECLARE_PARAMETER(RegressionOutputParam) {
    DMLC_DECLARE_FIELD(grad_scale).set_default(1.0f).describe("Scale the gradient by a float factor");
  }
};
struct MakeLossParam : public dmlc::Parameter<MakeLossParam> {
  float grad_scale, valid_thresh;
  int normalization;
  DMLC_DECLARE_PARAMETER(MakeLossParam) {
    DMLC_DECLARE_FIELD(grad_scale).set_default(1.0f).describe("Gradient scale as a supplement to unary and binary operators");
    DMLC_DECLARE_FIELD(valid_thresh).set_default(0.0f)
        .describe("clip each element in the array to 0 when it is less than valid_thresh; used with normalization 'valid'.");
    DMLC_DECLARE_FIELD(normalization).set_default(0).add_enum("null", 0).add_enum("batch", 1).add_enum("valid", 2)
        .describe("If 'batch', the gradient is divided by the batch size; if 'valid', by the number of elements above "
                  "valid_thresh.");
  }
};
enum class Regression { kLinear, kMAE, kLogistic };

/*! \brief The head's output for input v: sigmoid for logistic, the identity otherwise. */
template <Regression R>
MXNET_XINLINE double RegressionFwd(double v) {
  return R == Regression::kLogistic ? 1.0 / (1.0 + std::exp(-v)) : v;
}

/*! \brief The gradient before scaling for output - label = diff: sign(diff) for MAE, diff otherwise. */
template <Regression R>
MXNET_XINLINE double RegressionGrad(double diff) {
  return R == Regression::kMAE ? (diff > 0 ? 1.0 : diff < 0 ? -1.0 : 0.0) : diff;
}

/*! \brief grad_scale over the outputs per sample: the gradient is averaged over one sample's outputs, as MXNet does. */
inline double RegressionGradScale(const RegressionOutputParam& p, const TShape& label_shape) {
  const TShape& ls = label_shape;
  const double per_sample = ls.ndim() > 0 && ls[0] > 0 ? static_cast<double>(ls.Size()) / ls[0] : 1.0;
  return p.grad_scale / per_sample;
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_REGRESSION_OUTPUT_PARAM_H_
