/*!
 * \file elemwise_misc.cc
 * \brief Element-wise helpers: Cast, clip, BlockGrad/stop_gradient, add_n/ElementWiseSum,
 *        and the broadcast moves broadcast_to / broadcast_like / broadcast_axis with their
 *        shared gradient `_backward_broadcast` (sum back to the input's shape).
 */
#include <cstring>
#include <string>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/binary_functors.h"
#include "operator/common/broadcast_util.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/common/reduce_kernels.h"
#include "operator/tensor/clip_param.h"

namespace mxnet {
namespace op {

struct CastParam : public dmlc::Parameter<CastParam> {
  int dtype;
  DMLC_DECLARE_PARAMETER(CastParam) {
    DMLC_DECLARE_FIELD(dtype).MXNET_ADD_ALL_DTYPES.describe("Output data type.");
  }
};
DMLC_REGISTER_PARAMETER(CastParam);

DMLC_REGISTER_PARAMETER(ClipParam);

struct AddNParam : public dmlc::Parameter<AddNParam> {
  int num_args;
  DMLC_DECLARE_PARAMETER(AddNParam) {
    DMLC_DECLARE_FIELD(num_args).set_lower_bound(1).describe("Number of inputs to be summed.");
  }
};
DMLC_REGISTER_PARAMETER(AddNParam);

struct BroadcastToParam : public dmlc::Parameter<BroadcastToParam> {
  TShape shape;
  DMLC_DECLARE_PARAMETER(BroadcastToParam) {
    DMLC_DECLARE_FIELD(shape).set_default(TShape(0)).describe(
        "The shape of the desired array; 0 keeps the input dim, e.g. (0, 4) on (2, 1) gives (2, 4).");
  }
};
DMLC_REGISTER_PARAMETER(BroadcastToParam);

struct BroadcastAxisParam : public dmlc::Parameter<BroadcastAxisParam> {
  TShape axis, size;
  DMLC_DECLARE_PARAMETER(BroadcastAxisParam) {
    DMLC_DECLARE_FIELD(axis).set_default(TShape(0)).describe("The axes to perform the broadcasting.");
    DMLC_DECLARE_FIELD(size).set_default(TShape(0)).describe("Target sizes of the broadcasting axes.");
  }
};
DMLC_REGISTER_PARAMETER(BroadcastAxisParam);

struct BroadcastLikeParam : public dmlc::Parameter<BroadcastLikeParam> {
  dmlc::optional<TShape> lhs_axes, rhs_axes;
  DMLC_DECLARE_PARAMETER(BroadcastLikeParam) {
    DMLC_DECLARE_FIELD(lhs_axes).set_default(dmlc::optional<TShape>()).describe(
        "Axes of lhs to broadcast (None: all, to rhs's shape).");
    DMLC_DECLARE_FIELD(rhs_axes).set_default(dmlc::optional<TShape>()).describe(
        "Axes of rhs whose sizes the lhs_axes take, pairwise.");
  }
};
DMLC_REGISTER_PARAMETER(BroadcastLikeParam);

namespace {

void CastCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                 const std::vector<TBlob>& out) {
  MXNET_TYPE_SWITCH(in[0].type_flag_, SType, {
    MXNET_TYPE_SWITCH(out[0].type_flag_, DType, {
      CastCopy(in[0].dptr<SType>(), out[0].dptr<DType>(), in[0].Size(), req[0]);
    });
  });
}

void ClipCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = attrs.get<ClipParam>();
  // Integers in their own type (exact beyond 2^53). min(max(x, a_min), a_max): a_min > a_max
  // gives a_max everywhere and NaN stays NaN, as numpy's clip.
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    using C = compute_t<DType>;
    const C lo = math::ScalarAs<C>(p.a_min), hi = math::ScalarAs<C>(p.a_max);
    MapUnary<DType, C>(in[0].dptr<DType>(), out[0].dptr<DType>(), in[0].Size(), req[0], [lo, hi](C x) {
      const C y = x < lo ? lo : x;
      return y > hi ? hi : y;
    });
  });
}

/*! \brief (ograd, x): the gradient passes where x lies inside [a_min, a_max]. */
void ClipBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = attrs.get<ClipParam>();
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    using C = real_compute_t<DType>;
    const C lo = static_cast<C>(p.a_min), hi = static_cast<C>(p.a_max);
    MapBinary<DType, C>(in[0].dptr<DType>(), in[1].dptr<DType>(), out[0].dptr<DType>(), in[0].Size(), req[0],
                        [lo, hi](C g, C x) { return (x >= lo && x <= hi) ? g : C(0); });
  });
}

void CopyCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                 const std::vector<TBlob>& out) {
  if (req[0] == kNullOp || in[0].dptr_ == out[0].dptr_) return;
  if (req[0] != kAddTo) {
    std::memcpy(out[0].dptr_, in[0].dptr_, out[0].Bytes());
    return;
  }
  MXNET_TYPE_SWITCH(out[0].type_flag_, DType, {
    MapUnary(in[0].dptr<DType>(), out[0].dptr<DType>(), out[0].Size(), kAddTo, [](compute_t<DType> x) { return x; });
  });
}

void AddNCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                 const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  MXNET_TYPE_SWITCH(out[0].type_flag_, DType, {
    using C = compute_t<DType>;
    std::vector<const DType*> src;
    for (const auto& b : in) src.push_back(b.dptr<DType>());
    DType* y = out[0].dptr<DType>();
    const OpReqType r = req[0];
    // Sums in input order per element, so the result is the same for any thread count
    // and with `out` aliasing an input.
    ParallelChunks(out[0].Size(), [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        C acc = static_cast<C>(src[0][i]);
        for (size_t k = 1; k < src.size(); ++k) acc = C(acc + static_cast<C>(src[k][i]));
        Store(y + i, r, acc);
      }
    });
  });
}

bool BroadcastToShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& s = (*in)[0];
  if (!s.IsKnown()) return false;
  const TShape& t = attrs.get<BroadcastToParam>().shape;
  MX_CHECK_KIND(t.ndim() == s.ndim(), "ValueError")
      << attrs.op->name << ": shape " << t << " must have the same number of dims as the input " << s;
  TShape o = t;
  for (int i = 0; i < s.ndim(); ++i) {
    if (t[i] == 0) o[i] = s[i];
    MX_CHECK_KIND(s[i] == o[i] || s[i] == 1, "ValueError")
        << attrs.op->name << ": cannot broadcast input of shape " << s << " to " << t;
  }
  AssignShape(attrs, &(*out)[0], o, "output", 0);
  return true;
}

/*! \brief rhs's shape, or lhs's with each of lhs_axes taking the size of its rhs_axes partner. */
bool BroadcastLikeShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape &lhs = (*in)[0], &rhs = (*in)[1];
  if (!lhs.IsKnown() || !rhs.IsKnown()) return false;
  const auto& p = attrs.get<BroadcastLikeParam>();
  TShape o;
  if (!p.lhs_axes.has_value() && !p.rhs_axes.has_value()) {
    MX_CHECK_KIND(BroadcastShapes(lhs, rhs, &o) && o == rhs, "ValueError")
        << attrs.op->name << ": cannot broadcast lhs of shape " << lhs << " like rhs of shape " << rhs;
  } else {
    MX_CHECK_KIND(p.lhs_axes.has_value() && p.rhs_axes.has_value() &&
                      p.lhs_axes.value().ndim() == p.rhs_axes.value().ndim(),
                  "ValueError")
        << attrs.op->name << ": lhs_axes and rhs_axes must be given together, with as many axes each";
    o = lhs;
    const TShape &la = p.lhs_axes.value(), &ra = p.rhs_axes.value();
    for (int i = 0; i < la.ndim(); ++i) {
      const dim_t l = la[i] < 0 ? la[i] + lhs.ndim() : la[i], r = ra[i] < 0 ? ra[i] + rhs.ndim() : ra[i];
      MX_CHECK_KIND(l >= 0 && l < lhs.ndim() && r >= 0 && r < rhs.ndim(), "ValueError")
          << attrs.op->name << ": axis pair (" << la[i] << ", " << ra[i] << ") is out of range for lhs of shape "
          << lhs << " and rhs of shape " << rhs;
      MX_CHECK_KIND(lhs[l] == 1 || lhs[l] == rhs[r], "ValueError")
          << attrs.op->name << ": cannot broadcast axis " << la[i] << " of lhs (size " << lhs[l] << ") to size "
          << rhs[r];
      o[l] = rhs[r];
    }
  }
  AssignShape(attrs, &(*out)[0], o, "output", 0);
  return true;
}

bool BroadcastAxisShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& s = (*in)[0];
  if (!s.IsKnown()) return false;
  const auto& p = attrs.get<BroadcastAxisParam>();
  MX_CHECK_KIND(p.axis.ndim() == p.size.ndim(), "ValueError")
      << attrs.op->name << ": axis " << p.axis << " and size " << p.size << " must have the same length";
  TShape o = s;
  for (int i = 0; i < p.axis.ndim(); ++i) {
    const int64_t a = p.axis[i] < 0 ? p.axis[i] + s.ndim() : p.axis[i];
    MX_CHECK_KIND(a >= 0 && a < s.ndim(), "ValueError")
        << attrs.op->name << ": axis " << p.axis[i] << " out of range for input of shape " << s;
    MX_CHECK_KIND(s[a] == 1, "ValueError")
        << attrs.op->name << ": axis " << a << " of input shape " << s << " has size " << s[a] << ", expected 1";
    o[a] = p.size[i];
  }
  AssignShape(attrs, &(*out)[0], o, "output", 0);
  return true;
}

void BroadcastToCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    BroadcastCopy(in[0].shape_, in[0].dptr<DType>(), out[0].shape_, out[0].dptr<DType>(), req[0]);
  });
}

/*! \brief (ograd, data) -> ograd summed over the axes where data was broadcast. */
void BroadcastBackward(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const TShape& os = in[0].shape_;
  const TShape& ts = out[0].shape_;
  std::vector<bool> reduce(os.ndim());
  for (int i = 0; i < os.ndim(); ++i) {
    const int ti = ts.ndim() - os.ndim() + i;
    reduce[i] = (ti < 0 || ts[ti] == 1) && os[i] != 1;
  }
  const ReducePlan plan = MakeReducePlan(os, reduce);
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    Reduce<SumReducer, real_compute_t<DType>>(plan, in[0].dptr<DType>(), out[0].dptr<DType>(), req[0]);
  });
}

std::vector<NodeEntry> BroadcastGrad(const NodePtr& n, const std::vector<NodeEntry>& og) {
  std::vector<NodeEntry> g{MakeNode("_backward_broadcast", n->attrs.name + "_backward", {og[0], n->inputs[0]})};
  for (size_t i = 1; i < n->inputs.size(); ++i) g.push_back(MakeZeroGrad(n, static_cast<uint32_t>(i)));
  return g;
}

bool OutTypeFromInput(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  AssignType(attrs, &(*out)[0], (*in)[0], "output", 0);
  return (*out)[0] != -1;
}

bool OutTypeFromSecond(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  AssignType(attrs, &(*out)[0], (*in)[1], "output", 0);
  return (*out)[0] != -1;
}

bool OutShapeFromSecond(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  AssignShape(attrs, &(*out)[0], (*in)[1], "output", 0);
  return (*out)[0].IsKnown();
}

MXNET_REGISTER_OP(Cast)
    .add_alias("cast")
    .describe("Casts all elements of the input to a new type (float to integer truncates toward zero).")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The input.")
    .add_arguments(CastParam::__FIELDS__())
    .set_attr_parser(ParamParser<CastParam>)
    .set_infer_shape(ElemwiseShape)
    .set_infer_type([](const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
      AssignType(attrs, &(*out)[0], attrs.get<CastParam>().dtype, "output", 0);
      return (*in)[0] != -1;
    })
    .set_compute(Context::kCPU, CastCompute)
    .set_gradient([](const NodePtr& n, const std::vector<NodeEntry>& og) {
      return std::vector<NodeEntry>{MakeNode("_backward_Cast", n->attrs.name + "_backward", {og[0], n->inputs[0]})};
    });
MXNET_REGISTER_OP(_backward_Cast)
    .describe("Gradient of Cast: the output gradient cast back to the input's dtype.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output.")
    .add_argument("data", "NDArray-or-Symbol", "Forward input (gives the dtype).")
    .set_infer_shape([](const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
      AssignShape(attrs, &(*out)[0], (*in)[0], "output", 0);
      return (*out)[0].IsKnown();
    })
    .set_infer_type(OutTypeFromSecond)
    .set_compute(Context::kCPU, CastCompute);

MXNET_REGISTER_OP(clip)
    .describe("Clips (limits) the values in an array to [a_min, a_max]; the gradient is zero outside.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "Input array.")
    .add_arguments(ClipParam::__FIELDS__())
    .set_attr_parser(ParamParser<ClipParam>)
    .set_infer_shape(ElemwiseShape)
    .set_infer_type(ElemwiseType)
    .set_inplace_option([](const NodeAttrs&) { return InplacePairs{{0, 0}}; })
    .set_compute(Context::kCPU, ClipCompute)
    .set_gradient([](const NodePtr& n, const std::vector<NodeEntry>& og) {
      return std::vector<NodeEntry>{MakeNode("_backward_clip", n->attrs.name + "_backward", {og[0], n->inputs[0]},
                                             {n->attrs.dict.begin(), n->attrs.dict.end()})};
    });
MXNET_REGISTER_OP(_backward_clip)
    .describe("Gradient of clip.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output.")
    .add_argument("data", "NDArray-or-Symbol", "Forward input.")
    .add_arguments(ClipParam::__FIELDS__())
    .set_attr_parser(ParamParser<ClipParam>)
    .set_infer_shape(ElemwiseShape)
    .set_infer_type(ElemwiseType)
    .set_compute(Context::kCPU, ClipBackward)
    // ograd masked to [a_min, a_max]: linear in ograd, piecewise constant in data.
    .set_gradient([](const NodePtr& n, const std::vector<NodeEntry>& og) {
      return std::vector<NodeEntry>{MakeNode("_backward_clip", n->attrs.name + "_backward", {og[0], n->inputs[1]},
                                             {n->attrs.dict.begin(), n->attrs.dict.end()}),
                                    MakeZeroGrad(n, 1)};
    });

MXNET_REGISTER_OP(BlockGrad)
    .add_alias("stop_gradient")
    .describe("Stops gradient computation: the output equals the input, the input's gradient is zero.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The input array.")
    .set_infer_shape(ElemwiseShape)
    .set_infer_type(ElemwiseType)
    .set_inplace_option([](const NodeAttrs&) { return InplacePairs{{0, 0}}; })
    .set_inplace_identity([](const NodeAttrs&) { return std::vector<bool>{true}; })
    .set_compute(Context::kCPU, CopyCompute)
    .set_gradient(ZeroGrads);

MXNET_REGISTER_OP(add_n)
    .add_alias("ElementWiseSum")
    .describe("Adds all input arguments element-wise (all of the same shape and dtype).")
    .set_num_inputs([](const NodeAttrs& a) { return static_cast<uint32_t>(a.get<AddNParam>().num_args); })
    .set_num_outputs(1)
    .set_key_var_num_args("num_args")
    .add_argument("args", "NDArray-or-Symbol[]", "Positional input arguments")
    .add_arguments(AddNParam::__FIELDS__())
    .set_attr_parser(ParamParser<AddNParam>)
    .set_infer_shape(ElemwiseShape)
    .set_infer_type(ElemwiseType)
    .set_inplace_option([](const NodeAttrs&) { return InplacePairs{{0, 0}}; })
    // Unused on the CPU; the CUDA kernel accumulates there when it takes the inputs in batches.
    .set_resource_request(std::vector<ResourceRequest>{ResourceRequest::kTempSpace})
    .set_compute(Context::kCPU, AddNCompute)
    .set_gradient([](const NodePtr& n, const std::vector<NodeEntry>& og) {
      return std::vector<NodeEntry>(n->inputs.size(), og[0]);
    });

MXNET_REGISTER_OP(broadcast_to)
    .describe("Broadcasts the input array to a new shape (size-1 dims are repeated).")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The input")
    .add_arguments(BroadcastToParam::__FIELDS__())
    .set_attr_parser(ParamParser<BroadcastToParam>)
    .set_infer_shape(BroadcastToShape)
    .set_infer_type(ElemwiseType)
    .set_compute(Context::kCPU, BroadcastToCompute)
    .set_gradient(BroadcastGrad);
MXNET_REGISTER_OP(broadcast_axis)
    .add_alias("broadcast_axes")
    .describe("Broadcasts the input array over particular (size-1) axes to the given sizes.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The input")
    .add_arguments(BroadcastAxisParam::__FIELDS__())
    .set_attr_parser(ParamParser<BroadcastAxisParam>)
    .set_infer_shape(BroadcastAxisShape)
    .set_infer_type(ElemwiseType)
    .set_compute(Context::kCPU, BroadcastToCompute)
    .set_gradient(BroadcastGrad);
MXNET_REGISTER_OP(broadcast_like)
    .describe("Broadcasts lhs to the shape of rhs.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .add_argument("lhs", "NDArray-or-Symbol", "First input.")
    .add_argument("rhs", "NDArray-or-Symbol", "Second input.")
    .add_arguments(BroadcastLikeParam::__FIELDS__())
    .set_attr_parser(ParamParser<BroadcastLikeParam>)
    .set_infer_shape(BroadcastLikeShape)
    .set_infer_type(OutTypeFromInput)
    .set_compute(Context::kCPU, BroadcastToCompute)
    .set_gradient(BroadcastGrad);
MXNET_REGISTER_OP(_backward_broadcast)
    .describe("Sums the output gradient over the broadcast axes back to the shape of data.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output.")
    .add_argument("data", "NDArray-or-Symbol", "Forward input (gives the shape).")
    .set_infer_shape(OutShapeFromSecond)
    .set_infer_type(OutTypeFromInput)
    // Unused on the CPU; the CUDA kernel keeps the partial sums of long sums there.
    .set_resource_request(std::vector<ResourceRequest>{ResourceRequest::kTempSpace})
    .set_compute(Context::kCPU, BroadcastBackward);

}  // namespace
}  // namespace op
}  // namespace mxnet
