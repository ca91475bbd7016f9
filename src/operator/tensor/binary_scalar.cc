/*!
 * \file binary_scalar.cc
 * \brief Array-scalar ops (_plus_scalar, _rminus_scalar, _power_scalar, _equal_scalar, ...):
 *        f(x, scalar) or, for the reversed `_r*` forms, f(scalar, x), with gradients
 *        `_backward_<name>` taking (ograd, x) and the same scalar.
 */
#include <string>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/binary_functors.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/common/op_family.h"
#include "operator/tensor/binary_scalar_param.h"

namespace mxnet {
namespace op {

DMLC_REGISTER_PARAMETER(ScalarOpParam);

namespace {

template <typename OP, bool kReverse>
void ScalarCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const double s = attrs.get<ScalarOpParam>().scalar;
  // Integer arrays compute in their own type with the scalar cast to it (MXNet's semantics).
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    using C = compute_t<DType>;
    const C cs = math::ScalarAs<C>(s);
    MapUnary<DType, C>(in[0].dptr<DType>(), out[0].dptr<DType>(), in[0].Size(), req[0],
                       [cs](C x) { return kReverse ? OP::Fwd(cs, x) : OP::Fwd(x, cs); });
  });
}

template <typename OP, bool kReverse>
void ScalarBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const double s = attrs.get<ScalarOpParam>().scalar;
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    using C = real_compute_t<DType>;
    const C cs = static_cast<C>(s);
    MapBinary<DType, C>(in[0].dptr<DType>(), in[1].dptr<DType>(), out[0].dptr<DType>(), in[0].Size(), req[0],
                        [cs](C g, C x) { return C(g * (kReverse ? OP::RGrad(cs, x) : OP::LGrad(x, cs))); });
  });
}

/*! \brief What every array-scalar op of table row `row` registers. */
template <typename OP, bool kReverse>
Op& ScalarCommon(Op& op, const char* row) {
  return op
      .describe(std::string("Element-wise ") + row + " of an array and a scalar" +
                (kReverse ? ", scalar on the left: f(scalar, x)." : ": f(x, scalar).") +
                " The output keeps the input dtype.")
      .set_num_inputs(1)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", "source input")
      .add_arguments(ScalarOpParam::__FIELDS__())
      .set_attr_parser(ParamParser<ScalarOpParam>)
      .set_infer_shape(ElemwiseShape)
      .set_infer_type(ElemwiseType)
      .set_inplace_option([](const NodeAttrs&) { return InplacePairs{{0, 0}}; })
      .set_compute(Context::kCPU, ScalarCompute<OP, kReverse>);
}

/*! \brief An arithmetic row: its gradient is the op `_backward<name>` (`_backward_plus_scalar`). */
template <typename OP, bool kReverse>
Op& ScalarFamily(Op& op, const char* row) {
  const std::string bwd = "_backward" + op.name;
  return ScalarCommon<OP, kReverse>(op, row).set_gradient([bwd](const NodePtr& n, const std::vector<NodeEntry>& og) {
    return std::vector<NodeEntry>{MakeNode(bwd, n->attrs.name + "_backward", {og[0], n->inputs[0]},
                                           {n->attrs.dict.begin(), n->attrs.dict.end()})};
  });
}

/*! \brief A comparison or logical row: 1 or 0, no gradient. */
template <typename OP>
Op& ScalarComparisonFamily(Op& op, const char* row) {
  return ScalarCommon<OP, false>(op, row).set_gradient(ZeroGrads);
}

/*! \brief The gradient op of the array-scalar op `forward`, with respect to its array input. */
template <typename OP, bool kReverse>
Op& ScalarBackwardFamily(Op& op, const char* forward) {
  return op.describe("Gradient of " + std::string(forward) + " with respect to its array input.")
      .set_num_inputs(2)
      .set_num_outputs(1)
      .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output.")
      .add_argument("data", "NDArray-or-Symbol", "Forward input.")
      .add_arguments(ScalarOpParam::__FIELDS__())
      .set_attr_parser(ParamParser<ScalarOpParam>)
      .set_infer_shape(ElemwiseShape)
      .set_infer_type(ElemwiseType)
      .set_compute(Context::kCPU, ScalarBackward<OP, kReverse>);
}

// One op per row of MXNET_BINARY_MATH_OPS, in its order, each followed by its gradient and by its
// reversed form f(scalar, x) where the operation is not symmetric (sub, div, mod, power).
MXNET_REGISTER_OP_FAMILY(_plus_scalar, ScalarFamily<binary::add, false>, "add").add_alias("_PlusScalar");
MXNET_REGISTER_OP_FAMILY(_backward_plus_scalar, ScalarBackwardFamily<binary::add, false>, "_plus_scalar");
MXNET_REGISTER_OP_FAMILY(_minus_scalar, ScalarFamily<binary::sub, false>, "sub").add_alias("_MinusScalar");
MXNET_REGISTER_OP_FAMILY(_backward_minus_scalar, ScalarBackwardFamily<binary::sub, false>, "_minus_scalar");
MXNET_REGISTER_OP_FAMILY(_rminus_scalar, ScalarFamily<binary::sub, true>, "sub").add_alias("_RMinusScalar");
MXNET_REGISTER_OP_FAMILY(_backward_rminus_scalar, ScalarBackwardFamily<binary::sub, true>, "_rminus_scalar");
MXNET_REGISTER_OP_FAMILY(_mul_scalar, ScalarFamily<binary::mul, false>, "mul").add_alias("_MulScalar");
MXNET_REGISTER_OP_FAMILY(_backward_mul_scalar, ScalarBackwardFamily<binary::mul, false>, "_mul_scalar");
MXNET_REGISTER_OP_FAMILY(_div_scalar, ScalarFamily<binary::div, false>, "div").add_alias("_DivScalar");
MXNET_REGISTER_OP_FAMILY(_backward_div_scalar, ScalarBackwardFamily<binary::div, false>, "_div_scalar");
MXNET_REGISTER_OP_FAMILY(_rdiv_scalar, ScalarFamily<binary::div, true>, "div").add_alias("_RDivScalar");
MXNET_REGISTER_OP_FAMILY(_backward_rdiv_scalar, ScalarBackwardFamily<binary::div, true>, "_rdiv_scalar");
MXNET_REGISTER_OP_FAMILY(_mod_scalar, ScalarFamily<binary::mod, false>, "mod").add_alias("_ModScalar");
MXNET_REGISTER_OP_FAMILY(_backward_mod_scalar, ScalarBackwardFamily<binary::mod, false>, "_mod_scalar");
MXNET_REGISTER_OP_FAMILY(_rmod_scalar, ScalarFamily<binary::mod, true>, "mod").add_alias("_RModScalar");
MXNET_REGISTER_OP_FAMILY(_backward_rmod_scalar, ScalarBackwardFamily<binary::mod, true>, "_rmod_scalar");
MXNET_REGISTER_OP_FAMILY(_power_scalar, ScalarFamily<binary::power, false>, "power").add_alias("_PowerScalar");
MXNET_REGISTER_OP_FAMILY(_backward_power_scalar, ScalarBackwardFamily<binary::power, false>, "_power_scalar");
MXNET_REGISTER_OP_FAMILY(_rpower_scalar, ScalarFamily<binary::power, true>, "power").add_alias("_RPowerScalar");
MXNET_REGISTER_OP_FAMILY(_backward_rpower_scalar, ScalarBackwardFamily<binary::power, true>, "_rpower_scalar");
MXNET_REGISTER_OP_FAMILY(_maximum_scalar, ScalarFamily<binary::maximum, false>, "maximum").add_alias("_MaximumScalar");
MXNET_REGISTER_OP_FAMILY(_backward_maximum_scalar, ScalarBackwardFamily<binary::maximum, false>, "_maximum_scalar");
MXNET_REGISTER_OP_FAMILY(_minimum_scalar, ScalarFamily<binary::minimum, false>, "minimum").add_alias("_MinimumScalar");
MXNET_REGISTER_OP_FAMILY(_backward_minimum_scalar, ScalarBackwardFamily<binary::minimum, false>, "_minimum_scalar");
MXNET_REGISTER_OP_FAMILY(_hypot_scalar, ScalarFamily<binary::hypot, false>, "hypot").add_alias("_HypotScalar");
MXNET_REGISTER_OP_FAMILY(_backward_hypot_scalar, ScalarBackwardFamily<binary::hypot, false>, "_hypot_scalar");
MXNET_REGISTER_OP_FAMILY(_equal_scalar, ScalarComparisonFamily<binary::equal>, "equal").add_alias("_EqualScalar");
MXNET_REGISTER_OP_FAMILY(_not_equal_scalar, ScalarComparisonFamily<binary::not_equal>, "not_equal")
    .add_alias("_NotEqualScalar");
MXNET_REGISTER_OP_FAMILY(_greater_scalar, ScalarComparisonFamily<binary::greater>, "greater")
    .add_alias("_GreaterScalar");
MXNET_REGISTER_OP_FAMILY(_greater_equal_scalar, ScalarComparisonFamily<binary::greater_equal>, "greater_equal")
    .add_alias("_GreaterEqualScalar");
MXNET_REGISTER_OP_FAMILY(_lesser_scalar, ScalarComparisonFamily<binary::lesser>, "lesser").add_alias("_LesserScalar");
MXNET_REGISTER_OP_FAMILY(_lesser_equal_scalar, ScalarComparisonFamily<binary::lesser_equal>, "lesser_equal")
    .add_alias("_LesserEqualScalar");
MXNET_REGISTER_OP_FAMILY(_logical_and_scalar, ScalarComparisonFamily<binary::logical_and>, "logical_and");
MXNET_REGISTER_OP_FAMILY(_logical_or_scalar, ScalarComparisonFamily<binary::logical_or>, "logical_or");
MXNET_REGISTER_OP_FAMILY(_logical_xor_scalar, ScalarComparisonFamily<binary::logical_xor>, "logical_xor");

}  // namespace
}  // namespace op
}  // namespace mxnet
