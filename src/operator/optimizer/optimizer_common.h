/*!
 * \file optimizer_common.h
 * \brief What the optimizer update ops share: gradient clipping, the float-tuple parameter
 *        type of the multi-tensor ops, and one registration helper that gives every update
 *        op the same input layout checks (weight, grad, states of the weight's shape; states
 *        in float32 for the mixed-precision variants), in-place output and mutated states.
 *        ClipGrad and GradPrep are host+device: the CUDA kernels apply the same rules.
 */
#ifndef MXNET_OPERATOR_OPTIMIZER_OPTIMIZER_COMMON_H_
#define MXNET_OPERATOR_OPTIMIZER_OPTIMIZER_COMMON_H_

#include <functional>
#include <istream>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "mxnet/op.h"
#include "mxnet/xinline.h"
#include "operator/common/op_family.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/common/parallel.h"

namespace mxnet {
namespace op {
namespace optimizer {

/*! \brief clip(x, c) = max(min(x, c), -c); a negative c means no clipping (MXNet's convention). */
template <typename C>
MXNET_XINLINE C ClipGrad(C x, C c) {
  if (c < C(0)) return x;
  return x > c ? c : (x < -c ? -c : x);
}

/*! \brief MXNet's descriptions of the parameters the update ops share. */
constexpr char kWdDoc[] =
    "Weight decay augments the objective function with a regularization term that penalizes large weights. "
    "The penalty scales with the square of the magnitude of each weight.";
constexpr char kRescaleGradDoc[] = "Rescale gradient to grad = rescale_grad*grad.";
constexpr char kClipGradientDoc[] =
    "Clip gradient to the range of [-clip_gradient, clip_gradient] If clip_gradient <= 0, gradient clipping "
    "is turned off. grad = max(min(grad, clip_gradient), -clip_gradient).";

/*!
 * \brief Inside DMLC_DECLARE_PARAMETER: declares the float fields wd (default 0), rescale_grad
 *        (default 1) and clip_gradient (default -1, no clipping), in that order.
 */
#define MXNET_DECLARE_GRAD_FIELDS()                                                                     \
  DMLC_DECLARE_FIELD(wd).set_default(0.0f).describe(::mxnet::op::optimizer::kWdDoc);                    \
  DMLC_DECLARE_FIELD(rescale_grad).set_default(1.0f).describe(::mxnet::op::optimizer::kRescaleGradDoc); \
  DMLC_DECLARE_FIELD(clip_gradient).set_default(-1.0f).describe(::mxnet::op::optimizer::kClipGradientDoc)

/*!
 * \brief The gradient an update steps on, from a parameter struct's rescale_grad, wd and
 *        clip_gradient: clip(rescale*g), or clip(rescale*g + wd*w) where the rule decays the
 *        weight before clipping.
 */
template <typename C>
struct GradPrep {
  C rescale, wd, clip;
  GradPrep() = default;
  template <typename P>
  explicit GradPrep(const P& p) : rescale(C(p.rescale_grad)), wd(C(p.wd)), clip(C(p.clip_gradient)) {}
  MXNET_XINLINE C operator()(C g) const { return ClipGrad(rescale * g, clip); }
  MXNET_XINLINE C operator()(C g, C w) const { return ClipGrad(rescale * g + wd * w, clip); }
};

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

/*! \brief An UpdateLayout for a single-tensor op (see its fields). */
inline UpdateLayout Layout(std::vector<std::string> group, std::vector<uint32_t> mutated, int fp32_from = -1,
                           std::vector<std::string> scalars = {}, bool weight_inplace = true) {
  UpdateLayout l;
  l.group = std::move(group);
  l.mutated = std::move(mutated);
  l.fp32_from = fp32_from;
  l.scalars = std::move(scalars);
  l.weight_inplace = weight_inplace;
  return l;
}

/*!
 * \brief Builds an update op (MXNET_REGISTER_OP_FAMILY(name, UpdateFamily, ...)). num_groups(attrs) =
 *        number of weights (1 for single-tensor ops); outputs = one per weight, shaped and typed like it.
 */
Op& UpdateFamily(Op& op, const std::string& doc, const UpdateLayout& layout,
                 std::function<uint32_t(const NodeAttrs&)> num_groups, FAttrParser parser,
                 const std::vector<dmlc::ParamFieldInfo>& fields, FCompute fn);

/*! \brief A single-tensor update op with parameter struct P: UpdateFamily<P>. */
template <typename P>
Op& UpdateFamily(Op& op, const std::string& doc, const UpdateLayout& layout, FCompute fn) {
  return UpdateFamily(
      op, doc, layout, [](const NodeAttrs&) { return 1u; }, ParamParser<P>, P::__FIELDS__(), fn);
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

/*!
 * \brief The CPU loop of a single-tensor update: y[i] = rule(i) under req for every i. The rule
 *        (a struct of pointers and coefficients in the *_rules.h headers, host+device) updates the
 *        states of element i itself and returns the new weight; the CUDA kernels call the same rule.
 */
template <typename DType, typename Rule>
void RunUpdateRule(int64_t n, const Rule& rule, DType* y, OpReqType req) {
  ParallelFor(n, [&](int64_t i) { AssignReq(&y[i], req, rule(i)); });
}

}  // namespace optimizer
}  // namespace op
}  // namespace mxnet

namespace dmlc {
DMLC_DECLARE_TYPE_NAME(mxnet::op::optimizer::FloatTuple, "tuple of <float>");
}  // namespace dmlc

#endif  // MXNET_OPERATOR_OPTIMIZER_OPTIMIZER_COMMON_H_
