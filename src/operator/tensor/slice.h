/*!
 * \file slice.h
 * \brief The parameters of slice, slice_axis, slice_like and the slice assignments, and the
 *        per-axis range (begin, step, count) each call reduces to, shared by the CPU kernels
 *        (slice.cc) and the CUDA kernels (operator/cuda/slice.cu).
 */
#ifndef MXNET_OPERATOR_TENSOR_SLICE_H_
#define MXNET_OPERATOR_TENSOR_SLICE_H_

#include <dmlc/optional.h>
#include <dmlc/parameter.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/axis_util.h"
#include "operator/common/strided_copy.h"
#include "operator/tensor/slice_param.h"

namespace mxnet {
namespace op {

struct SliceParam : public dmlc::Parameter<SliceParam> {
  OptionalIntTuple begin, end, step;
  DMLC_DECLARE_PARAMETER(SliceParam) {
    DMLC_DECLARE_FIELD(begin).describe("starting indices for the slice operation, supports negative indices.");
    DMLC_DECLARE_FIELD(end).describe("ending indices for the slice operation, supports negative indices.");
    DMLC_DECLARE_FIELD(step)
        .set_default(OptionalIntTuple())
        .describe(
            "step for the slice operation, supports "
            "negative values.");
  }
};

struct SliceAssignScalarParam : public dmlc::Parameter<SliceAssignScalarParam> {
  double scalar;
  OptionalIntTuple begin, end, step;
  DMLC_DECLARE_PARAMETER(SliceAssignScalarParam) {
    DMLC_DECLARE_FIELD(scalar).set_default(0).describe("The scalar value for assignment.");
    DMLC_DECLARE_FIELD(begin).describe("starting indices for the slice operation, supports negative indices.");
    DMLC_DECLARE_FIELD(end).describe("ending indices for the slice operation, supports negative indices.");
    DMLC_DECLARE_FIELD(step).set_default(OptionalIntTuple()).describe("step for the slice operation.");
  }
};

struct SliceAxisParam : public dmlc::Parameter<SliceAxisParam> {
  int axis;
  int64_t begin;
  dmlc::optional<int64_t> end;
  DMLC_DECLARE_PARAMETER(SliceAxisParam) {
    DMLC_DECLARE_FIELD(axis).describe("Axis along which to be sliced, supports negative indexes.");
    DMLC_DECLARE_FIELD(begin).describe("The beginning index along the axis to be sliced, supports negative indexes.");
    DMLC_DECLARE_FIELD(end)
        .set_default(dmlc::optional<int64_t>())
        .describe(
            "The ending index along the axis to be sliced, supports negative indexes; "
            "None means the end of the axis.");
  }
};

struct SliceLikeParam : public dmlc::Parameter<SliceLikeParam> {
  TShape axes;
  DMLC_DECLARE_PARAMETER(SliceLikeParam) {
    DMLC_DECLARE_FIELD(axes).set_default(TShape(0)).describe(
        "List of axes on which input data will be sliced according to the corresponding size of the second "
        "input. By default will slice on all axes. Negative axes are supported.");
  }
};

/*! \brief Per-axis (begin, step, count) of a slice of an array of shape `s`. */
struct Ranges {
  std::vector<int64_t> begin, step, count;
  TShape OutShape() const { return TShape(count); }
};

inline Ranges FullRanges(const TShape& s) {
  Ranges r;
  for (int i = 0; i < s.ndim(); ++i) {
    r.begin.push_back(0);
    r.step.push_back(1);
    r.count.push_back(s[i]);
  }
  return r;
}

/*! \brief Python's slice.indices(len) followed by the element count. */
inline void PythonRange(dmlc::optional<int64_t> b, dmlc::optional<int64_t> e, int64_t st, int64_t len, int64_t* begin,
                        int64_t* count) {
  int64_t lo, hi;
  if (st > 0) {
    lo = b.has_value() ? b.value() : 0;
    hi = e.has_value() ? e.value() : len;
    if (lo < 0) lo = std::max<int64_t>(lo + len, 0);
    if (hi < 0) hi = std::max<int64_t>(hi + len, 0);
    lo = std::min(lo, len);
    hi = std::min(hi, len);
    *count = hi > lo ? (hi - lo + st - 1) / st : 0;
  } else {
    lo = b.has_value() ? b.value() : len - 1;
    hi = e.has_value() ? e.value() : -1;  // "before index 0"
    if (lo < 0) lo = std::max<int64_t>(lo + len, -1);
    if (e.has_value() && hi < 0) hi = std::max<int64_t>(hi + len, -1);
    lo = std::min(lo, len - 1);
    hi = std::min(hi, len - 1);
    *count = lo > hi ? (lo - hi - st - 1) / (-st) : 0;
  }
  *begin = *count > 0 ? lo : 0;
}

inline Ranges SliceRanges(const NodeAttrs& attrs, const OptionalIntTuple& b, const OptionalIntTuple& e,
                          const OptionalIntTuple& st, const TShape& s) {
  MX_CHECK_KIND(b.size() == e.size(), "ValueError")
      << attrs.op->name << ": begin " << b << " and end " << e << " must have the same length";
  MX_CHECK_KIND(st.size() == 0 || st.size() == b.size(), "ValueError")
      << attrs.op->name << ": step " << st << " must be empty or as long as begin " << b;
  MX_CHECK_KIND(static_cast<int>(b.size()) <= s.ndim(), "ValueError")
      << attrs.op->name << ": begin " << b << " has more entries than the input of shape " << s << " has axes";
  Ranges r = FullRanges(s);
  for (size_t i = 0; i < b.size(); ++i) {
    const int64_t step = st.size() && st.v[i].has_value() ? st.v[i].value() : 1;
    MX_CHECK_KIND(step != 0, "ValueError") << attrs.op->name << ": step " << st << " must not contain 0";
    r.step[i] = step;
    PythonRange(b.v[i], e.v[i], step, s[i], &r.begin[i], &r.count[i]);
  }
  return r;
}

inline Ranges SliceOpRanges(const NodeAttrs& attrs, const TShape& s) {
  const auto& p = attrs.get<SliceParam>();
  return SliceRanges(attrs, p.begin, p.end, p.step, s);
}

inline Ranges AssignScalarRanges(const NodeAttrs& attrs, const TShape& s) {
  const auto& p = attrs.get<SliceAssignScalarParam>();
  return SliceRanges(attrs, p.begin, p.end, p.step, s);
}

inline Ranges SliceAxisRanges(const NodeAttrs& attrs, const TShape& s) {
  const auto& p = attrs.get<SliceAxisParam>();
  const int axis = CheckAxis(attrs, p.axis, s);
  Ranges r = FullRanges(s);
  const int64_t len = s[axis];
  int64_t b = p.begin < 0 ? p.begin + len : p.begin;
  int64_t e = p.end.has_value() ? (p.end.value() < 0 ? p.end.value() + len : p.end.value()) : len;
  MX_CHECK_KIND(b >= 0 && b <= len && e >= 0 && e <= len && b <= e, "ValueError")
      << attrs.op->name << ": begin=" << p.begin
      << ", end=" << (p.end.has_value() ? std::to_string(p.end.value()) : "None") << " is not a valid range of axis "
      << p.axis << " of input shape " << s;
  r.begin[axis] = b;
  r.count[axis] = e - b;
  return r;
}

inline std::vector<int> SliceLikeAxes(const NodeAttrs& attrs, const TShape& s, const TShape& like) {
  const TShape& axes = attrs.get<SliceLikeParam>().axes;
  std::vector<int> out;
  if (axes.ndim() <= 0) {
    MX_CHECK_KIND(s.ndim() == like.ndim(), "ValueError")
        << attrs.op->name << ": data of shape " << s << " and shape_like of shape " << like
        << " must have the same rank when axes is empty";
    for (int i = 0; i < s.ndim(); ++i) out.push_back(i);
    return out;
  }
  for (dim_t a : axes) {
    const int ax = CheckAxis(attrs, a, s);
    MX_CHECK_KIND(ax < like.ndim(), "ValueError")
        << attrs.op->name << ": axis " << a << " is out of bounds for shape_like of shape " << like;
    out.push_back(ax);
  }
  return out;
}

inline Ranges SliceLikeRanges(const NodeAttrs& attrs, const TShape& s, const TShape& like) {
  Ranges r = FullRanges(s);
  for (int ax : SliceLikeAxes(attrs, s, like)) {
    MX_CHECK_KIND(like[ax] <= s[ax], "ValueError")
        << attrs.op->name << ": cannot slice data of shape " << s << " like shape " << like << " along axis " << ax;
    r.count[ax] = like[ax];
  }
  return r;
}

/*! \brief The strided walk of input `s` that visits the slice `r` in row-major order. */
inline void RangeWalk(const Ranges& r, const TShape& s, std::vector<int64_t>* stride, int64_t* offset) {
  const auto cs = ContiguousStrides(s);
  stride->resize(s.ndim());
  *offset = 0;
  for (int i = 0; i < s.ndim(); ++i) {
    (*stride)[i] = cs[i] * r.step[i];
    *offset += cs[i] * r.begin[i];
  }
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_TENSOR_SLICE_H_
