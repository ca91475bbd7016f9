/*!
 * \file slice.cc
 * \brief Basic slicing: slice (crop), slice_axis, slice_like, their _backward_* ops, and the
 *        slice assignments _slice_assign / _slice_assign_scalar. Every one reduces to a
 *        per-axis range (begin, step, count), walked by the strided gather/scatter helpers.
 *        Ranges follow Python's rules: negative indices wrap, out-of-range ends clamp, an
 *        empty range gives a zero-size axis.
 */
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/axis_util.h"
#include "operator/common/backward_with_data.h"
#include "operator/common/strided_copy.h"
#include "operator/tensor/slice.h"

namespace mxnet {
namespace op {

DMLC_REGISTER_PARAMETER(SliceParam);
DMLC_REGISTER_PARAMETER(SliceAssignScalarParam);
DMLC_REGISTER_PARAMETER(SliceAxisParam);
DMLC_REGISTER_PARAMETER(SliceLikeParam);

namespace {

/*! \brief out = data[r]. */
void GatherRanges(const Ranges& r, const TBlob& data, const TBlob& out, OpReqType req) {
  std::vector<int64_t> stride;
  int64_t offset;
  RangeWalk(r, data.shape_, &stride, &offset);
  MXNET_TYPE_SWITCH(data.type_flag_, DType,
                    { StridedGather(r.count, stride, offset, data.dptr<DType>(), out.dptr<DType>(), req); });
}

/*! \brief big[r] (+)= small, other elements of big zeroed first when zero_rest. */
void ScatterRanges(const Ranges& r, const TBlob& small, const TBlob& big, OpReqType req, bool zero_rest) {
  if (req == kNullOp) return;
  if (zero_rest) ZeroForReq(big, req);
  std::vector<int64_t> stride;
  int64_t offset;
  RangeWalk(r, big.shape_, &stride, &offset);
  MXNET_TYPE_SWITCH(big.type_flag_, DType, {
    StridedScatter(r.count, stride, offset, small.dptr<DType>(), big.dptr<DType>(), req == kAddTo);
  });
}

/*! \brief Copies a into out (unless in place), the first step of both slice assignments. */
void CopyUnlessInplace(const TBlob& a, const TBlob& out, OpReqType req) {
  if (req == kWriteInplace || a.dptr_ == out.dptr_) return;
  std::memcpy(out.dptr_, a.dptr_, a.Bytes());
}

using RangeFn = Ranges (*)(const NodeAttrs&, const TShape&);

template <RangeFn F>
bool RangeShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  if (!(*in)[0].IsKnown()) return false;
  AssignShape(attrs, &(*out)[0], F(attrs, (*in)[0]).OutShape(), "output", 0);
  return true;
}

template <RangeFn F>
void RangeForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  GatherRanges(F(attrs, in[0].shape_), in[0], out[0], req[0]);
}

/*! \brief Backward of a range op: inputs (ograd, data); the gradient is ograd scattered into zeros. */
template <RangeFn F>
void RangeBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  ScatterRanges(F(attrs, in[1].shape_), in[0], out[0], req[0], true);
}

struct Registrar {
  Registrar() {
    MXNET_REGISTER_OP(slice)
        .add_alias("crop")
        .add_alias("_npi_slice")
        .describe(
            "Slices a region of the array: per axis Python-style begin:end:step (entries may be None; "
            "negative indices wrap; axes beyond len(begin) are kept whole).")
        .set_num_inputs(1)
        .set_num_outputs(1)
        .add_argument("data", "NDArray-or-Symbol", "Source input")
        .add_arguments(SliceParam::__FIELDS__())
        .set_attr_parser(ParamParser<SliceParam>)
        .set_infer_shape(RangeShape<SliceOpRanges>)
        .set_infer_type(ElemwiseType)
        .set_compute(Context::kCPU, RangeForward<SliceOpRanges>)
        .set_gradient(GradWithData("_backward_slice"));
    MXNET_REGISTER_OP_FAMILY(_backward_slice, BackwardWithData, "Gradient of slice.", RangeBackward<SliceOpRanges>)
        .add_arguments(SliceParam::__FIELDS__())
        .set_attr_parser(ParamParser<SliceParam>);

    MXNET_REGISTER_OP(slice_axis)
        .describe("Slices along a given axis: data[..., begin:end, ...] (end None = to the end of the axis).")
        .set_num_inputs(1)
        .set_num_outputs(1)
        .add_argument("data", "NDArray-or-Symbol", "Source input")
        .add_arguments(SliceAxisParam::__FIELDS__())
        .set_attr_parser(ParamParser<SliceAxisParam>)
        .set_infer_shape(RangeShape<SliceAxisRanges>)
        .set_infer_type(ElemwiseType)
        .set_compute(Context::kCPU, RangeForward<SliceAxisRanges>)
        .set_gradient(GradWithData("_backward_slice_axis"));
    MXNET_REGISTER_OP_FAMILY(_backward_slice_axis, BackwardWithData, "Gradient of slice_axis.",
                             RangeBackward<SliceAxisRanges>)
        .add_arguments(SliceAxisParam::__FIELDS__())
        .set_attr_parser(ParamParser<SliceAxisParam>);

    MXNET_REGISTER_OP(slice_like)
        .describe("Slices the leading part of data along `axes` (all axes by default) to the sizes of shape_like.")
        .set_num_inputs(2)
        .set_num_outputs(1)
        .add_argument("data", "NDArray-or-Symbol", "Source input")
        .add_argument("shape_like", "NDArray-or-Symbol", "Shape like input")
        .add_arguments(SliceLikeParam::__FIELDS__())
        .set_attr_parser(ParamParser<SliceLikeParam>)
        .set_infer_shape([](const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
          if (!(*in)[0].IsKnown() || !(*in)[1].IsKnown()) return false;
          AssignShape(attrs, &(*out)[0], SliceLikeRanges(attrs, (*in)[0], (*in)[1]).OutShape(), "output", 0);
          return true;
        })
        .set_infer_type([](const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
          AssignType(attrs, &(*out)[0], (*in)[0], "output", 0);
          return (*in)[0] >= 0;
        })
        .set_compute(Context::kCPU,
                     [](const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
                       GatherRanges(SliceLikeRanges(attrs, in[0].shape_, in[1].shape_), in[0], out[0], req[0]);
                     })
        .set_gradient(GradWithData("_backward_slice_like"));
    // The slice of slice_like always starts at 0, so its extent is the output gradient's shape.
    MXNET_REGISTER_OP_FAMILY(
        _backward_slice_like, BackwardWithData, "Gradient of slice_like.",
        [](const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
           const std::vector<TBlob>& out) { ScatterRanges(FullRanges(in[0].shape_), in[0], out[0], req[0], true); })
        .add_arguments(SliceLikeParam::__FIELDS__())
        .set_attr_parser(ParamParser<SliceLikeParam>);

    MXNET_REGISTER_OP(_slice_assign)
        .add_alias("_crop_assign")
        .describe("Returns lhs with the region lhs[begin:end:step] replaced by rhs.")
        .set_num_inputs(2)
        .set_num_outputs(1)
        .add_argument("lhs", "NDArray-or-Symbol", "Source input")
        .add_argument("rhs", "NDArray-or-Symbol", "value to assign")
        .add_arguments(SliceParam::__FIELDS__())
        .set_attr_parser(ParamParser<SliceParam>)
        .set_infer_shape([](const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
          if (!(*in)[0].IsKnown()) return false;
          const TShape region = SliceOpRanges(attrs, (*in)[0]).OutShape();
          AssignShape(attrs, &(*in)[1], region, "rhs", 1);
          AssignShape(attrs, &(*out)[0], (*in)[0], "output", 0);
          return true;
        })
        .set_infer_type(ElemwiseType)
        .set_inplace_option([](const NodeAttrs&) {
          return InplacePairs{{0, 0}};
        })
        .set_compute(Context::kCPU,
                     [](const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
                       if (req[0] == kNullOp) return;
                       MX_CHECK_KIND(req[0] != kAddTo, "ValueError") << attrs.op->name << ": kAddTo is not supported";
                       CopyUnlessInplace(in[0], out[0], req[0]);
                       ScatterRanges(SliceOpRanges(attrs, in[0].shape_), in[1], out[0], kWriteTo, false);
                     })
        .set_gradient([](const NodePtr& n, const std::vector<NodeEntry>& og) {
          const std::string nm = n->attrs.name + "_backward";
          auto dict = n->attrs.dict;
          NodeEntry drhs = MakeNode("slice", nm + "_rhs", {og[0]}, dict);
          dict["scalar"] = "0";
          return std::vector<NodeEntry>{MakeNode("_slice_assign_scalar", nm + "_lhs", {og[0]}, dict), drhs};
        });

    MXNET_REGISTER_OP(_slice_assign_scalar)
        .add_alias("_crop_assign_scalar")
        .describe("Returns data with the region data[begin:end:step] set to scalar.")
        .set_num_inputs(1)
        .set_num_outputs(1)
        .add_argument("data", "NDArray-or-Symbol", "Source input")
        .add_arguments(SliceAssignScalarParam::__FIELDS__())
        .set_attr_parser(ParamParser<SliceAssignScalarParam>)
        .set_infer_shape([](const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
          if (!(*in)[0].IsKnown()) return false;
          AssignScalarRanges(attrs, (*in)[0]);  // validates begin/end/step
          AssignShape(attrs, &(*out)[0], (*in)[0], "output", 0);
          return true;
        })
        .set_infer_type(ElemwiseType)
        .set_inplace_option([](const NodeAttrs&) {
          return InplacePairs{{0, 0}};
        })
        .set_compute(Context::kCPU,
                     [](const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
                       if (req[0] == kNullOp) return;
                       MX_CHECK_KIND(req[0] != kAddTo, "ValueError") << attrs.op->name << ": kAddTo is not supported";
                       CopyUnlessInplace(in[0], out[0], req[0]);
                       const Ranges r = AssignScalarRanges(attrs, in[0].shape_);
                       std::vector<int64_t> stride;
                       int64_t offset;
                       RangeWalk(r, out[0].shape_, &stride, &offset);
                       const double v = attrs.get<SliceAssignScalarParam>().scalar;
                       MXNET_TYPE_SWITCH(out[0].type_flag_, DType, {
                         DType* o = out[0].dptr<DType>();
                         const DType dv = CastValue<double, DType>(v);
                         StridedRows(r.count, stride, offset, [&](int64_t so, int64_t, int64_t len, int64_t st) {
                           for (int64_t i = 0; i < len; ++i) o[so + i * st] = dv;
                         });
                       });
                     })
        .set_gradient([](const NodePtr& n, const std::vector<NodeEntry>& og) {
          auto dict = n->attrs.dict;
          dict["scalar"] = "0";
          return std::vector<NodeEntry>{MakeNode("_slice_assign_scalar", n->attrs.name + "_backward", {og[0]}, dict)};
        });
  }
};
const Registrar registrar;

}  // namespace
}  // namespace op
}  // namespace mxnet
