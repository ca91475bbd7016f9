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
DMLC_REGISTER_PARAMETER(SliceParam);

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
DMLC_REGISTER_PARAMETER(SliceAssignScalarParam);

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
DMLC_REGISTER_PARAMETER(SliceAxisParam);

struct SliceLikeParam : public dmlc::Parameter<SliceLikeParam> {
  TShape axes;
  DMLC_DECLARE_PARAMETER(SliceLikeParam) {
    DMLC_DECLARE_FIELD(axes).set_default(TShape(0)).describe(
        "List of axes on which input data will be sliced according to the corresponding size of the second "
        "input. By default will slice on all axes. Negative axes are supported.");
  }
};
DMLC_REGISTER_PARAMETER(SliceLikeParam);

namespace {

/*! \brief Per-axis (begin, step, count) of a slice of an array of shape `s`. */
struct Ranges {
  std::vector<int64_t> begin, step, count;
  TShape OutShape() const { return TShape(count); }
};

Ranges FullRanges(const TShape& s) {
  Ranges r;
  for (int i = 0; i < s.ndim(); ++i) {
    r.begin.push_back(0);
    r.step.push_back(1);
    r.count.push_back(s[i]);
  }
  return r;
}

/*! \brief Python's slice.indices(len) followed by the element count. */
void PythonRange(dmlc::optional<int64_t> b, dmlc::optional<int64_t> e, int64_t st, int64_t len, int64_t* begin,
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

Ranges SliceRanges(const NodeAttrs& attrs, const OptionalIntTuple& b, const OptionalIntTuple& e,
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

Ranges SliceOpRanges(const NodeAttrs& attrs, const TShape& s) {
  const auto& p = attrs.get<SliceParam>();
  return SliceRanges(attrs, p.begin, p.end, p.step, s);
}

Ranges AssignScalarRanges(const NodeAttrs& attrs, const TShape& s) {
  const auto& p = attrs.get<SliceAssignScalarParam>();
  return SliceRanges(attrs, p.begin, p.end, p.step, s);
}

Ranges SliceAxisRanges(const NodeAttrs& attrs, const TShape& s) {
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

std::vector<int> SliceLikeAxes(const NodeAttrs& attrs, const TShape& s, const TShape& like) {
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

Ranges SliceLikeRanges(const NodeAttrs& attrs, const TShape& s, const TShape& like) {
  Ranges r = FullRanges(s);
  for (int ax : SliceLikeAxes(attrs, s, like)) {
    MX_CHECK_KIND(like[ax] <= s[ax], "ValueError")
        << attrs.op->name << ": cannot slice data of shape " << s << " like shape " << like << " along axis " << ax;
    r.count[ax] = like[ax];
  }
  return r;
}

/*! \brief The strided walk of input `s` that visits the slice `r` in row-major order. */
void RangeWalk(const Ranges& r, const TShape& s, std::vector<int64_t>* stride, int64_t* offset) {
  const auto cs = ContiguousStrides(s);
  stride->resize(s.ndim());
  *offset = 0;
  for (int i = 0; i < s.ndim(); ++i) {
    (*stride)[i] = cs[i] * r.step[i];
    *offset += cs[i] * r.begin[i];
  }
}

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
