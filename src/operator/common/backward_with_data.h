/*!
 * \file backward_with_data.h
 * \brief The backward op of a layout op (diag, Pad, tile, repeat, slice, ...): it takes
 *        (ograd, data), where data only gives the shape of the input gradient, and the
 *        forward's parameters.
 */
#ifndef MXNET_OPERATOR_COMMON_BACKWARD_WITH_DATA_H_
#define MXNET_OPERATOR_COMMON_BACKWARD_WITH_DATA_H_

#include <vector>

#include "mxnet/op.h"
#include "operator/common/op_family.h"

namespace mxnet {
namespace op {

/*!
 * \brief Registers `name`(ograd, data) -> input gradient, shaped like data and typed like
 *        ograd. The caller adds the forward's parameters (add_arguments, set_attr_parser).
 */
inline Op& BackwardWithData(Op& op, const char* doc, FCompute fc) {
  return op.describe(doc)
      .set_num_inputs(2)
      .set_num_outputs(1)
      .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output.")
      .add_argument("data", "NDArray-or-Symbol", "Forward input (gives the shape).")
      .set_infer_shape([](const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
        AssignShape(attrs, &(*out)[0], (*in)[1], "output", 0);
        return (*in)[1].IsKnown();
      })
      .set_infer_type([](const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
        AssignType(attrs, &(*out)[0], (*in)[0], "output", 0);
        return (*in)[0] >= 0;
      })
      .set_compute(Context::kCPU, std::move(fc));
}

/*!
 * \brief The forward's gradient: `backward`(ograd, data) with the forward's parameters for its
 *        first input, zeros for any further inputs (they only give shapes).
 */
inline FGradient GradWithData(const char* backward) {
  return [backward](const NodePtr& n, const std::vector<NodeEntry>& og) {
    std::vector<NodeEntry> g{MakeNode(backward, n->attrs.name + "_backward", {og[0], n->inputs[0]}, n->attrs.dict)};
    for (size_t i = 1; i < n->inputs.size(); ++i) g.push_back(MakeZeroGrad(n, static_cast<uint32_t>(i)));
    return g;
  };
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_COMMON_BACKWARD_WITH_DATA_H_
