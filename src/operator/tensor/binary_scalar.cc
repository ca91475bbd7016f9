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

bool IsComparison(const std::string& n) {
  return n == "equal" || n == "not_equal" || n == "greater" || n == "greater_equal" || n == "lesser" ||
         n == "lesser_equal" || n == "logical_and" || n == "logical_or" || n == "logical_xor";
}

/*! \brief MXNet's name for the scalar form of a table row. */
std::string ScalarName(const std::string& row, bool reverse) {
  static const std::unordered_map<std::string, std::string> base = {
      {"add", "plus"}, {"sub", "minus"}, {"mul", "mul"}, {"div", "div"}};
  auto it = base.find(row);
  return std::string(reverse ? "_r" : "_") + (it == base.end() ? row : it->second) + "_scalar";
}

const char* LegacyAlias(const std::string& name) {
  static const std::unordered_map<std::string, const char*> a = {
      {"_plus_scalar", "_PlusScalar"},     {"_minus_scalar", "_MinusScalar"}, {"_rminus_scalar", "_RMinusScalar"},
      {"_mul_scalar", "_MulScalar"},       {"_div_scalar", "_DivScalar"},     {"_rdiv_scalar", "_RDivScalar"},
      {"_mod_scalar", "_ModScalar"},       {"_rmod_scalar", "_RModScalar"},   {"_power_scalar", "_PowerScalar"},
      {"_rpower_scalar", "_RPowerScalar"}, {"_maximum_scalar", "_MaximumScalar"},
      {"_minimum_scalar", "_MinimumScalar"}, {"_hypot_scalar", "_HypotScalar"},
      {"_equal_scalar", "_EqualScalar"},   {"_not_equal_scalar", "_NotEqualScalar"},
      {"_greater_scalar", "_GreaterScalar"}, {"_greater_equal_scalar", "_GreaterEqualScalar"},
      {"_lesser_scalar", "_LesserScalar"}, {"_lesser_equal_scalar", "_LesserEqualScalar"},
  };
  auto it = a.find(name);
  return it == a.end() ? nullptr : it->second;
}

template <typename OP, bool kReverse>
void RegisterScalar(const std::string& row) {
  const std::string name = ScalarName(row, kReverse);
  Op& op = OpRegistry::Get()->Register(name);
  if (const char* alias = LegacyAlias(name)) op.add_alias(alias);
  op.describe(std::string("Element-wise ") + row + " of an array and a scalar" +
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
  if (IsComparison(row)) {
    op.set_gradient(ZeroGrads);
    return;
  }
  const std::string bwd = "_backward" + name;
  op.set_gradient([bwd](const NodePtr& n, const std::vector<NodeEntry>& og) {
    return std::vector<NodeEntry>{MakeNode(bwd, n->attrs.name + "_backward", {og[0], n->inputs[0]},
                                           {n->attrs.dict.begin(), n->attrs.dict.end()})};
  });
  OpRegistry::Get()
      ->Register(bwd)
      .describe("Gradient of " + name + " with respect to its array input.")
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

struct Registrar {
  Registrar() {
    // Reversed forms exist where the operation is not symmetric.
#define MXNET_REGISTER_SCALAR(name, fwd, lg, rg)                                                 \
  RegisterScalar<binary::name, false>(#name);                                                    \
  if (std::string(#name) == "sub" || std::string(#name) == "div" || std::string(#name) == "mod" || \
      std::string(#name) == "power")                                                             \
    RegisterScalar<binary::name, true>(#name);
    MXNET_BINARY_MATH_OPS(MXNET_REGISTER_SCALAR)
#undef MXNET_REGISTER_SCALAR
  }
};
const Registrar registrar;

}  // namespace
}  // namespace op
}  // namespace mxnet
