/*!
 * \file elemwise_binary.cc
 * \brief Same-shape binary ops (elemwise_add, _power, _equal, ...) and their
 *        `_backward_*` ops, one row of MXNET_BINARY_MATH_OPS each.
 */
#include <string>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/binary_functors.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/common/op_family.h"

namespace mxnet {
namespace op {
namespace {

template <typename OP>
void BinaryCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    MapBinary(in[0].dptr<DType>(), in[1].dptr<DType>(), out[0].dptr<DType>(), out[0].Size(), req[0],
              [](compute_t<DType> a, compute_t<DType> b) { return OP::Fwd(a, b); });
  });
}

/*! \brief (ograd, a, b) -> (ograd * d/da, ograd * d/db). */
template <typename OP>
void BinaryBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    using C = real_compute_t<DType>;
    const DType* g = in[0].dptr<DType>();
    const DType* a = in[1].dptr<DType>();
    const DType* b = in[2].dptr<DType>();
    const int64_t n = in[0].Size();
    MapTernary<DType, C>(g, a, b, out[0].dptr<DType>(), n, req[0], [](C g, C a, C b) { return C(g * OP::LGrad(a, b)); });
    MapTernary<DType, C>(g, a, b, out[1].dptr<DType>(), n, req[1], [](C g, C a, C b) { return C(g * OP::RGrad(a, b)); });
  });
}

/*! \brief What every same-shape op of table row `row` registers. */
template <typename OP>
Op& ElemwiseBinaryCommon(Op& op, const char* row) {
  return op
      .describe("Element-wise " + std::string(row) +
                " of two arrays of the same shape (no broadcasting; see broadcast_" + row +
                "). Comparisons return 1 or 0 in the input dtype.")
      .set_num_inputs(2)
      .set_num_outputs(1)
      .add_argument("lhs", "NDArray-or-Symbol", "first input")
      .add_argument("rhs", "NDArray-or-Symbol", "second input")
      .set_infer_shape(ElemwiseShape)
      .set_infer_type(ElemwiseType)
      .set_inplace_option([](const NodeAttrs&) { return InplacePairs{{0, 0}, {1, 0}}; })
      .set_compute(Context::kCPU, BinaryCompute<OP>);
}

/*! \brief An arithmetic row: its gradient is the op `_backward_<name>`, the leading `_` of
 *         `_power` and the like dropped. */
template <typename OP>
Op& ElemwiseBinaryFamily(Op& op, const char* row) {
  const std::string& name = op.name;
  const std::string bwd = "_backward_" + (name[0] == '_' ? name.substr(1) : name);
  return ElemwiseBinaryCommon<OP>(op, row).set_gradient([bwd](const NodePtr& n, const std::vector<NodeEntry>& og) {
    return MakeNodeOutputs(bwd, n->attrs.name + "_backward", {og[0], n->inputs[0], n->inputs[1]});
  });
}

/*! \brief A comparison or logical row: 1 or 0, no gradient. */
template <typename OP>
Op& ElemwiseComparisonFamily(Op& op, const char* row) {
  return ElemwiseBinaryCommon<OP>(op, row).set_gradient(ZeroGrads);
}

/*! \brief The gradient op of the same-shape op `forward`, with respect to both inputs. */
template <typename OP>
Op& ElemwiseBinaryBackwardFamily(Op& op, const char* forward) {
  return op.describe("Gradient of " + std::string(forward) + " with respect to both inputs.")
      .set_num_inputs(3)
      .set_num_outputs(2)
      .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output.")
      .add_argument("lhs", "NDArray-or-Symbol", "Forward lhs.")
      .add_argument("rhs", "NDArray-or-Symbol", "Forward rhs.")
      .set_infer_shape(ElemwiseShape)
      .set_infer_type(ElemwiseType)
      .set_compute(Context::kCPU, BinaryBackward<OP>);
}

// One op per row of MXNET_BINARY_MATH_OPS, in its order; elemwise_add lives in elemwise_basic.cc
// (the runtime's own op).
MXNET_REGISTER_OP_FAMILY(elemwise_sub, ElemwiseBinaryFamily<binary::sub>, "sub")
    .add_alias("_sub")
    .add_alias("_minus")
    .add_alias("_Minus");
MXNET_REGISTER_OP_FAMILY(_backward_elemwise_sub, ElemwiseBinaryBackwardFamily<binary::sub>, "elemwise_sub");
MXNET_REGISTER_OP_FAMILY(elemwise_mul, ElemwiseBinaryFamily<binary::mul>, "mul")
    .add_alias("_mul")
    .add_alias("_Mul");
MXNET_REGISTER_OP_FAMILY(_backward_elemwise_mul, ElemwiseBinaryBackwardFamily<binary::mul>, "elemwise_mul");
MXNET_REGISTER_OP_FAMILY(elemwise_div, ElemwiseBinaryFamily<binary::div>, "div")
    .add_alias("_div")
    .add_alias("_Div");
MXNET_REGISTER_OP_FAMILY(_backward_elemwise_div, ElemwiseBinaryBackwardFamily<binary::div>, "elemwise_div");
MXNET_REGISTER_OP_FAMILY(_mod, ElemwiseBinaryFamily<binary::mod>, "mod")
    .add_alias("_Mod");
MXNET_REGISTER_OP_FAMILY(_backward_mod, ElemwiseBinaryBackwardFamily<binary::mod>, "_mod");
MXNET_REGISTER_OP_FAMILY(_power, ElemwiseBinaryFamily<binary::power>, "power")
    .add_alias("_Power");
MXNET_REGISTER_OP_FAMILY(_backward_power, ElemwiseBinaryBackwardFamily<binary::power>, "_power");
MXNET_REGISTER_OP_FAMILY(_maximum, ElemwiseBinaryFamily<binary::maximum>, "maximum")
    .add_alias("_Maximum");
MXNET_REGISTER_OP_FAMILY(_backward_maximum, ElemwiseBinaryBackwardFamily<binary::maximum>, "_maximum");
MXNET_REGISTER_OP_FAMILY(_minimum, ElemwiseBinaryFamily<binary::minimum>, "minimum")
    .add_alias("_Minimum");
MXNET_REGISTER_OP_FAMILY(_backward_minimum, ElemwiseBinaryBackwardFamily<binary::minimum>, "_minimum");
MXNET_REGISTER_OP_FAMILY(_hypot, ElemwiseBinaryFamily<binary::hypot>, "hypot")
    .add_alias("_Hypot");
MXNET_REGISTER_OP_FAMILY(_backward_hypot, ElemwiseBinaryBackwardFamily<binary::hypot>, "_hypot");
MXNET_REGISTER_OP_FAMILY(_equal, ElemwiseComparisonFamily<binary::equal>, "equal")
    .add_alias("_Equal");
MXNET_REGISTER_OP_FAMILY(_not_equal, ElemwiseComparisonFamily<binary::not_equal>, "not_equal")
    .add_alias("_Not_Equal");
MXNET_REGISTER_OP_FAMILY(_greater, ElemwiseComparisonFamily<binary::greater>, "greater")
    .add_alias("_Greater");
MXNET_REGISTER_OP_FAMILY(_greater_equal, ElemwiseComparisonFamily<binary::greater_equal>, "greater_equal")
    .add_alias("_Greater_Equal");
MXNET_REGISTER_OP_FAMILY(_lesser, ElemwiseComparisonFamily<binary::lesser>, "lesser")
    .add_alias("_Lesser");
MXNET_REGISTER_OP_FAMILY(_lesser_equal, ElemwiseComparisonFamily<binary::lesser_equal>, "lesser_equal")
    .add_alias("_Lesser_Equal");
MXNET_REGISTER_OP_FAMILY(_logical_and, ElemwiseComparisonFamily<binary::logical_and>, "logical_and");
MXNET_REGISTER_OP_FAMILY(_logical_or, ElemwiseComparisonFamily<binary::logical_or>, "logical_or");
MXNET_REGISTER_OP_FAMILY(_logical_xor, ElemwiseComparisonFamily<binary::logical_xor>, "logical_xor");

}  // namespace
}  // namespace op
}  // namespace mxnet
