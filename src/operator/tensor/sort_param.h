/*!
 * \file sort_param.h
 * \brief What the CPU (sort.cc) and CUDA (cuda/sort.cu) kernels of topk, sort and argsort share:
 *        their parameters and how a call is viewed (axis, k, what it returns, the index dtype).
 */
#ifndef MXNET_OPERATOR_TENSOR_SORT_PARAM_H_
#define MXNET_OPERATOR_TENSOR_SORT_PARAM_H_

#include <dmlc/optional.h>
#include <dmlc/parameter.h>

#include <cstdint>
#include <typeinfo>

#include "mxnet/op.h"
#include "operator/common/axis_util.h"

namespace mxnet {
namespace op {

enum TopKReturn { kRetValue = 0, kRetIndices = 1, kRetMask = 2, kRetBoth = 3 };

#define MXNET_ADD_INDEX_DTYPES       \
  add_enum("uint8", kUint8)          \
      .add_enum("int32", kInt32)     \
      .add_enum("int64", kInt64)     \
      .add_enum("float16", kFloat16) \
      .add_enum("float32", kFloat32) \
      .add_enum("float64", kFloat64)

struct TopKParam : public dmlc::Parameter<TopKParam> {
  dmlc::optional<int> axis;
  int k;
  int ret_typ;
  bool is_ascend;
  int dtype;
  DMLC_DECLARE_PARAMETER(TopKParam) {
    DMLC_DECLARE_FIELD(axis)
        .set_default(dmlc::optional<int>(-1))
        .describe(
            "Axis along which to choose the top k indices. If not given, the flattened array is used. Default is -1.");
    DMLC_DECLARE_FIELD(k).set_default(1).describe(
        "Number of top elements to select, should be always smaller than or equal to the element number in the "
        "given axis. A global sort is performed if set k < 1.");
    DMLC_DECLARE_FIELD(ret_typ)
        .set_default(kRetIndices)
        .add_enum("value", kRetValue)
        .add_enum("indices", kRetIndices)
        .add_enum("mask", kRetMask)
        .add_enum("both", kRetBoth)
        .describe(
            "The return type. \"value\" the top k values, \"indices\" their indices, \"both\" both, \"mask\" a "
            "0/1 mask of the input's shape marking them.");
    DMLC_DECLARE_FIELD(is_ascend).set_default(false).describe(
        "Whether to choose k largest or k smallest elements. Top K largest elements will be chosen if set to false.");
    DMLC_DECLARE_FIELD(dtype).set_default(kFloat32).MXNET_ADD_INDEX_DTYPES.describe(
        "DType of the output indices when ret_typ is \"indices\" or \"both\".");
  }
};

struct SortParam : public dmlc::Parameter<SortParam> {
  dmlc::optional<int> axis;
  bool is_ascend;
  DMLC_DECLARE_PARAMETER(SortParam) {
    DMLC_DECLARE_FIELD(axis)
        .set_default(dmlc::optional<int>(-1))
        .describe("Axis along which to choose sort the input tensor. If not given, the flattened array is used.");
    DMLC_DECLARE_FIELD(is_ascend).set_default(true).describe("Whether to sort in ascending or descending order.");
  }
};

struct ArgSortParam : public dmlc::Parameter<ArgSortParam> {
  dmlc::optional<int> axis;
  bool is_ascend;
  int dtype;
  DMLC_DECLARE_PARAMETER(ArgSortParam) {
    DMLC_DECLARE_FIELD(axis)
        .set_default(dmlc::optional<int>(-1))
        .describe(
            "Axis along which to sort the input tensor. If not given, the flattened array is used. Default is -1.");
    DMLC_DECLARE_FIELD(is_ascend).set_default(true).describe("Whether to sort in ascending or descending order.");
    DMLC_DECLARE_FIELD(dtype).set_default(kFloat32).MXNET_ADD_INDEX_DTYPES.describe("DType of the output indices.");
  }
};

/*! \brief What one call orders: the axis (None = flattened), k, what to return and the index dtype. */
struct SortSpec {
  dmlc::optional<int> axis;
  int64_t k{0};  // < 1: all
  int ret{kRetIndices};
  bool ascend{false};
  int index_dtype{kFloat32};
};

inline SortSpec SpecOf(const NodeAttrs& attrs) {
  SortSpec s;
  if (attrs.parsed.type() == typeid(TopKParam)) {
    const auto& p = attrs.get<TopKParam>();
    s = {p.axis, p.k, p.ret_typ, p.is_ascend, p.dtype};
    if (p.ret_typ == kRetValue) s.index_dtype = kInt64;  // hidden output, exact for any length
  } else if (attrs.parsed.type() == typeid(SortParam)) {
    const auto& p = attrs.get<SortParam>();
    s = {p.axis, 0, kRetValue, p.is_ascend, kInt64};
  } else {
    const auto& p = attrs.get<ArgSortParam>();
    s = {p.axis, 0, kRetIndices, p.is_ascend, p.dtype};
  }
  return s;
}

/*! \brief (outer, n, inner) of the data as ordered, and the effective k. */
struct SortView {
  AxisView v;
  int axis{-1};  // -1: flattened
  int64_t k{0};
};

inline SortView ViewOf(const NodeAttrs& attrs, const SortSpec& s, const TShape& d) {
  SortView sv;
  if (s.axis.has_value()) {
    sv.axis = CheckAxis(attrs, s.axis.value(), d);
    sv.v = ViewAround(d, sv.axis);
  } else {
    sv.v = {1, d.Size(), 1};
  }
  sv.k = s.k < 1 ? sv.v.mid : s.k;
  MX_CHECK_KIND(sv.k <= sv.v.mid, "ValueError")
      << attrs.op->name << ": k=" << s.k << " exceeds the " << sv.v.mid << " elements along the axis of shape " << d;
  return sv;
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_TENSOR_SORT_PARAM_H_
