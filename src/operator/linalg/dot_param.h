/*!
 * \file dot_param.h
 * \brief dot / batch_dot parameters and dot's 2-D view of its operands, shared by the CPU
 *        kernels (dot.cc) and the CUDA kernels (cuda/dot.cu).
 */
#ifndef MXNET_OPERATOR_LINALG_DOT_PARAM_H_
#define MXNET_OPERATOR_LINALG_DOT_PARAM_H_

#include <dmlc/optional.h>
#include <dmlc/parameter.h>

#include <cstdint>
#include <vector>

#include "mxnet/op.h"

namespace mxnet {
namespace op {

struct DotParam : public dmlc::Parameter<DotParam> {
  bool transpose_a, transpose_b;
  dmlc::optional<int> forward_stype;
  DMLC_DECLARE_PARAMETER(DotParam) {
    DMLC_DECLARE_FIELD(transpose_a).set_default(false).describe("If true then transpose the first input before dot.");
    DMLC_DECLARE_FIELD(transpose_b).set_default(false).describe("If true then transpose the second input before dot.");
    DMLC_DECLARE_FIELD(forward_stype)
        .set_default(dmlc::optional<int>())
        .add_enum("default", 0)
        .describe("The desired storage type of the forward output (only dense here).");
  }
};

/*! \brief (m, k, n) of dot: lhs viewed 2-D around its last (first if transposed) axis. */
struct DotDims {
  int64_t m, k, n;
};

inline DotDims DotShape(const NodeAttrs& attrs, const TShape& a, const TShape& b, TShape* out) {
  const auto& p = attrs.get<DotParam>();
  if (a.ndim() == 1 && b.ndim() == 1) {
    MX_CHECK_KIND(!p.transpose_a && !p.transpose_b, "ValueError")
        << attrs.op->name << ": transpose is not supported for 1-D . 1-D";
    MX_CHECK_KIND(a[0] == b[0], "ValueError")
        << attrs.op->name << ": shapes " << a << " and " << b << " not aligned";
    *out = TShape{1};
    return {1, a[0], 1};
  }
  MX_CHECK_KIND(a.ndim() >= 1 && b.ndim() >= 1, "ValueError")
      << attrs.op->name << ": inputs must have at least 1 dim, got " << a << " and " << b;
  const int64_t ka = p.transpose_a ? a[0] : a[a.ndim() - 1];
  const int64_t kb = p.transpose_b ? b[b.ndim() - 1] : b[0];
  MX_CHECK_KIND(ka == kb, "ValueError") << attrs.op->name << ": shapes " << a << " and " << b
                                        << " not aligned (transpose_a=" << p.transpose_a
                                        << ", transpose_b=" << p.transpose_b << ")";
  std::vector<dim_t> o;
  if (p.transpose_a) o.insert(o.end(), a.begin() + 1, a.end()); else o.insert(o.end(), a.begin(), a.end() - 1);
  if (p.transpose_b) o.insert(o.end(), b.begin(), b.end() - 1); else o.insert(o.end(), b.begin() + 1, b.end());
  if (o.empty()) o.push_back(1);
  *out = TShape(o);
  // Products of the free dims, not Size() / k: k may be 0 (an empty contraction).
  const int64_t m = p.transpose_a ? a.ProdShape(1, a.ndim()) : a.ProdShape(0, a.ndim() - 1);
  const int64_t n = p.transpose_b ? b.ProdShape(0, b.ndim() - 1) : b.ProdShape(1, b.ndim());
  return {m, ka, n};
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_LINALG_DOT_PARAM_H_
