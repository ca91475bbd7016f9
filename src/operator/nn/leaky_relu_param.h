/*!
 * \file leaky_relu_param.h
 * \brief LeakyReLU's act_type codes and parameters, shared by its kernels (the reference loops
 *        in leaky_relu.cc, the oneDNN eltwise entries in onednn/onednn_eltwise_kernels.cc, the
 *        CUDA kernels in cuda/activation.cu) and the element math of the plain and CUDA kernels.
 */
#ifndef MXNET_OPERATOR_NN_LEAKY_RELU_PARAM_H_
#define MXNET_OPERATOR_NN_LEAKY_RELU_PARAM_H_

#include <dmlc/parameter.h>

#include <cmath>
#include <cstdint>

#include "mxnet/tensor.h"
#include "mxnet/xinline.h"

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

constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluLambda = 1.0507009873554804934193349852946;

/*! \brief f(x) of act_type t; slope is the leaky/elu slope, prelu's gamma or rrelu's drawn slope. */
template <typename C>
MXNET_XINLINE C LeakyFwd(int t, C x, C slope) {
  switch (t) {
    case kELU: return x > C(0) ? x : slope * std::expm1(x);
    case kSELU: return C(kSeluLambda) * (x > C(0) ? x : C(kSeluAlpha) * std::expm1(x));
    case kGELU: return C(0.5) * x * (C(1) + std::erf(x / std::sqrt(C(2))));
    default: return x > C(0) ? x : slope * x;  // leaky, prelu, rrelu (slope chosen by the caller)
  }
}

/*! \brief df/dx of act_type t at x. */
template <typename C>
MXNET_XINLINE C LeakyGrad(int t, C x, C slope) {
  switch (t) {
    case kELU: return x > C(0) ? C(1) : slope * std::exp(x);
    case kSELU: return C(kSeluLambda) * (x > C(0) ? C(1) : C(kSeluAlpha) * std::exp(x));
    case kGELU: {
      const C cdf = C(0.5) * (C(1) + std::erf(x / std::sqrt(C(2))));
      const C pdf = std::exp(C(-0.5) * x * x) / std::sqrt(C(2) * C(M_PI));
      return cdf + x * pdf;
    }
    default: return x > C(0) ? C(1) : slope;
  }
}

/*! \brief Channel of flat index j for prelu's gamma (axis 1), or 0 for a shared gamma. */
struct ChannelOf {
  int64_t C, inner;
  ChannelOf(const TShape& s, int64_t gamma_size) {
    C = gamma_size;
    inner = s.ndim() > 2 ? s.ProdShape(2, s.ndim()) : 1;
  }
  MXNET_XINLINE int64_t operator()(int64_t j) const { return C == 1 ? 0 : (j / inner) % C; }
};

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_LEAKY_RELU_PARAM_H_
