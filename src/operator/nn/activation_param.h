/*!
 * \file activation_param.h
 * \brief Activation's act_type codes and parameters, shared by its kernels (the reference loops
 *        in activation.cc, the oneDNN eltwise entries in onednn/onednn_eltwise_kernels.cc, the
 *        CUDA kernels in cuda/activation.cu) and the element math of the plain and CUDA kernels.
 */
#ifndef MXNET_OPERATOR_NN_ACTIVATION_PARAM_H_
#define MXNET_OPERATOR_NN_ACTIVATION_PARAM_H_

#include <dmlc/parameter.h>

#include <cmath>

#include "mxnet/xinline.h"

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

/*! \brief f(x) of act_type t in the compute type C. */
template <typename C>
MXNET_XINLINE C ActFwd(int t, C x) {
  switch (t) {
    case kReLU: return x > C(0) ? x : C(0);
    case kSigmoid: return C(1) / (C(1) + std::exp(-x));
    case kTanh: return std::tanh(x);
    case kSoftReLU: return x > C(20) ? x : std::log1p(std::exp(x));  // log(1+e^x), overflow-safe
    default: return x / (C(1) + std::fabs(x));
  }
}

/*! \brief dy/dx from the input x and the output y. */
template <typename C>
MXNET_XINLINE C ActGrad(int t, C x, C y) {
  switch (t) {
    case kReLU: return x > C(0) ? C(1) : C(0);
    case kSigmoid: return y * (C(1) - y);
    case kTanh: return C(1) - y * y;
    case kSoftReLU: return C(1) / (C(1) + std::exp(-x));
    default: {
      const C d = C(1) + std::fabs(x);
      return C(1) / (d * d);
    }
  }
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_ACTIVATION_PARAM_H_
