/*!
 * \file sort.cc
 * \brief topk, sort, argsort and _backward_topk. Every column along the axis is ordered by a
 *        comparator that breaks ties by position, so the order is total: results match a
 *        stable sort and do not depend on thread counts or on k. topk(ret_typ=value) and sort
 *        keep the selected positions as a hidden second output for their gradient, which
 *        adds the output gradient back at those positions.
 */
#include <algorithm>
#include <numeric>
#include <string>
#include <typeinfo>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/axis_util.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/common/op_family.h"
#include "operator/common/parallel.h"
#include "operator/common/strided_copy.h"
#include "operator/tensor/sort_param.h"

namespace mxnet {
namespace op {

DMLC_REGISTER_PARAMETER(TopKParam);
DMLC_REGISTER_PARAMETER(SortParam);
DMLC_REGISTER_PARAMETER(ArgSortParam);

namespace {

TShape SelectedShape(const SortView& sv, const TShape& d) {
  if (sv.axis < 0) return TShape{sv.k};
  TShape o = d;
  o[sv.axis] = sv.k;
  return o;
}

uint32_t NumOutputs(const NodeAttrs& attrs) {
  const int r = SpecOf(attrs).ret;
  return r == kRetValue || r == kRetBoth ? 2 : 1;
}

bool SortShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& d = (*in)[0];
  if (!d.IsKnown()) return false;
  MX_CHECK_KIND(d.ndim() >= 1, "ValueError") << attrs.op->name << ": input must have at least 1 dim";
  const SortSpec s = SpecOf(attrs);
  const SortView sv = ViewOf(attrs, s, d);
  const TShape sel = SelectedShape(sv, d);
  AssignShape(attrs, &(*out)[0], s.ret == kRetMask ? d : sel, "output", 0);
  if (out->size() > 1) AssignShape(attrs, &(*out)[1], sel, "output", 1);
  return true;
}

bool SortType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  const SortSpec s = SpecOf(attrs);
  const int t = (*in)[0];
  if (t < 0) return false;
  const bool values_first = s.ret == kRetValue || s.ret == kRetBoth || s.ret == kRetMask;
  AssignType(attrs, &(*out)[0], values_first ? t : s.index_dtype, "output", 0);
  if (out->size() > 1) AssignType(attrs, &(*out)[1], s.index_dtype, "output", 1);
  return true;
}

void SortForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const SortSpec s = SpecOf(attrs);
  const SortView sv = ViewOf(attrs, s, in[0].shape_);
  const int64_t n = sv.v.mid, inner = sv.v.inner, k = sv.k;
  const TBlob* value_out = (s.ret == kRetValue || s.ret == kRetBoth) ? &out[0] : nullptr;
  const TBlob* index_out = s.ret == kRetIndices ? &out[0] : (out.size() > 1 ? &out[1] : nullptr);
  const TBlob* mask_out = s.ret == kRetMask ? &out[0] : nullptr;
  const OpReqType index_req = s.ret == kRetIndices ? req[0] : (out.size() > 1 ? req[1] : kNullOp);
  if (mask_out) ZeroForReq(*mask_out, req[0]);
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    using C = compute_t<DType>;
    const DType* x = in[0].dptr<DType>();
    ParallelFor(sv.v.outer * inner, [&](int64_t col) {
      const int64_t o = col / inner, i = col % inner;
      const DType* base = x + o * n * inner + i;
      std::vector<int64_t> order(static_cast<size_t>(n));
      std::iota(order.begin(), order.end(), int64_t{0});
      auto before = [&](int64_t a, int64_t b) {
        const C va = static_cast<C>(base[a * inner]), vb = static_cast<C>(base[b * inner]);
        if (va != vb) return s.ascend ? va < vb : va > vb;
        return a < b;
      };
      if (k < n)
        std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
      else
        std::sort(order.begin(), order.end(), before);
      for (int64_t j = 0; j < k; ++j) {
        const int64_t pos = (o * k + j) * inner + i;
        if (value_out) Store(value_out->dptr<DType>() + pos, req[0], base[order[j] * inner]);
        if (index_out && index_req != kNullOp) {
          MXNET_TYPE_SWITCH(index_out->type_flag_, IType,
                            { Store(index_out->dptr<IType>() + pos, index_req, CastValue<int64_t, IType>(order[j])); });
        }
        if (mask_out) Store(mask_out->dptr<DType>() + (o * n + order[j]) * inner + i, req[0], DType(1.0f));
      }
    });
  });
}

/*! \brief Inputs (ograd of the values, indices, data): adds ograd at the selected positions. */
void TopKBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const SortSpec s = SpecOf(attrs);
  const SortView sv = ViewOf(attrs, s, in[2].shape_);
  const int64_t n = sv.v.mid, inner = sv.v.inner, k = sv.k;
  ZeroForReq(out[0], req[0]);
  MXNET_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType* g = in[0].dptr<DType>();
    DType* d = out[0].dptr<DType>();
    MXNET_TYPE_SWITCH(in[1].type_flag_, IType, {
      const IType* idx = in[1].dptr<IType>();
      // Positions within one column are distinct, so columns can run in parallel.
      ParallelFor(sv.v.outer * inner, [&](int64_t col) {
        const int64_t o = col / inner, i = col % inner;
        for (int64_t j = 0; j < k; ++j) {
          const int64_t pos = (o * k + j) * inner + i;
          const int64_t t = static_cast<int64_t>(static_cast<real_compute_t<IType>>(idx[pos]));
          if (t >= 0 && t < n) Store(d + (o * n + t) * inner + i, kAddTo, g[pos]);
        }
      });
    });
  });
}

std::string AxisStr(const dmlc::optional<int>& a) { return a.has_value() ? std::to_string(a.value()) : "None"; }

/*! \brief _backward_topk of the value output, from the hidden (or visible) index output 1. */
std::vector<NodeEntry> ValueGrad(const NodePtr& n, const std::vector<NodeEntry>& og, const dmlc::optional<int>& axis,
                                 int64_t k) {
  return {MakeNode("_backward_topk", n->attrs.name + "_backward", {og[0], NodeEntry{n, 1, 0}, n->inputs[0]},
                   {{"axis", AxisStr(axis)}, {"k", std::to_string(k)}, {"ret_typ", "both"}})};
}

Op& SortFamily(Op& op) {
  return op.set_num_inputs(1)
      .set_num_outputs(NumOutputs)
      .add_argument("data", "NDArray-or-Symbol", "The input array")
      .set_infer_shape(SortShape)
      .set_infer_type(SortType)
      // The CUDA kernel sorts in scratch memory (cuda/sort.cu); the CPU one takes none.
      .set_resource_request(std::vector<ResourceRequest>{ResourceRequest::kTempSpace})
      .set_compute(Context::kCPU, SortForward);
}

struct Registrar {
  Registrar() {
    MXNET_REGISTER_OP_FAMILY(topk, SortFamily)
        .describe(
            "Returns the top k elements (or their indices, or a 0/1 mask of them) along an axis; largest "
            "first unless is_ascend. Ties keep their original order.")
        .add_arguments(TopKParam::__FIELDS__())
        .set_attr_parser(ParamParser<TopKParam>)
        .set_num_visible_outputs([](const NodeAttrs& a) { return a.get<TopKParam>().ret_typ == kRetBoth ? 2u : 1u; })
        .set_gradient([](const NodePtr& n, const std::vector<NodeEntry>& og) {
          const auto& p = n->attrs.get<TopKParam>();
          if (p.ret_typ == kRetIndices || p.ret_typ == kRetMask) return ZeroGrads(n, og);
          return ValueGrad(n, og, p.axis, p.k);
        });
    MXNET_REGISTER_OP_FAMILY(sort, SortFamily)
        .describe("Returns a sorted copy of the input along an axis (ascending unless is_ascend=False).")
        .add_arguments(SortParam::__FIELDS__())
        .set_attr_parser(ParamParser<SortParam>)
        .set_num_visible_outputs([](const NodeAttrs&) { return 1u; })
        .set_gradient([](const NodePtr& n, const std::vector<NodeEntry>& og) {
          return ValueGrad(n, og, n->attrs.get<SortParam>().axis, 0);
        });
    MXNET_REGISTER_OP_FAMILY(argsort, SortFamily)
        .describe("Returns the indices that would sort the input along an axis (ascending unless is_ascend=False).")
        .add_arguments(ArgSortParam::__FIELDS__())
        .set_attr_parser(ParamParser<ArgSortParam>)
        .set_gradient(ZeroGrads);
    MXNET_REGISTER_OP(_backward_topk)
        .describe("Gradient of topk/sort values: adds the output gradient at the selected positions.")
        .set_num_inputs(3)
        .set_num_outputs(1)
        .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the values.")
        .add_argument("indices", "NDArray-or-Symbol", "The selected positions.")
        .add_argument("data", "NDArray-or-Symbol", "The forward input (gives the shape).")
        .add_arguments(TopKParam::__FIELDS__())
        .set_attr_parser(ParamParser<TopKParam>)
        .set_infer_shape([](const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
          AssignShape(attrs, &(*out)[0], (*in)[2], "output", 0);
          return (*in)[2].IsKnown();
        })
        .set_infer_type([](const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
          AssignType(attrs, &(*out)[0], (*in)[0], "output", 0);
          return (*in)[0] >= 0;
        })
        .set_compute(Context::kCPU, TopKBackward);
  }
};
const Registrar registrar;

}  // namespace
}  // namespace op
}  // namespace mxnet
