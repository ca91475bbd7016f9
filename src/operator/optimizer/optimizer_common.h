/*!
 * \file optimizer_common.h
 * \brief What the optimizer update ops share: gradient clipping, the float-tuple parameter
 *        type of the multi-tensor ops, and one registration helper that gives every update
 *        op the same input layout checks (weight, grad, states of the weight's shape; states
 *        in float32 for the mixed-precision variants), in-place output and mutated states.
 */
#ifndef MXNET_OPERATOR_OPTIMIZER_OPTIMIZER_COMMON_H_
#define MXNET_OPERATOR_OPTIMIZER_OPTIMIZER_COMMON_H_

#include <functional>
#include <istream>
#include <ostream>
#include <string>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/common/parallel.h"

namespace mxnet {
namespace op {
namespace optimizer {

/*! \brief clip(x, c) = max(min(x, c), -c); a negative c means no clipping (MXNet's convention). */
template <typename C>
inline C ClipGrad(C x, C c) {
  if (c < C(0)) return x;
  return x > c ? c : (x < -c ? -c : x);
}

/*! \brief A tuple of floats written "(0.1, 0.2)", "[0.1,0.2]" or "0.1" (lrs / wds of multi-tensor ops). */
struct FloatTuple {
  std::vector<float> v;
};
std::istream& operator>>(std::istream& is, FloatTuple& t);
std::ostream& operator<<(std::ostream& os, const FloatTuple& t);

/*! \brief How an update op's inputs are laid out. Multi-tensor ops repeat `group` per weight. */
struct UpdateLayout {
  std::vector<std::string> group;    // names of one weight's inputs; group[0] = weight, group[1] = grad
  std::vector<uint32_t> mutated;     // indices within the group written in place (states)
  int fp32_from{-1};                 // group inputs from this index on are float32 (mixed precision)
  std::vector<std::string> scalars;  // trailing (1,)-shaped inputs after all groups (e.g. rescale_grad)
  bool weight_inplace{true};         // output i may be written into weight i
  bool variadic{false};              // multi-tensor op: inputs listed as one variadic `data`
};

/*!
 * \brief Registers an update op with parameter struct P. num_groups(attrs) = number of weights
 *        (1 for single-tensor ops); outputs = one per weight, shaped and typed like it.
 */
Op& RegisterUpdate(const std::string& name, const std::string& doc, const UpdateLayout& layout,
                   std::function<uint32_t(const NodeAttrs&)> num_groups, FAttrParser parser,
                   const std::vector<dmlc::ParamFieldInfo>& fields, FCompute fn);

template <typename P>
Op& RegisterUpdate(const std::string& name, const std::string& doc, const UpdateLayout& layout, FCompute fn) {
  return RegisterUpdate(
      name, doc, layout, [](const NodeAttrs&) { return 1u; }, ParamParser<P>, P::__FIELDS__(), fn);
}

/*!
 * \brief Calls body(DType{}) with DType the weight's (real) element type, so a generic lambda
 *        can name it: WithWeightType(w, [&](auto tag) { using DType = decltype(tag); ... }).
 */
template <typename F>
void WithWeightType(const TBlob& weight, F&& body) {
  MXNET_REAL_TYPE_SWITCH(weight.type_flag_, DType, { body(DType{}); });
}

/*! \brief Value of a (1,)-shaped input of any real dtype, as double. */
double ScalarInput(const TBlob& b);

}  // namespace optimizer
}  // namespace op
}  // namespace mxnet

namespace dmlc {
DMLC_DECLARE_TYPE_NAME(mxnet::op::optimizer::FloatTuple, "tuple of <float>");
}  // namespace dmlc

#endif  // MXNET_OPERATOR_OPTIMIZER_OPTIMIZER_COMMON_H_
