/*!
 * \file elemwise_unary.cc
 * \brief Element-wise unary math (abs ... logical_not): one registration per row of
 *        MXNET_UNARY_MATH_OPS, each with a `_backward_<name>` op computing
 *        ograd * f'(x) from the output gradient and the input; the `_backward_` ops' own
 *        gradients (higher order) come from unary_grad_grad.cc.
 */
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/common/unary_functors.h"
#include "operator/tensor/unary_grad_grad.h"

namespace mxnet {
namespace op {
namespace {

template <typename OP>
void UnaryCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    using C = std::conditional_t<kIntegerClosed<OP>, compute_t<DType>, real_compute_t<DType>>;
    if constexpr (TrigLimited<OP>::kLimited && std::is_same_v<C, float>) {
      MapUnaryLimited<DType, C>(in[0].dptr<DType>(), out[0].dptr<DType>(), in[0].Size(), req[0],
                                TrigLimited<OP>::kLimit, [](C x) { return TrigLimited<OP>::VecFwd(x); },
                                [](C x) { return OP::Fwd(x); });
    } else {
      MapUnary<DType, C>(in[0].dptr<DType>(), out[0].dptr<DType>(), in[0].Size(), req[0],
                         [](C x) { return OP::Fwd(x); });
    }
  });
}

/*! \brief inputs (ograd, x) -> ograd * f'(x). */
template <typename OP>
void UnaryBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    using C = real_compute_t<DType>;
    const DType* ograd = in[0].dptr<DType>();
    const DType* data = in[1].dptr<DType>();
    if constexpr (TrigLimited<OP>::kLimited && std::is_same_v<C, float>) {
      MapBinaryLimited<DType, C>(ograd, data, out[0].dptr<DType>(), in[0].Size(), req[0], TrigLimited<OP>::kLimit,
                                 [](C g, C x) { return C(g * TrigLimited<OP>::VecGrad(x)); },
                                 [](C g, C x) { return C(g * OP::Grad(x)); });
    } else {
      MapBinary<DType, C>(ograd, data, out[0].dptr<DType>(), in[0].Size(), req[0], [](C g, C x) { return C(g * OP::Grad(x)); });
    }
  });
}

const char* UnaryDoc(const std::string& name) {
  static const std::unordered_map<std::string, const char*> docs = {
      {"abs", "Returns element-wise absolute value of the input."},
      {"sign", "Returns element-wise sign of the input (-1, 0 or 1)."},
      {"negative", "Numerical negative of the argument, element-wise."},
      {"reciprocal", "Returns the reciprocal 1/x of the argument, element-wise."},
      {"square", "Returns element-wise squared value of the input."},
      {"sqrt", "Returns element-wise square-root value of the input."},
      {"rsqrt", "Returns element-wise inverse square-root value of the input."},
      {"cbrt", "Returns element-wise cube-root value of the input."},
      {"rcbrt", "Returns element-wise inverse cube-root value of the input."},
      {"exp", "Returns element-wise exponential value of the input."},
      {"expm1", "Returns exp(x) - 1 computed element-wise, accurate for small x."},
      {"log", "Returns element-wise natural logarithm of the input."},
      {"log1p", "Returns element-wise log(1 + x), accurate for small x."},
      {"log2", "Returns element-wise base-2 logarithm of the input."},
      {"log10", "Returns element-wise base-10 logarithm of the input."},
      {"sin", "Computes the element-wise sine of the input (radians)."},
      {"cos", "Computes the element-wise cosine of the input (radians)."},
      {"tan", "Computes the element-wise tangent of the input (radians)."},
      {"arcsin", "Returns element-wise inverse sine of the input."},
      {"arccos", "Returns element-wise inverse cosine of the input."},
      {"arctan", "Returns element-wise inverse tangent of the input."},
      {"sinh", "Returns the hyperbolic sine of the input, element-wise."},
      {"cosh", "Returns the hyperbolic cosine of the input, element-wise."},
      {"tanh", "Returns the hyperbolic tangent of the input, element-wise."},
      {"arcsinh", "Returns the inverse hyperbolic sine of the input, element-wise."},
      {"arccosh", "Returns the inverse hyperbolic cosine of the input, element-wise."},
      {"arctanh", "Returns the inverse hyperbolic tangent of the input, element-wise."},
      {"degrees", "Converts each element of the input from radians to degrees."},
      {"radians", "Converts each element of the input from degrees to radians."},
      {"sigmoid", "Computes sigmoid 1 / (1 + exp(-x)) of x element-wise."},
      {"relu", "Computes rectified linear max(x, 0) element-wise."},
      {"softsign", "Computes softsign x / (1 + |x|) element-wise."},
      {"erf", "Returns element-wise gauss error function of the input."},
      {"erfinv", "Returns element-wise inverse gauss error function of the input."},
      {"gamma", "Returns the gamma function (extension of the factorial) of the input, element-wise."},
      {"gammaln", "Returns element-wise log of the absolute value of the gamma function of the input."},
      {"floor", "Returns element-wise floor of the input."},
      {"ceil", "Returns element-wise ceiling of the input."},
      {"round", "Returns element-wise rounded value to the nearest integer, halves away from zero."},
      {"rint", "Returns element-wise rounded value to the nearest integer; a half rounds down (rint(1.5) = 1, rint(-1.5) = -2), as MXNet 1.x."},
      {"trunc", "Return the element-wise truncated value of the input (towards zero)."},
      {"fix", "Returns element-wise rounded value to the nearest integer towards zero."},
      {"logical_not", "Returns the result of logical NOT (!) function: 1 where x is 0, else 0."},
  };
  auto it = docs.find(name);
  return it == docs.end() ? "" : it->second;
}

/*! \brief Registers unary op `opname` (its functor unary::opname) with the given gradient. */
#define MXNET_REGISTER_UNARY_OP(opname, gradient)                                                       \
  MXNET_REGISTER_OP(opname)                                                                            \
      .describe(UnaryDoc(#opname))                                                                     \
      .set_num_inputs(1)                                                                               \
      .set_num_outputs(1)                                                                              \
      .add_argument("data", "NDArray-or-Symbol", "The input array.")                                   \
      .set_infer_shape(ElemwiseShape)                                                                  \
      .set_infer_type(ElemwiseType)                                                                    \
      .set_inplace_option([](const NodeAttrs&) { return InplacePairs{{0, 0}}; })                       \
      .set_compute(Context::kCPU, UnaryCompute<unary::opname>)                                         \
      .set_gradient(gradient)

/*! \brief A unary op and `_backward_<opname>`: ograd * d opname / dx. */
#define MXNET_REGISTER_UNARY(opname)                                                                   \
  MXNET_REGISTER_UNARY_OP(opname, [](const NodePtr& n, const std::vector<NodeEntry>& og) {              \
    return std::vector<NodeEntry>{                                                                     \
        MakeNode("_backward_" #opname, n->attrs.name + "_backward", {og[0], n->inputs[0]})};           \
  });                                                                                                  \
  MXNET_REGISTER_OP(_backward_##opname)                                                                \
      .describe("Gradient of " #opname ": ograd * d" #opname "/dx.")                                   \
      .set_num_inputs(2)                                                                               \
      .set_num_outputs(1)                                                                              \
      .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output.")                           \
      .add_argument("data", "NDArray-or-Symbol", "The forward input.")                                 \
      .set_infer_shape(ElemwiseShape)                                                                  \
      .set_infer_type(ElemwiseType)                                                                    \
      .set_inplace_option([](const NodeAttrs&) { return InplacePairs{{0, 0}}; })                       \
      .set_compute(Context::kCPU, UnaryBackward<unary::opname>)                                         \
      .set_gradient(UnaryBackwardGradient(#opname))

/*! \brief Rounding, sign and logical ops: MXNet defines their gradient as zero (no backward op). */
#define MXNET_REGISTER_UNARY_ZERO_GRADIENT(opname) MXNET_REGISTER_UNARY_OP(opname, ZeroGrads)

MXNET_REGISTER_UNARY(abs);
MXNET_REGISTER_UNARY_ZERO_GRADIENT(sign);
MXNET_REGISTER_UNARY(negative);
MXNET_REGISTER_UNARY(reciprocal);
MXNET_REGISTER_UNARY(square);
MXNET_REGISTER_UNARY(sqrt);
MXNET_REGISTER_UNARY(rsqrt);
MXNET_REGISTER_UNARY(cbrt);
MXNET_REGISTER_UNARY(rcbrt);
MXNET_REGISTER_UNARY(exp);
MXNET_REGISTER_UNARY(expm1);
MXNET_REGISTER_UNARY(log);
MXNET_REGISTER_UNARY(log1p);
MXNET_REGISTER_UNARY(log2);
MXNET_REGISTER_UNARY(log10);
MXNET_REGISTER_UNARY(sin);
MXNET_REGISTER_UNARY(cos);
MXNET_REGISTER_UNARY(tan);
MXNET_REGISTER_UNARY(arcsin);
MXNET_REGISTER_UNARY(arccos);
MXNET_REGISTER_UNARY(arctan);
MXNET_REGISTER_UNARY(sinh);
MXNET_REGISTER_UNARY(cosh);
MXNET_REGISTER_UNARY(tanh);
MXNET_REGISTER_UNARY(arcsinh);
MXNET_REGISTER_UNARY(arccosh);
MXNET_REGISTER_UNARY(arctanh);
MXNET_REGISTER_UNARY(degrees);
MXNET_REGISTER_UNARY(radians);
MXNET_REGISTER_UNARY(sigmoid);
MXNET_REGISTER_UNARY(relu);
MXNET_REGISTER_UNARY(softsign);
MXNET_REGISTER_UNARY(erf);
MXNET_REGISTER_UNARY(erfinv);
MXNET_REGISTER_UNARY(gamma);
MXNET_REGISTER_UNARY(gammaln);
MXNET_REGISTER_UNARY_ZERO_GRADIENT(floor);
MXNET_REGISTER_UNARY_ZERO_GRADIENT(ceil);
MXNET_REGISTER_UNARY_ZERO_GRADIENT(round);
MXNET_REGISTER_UNARY_ZERO_GRADIENT(rint);
MXNET_REGISTER_UNARY_ZERO_GRADIENT(trunc);
MXNET_REGISTER_UNARY_ZERO_GRADIENT(fix);
MXNET_REGISTER_UNARY_ZERO_GRADIENT(logical_not);

}  // namespace
}  // namespace op
}  // namespace mxnet
