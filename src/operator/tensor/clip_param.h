/*!
 * \file clip_param.h
 * \brief clip's parameters, shared by its reference kernel (elemwise_misc.cc) and its CUDA
 *        kernel (cuda/elemwise_misc.cu).
 */
#ifndef MXNET_OPERATOR_TENSOR_CLIP_PARAM_H_
#define MXNET_OPERATOR_TENSOR_CLIP_PARAM_H_

#include <dmlc/parameter.h>

#include "mxnet/op.h"

namespace mxnet {
namespace op {

struct ClipParam : public dmlc::Parameter<ClipParam> {
  double a_min, a_max;
  DMLC_DECLARE_PARAMETER(ClipParam) {
    DMLC_DECLARE_FIELD(a_min).describe("Minimum value");
    DMLC_DECLARE_FIELD(a_max).describe("Maximum value");
  }
};

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_TENSOR_CLIP_PARAM_H_
