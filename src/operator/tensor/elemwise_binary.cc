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

bool IsComparison(const std::string& n) {
  return n == "equal" || n == "not_equal" || n == "greater" || n == "greater_equal" || n == "lesser" ||
         n == "lesser_equal" || n == "logical_and" || n == "logical_or" || n == "logical_xor";
}

/*! \brief Registered name of the same-shape op for a table row, as MXNet spells it. */
std::string ElemwiseName(const std::string& row) {
  if (row == "add" || row == "sub" || row == "mul" || row == "div") return "elemwise_" + row;
  return "_" + row;
}

void AddAliases(Op* op, const std::string& row) {
  static const std::unordered_map<std::string, std::vector<std::string>> aliases = {
      {"add", {"_add", "_plus", "_Plus"}}, {"sub", {"_sub", "_minus", "_Minus"}},
      {"mul", {"_mul", "_Mul"}},           {"div", {"_div", "_Div"}},
      {"mod", {"_Mod"}},                   {"power", {"_Power"}},
      {"maximum", {"_Maximum"}},           {"minimum", {"_Minimum"}},
      {"hypot", {"_Hypot"}},               {"equal", {"_Equal"}},
      {"not_equal", {"_Not_Equal"}},       {"greater", {"_Greater"}},
      {"greater_equal", {"_Greater_Equal"}}, {"lesser", {"_Lesser"}},
      {"lesser_equal", {"_Lesser_Equal"}},
  };
  auto it = aliases.find(row);
  if (it != aliases.end())
    for (const auto& a : it->second) op->add_alias(a);
}

template <typename OP>
void RegisterElemwiseBinary(const std::string& row) {
  if (row == "add") return;  // elemwise_add lives in elemwise_basic.cc (the runtime's own op)
  const std::string name = ElemwiseName(row);
  Op& op = OpRegistry::Get()->Register(name);
  AddAliases(&op, row);
  op.describe("Element-wise " + row + " of two arrays of the same shape (no broadcasting; see broadcast_" + row +
              "). Comparisons return 1 or 0 in the input dtype.")
      .set_num_inputs(2)
      .set_num_outputs(1)
      .add_argument("lhs", "NDArray-or-Symbol", "first input")
      .add_argument("rhs", "NDArray-or-Symbol", "second input")
      .set_infer_shape(ElemwiseShape)
      .set_infer_type(ElemwiseType)
      .set_inplace_option([](const NodeAttrs&) { return InplacePairs{{0, 0}, {1, 0}}; })
      .set_compute(Context::kCPU, BinaryCompute<OP>);
  if (IsComparison(row)) {
    op.set_gradient(ZeroGrads);
    return;
  }
  const std::string bwd = "_backward_" + (name[0] == '_' ? name.substr(1) : name);
  op.set_gradient([bwd](const NodePtr& n, const std::vector<NodeEntry>& og) {
    return MakeNodeOutputs(bwd, n->attrs.name + "_backward", {og[0], n->inputs[0], n->inputs[1]});
  });
  OpRegistry::Get()
      ->Register(bwd)
      .describe("Gradient of " + name + " with respect to both inputs.")
      .set_num_inputs(3)
      .set_num_outputs(2)
      .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output.")
      .add_argument("lhs", "NDArray-or-Symbol", "Forward lhs.")
      .add_argument("rhs", "NDArray-or-Symbol", "Forward rhs.")
      .set_infer_shape(ElemwiseShape)
      .set_infer_type(ElemwiseType)
      .set_compute(Context::kCPU, BinaryBackward<OP>);
}

struct Registrar {
  Registrar() {
#define MXNET_REGISTER_ELEMWISE_BINARY(name, fwd, lg, rg) RegisterElemwiseBinary<binary::name>(#name);
    MXNET_BINARY_MATH_OPS(MXNET_REGISTER_ELEMWISE_BINARY)
#undef MXNET_REGISTER_ELEMWISE_BINARY
  }
};
const Registrar registrar;

}  // namespace
}  // namespace op
}  // namespace mxnet
