/*!
 * \file concat_param.h
 * \brief Concat's parameters, shared by its reference kernel and the backend kernels in its list.
 */
#ifndef MXNET_OPERATOR_TENSOR_CONCAT_PARAM_H_
#define MXNET_OPERATOR_TENSOR_CONCAT_PARAM_H_

#include <dmlc/parameter.h>

#include "mxnet/op.h"
#include "operator/common/axis_util.h"

namespace mxnet {
namespace op {

struct ConcatParam : public dmlc::Parameter<ConcatParam> {
  int num_args;
  int dim;
  DMLC_DECLARE_PARAMETER(ConcatParam) {
    DMLC_DECLARE_FIELD(num_args).set_lower_bound(1).describe("Number of inputs to be concatenated.");
    DMLC_DECLARE_FIELD(dim).set_default(1).describe("the dimension to be concated.");
  }
};

/*! \brief The joined axis of a call, checked against the output's rank (negative counts from the end). */
inline int ConcatAxis(const NodeAttrs& attrs, const TShape& out) {
  return CheckAxis(attrs, attrs.get<ConcatParam>().dim, out, "dim");
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_TENSOR_CONCAT_PARAM_H_
