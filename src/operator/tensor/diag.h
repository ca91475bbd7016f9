/*!
 * \file diag.h
 * \brief diag's parameters and the strided walks of its two forms, shared by the CPU kernels
 *        (diag.cc) and the CUDA kernels (operator/cuda/tile_pad.cu).
 */
#ifndef MXNET_OPERATOR_TENSOR_DIAG_H_
#define MXNET_OPERATOR_TENSOR_DIAG_H_

#include <dmlc/parameter.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/axis_util.h"
#include "operator/common/strided_copy.h"

namespace mxnet {
namespace op {

struct DiagParam : public dmlc::Parameter<DiagParam> {
  int k;
  int axis1, axis2;
  DMLC_DECLARE_PARAMETER(DiagParam) {
    DMLC_DECLARE_FIELD(k).set_default(0).describe(
        "Diagonal in question. The default is 0. Use k>0 for diagonals above the main diagonal, and k<0 for "
        "diagonals below the main diagonal.");
    DMLC_DECLARE_FIELD(axis1).set_default(0).describe(
        "The first axis of the sub-arrays of interest. Ignored when the input is a 1-D array.");
    DMLC_DECLARE_FIELD(axis2).set_default(1).describe(
        "The second axis of the sub-arrays of interest. Ignored when the input is a 1-D array.");
  }
};

/*! \brief The diagonal as a walk over the N-D array `s` (N >= 2); its shape is the diag output shape. */
struct DiagWalk {
  std::vector<int64_t> shape, stride;
  int64_t offset{0};
};

inline DiagWalk PlanDiag(const NodeAttrs& attrs, const TShape& s) {
  const auto& p = attrs.get<DiagParam>();
  const int a1 = CheckAxis(attrs, p.axis1, s, "axis1"), a2 = CheckAxis(attrs, p.axis2, s, "axis2");
  MX_CHECK_KIND(a1 != a2, "ValueError") << attrs.op->name << ": axis1 and axis2 cannot refer to the same axis ("
                                        << p.axis1 << ", " << p.axis2 << ") of shape " << s;
  const auto st = ContiguousStrides(s);
  DiagWalk w;
  for (int i = 0; i < s.ndim(); ++i) {
    if (i == a1 || i == a2) continue;
    w.shape.push_back(s[i]);
    w.stride.push_back(st[i]);
  }
  const int64_t k = p.k;
  const int64_t len = k >= 0 ? std::min<int64_t>(s[a1], s[a2] - k) : std::min<int64_t>(s[a1] + k, s[a2]);
  w.shape.push_back(std::max<int64_t>(len, 0));
  w.stride.push_back(st[a1] + st[a2]);
  w.offset = len > 0 ? (k >= 0 ? k * st[a2] : -k * st[a1]) : 0;
  return w;
}

/*! \brief The 1-D input placed on diagonal k of an (n+|k|)^2 matrix, as a walk over that matrix. */
inline DiagWalk PlanMatrix(const NodeAttrs& attrs, int64_t n) {
  const int64_t k = attrs.get<DiagParam>().k, m = n + (k < 0 ? -k : k);
  return {{n}, {m + 1}, k >= 0 ? k : -k * m};
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_TENSOR_DIAG_H_
