/*!
 * \file binary_scalar_param.h
 * \brief The array-scalar ops' parameters, shared by their reference kernels
 *        (binary_scalar.cc) and their CUDA kernels (cuda/binary_scalar.cu).
 */
#ifndef MXNET_OPERATOR_TENSOR_BINARY_SCALAR_PARAM_H_
#define MXNET_OPERATOR_TENSOR_BINARY_SCALAR_PARAM_H_

#include <dmlc/parameter.h>

#include "mxnet/op.h"

namespace mxnet {
namespace op {

struct ScalarOpParam : public dmlc::Parameter<ScalarOpParam> {
  double scalar;
  bool is_int;
  DMLC_DECLARE_PARAMETER(ScalarOpParam) {
    DMLC_DECLARE_FIELD(scalar).set_default(1).describe("scalar input value");
    DMLC_DECLARE_FIELD(is_int).set_default(true).describe("Indicate whether scalar input is int type");
  }
};

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_TENSOR_BINARY_SCALAR_PARAM_H_
