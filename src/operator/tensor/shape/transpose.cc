/*!
 * \file transpose.cc
 * \brief Ops that permute or mirror elements: transpose, SwapAxis (swapaxes), reverse
 *        (flip), depth_to_space, space_to_depth. All are strided gathers; each gradient is
 *        the inverse move applied to the output gradient.
 */
#include <string>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/op_family.h"
#include "operator/common/strided_copy.h"
#include "operator/tensor/shape/transpose.h"

namespace mxnet {
namespace op {

DMLC_REGISTER_PARAMETER(TransposeParam);
DMLC_REGISTER_PARAMETER(SwapAxisParam);
DMLC_REGISTER_PARAMETER(FlipParam);
DMLC_REGISTER_PARAMETER(BlockSizeParam);

namespace {

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

void CheckNCHW(const NodeAttrs& attrs, const TShape& s) {
  MX_CHECK_KIND(s.ndim() == 4, "ValueError") << attrs.op->name << ": expects a 4-D (N, C, H, W) input, got shape " << s;
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
