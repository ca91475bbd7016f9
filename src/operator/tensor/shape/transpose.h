/*!
 * \file transpose.h
 * \brief The parameters of transpose, SwapAxis, reverse, depth_to_space and space_to_depth
 *        and the strided walk (Move) each one is, shared by the CPU kernels (transpose.cc)
 *        and the CUDA kernels (operator/cuda/transpose.cu).
 */
#ifndef MXNET_OPERATOR_TENSOR_SHAPE_TRANSPOSE_H_
#define MXNET_OPERATOR_TENSOR_SHAPE_TRANSPOSE_H_

#include <dmlc/parameter.h>

#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/strided_copy.h"

namespace mxnet {
namespace op {

struct TransposeParam : public dmlc::Parameter<TransposeParam> {
  TShape axes;
  DMLC_DECLARE_PARAMETER(TransposeParam) {
    DMLC_DECLARE_FIELD(axes).set_default(TShape(0)).describe("Target axis order. By default the axes are reversed.");
  }
};

struct SwapAxisParam : public dmlc::Parameter<SwapAxisParam> {
  int dim1, dim2;
  DMLC_DECLARE_PARAMETER(SwapAxisParam) {
    DMLC_DECLARE_FIELD(dim1).set_default(0).describe("the first axis to be swapped.");
    DMLC_DECLARE_FIELD(dim2).set_default(0).describe("the second axis to be swapped.");
  }
};

struct FlipParam : public dmlc::Parameter<FlipParam> {
  TShape axis;
  DMLC_DECLARE_PARAMETER(FlipParam) {
    DMLC_DECLARE_FIELD(axis).describe("The axis or axes which to reverse elements.");
  }
};

struct BlockSizeParam : public dmlc::Parameter<BlockSizeParam> {
  int block_size;
  DMLC_DECLARE_PARAMETER(BlockSizeParam) {
    DMLC_DECLARE_FIELD(block_size).set_lower_bound(1).describe("Blocks of [block_size, block_size] are moved");
  }
};

inline int LayoutAxis(const NodeAttrs& attrs, int64_t a, const TShape& s) {
  const int n = s.ndim();
  MX_CHECK_KIND(a >= -n && a < n, "ValueError")
      << attrs.op->name << ": axis " << a << " is out of bounds for input of shape " << s;
  return static_cast<int>(a < 0 ? a + n : a);
}

/*! \brief The permutation of transpose (reversed axes by default), validated. */
inline std::vector<int> Permutation(const NodeAttrs& attrs, const TShape& s) {
  const TShape& axes = attrs.get<TransposeParam>().axes;
  const int n = s.ndim();
  std::vector<int> perm(n);
  if (axes.ndim() <= 0) {
    for (int i = 0; i < n; ++i) perm[i] = n - 1 - i;
    return perm;
  }
  MX_CHECK_KIND(axes.ndim() == n, "ValueError")
      << attrs.op->name << ": axes " << axes << " do not match input of shape " << s;
  std::vector<bool> seen(n, false);
  for (int i = 0; i < n; ++i) {
    perm[i] = LayoutAxis(attrs, axes[i], s);
    MX_CHECK_KIND(!seen[perm[i]], "ValueError") << attrs.op->name << ": repeated axis in axes " << axes;
    seen[perm[i]] = true;
  }
  return perm;
}

/*! \brief Output shape and input strides (in output order) of each move. */
struct Move {
  std::vector<int64_t> shape, stride;
  int64_t offset{0};
};

inline Move PermuteMove(const TShape& s, const std::vector<int>& perm) {
  const auto st = ContiguousStrides(s);
  Move m;
  for (int p : perm) {
    m.shape.push_back(s[p]);
    m.stride.push_back(st[p]);
  }
  return m;
}

inline Move TransposeMove(const NodeAttrs& attrs, const TShape& s) { return PermuteMove(s, Permutation(attrs, s)); }

inline Move SwapMove(const NodeAttrs& attrs, const TShape& s) {
  const auto& p = attrs.get<SwapAxisParam>();
  std::vector<int> perm(s.ndim());
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[LayoutAxis(attrs, p.dim1, s)], perm[LayoutAxis(attrs, p.dim2, s)]);
  return PermuteMove(s, perm);
}

inline Move FlipMove(const NodeAttrs& attrs, const TShape& s) {
  Move m;
  m.shape.assign(s.begin(), s.end());
  m.stride = ContiguousStrides(s);
  for (dim_t a : attrs.get<FlipParam>().axis) {
    const int ax = LayoutAxis(attrs, a, s);
    if (m.stride[ax] > 0 && s[ax] > 0) {  // an axis listed twice stays flipped once
      m.offset += (s[ax] - 1) * m.stride[ax];
      m.stride[ax] = -m.stride[ax];
    }
  }
  return m;
}

inline Move DepthToSpaceMove(const NodeAttrs& attrs, const TShape& s) {
  const int64_t b = attrs.get<BlockSizeParam>().block_size;
  const int64_t N = s[0], C = s[1], H = s[2], W = s[3], Co = C / (b * b);
  // input viewed as (N, b1, b2, Co, H, W); output is (N, Co, H, b1, W, b2)
  Move m;
  m.shape = {N, Co, H, b, W, b};
  m.stride = {C * H * W, H * W, W, b * Co * H * W, 1, Co * H * W};
  return m;
}

inline Move SpaceToDepthMove(const NodeAttrs& attrs, const TShape& s) {
  const int64_t b = attrs.get<BlockSizeParam>().block_size;
  const int64_t N = s[0], C = s[1], H = s[2], W = s[3];
  // input viewed as (N, C, H/b, b1, W/b, b2); output is (N, b1, b2, C, H/b, W/b)
  Move m;
  m.shape = {N, b, b, C, H / b, W / b};
  m.stride = {C * H * W, W, 1, H * W, b * W, b};
  return m;
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_TENSOR_SHAPE_TRANSPOSE_H_
