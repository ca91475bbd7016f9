/*!
 * \file concat_stack.cc
 * \brief Joining and splitting along an axis: Concat (concat), stack, SliceChannel (split)
 *        and _backward_Concat. All are one copy kernel: every array is viewed as
 *        (outer, mid, inner) around the axis and rows of mid*inner elements move between the
 *        pieces and the joined array. stack/split gradients are split/stack of the output
 *        gradients.
 */
#include <cstring>
#include <string>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/axis_util.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/common/parallel.h"
#include "operator/tensor/concat_param.h"
#include "operator/tensor/join_split.h"
#include "operator/tensor/stack_split_param.h"

namespace mxnet {
namespace op {

DMLC_REGISTER_PARAMETER(ConcatParam);
DMLC_REGISTER_PARAMETER(StackParam);
DMLC_REGISTER_PARAMETER(SliceChannelParam);

namespace {

/*! \brief Joins `in` (all of one dtype) along `axis` of `out` (concat: mids from the inputs). */
void JoinCompute(const std::vector<TBlob>& in, const TBlob& out, int axis, bool new_axis, OpReqType req) {
  const int64_t outer = out.shape_.ProdShape(0, axis);
  const int64_t inner = out.shape_.ProdShape(axis + 1, out.ndim());
  std::vector<int64_t> mids;
  for (const auto& b : in) mids.push_back(new_axis ? 1 : b.shape_[axis]);
  MXNET_TYPE_SWITCH(out.type_flag_, DType, {
    std::vector<DType*> ptrs;
    for (const auto& b : in) ptrs.push_back(static_cast<DType*>(b.dptr_));
    JoinSplit<DType>(true, ptrs, mids, outer, inner, out.dptr<DType>(), {req});
  });
}

/*! \brief Splits `in` along `axis` into `out` (each of in.shape[axis]/k or mids given by the outputs). */
void SplitCompute(const TBlob& in, const std::vector<TBlob>& out, int axis, const std::vector<int64_t>& mids,
                  const std::vector<OpReqType>& req) {
  const int64_t outer = in.shape_.ProdShape(0, axis);
  const int64_t inner = in.shape_.ProdShape(axis + 1, in.ndim());
  MXNET_TYPE_SWITCH(in.type_flag_, DType, {
    std::vector<DType*> ptrs;
    for (const auto& b : out) ptrs.push_back(b.dptr<DType>());
    JoinSplit<DType>(false, ptrs, mids, outer, inner, static_cast<DType*>(in.dptr_), req);
  });
}

/*! \brief Concat's axis and output shape; every dim but `dim` must agree. */
bool ConcatShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const auto& p = attrs.get<ConcatParam>();
  for (const auto& s : *in)
    if (!s.IsKnown()) return false;
  const TShape& s0 = (*in)[0];
  MX_CHECK_KIND(s0.ndim() > 0, "ValueError") << attrs.op->name << ": inputs must have at least 1 dim";
  const int axis = CheckAxis(attrs, p.dim, s0, "dim");
  TShape o = s0;
  o[axis] = 0;
  for (const auto& s : *in) {
    bool ok = s.ndim() == s0.ndim();
    for (int d = 0; ok && d < s0.ndim(); ++d) ok = d == axis || s[d] == s0[d];
    MX_CHECK_KIND(ok, "ValueError") << attrs.op->name << ": all input dims except dim=" << p.dim
                                    << " must match, got shapes " << ShapesToString(*in);
    o[axis] += s[axis];
  }
  AssignShape(attrs, &(*out)[0], o, "output", 0);
  return true;
}

void ConcatForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  JoinCompute(in, out[0], ConcatAxis(attrs, out[0].shape_), false, req[0]);
}

/*! \brief _backward_Concat: inputs (ograd, data_0..data_{n-1}); gradient pieces shaped like the data. */
void ConcatBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const int axis = CheckAxis(attrs, attrs.get<ConcatParam>().dim, in[0].shape_, "dim");
  std::vector<int64_t> mids;
  for (const auto& b : out) mids.push_back(b.shape_[axis]);
  SplitCompute(in[0], out, axis, mids, req);
}

bool StackShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  for (const auto& s : *in)
    if (!s.IsKnown()) return false;
  for (const auto& s : *in)
    MX_CHECK_KIND(s == (*in)[0], "ValueError")
        << attrs.op->name << ": all inputs must have the same shape, got " << ShapesToString(*in);
  const int axis = StackAxis(attrs, (*in)[0]);
  std::vector<dim_t> o((*in)[0].begin(), (*in)[0].end());
  o.insert(o.begin() + axis, static_cast<dim_t>(in->size()));
  AssignShape(attrs, &(*out)[0], TShape(o), "output", 0);
  return true;
}

void StackForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  JoinCompute(in, out[0], StackAxis(attrs, in[0].shape_), true, req[0]);
}

bool SplitShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const auto& p = attrs.get<SliceChannelParam>();
  const TShape& s = (*in)[0];
  if (!s.IsKnown()) return false;
  const int axis = CheckAxis(attrs, p.axis, s);
  MX_CHECK_KIND(s[axis] % p.num_outputs == 0, "ValueError")
      << attrs.op->name << ": num_outputs=" << p.num_outputs << " does not evenly divide axis " << p.axis
      << " of input shape " << s;
  const dim_t part = s[axis] / p.num_outputs;
  std::vector<dim_t> o(s.begin(), s.end());
  if (p.squeeze_axis) {
    MX_CHECK_KIND(part == 1, "ValueError") << attrs.op->name << ": squeeze_axis needs parts of length 1, input shape "
                                           << s << " split " << p.num_outputs << " ways along axis " << p.axis;
    o.erase(o.begin() + axis);
  } else {
    o[axis] = part;
  }
  for (size_t i = 0; i < out->size(); ++i) AssignShape(attrs, &(*out)[i], TShape(o), "output", static_cast<int>(i));
  return true;
}

void SplitForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = attrs.get<SliceChannelParam>();
  const int axis = CheckAxis(attrs, p.axis, in[0].shape_);
  SplitCompute(in[0], out, axis, std::vector<int64_t>(out.size(), in[0].shape_[axis] / p.num_outputs), req);
}

std::vector<std::string> ArgNames(const NodeAttrs& attrs, int n) {
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) names.push_back("arg" + std::to_string(i));
  return names;
}

MXNET_REGISTER_OP(Concat)
    .add_alias("concat")
    .add_alias("_npi_concatenate")
    .describe(
        "Joins input arrays along a given axis (dim). All dims except `dim` must match; the output's "
        "`dim` is the sum of the inputs'.")
    .set_num_inputs([](const NodeAttrs& a) { return static_cast<uint32_t>(a.get<ConcatParam>().num_args); })
    .set_num_outputs(1)
    .set_key_var_num_args("num_args")
    .set_list_input_names([](const NodeAttrs& a) { return ArgNames(a, a.get<ConcatParam>().num_args); })
    .add_argument("data", "NDArray-or-Symbol[]", "List of arrays to concatenate")
    .add_arguments(ConcatParam::__FIELDS__())
    .set_attr_parser(ParamParser<ConcatParam>)
    .set_infer_shape(ConcatShape)
    .set_infer_type(ElemwiseType)
    .set_compute(Context::kCPU, ConcatForward)
    .set_gradient([](const NodePtr& n, const std::vector<NodeEntry>& og) {
      std::vector<NodeEntry> ins{og[0]};
      ins.insert(ins.end(), n->inputs.begin(), n->inputs.end());
      return MakeNodeOutputs(
          "_backward_Concat", n->attrs.name + "_backward", ins,
          {{"num_args", n->attrs.dict.at("num_args")}, {"dim", std::to_string(n->attrs.get<ConcatParam>().dim)}});
    });
MXNET_REGISTER_OP(_backward_Concat)
    .describe("Gradient of Concat: splits the output gradient into pieces shaped like the inputs.")
    .set_num_inputs([](const NodeAttrs& a) { return static_cast<uint32_t>(a.get<ConcatParam>().num_args + 1); })
    .set_num_outputs([](const NodeAttrs& a) { return static_cast<uint32_t>(a.get<ConcatParam>().num_args); })
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output.")
    .add_argument("data", "NDArray-or-Symbol[]", "Forward inputs (give the piece shapes).")
    .add_arguments(ConcatParam::__FIELDS__())
    .set_attr_parser(ParamParser<ConcatParam>)
    .set_infer_shape([](const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
      for (size_t i = 0; i < out->size(); ++i)
        AssignShape(attrs, &(*out)[i], (*in)[i + 1], "output", static_cast<int>(i));
      for (const auto& s : *in)
        if (!s.IsKnown()) return false;
      return true;
    })
    .set_infer_type([](const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
      for (size_t i = 0; i < out->size(); ++i)
        AssignType(attrs, &(*out)[i], (*in)[0], "output", static_cast<int>(i));
      return (*in)[0] >= 0;
    })
    .set_compute(Context::kCPU, ConcatBackward);

MXNET_REGISTER_OP(stack)
    .add_alias("_npi_stack")
    .describe("Joins a sequence of arrays of the same shape along a new axis.")
    .set_num_inputs([](const NodeAttrs& a) { return static_cast<uint32_t>(a.get<StackParam>().num_args); })
    .set_num_outputs(1)
    .set_key_var_num_args("num_args")
    .set_list_input_names([](const NodeAttrs& a) { return ArgNames(a, a.get<StackParam>().num_args); })
    .add_argument("data", "NDArray-or-Symbol[]", "List of arrays to stack")
    .add_arguments(StackParam::__FIELDS__())
    .set_attr_parser(ParamParser<StackParam>)
    .set_infer_shape(StackShape)
    .set_infer_type(ElemwiseType)
    .set_compute(Context::kCPU, StackForward)
    .set_gradient([](const NodePtr& n, const std::vector<NodeEntry>& og) {
      const auto& p = n->attrs.get<StackParam>();
      return MakeNodeOutputs("SliceChannel", n->attrs.name + "_backward", {og[0]},
                             {{"num_outputs", std::to_string(p.num_args)},
                              {"axis", std::to_string(p.axis)},
                              {"squeeze_axis", "True"}});
    });

MXNET_REGISTER_OP(SliceChannel)
    .add_alias("split")
    .describe(
        "Splits an array along a particular axis into `num_outputs` equal parts; with squeeze_axis the "
        "split axis (then of length 1) is removed from the outputs.")
    .set_num_inputs(1)
    .set_num_outputs(
        [](const NodeAttrs& a) { return static_cast<uint32_t>(a.get<SliceChannelParam>().num_outputs); })
    .add_argument("data", "NDArray-or-Symbol", "The input")
    .add_arguments(SliceChannelParam::__FIELDS__())
    .set_attr_parser(ParamParser<SliceChannelParam>)
    .set_infer_shape(SplitShape)
    .set_infer_type(ElemwiseType)
    .set_compute(Context::kCPU, SplitForward)
    .set_gradient([](const NodePtr& n, const std::vector<NodeEntry>& og) {
      const auto& p = n->attrs.get<SliceChannelParam>();
      const std::string nm = n->attrs.name + "_backward";
      if (p.squeeze_axis)
        return std::vector<NodeEntry>{MakeNode("stack", nm, og, {{"axis", std::to_string(p.axis)}})};
      return std::vector<NodeEntry>{MakeNode("Concat", nm, og, {{"dim", std::to_string(p.axis)}})};
    });

}  // namespace
}  // namespace op
}  // namespace mxnet
