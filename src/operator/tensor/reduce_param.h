/*!
 * \file reduce_param.h
 * \brief What the CPU (reduce.cc) and CUDA (cuda/reduce.cu) kernels of the axis reductions share:
 *        their parameters, which axes a call reduces, the accumulation type of sum-like
 *        reductions under MXNET_SAFE_ACCUMULATION, and the derivatives of the backward ops.
 */
#ifndef MXNET_OPERATOR_TENSOR_REDUCE_PARAM_H_
#define MXNET_OPERATOR_TENSOR_REDUCE_PARAM_H_

#include <dmlc/optional.h>
#include <dmlc/parameter.h>

#include <cstdint>
#include <type_traits>
#include <vector>

#include "mxnet/op.h"
#include "mxnet/tensor.h"
#include "mxnet/xinline.h"

namespace mxnet {
namespace op {

struct ReduceAxesParam : public dmlc::Parameter<ReduceAxesParam> {
  dmlc::optional<TShape> axis;
  bool keepdims;
  bool exclude;
  int ord;
  DMLC_DECLARE_PARAMETER(ReduceAxesParam) {
    DMLC_DECLARE_FIELD(axis).set_default(dmlc::optional<TShape>()).describe(
        "The axis or axes along which to perform the reduction. None (default) reduces all axes; "
        "negative values count from the end.");
    DMLC_DECLARE_FIELD(keepdims).set_default(false).describe(
        "If true, the reduced axes are left in the result as dimension with size one.");
    DMLC_DECLARE_FIELD(exclude).set_default(false).describe("Whether to perform reduction on axis that are NOT in axis instead.");
    DMLC_DECLARE_FIELD(ord).set_default(2).describe("Order of the norm (norm only): 1 or 2.");
  }
};

struct ArgReduceParam : public dmlc::Parameter<ArgReduceParam> {
  dmlc::optional<int> axis;
  bool keepdims;
  DMLC_DECLARE_PARAMETER(ArgReduceParam) {
    DMLC_DECLARE_FIELD(axis).set_default(dmlc::optional<int>()).describe(
        "The axis along which to perform the reduction. None searches the flattened input.");
    DMLC_DECLARE_FIELD(keepdims).set_default(false).describe("If true, the reduced axis is kept with size one.");
  }
};

/*! \brief Flags of the reduced axes of an input of rank n; errors name the op. */
inline std::vector<bool> ReducedAxes(const NodeAttrs& attrs, int n) {
  const auto& p = attrs.get<ReduceAxesParam>();
  std::vector<bool> red(n, false);
  if (!p.axis.has_value() || p.axis.value().ndim() <= 0) {
    if (!p.exclude) red.assign(n, true);
    return red;
  }
  std::vector<bool> seen(n, false);
  for (dim_t a : p.axis.value()) {
    MX_CHECK_KIND(a >= -n && a < n, "ValueError")
        << attrs.op->name << ": axis " << a << " is out of bounds for an array of rank " << n;
    const int ax = static_cast<int>(a < 0 ? a + n : a);
    MX_CHECK_KIND(!seen[ax], "ValueError") << attrs.op->name << ": duplicate value " << a << " in axis";
    seen[ax] = true;
  }
  for (int i = 0; i < n; ++i) red[i] = p.exclude ? !seen[i] : seen[i];
  return red;
}

/*! \brief The axis argmax/argmin reduce over an input of rank n (all of them when axis is None). */
inline std::vector<bool> ArgReducedAxes(const NodeAttrs& attrs, int n) {
  const auto& p = attrs.get<ArgReduceParam>();
  std::vector<bool> red(n, !p.axis.has_value());
  if (p.axis.has_value()) red[p.axis.value() < 0 ? p.axis.value() + n : p.axis.value()] = true;
  return red;
}

/*! \brief Shape with reduced dims set to 1 (the keepdims shape). */
inline TShape KeepdimsShape(const TShape& s, const std::vector<bool>& red) {
  TShape k = s;
  for (int i = 0; i < s.ndim(); ++i)
    if (red[i]) k[i] = 1;
  return k;
}

/*! \brief The accumulation type of a sum-like reduction over DType. */
template <typename DType, bool kSafe>
struct AccType {
  using type = std::conditional_t<std::is_integral_v<DType>, int64_t, DType>;
};
template <>
struct AccType<half_t, true> {
  using type = float;
};
template <>
struct AccType<bf16_t, true> {
  using type = float;
};
template <>
struct AccType<float, true> {
  using type = double;
};

// Derivative of the reduction with respect to one input element x, given the reduced
// value y and the number K of reduced elements.
struct SumGrad {
  template <typename C> MXNET_XINLINE static C D(C, C, int64_t) { return C(1); }
};
struct MeanGrad {
  template <typename C> MXNET_XINLINE static C D(C, C, int64_t k) { return C(C(1) / C(k)); }
};
struct ProdGrad {
  template <typename C> MXNET_XINLINE static C D(C x, C y, int64_t) { return C(y / x); }
};
struct NanSumGrad {
  template <typename C> MXNET_XINLINE static C D(C x, C, int64_t) { return x != x ? C(0) : C(1); }
};
struct NanProdGrad {
  template <typename C> MXNET_XINLINE static C D(C x, C y, int64_t) { return x != x ? C(0) : C(y / x); }
};
struct ExtremumGrad {  // max and min: every element equal to the result receives the gradient
  template <typename C> MXNET_XINLINE static C D(C x, C y, int64_t) { return x == y ? C(1) : C(0); }
};
struct NormGrad {
  template <typename C> MXNET_XINLINE static C D(C x, C y, int64_t) { return y == C(0) ? C(0) : C(x / y); }
};
struct L1NormGrad {
  template <typename C> MXNET_XINLINE static C D(C x, C, int64_t) {
    return x > C(0) ? C(1) : (x < C(0) ? C(-1) : C(0));
  }
};

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_TENSOR_REDUCE_PARAM_H_
