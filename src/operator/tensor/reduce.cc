/*!
 * \file reduce.cc
 * \brief Reductions over axes (sum, mean, prod, nansum, nanprod, max, min, norm, argmax,
 *        argmin) with axis/keepdims/exclude, and their `_backward_*` ops. Sums and
 *        products of fp16/bf16 accumulate in float32, and of float32 in float64, while
 *        MXNET_SAFE_ACCUMULATION is on (the default); off, they accumulate in the storage type,
 *        float16 exactly as MXNet 1.x does (reduce_storage_type.h).
 */
#include <string>
#include <vector>

#include "mxnet/env.h"
#include "mxnet/op.h"
#include "operator/common/broadcast_util.h"
#include "operator/common/op_family.h"
#include "operator/common/reduce_kernels.h"
#include "operator/common/reduce_storage_type.h"
#include "operator/tensor/reduce_param.h"

namespace mxnet {
namespace op {

DMLC_REGISTER_PARAMETER(ReduceAxesParam);
DMLC_REGISTER_PARAMETER(ArgReduceParam);

namespace {

TShape ReducedShape(const TShape& s, const std::vector<bool>& red, bool keepdims) {
  if (keepdims) return KeepdimsShape(s, red);
  std::vector<dim_t> d;
  for (int i = 0; i < s.ndim(); ++i)
    if (!red[i]) d.push_back(s[i]);
  if (d.empty()) d.push_back(1);  // legacy shape mode: a full reduction gives (1,)
  return TShape(d);
}

bool ReduceShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& s = (*in)[0];
  if (s.ndim() < 0) return false;
  const auto& p = attrs.get<ReduceAxesParam>();
  AssignShape(attrs, &(*out)[0], ReducedShape(s, ReducedAxes(attrs, s.ndim()), p.keepdims), "output", 0);
  return true;
}

/*!
 * \brief As ReduceShape for max and min, which have no identity: reducing an empty axis into a
 *        non-empty output is an error (numpy's "zero-size array to reduction operation").
 */
bool ExtremumShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  if (!ReduceShape(attrs, in, out)) return false;
  const TShape& s = (*in)[0];
  if (!s.IsKnown() || s.Size() != 0 || (*out)[0].Size() == 0) return true;
  const std::vector<bool> red = ReducedAxes(attrs, s.ndim());
  for (int i = 0; i < s.ndim(); ++i)
    MX_CHECK_KIND(!red[i] || s[i] != 0, "ValueError")
        << attrs.op->name << ": cannot reduce over the empty axis " << i << " of an input of shape " << s << " ("
        << attrs.op->name << " of zero elements has no identity)";
  return true;
}

/*! \brief norm's parser: only the 1- and 2-norms exist. */
void NormParser(NodeAttrs* attrs) {
  ParamParser<ReduceAxesParam>(attrs);
  const int ord = attrs->get<ReduceAxesParam>().ord;
  MX_CHECK_KIND(ord == 1 || ord == 2, "ValueError")
      << attrs->op->name << ": ord must be 1 or 2 (the L1 or L2 norm), got ord=" << ord;
}

template <typename R, bool kSumLike>
void ReduceCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const ReducePlan plan = MakeReducePlan(in[0].shape_, ReducedAxes(attrs, in[0].ndim()));
  const bool safe = env::GetBool(env::Var::MXNET_SAFE_ACCUMULATION);
  if constexpr (kSumLike && kStorageReduceKind<R> != StorageReduceKind::kNone) {
    if (!safe && in[0].type_flag_ == kFloat16)
      return ReduceInStorageType(plan, in[0].dptr<half_t>(), out[0].dptr<half_t>(), req[0], kStorageReduceKind<R>);
  }
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    if constexpr (!kSumLike) {
      Reduce<R, compute_t<DType>>(plan, in[0].dptr<DType>(), out[0].dptr<DType>(), req[0]);
    } else if (safe) {
      Reduce<R, typename AccType<DType, true>::type>(plan, in[0].dptr<DType>(), out[0].dptr<DType>(), req[0]);
    } else {
      Reduce<R, typename AccType<DType, false>::type>(plan, in[0].dptr<DType>(), out[0].dptr<DType>(), req[0]);
    }
  });
}

void NormCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (attrs.get<ReduceAxesParam>().ord == 1) return ReduceCompute<L1Reducer, true>(attrs, ctx, in, req, out);
  ReduceCompute<L2Reducer, true>(attrs, ctx, in, req, out);
}

/*! \brief (ograd, data, out) -> ograd * D(data, out) broadcast back over the reduced axes. */
template <typename G>
void ReduceBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const TShape& ds = in[1].shape_;
  const std::vector<bool> red = ReducedAxes(attrs, ds.ndim());
  const TShape ks = KeepdimsShape(ds, red);
  const int64_t k = ks.Size() ? ds.Size() / ks.Size() : 0;
  const BroadcastPlan p = MakeBroadcastPlan({ds, ks, ks}, ds);
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    using C = real_compute_t<DType>;
    const DType* g = in[0].dptr<DType>();
    const DType* x = in[1].dptr<DType>();
    const DType* y = in[2].dptr<DType>();
    DType* dx = out[0].dptr<DType>();
    const OpReqType r = req[0];
    ForEachBroadcastRow(p, [&](const int64_t* off, int64_t len, const int64_t* st, int64_t o) {
      for (int64_t i = 0; i < len; ++i) {
        const C xv = static_cast<C>(x[off[0] + i * st[0]]);
        const C yv = static_cast<C>(y[off[2] + i * st[2]]);
        const C gv = static_cast<C>(g[off[1] + i * st[1]]);
        Store(dx + o + i, r, C(gv * G::template D<C>(xv, yv, k)));
      }
    });
  });
}

void NormBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (attrs.get<ReduceAxesParam>().ord == 1) return ReduceBackward<L1NormGrad>(attrs, ctx, in, req, out);
  ReduceBackward<NormGrad>(attrs, ctx, in, req, out);
}

/*! \brief ReduceAxesParam's fields, `ord` (norm's) only when with_ord. */
std::vector<dmlc::ParamFieldInfo> ReduceFields(bool with_ord) {
  std::vector<dmlc::ParamFieldInfo> fields;
  for (const auto& f : ReduceAxesParam::__FIELDS__())
    if (with_ord || f.name != "ord") fields.push_back(f);
  return fields;
}

/*! \brief A reduction over axes; its gradient is the op `_backward_<name>`. */
Op& ReduceFamily(Op& op, const char* doc, FCompute fwd, bool with_ord, FInferShape shape) {
  const std::string bname = "_backward_" + op.name;
  return op
      .describe(doc +
                std::string(" Reduces over `axis` (all axes when None); with exclude=True over every axis not listed. "
                            "keepdims keeps reduced axes with size 1; a full reduction without keepdims gives shape "
                            "(1,)."))
      .set_num_inputs(1)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", "The input")
      .add_arguments(ReduceFields(with_ord))
      .set_attr_parser(with_ord ? FAttrParser(NormParser) : FAttrParser(ParamParser<ReduceAxesParam>))
      .set_infer_shape(shape)
      .set_infer_type(ElemwiseType)
      // The CUDA kernels keep partial results of long reductions there; the CPU ones take none.
      .set_resource_request(std::vector<ResourceRequest>{ResourceRequest::kTempSpace})
      .set_compute(Context::kCPU, fwd)
      .set_gradient([bname](const NodePtr& n, const std::vector<NodeEntry>& og) {
        return std::vector<NodeEntry>{MakeNode(bname, n->attrs.name + "_backward", {og[0], n->inputs[0], NodeEntry{n, 0, 0}},
                                               {n->attrs.dict.begin(), n->attrs.dict.end()})};
      });
}

/*! \brief The gradient op of the reduction `forward`. */
Op& ReduceBackwardFamily(Op& op, const char* forward, FCompute bwd, bool with_ord) {
  return op.describe("Gradient of " + std::string(forward) + ".")
      .set_num_inputs(3)
      .set_num_outputs(1)
      .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output.")
      .add_argument("data", "NDArray-or-Symbol", "Forward input.")
      .add_argument("out", "NDArray-or-Symbol", "Forward output.")
      .add_arguments(ReduceFields(with_ord))
      .set_attr_parser(ParamParser<ReduceAxesParam>)
      .set_infer_shape([](const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
        AssignShape(attrs, &(*out)[0], (*in)[1], "output", 0);
        return (*out)[0].IsKnown();
      })
      .set_infer_type([](const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
        AssignType(attrs, &(*out)[0], (*in)[1], "output", 0);
        return (*out)[0] != -1;
      })
      .set_compute(Context::kCPU, bwd);
}

// ---- argmax / argmin ----------------------------------------------------------------

bool ArgShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& s = (*in)[0];
  if (s.ndim() < 0) return false;
  const auto& p = attrs.get<ArgReduceParam>();
  const int n = s.ndim();
  std::vector<bool> red(n, !p.axis.has_value());
  if (p.axis.has_value()) {
    const int a = p.axis.value();
    MX_CHECK_KIND(a >= -n && a < n, "ValueError")
        << attrs.op->name << ": axis " << a << " is out of bounds for an array of rank " << n << " (shape " << s << ")";
    red[a < 0 ? a + n : a] = true;
  }
  AssignShape(attrs, &(*out)[0], ReducedShape(s, red, p.keepdims && p.axis.has_value()), "output", 0);
  return true;
}

template <bool kMax>
void ArgCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const std::vector<bool> red = ArgReducedAxes(attrs, in[0].ndim());
  MX_CHECK_KIND(in[0].Size() > 0, "ValueError") << attrs.op->name << ": attempt to get an arg extremum of an empty array";
  const ReducePlan plan = MakeReducePlan(in[0].shape_, red);
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    ArgReduce<kMax>(plan, in[0].dptr<DType>(), out[0].dptr<DType>(), req[0]);
  });
}

/*! \brief argmax (is_max) or argmin. */
Op& ArgFamily(Op& op, bool is_max) {
  return op
      .describe(std::string("Returns indices of the ") + (is_max ? "maximum" : "minimum") +
                " values along an axis (of the flattened input when axis is None), as values of the input "
                "dtype; the first occurrence wins and NaN counts as the extreme.")
      .set_num_inputs(1)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", "The input")
      .add_arguments(ArgReduceParam::__FIELDS__())
      .set_attr_parser(ParamParser<ArgReduceParam>)
      .set_infer_shape(ArgShape)
      .set_infer_type(ElemwiseType)
      .set_resource_request(std::vector<ResourceRequest>{ResourceRequest::kTempSpace})  // as ReduceFamily
      .set_compute(Context::kCPU, is_max ? FCompute(ArgCompute<true>) : FCompute(ArgCompute<false>))
      .set_gradient(ZeroGrads);
}

MXNET_REGISTER_OP_FAMILY(sum, ReduceFamily, "Computes the sum of array elements over given axes.",
                         ReduceCompute<SumReducer, true>, false, ReduceShape)
    .add_alias("sum_axis");
MXNET_REGISTER_OP_FAMILY(_backward_sum, ReduceBackwardFamily, "sum", ReduceBackward<SumGrad>, false);
MXNET_REGISTER_OP_FAMILY(mean, ReduceFamily, "Computes the mean of array elements over given axes.",
                         ReduceCompute<MeanReducer, true>, false, ReduceShape);
MXNET_REGISTER_OP_FAMILY(_backward_mean, ReduceBackwardFamily, "mean", ReduceBackward<MeanGrad>, false);
MXNET_REGISTER_OP_FAMILY(prod, ReduceFamily, "Computes the product of array elements over given axes.",
                         ReduceCompute<ProdReducer, true>, false, ReduceShape);
MXNET_REGISTER_OP_FAMILY(_backward_prod, ReduceBackwardFamily, "prod", ReduceBackward<ProdGrad>, false);
MXNET_REGISTER_OP_FAMILY(nansum, ReduceFamily,
                         "Computes the sum of array elements over given axes treating NaN as zero.",
                         ReduceCompute<NanSumReducer, true>, false, ReduceShape);
MXNET_REGISTER_OP_FAMILY(_backward_nansum, ReduceBackwardFamily, "nansum", ReduceBackward<NanSumGrad>, false);
MXNET_REGISTER_OP_FAMILY(nanprod, ReduceFamily,
                         "Computes the product of array elements over given axes treating NaN as one.",
                         ReduceCompute<NanProdReducer, true>, false, ReduceShape);
MXNET_REGISTER_OP_FAMILY(_backward_nanprod, ReduceBackwardFamily, "nanprod", ReduceBackward<NanProdGrad>, false);
MXNET_REGISTER_OP_FAMILY(max, ReduceFamily, "Computes the max of array elements over given axes.",
                         ReduceCompute<MaxReducer, false>, false, ExtremumShape)
    .add_alias("max_axis");
MXNET_REGISTER_OP_FAMILY(_backward_max, ReduceBackwardFamily, "max", ReduceBackward<ExtremumGrad>, false);
MXNET_REGISTER_OP_FAMILY(min, ReduceFamily, "Computes the min of array elements over given axes.",
                         ReduceCompute<MinReducer, false>, false, ExtremumShape)
    .add_alias("min_axis");
MXNET_REGISTER_OP_FAMILY(_backward_min, ReduceBackwardFamily, "min", ReduceBackward<ExtremumGrad>, false);
MXNET_REGISTER_OP_FAMILY(norm, ReduceFamily, "Computes the L1 (ord=1) or L2 (ord=2) norm over given axes.",
                         NormCompute, true, ReduceShape);
MXNET_REGISTER_OP_FAMILY(_backward_norm, ReduceBackwardFamily, "norm", NormBackward, true);
MXNET_REGISTER_OP_FAMILY(argmax, ArgFamily, true);
MXNET_REGISTER_OP_FAMILY(argmin, ArgFamily, false);

}  // namespace
}  // namespace op
}  // namespace mxnet
