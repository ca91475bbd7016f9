/*!
 * \file stack_split_param.h
 * \brief The parameters of stack and SliceChannel (split) and stack's axis rule, shared by the
 *        CPU kernels (concat_stack.cc) and the CUDA kernels (operator/cuda/concat_split.cu).
 */
#ifndef MXNET_OPERATOR_TENSOR_STACK_SPLIT_PARAM_H_
#define MXNET_OPERATOR_TENSOR_STACK_SPLIT_PARAM_H_

#include <dmlc/parameter.h>

#include "mxnet/op.h"

namespace mxnet {
namespace op {

struct StackParam : public dmlc::Parameter<StackParam> {
  int axis;
  int num_args;
  DMLC_DECLARE_PARAMETER(StackParam) {
    DMLC_DECLARE_FIELD(axis).set_default(0).describe(
        "The axis in the result array along which the input arrays are stacked.");
    DMLC_DECLARE_FIELD(num_args).set_lower_bound(1).describe("Number of inputs to be stacked.");
  }
};

struct SliceChannelParam : public dmlc::Parameter<SliceChannelParam> {
  int num_outputs;
  int axis;
  bool squeeze_axis;
  DMLC_DECLARE_PARAMETER(SliceChannelParam) {
    DMLC_DECLARE_FIELD(num_outputs)
        .set_lower_bound(1)
        .describe(
            "Number of splits. Note that this should evenly "
            "divide the length of the `axis`.");
    DMLC_DECLARE_FIELD(axis).set_default(1).describe("Axis along which to split.");
    DMLC_DECLARE_FIELD(squeeze_axis)
        .set_default(false)
        .describe("If true, Removes the axis with length 1 from the shapes of the output arrays.");
  }
};

inline int StackAxis(const NodeAttrs& attrs, const TShape& in) {
  const int a = attrs.get<StackParam>().axis, n = in.ndim() + 1;
  MX_CHECK_KIND(a >= -n && a < n, "ValueError")
      << attrs.op->name << ": axis " << a << " is out of bounds for stacking inputs of shape " << in;
  return a < 0 ? a + n : a;
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_TENSOR_STACK_SPLIT_PARAM_H_
