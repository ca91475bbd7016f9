/*!
 * \file activation_param.h
 * \brief Activation's act_type codes and parameters, shared by its kernels (the reference loops
 *        in activation.cc, the oneDNN eltwise entries in onednn/onednn_eltwise_kernels.cc).
 */
#ifndef MXNET_OPERATOR_NN_ACTIVATION_PARAM_H_
#define MXNET_OPERATOR_NN_ACTIVATION_PARAM_H_

#include <dmlc/parameter.h>

namespace mxnet {
namespace op {

enum ActType { kReLU = 0, kSigmoid = 1, kTanh = 2, kSoftReLU = 3, kSoftSign = 4 };

struct ActivationParam : public dmlc::Parameter<ActivationParam> {
  int act_type;
  DMLC_DECLARE_PARAMETER(ActivationParam) {
    DMLC_DECLARE_FIELD(act_type)
        .add_enum("relu", kReLU).add_enum("sigmoid", kSigmoid).add_enum("tanh", kTanh)
        .add_enum("softrelu", kSoftReLU).add_enum("softsign", kSoftSign)
        .describe("Activation function to be applied.");
  }
};

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_ACTIVATION_PARAM_H_
