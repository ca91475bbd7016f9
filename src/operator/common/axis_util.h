/*!
 * \file axis_util.h
 * \brief Axis normalisation and the (outer, axis, inner) view that concat, split, take,
 *        pick, repeat and sort use: an array seen as outer x n x inner around one axis.
 */
#ifndef MXNET_OPERATOR_COMMON_AXIS_UTIL_H_
#define MXNET_OPERATOR_COMMON_AXIS_UTIL_H_

#include <cstdint>

#include "mxnet/op.h"

namespace mxnet {
namespace op {

/*! \brief axis in [-ndim, ndim) -> [0, ndim); ValueError naming the op and shape otherwise. */
inline int CheckAxis(const NodeAttrs& attrs, int64_t axis, const TShape& s, const char* what = "axis") {
  const int n = s.ndim();
  MX_CHECK_KIND(axis >= -n && axis < n, "ValueError")
      << attrs.op->name << ": " << what << " " << axis << " is out of bounds for input of shape " << s;
  return static_cast<int>(axis < 0 ? axis + n : axis);
}

/*! \brief The array viewed as (outer, mid, inner) around `axis`. */
struct AxisView {
  int64_t outer, mid, inner;
};

inline AxisView ViewAround(const TShape& s, int axis) {
  return {s.ProdShape(0, axis), s[axis], s.ProdShape(axis + 1, s.ndim())};
}

/*! \brief "True"/"False" as parameters are written in gradient nodes. */
inline const char* BoolStr(bool v) { return v ? "True" : "False"; }

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_COMMON_AXIS_UTIL_H_
