/*!
 * \file leaky_relu_param.h
 * \brief LeakyReLU's act_type codes and parameters, shared by its kernels (the reference loops
 *        in leaky_relu.cc, the oneDNN eltwise entries in onednn/onednn_eltwise_kernels.cc).
 */
#ifndef MXNET_OPERATOR_NN_LEAKY_RELU_PARAM_H_
#define MXNET_OPERATOR_NN_LEAKY_RELU_PARAM_H_

#include <dmlc/parameter.h>

namespace mxnet {
namespace op {

enum LeakyType { kLeaky = 0, kPReLU = 1, kRReLU = 2, kELU = 3, kSELU = 4, kGELU = 5 };

struct LeakyReLUParam : public dmlc::Parameter<LeakyReLUParam> {
  int act_type;
  float slope, lower_bound, upper_bound;
  DMLC_DECLARE_PARAMETER(LeakyReLUParam) {
    DMLC_DECLARE_FIELD(act_type).set_default(kLeaky)
        .add_enum("leaky", kLeaky).add_enum("prelu", kPReLU).add_enum("rrelu", kRReLU)
        .add_enum("elu", kELU).add_enum("selu", kSELU).add_enum("gelu", kGELU)
        .describe("Activation function to be applied.");
    DMLC_DECLARE_FIELD(slope).set_default(0.25f).describe("Init slope for the activation. (For leaky and elu only)");
    DMLC_DECLARE_FIELD(lower_bound).set_default(0.125f).describe("Lower bound of random slope. (For rrelu only)");
    DMLC_DECLARE_FIELD(upper_bound).set_default(0.334f).describe("Upper bound of random slope. (For rrelu only)");
  }
};

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_LEAKY_RELU_PARAM_H_
