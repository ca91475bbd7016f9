/*!
 * \file transpose.cc
 * \brief Ops that permute or mirror elements: transpose, SwapAxis (swapaxes), reverse
 *        (flip), depth_to_space, space_to_depth. All are strided gathers; each gradient is
 *        the inverse move applied to the output gradient.
 */
#include <numeric>
#include <string>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/op_family.h"
#include "operator/common/strided_copy.h"

namespace mxnet {
namespace op {

struct TransposeParam : public dmlc::Parameter<TransposeParam> {
  TShape axes;
  DMLC_DECLARE_PARAMETER(TransposeParam) {
    DMLC_DECLARE_FIELD(axes).set_default(TShape(0)).describe("Target axis order. By default the axes are reversed.");
  }
};
DMLC_REGISTER_PARAMETER(TransposeParam);

struct SwapAxisParam : public dmlc::Parameter<SwapAxisParam> {
  int dim1, dim2;
  DMLC_DECLARE_PARAMETER(SwapAxisParam) {
    DMLC_DECLARE_FIELD(dim1).set_default(0).describe("the first axis to be swapped.");
    DMLC_DECLARE_FIELD(dim2).set_default(0).describe("the second axis to be swapped.");
  }
};
DMLC_REGISTER_PARAMETER(SwapAxisParam);

struct FlipParam : public dmlc::Parameter<FlipParam> {
  TShape axis;
  DMLC_DECLARE_PARAMETER(FlipParam) {
    DMLC_DECLARE_FIELD(axis).describe("The axis or axes which to reverse elements.");
  }
};
DMLC_REGISTER_PARAMETER(FlipParam);

struct BlockSizeParam : public dmlc::Parameter<BlockSizeParam> {
  int block_size;
  DMLC_DECLARE_PARAMETER(BlockSizeParam) {
    DMLC_DECLARE_FIELD(block_size).set_lower_bound(1).describe("Blocks of [block_size, block_size] are moved");
  }
};
DMLC_REGISTER_PARAMETER(BlockSizeParam);

namespace {

int NormAxis(const NodeAttrs& attrs, int64_t a, const TShape& s) {
  const int n = s.ndim();
  MX_CHECK_KIND(a >= -n && a < n, "ValueError")
      << attrs.op->name << ": axis " << a << " is out of bounds for input of shape " << s;
  return static_cast<int>(a < 0 ? a + n : a);
}

/*! \brief The permutation of transpose (reversed axes by default), validated. */
std::vector<int> Permutation(const NodeAttrs& attrs, const TShape& s) {
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
    perm[i] = NormAxis(attrs, axes[i], s);
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

Move PermuteMove(const TShape& s, const std::vector<int>& perm) {
  const auto st = ContiguousStrides(s);
  Move m;
  for (int p : perm) {
    m.shape.push_back(s[p]);
    m.stride.push_back(st[p]);
  }
  return m;
}

template <typename MakeMove>
FCompute GatherCompute(MakeMove make) {
  return [make](const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
    const Move m = make(attrs, in[0].shape_);
    MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
      StridedGather(m.shape, m.stride, m.offset, in[0].dptr<DType>(), out[0].dptr<DType>(), req[0]);
    });
  };
}

Move TransposeMove(const NodeAttrs& attrs, const TShape& s) { return PermuteMove(s, Permutation(attrs, s)); }

Move SwapMove(const NodeAttrs& attrs, const TShape& s) {
  const auto& p = attrs.get<SwapAxisParam>();
  std::vector<int> perm(s.ndim());
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[NormAxis(attrs, p.dim1, s)], perm[NormAxis(attrs, p.dim2, s)]);
  return PermuteMove(s, perm);
}

Move FlipMove(const NodeAttrs& attrs, const TShape& s) {
  Move m;
  m.shape.assign(s.begin(), s.end());
  m.stride = ContiguousStrides(s);
  for (dim_t a : attrs.get<FlipParam>().axis) {
    const int ax = NormAxis(attrs, a, s);
    if (m.stride[ax] > 0 && s[ax] > 0) {  // an axis listed twice stays flipped once
      m.offset += (s[ax] - 1) * m.stride[ax];
      m.stride[ax] = -m.stride[ax];
    }
  }
  return m;
}

void CheckNCHW(const NodeAttrs& attrs, const TShape& s) {
  MX_CHECK_KIND(s.ndim() == 4, "ValueError") << attrs.op->name << ": expects a 4-D (N, C, H, W) input, got shape " << s;
}

Move DepthToSpaceMove(const NodeAttrs& attrs, const TShape& s) {
  const int64_t b = attrs.get<BlockSizeParam>().block_size;
  const int64_t N = s[0], C = s[1], H = s[2], W = s[3], Co = C / (b * b);
  // input viewed as (N, b1, b2, Co, H, W); output is (N, Co, H, b1, W, b2)
  Move m;
  m.shape = {N, Co, H, b, W, b};
  m.stride = {C * H * W, H * W, W, b * Co * H * W, 1, Co * H * W};
  return m;
}

Move SpaceToDepthMove(const NodeAttrs& attrs, const TShape& s) {
  const int64_t b = attrs.get<BlockSizeParam>().block_size;
  const int64_t N = s[0], C = s[1], H = s[2], W = s[3];
  // input viewed as (N, C, H/b, b1, W/b, b2); output is (N, b1, b2, C, H/b, W/b)
  Move m;
  m.shape = {N, b, b, C, H / b, W / b};
  m.stride = {C * H * W, W, 1, H * W, b * W, b};
  return m;
}

Op& GatherFamily(Op& op, FCompute fc) {
  return op.set_num_inputs(1)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", "Input array.")
      .set_infer_type(ElemwiseType)
      .set_compute(Context::kCPU, fc);
}

/*! \brief Gradient: the op `inverse` undoes the forward; it runs on the output gradient with the forward's params. */
FGradient InverseOpGrad(const char* inverse) {
  return [inverse](const NodePtr& n, const std::vector<NodeEntry>& og) {
    return std::vector<NodeEntry>{
        MakeNode(inverse, n->attrs.name + "_backward", {og[0]}, {n->attrs.dict.begin(), n->attrs.dict.end()})};
  };
}

struct Registrar {
  Registrar() {
    MXNET_REGISTER_OP_FAMILY(transpose, GatherFamily, GatherCompute(TransposeMove))
        .describe("Permutes the dimensions of an array: out.shape[i] = data.shape[axes[i]].")
        .add_arguments(TransposeParam::__FIELDS__())
        .set_attr_parser(ParamParser<TransposeParam>)
        .set_infer_shape([](const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
          if (!(*in)[0].IsKnown()) return false;
          AssignShape(attrs, &(*out)[0], TShape(TransposeMove(attrs, (*in)[0]).shape), "output", 0);
          return true;
        })
        .set_gradient([](const NodePtr& n, const std::vector<NodeEntry>& og) {
          const TShape& axes = n->attrs.get<TransposeParam>().axes;
          if (axes.ndim() <= 0) return InverseOpGrad("transpose")(n, og);  // reversing is its own inverse
          std::vector<dim_t> inv(axes.ndim());
          for (int i = 0; i < axes.ndim(); ++i) inv[axes[i] < 0 ? axes[i] + axes.ndim() : axes[i]] = i;
          return std::vector<NodeEntry>{
              MakeNode("transpose", n->attrs.name + "_backward", {og[0]}, {{"axes", TShape(inv).ToString()}})};
        });

    MXNET_REGISTER_OP_FAMILY(SwapAxis, GatherFamily, GatherCompute(SwapMove))
        .add_alias("swapaxes")
        .describe("Interchanges two axes of an array.")
        .add_arguments(SwapAxisParam::__FIELDS__())
        .set_attr_parser(ParamParser<SwapAxisParam>)
        .set_infer_shape([](const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
          if (!(*in)[0].IsKnown()) return false;
          AssignShape(attrs, &(*out)[0], TShape(SwapMove(attrs, (*in)[0]).shape), "output", 0);
          return true;
        })
        .set_gradient(InverseOpGrad("SwapAxis"));

    MXNET_REGISTER_OP_FAMILY(reverse, GatherFamily, GatherCompute(FlipMove))
        .add_alias("flip")
        .describe("Reverses the order of elements along the given axes, keeping the shape.")
        .add_arguments(FlipParam::__FIELDS__())
        .set_attr_parser(ParamParser<FlipParam>)
        .set_infer_shape([](const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
          if (!(*in)[0].IsKnown()) return false;
          FlipMove(attrs, (*in)[0]);  // validates the axes
          AssignShape(attrs, &(*out)[0], (*in)[0], "output", 0);
          return true;
        })
        .set_gradient(InverseOpGrad("reverse"));

    MXNET_REGISTER_OP_FAMILY(depth_to_space, GatherFamily, GatherCompute(DepthToSpaceMove))
        .describe(
            "Rearranges (N, C, H, W) into (N, C/(b*b), H*b, W*b) by moving depth blocks into space "
            "(DCR order, as MXNet).")
        .add_arguments(BlockSizeParam::__FIELDS__())
        .set_attr_parser(ParamParser<BlockSizeParam>)
        .set_infer_shape([](const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
          const TShape& s = (*in)[0];
          if (!s.IsKnown()) return false;
          CheckNCHW(attrs, s);
          const int64_t b = attrs.get<BlockSizeParam>().block_size;
          MX_CHECK_KIND(s[1] % (b * b) == 0, "ValueError") << attrs.op->name << ": channels " << s[1] << " of shape "
                                                           << s << " are not divisible by block_size^2 = " << b * b;
          AssignShape(attrs, &(*out)[0], TShape{s[0], s[1] / (b * b), s[2] * b, s[3] * b}, "output", 0);
          return true;
        })
        .set_gradient(InverseOpGrad("space_to_depth"));

    MXNET_REGISTER_OP_FAMILY(space_to_depth, GatherFamily, GatherCompute(SpaceToDepthMove))
        .describe("Rearranges (N, C, H, W) into (N, C*b*b, H/b, W/b) by moving spatial blocks into depth.")
        .add_arguments(BlockSizeParam::__FIELDS__())
        .set_attr_parser(ParamParser<BlockSizeParam>)
        .set_infer_shape([](const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
          const TShape& s = (*in)[0];
          if (!s.IsKnown()) return false;
          CheckNCHW(attrs, s);
          const int64_t b = attrs.get<BlockSizeParam>().block_size;
          MX_CHECK_KIND(s[2] % b == 0 && s[3] % b == 0, "ValueError")
              << attrs.op->name << ": spatial dims of shape " << s << " are not divisible by block_size " << b;
          AssignShape(attrs, &(*out)[0], TShape{s[0], s[1] * b * b, s[2] / b, s[3] / b}, "output", 0);
          return true;
        })
        .set_gradient(InverseOpGrad("depth_to_space"));
  }
};
const Registrar registrar;

}  // namespace
}  // namespace op
}  // namespace mxnet
