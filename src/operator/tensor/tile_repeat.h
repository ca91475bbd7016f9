/*!
 * \file tile_repeat.h
 * \brief The parameters of tile and repeat, tile's padded (dims, reps) plan and repeat's
 *        (outer, mid, inner) view, shared by the CPU kernels (tile_repeat.cc) and the CUDA
 *        kernels (operator/cuda/tile_pad.cu).
 */
#ifndef MXNET_OPERATOR_TENSOR_TILE_REPEAT_H_
#define MXNET_OPERATOR_TENSOR_TILE_REPEAT_H_

#include <dmlc/optional.h>
#include <dmlc/parameter.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/axis_util.h"
#include "operator/common/param_text.h"
#include "operator/common/strided_copy.h"

namespace mxnet {
namespace op {

struct TileParam : public dmlc::Parameter<TileParam> {
  TShape reps;
  DMLC_DECLARE_PARAMETER(TileParam) {
    DMLC_DECLARE_FIELD(reps).describe(
        "The number of times for repeating the tensor a. Each dim size of reps must be a positive integer. If "
        "reps has length d, the result will have dimension of max(d, a.ndim); If a.ndim < d, a is promoted to "
        "be d-dimensional by prepending new axes. If a.ndim > d, reps is promoted to a.ndim by pre-pending 1's.");
  }
};

struct RepeatParam : public dmlc::Parameter<RepeatParam> {
  int repeats;
  dmlc::optional<int> axis;
  DMLC_DECLARE_PARAMETER(RepeatParam) {
    DMLC_DECLARE_FIELD(repeats).set_lower_bound(0).describe("The number of repetitions for each element.");
    DMLC_DECLARE_FIELD(axis)
        .set_default(dmlc::optional<int>())
        .describe(
            "The axis along which to repeat values. The negative numbers are interpreted counting from the backward. "
            "By default, use the flattened input array, and return a flat output array.");
  }
};

/*! \brief Data dims and reps, both padded with leading 1s to a common rank. */
struct TilePlan {
  std::vector<int64_t> dims, reps;
  TShape OutShape() const {
    std::vector<dim_t> o;
    for (size_t i = 0; i < dims.size(); ++i) o.push_back(dims[i] * reps[i]);
    return TShape(o);
  }
};

inline TilePlan PlanTile(const NodeAttrs& attrs, const TShape& s) {
  const TShape& reps = attrs.get<TileParam>().reps;
  MX_CHECK_KIND(reps.ndim() >= 1, "ValueError") << attrs.op->name << ": reps must be non-empty, got " << reps;
  for (dim_t r : reps)
    MX_CHECK_KIND(r >= 0, "ValueError") << attrs.op->name << ": reps " << ParamTuple(reps) << " must be non-negative";
  const int n = std::max(reps.ndim(), s.ndim());
  TilePlan p;
  for (int i = 0; i < n; ++i) {
    const int is = i - (n - s.ndim()), ir = i - (n - reps.ndim());
    p.dims.push_back(is >= 0 ? s[is] : 1);
    p.reps.push_back(ir >= 0 ? reps[ir] : 1);
  }
  return p;
}

/*! \brief tile's output as a walk over the input: (r0, d0, r1, d1, ...) with stride 0 on the rep axes. */
inline void TileWalk(const TilePlan& p, std::vector<int64_t>* shape, std::vector<int64_t>* stride) {
  const auto st = ContiguousStrides(TShape(p.dims));
  for (size_t i = 0; i < p.dims.size(); ++i) {
    shape->insert(shape->end(), {p.reps[i], p.dims[i]});
    stride->insert(stride->end(), {0, st[i]});
  }
}

/*! \brief repeat's view: (outer, mid, inner) of the input around the axis (flattened when None). */
inline AxisView RepeatView(const NodeAttrs& attrs, const TShape& s) {
  const auto& p = attrs.get<RepeatParam>();
  if (!p.axis.has_value()) return {1, s.Size(), 1};
  return ViewAround(s, CheckAxis(attrs, p.axis.value(), s));
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_TENSOR_TILE_REPEAT_H_
