/*!
 * \file split_v2.h
 * \brief _split_v2's parameters and the piece bounds along the split axis, shared by the CPU
 *        kernels (split_v2.cc) and the CUDA kernels (operator/cuda/concat_split.cu).
 */
#ifndef MXNET_OPERATOR_TENSOR_SPLIT_V2_H_
#define MXNET_OPERATOR_TENSOR_SPLIT_V2_H_

#include <dmlc/parameter.h>

#include <vector>

#include "mxnet/op.h"

namespace mxnet {
namespace op {

struct SplitV2Param : public dmlc::Parameter<SplitV2Param> {
  TShape indices;
  int axis;
  bool squeeze_axis;
  int sections;
  DMLC_DECLARE_PARAMETER(SplitV2Param) {
    DMLC_DECLARE_FIELD(indices).describe(
        "Where the pieces start along the axis (piece i ends where piece i+1 starts, the last at the end).");
    DMLC_DECLARE_FIELD(axis).set_default(1).describe("Axis along which to split.");
    DMLC_DECLARE_FIELD(squeeze_axis)
        .set_default(false)
        .describe("If true, removes the split axis from the outputs; every piece must then have length 1.");
    DMLC_DECLARE_FIELD(sections).set_default(0).set_lower_bound(0).describe(
        "Number of equal pieces; 0 splits at `indices` instead.");
  }
};

inline int SplitV2NumPieces(const NodeAttrs& attrs) {
  const auto& p = attrs.get<SplitV2Param>();
  return p.sections > 0 ? p.sections : p.indices.ndim();
}

/*! \brief Start of each piece along the axis, plus the axis length at the end; checked. */
inline std::vector<dim_t> SplitV2Bounds(const NodeAttrs& attrs, dim_t length) {
  const auto& p = attrs.get<SplitV2Param>();
  std::vector<dim_t> b;
  if (p.sections > 0) {
    MX_CHECK_KIND(length % p.sections == 0, "ValueError")
        << attrs.op->name << ": sections=" << p.sections << " does not evenly divide the axis of length " << length;
    for (int i = 0; i <= p.sections; ++i) b.push_back(length / p.sections * i);
    return b;
  }
  MX_CHECK_KIND(p.indices.ndim() > 0, "ValueError") << attrs.op->name << ": indices must not be empty when sections=0";
  b.assign(p.indices.begin(), p.indices.end());
  b.push_back(length);
  for (size_t i = 0; i + 1 < b.size(); ++i)
    MX_CHECK_KIND(b[i] >= 0 && b[i] <= b[i + 1], "ValueError")
        << attrs.op->name << ": indices " << p.indices << " must be non-decreasing and within the axis of length "
        << length;
  return b;
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_TENSOR_SPLIT_V2_H_
