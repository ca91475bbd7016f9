/*!
 * \file take_pick.cc
 * \brief Index selection along one axis: take (whole slices picked by an index array) and
 *        pick (one element per position), with _backward_take / _backward_pick, which add
 *        the output gradient back at the selected places. Indices may be any dtype.
 */
#include <string>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/axis_util.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/common/index_util.h"
#include "operator/common/op_family.h"
#include "operator/common/parallel.h"
#include "operator/common/strided_copy.h"
#include "operator/tensor/take_pick.h"

namespace mxnet {
namespace op {

DMLC_REGISTER_PARAMETER(TakeParam);
DMLC_REGISTER_PARAMETER(PickParam);

namespace {

// ---- take ------------------------------------------------------------------------------

bool TakeShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape &a = (*in)[0], &idx = (*in)[1];
  if (!a.IsKnown() || !idx.IsKnown()) return false;
  MX_CHECK_KIND(a.ndim() >= 1, "ValueError") << attrs.op->name << ": data must have at least 1 dim, got " << a;
  const int axis = CheckAxis(attrs, attrs.get<TakeParam>().axis, a);
  MX_CHECK_KIND(a[axis] > 0 || idx.Size() == 0, "ValueError")
      << attrs.op->name << ": cannot take from the empty axis " << axis << " of shape " << a;
  std::vector<dim_t> o(a.begin(), a.begin() + axis);
  o.insert(o.end(), idx.begin(), idx.end());
  o.insert(o.end(), a.begin() + axis + 1, a.end());
  AssignShape(attrs, &(*out)[0], TShape(o), "output", 0);
  return true;
}

bool TypeOfFirst(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  AssignType(attrs, &(*out)[0], (*in)[0], "output", 0);
  return (*in)[0] >= 0;
}

void TakeForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const auto& p = attrs.get<TakeParam>();
  const int axis = CheckAxis(attrs, p.axis, in[0].shape_);
  const AxisView v = ViewAround(in[0].shape_, axis);
  const std::vector<int64_t> idx = ResolvedIndices(in[1], v.mid, p.mode, attrs.op->name.c_str());
  const int64_t J = static_cast<int64_t>(idx.size());
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    const DType* a = in[0].dptr<DType>();
    DType* o = out[0].dptr<DType>();
    ParallelFor(v.outer * J, [&](int64_t r) {
      const int64_t oi = r / J, j = r % J;
      const DType* src = a + (oi * v.mid + idx[j]) * v.inner;
      DType* dst = o + r * v.inner;
      for (int64_t i = 0; i < v.inner; ++i) Store(dst + i, req[0], src[i]);
    });
  });
}

/*! \brief Inputs (ograd, indices, data): adds each output-gradient slice to the row it came from. */
void TakeBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const auto& p = attrs.get<TakeParam>();
  const int axis = CheckAxis(attrs, p.axis, in[2].shape_);
  const AxisView v = ViewAround(in[2].shape_, axis);
  const std::vector<int64_t> idx = ResolvedIndices(in[1], v.mid, p.mode, attrs.op->name.c_str());
  const int64_t J = static_cast<int64_t>(idx.size());
  ZeroForReq(out[0], req[0]);
  MXNET_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType* g = in[0].dptr<DType>();
    DType* d = out[0].dptr<DType>();
    // Each outer slab is independent; within one, repeated indices accumulate in order.
    ParallelFor(v.outer, [&](int64_t oi) {
      for (int64_t j = 0; j < J; ++j) {
        const DType* src = g + (oi * J + j) * v.inner;
        DType* dst = d + (oi * v.mid + idx[j]) * v.inner;
        for (int64_t i = 0; i < v.inner; ++i) Store(dst + i, kAddTo, src[i]);
      }
    });
  });
}

// ---- pick ------------------------------------------------------------------------------

bool PickShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape &d = (*in)[0], &idx = (*in)[1];
  if (!d.IsKnown()) return false;
  const int axis = PickAxis(attrs, d);
  std::vector<dim_t> squeezed(d.begin(), d.end()), kept(d.begin(), d.end());
  squeezed.erase(squeezed.begin() + axis);
  kept[axis] = 1;
  if (idx.IsKnown()) {
    MX_CHECK_KIND(idx == TShape(squeezed) || idx == TShape(kept), "ValueError")
        << attrs.op->name << ": index of shape " << idx << " does not match data of shape " << d << " without axis "
        << axis << " (expected " << TShape(squeezed) << ")";
  }
  AssignShape(attrs, &(*out)[0], TShape(attrs.get<PickParam>().keepdims ? kept : squeezed), "output", 0);
  return idx.IsKnown();
}

void PickForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const auto& p = attrs.get<PickParam>();
  const AxisView v = ViewAround(in[0].shape_, PickAxis(attrs, in[0].shape_));
  const std::vector<int64_t> idx = ResolvedIndices(in[1], v.mid, p.mode, attrs.op->name.c_str());
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    const DType* a = in[0].dptr<DType>();
    DType* o = out[0].dptr<DType>();
    ParallelFor(v.outer * v.inner, [&](int64_t r) {
      const int64_t oi = r / v.inner, i = r % v.inner;
      Store(o + r, req[0], a[(oi * v.mid + idx[r]) * v.inner + i]);
    });
  });
}

/*! \brief Inputs (ograd, index, data): each output gradient goes to the one element it picked. */
void PickBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const auto& p = attrs.get<PickParam>();
  const AxisView v = ViewAround(in[2].shape_, PickAxis(attrs, in[2].shape_));
  const std::vector<int64_t> idx = ResolvedIndices(in[1], v.mid, p.mode, attrs.op->name.c_str());
  ZeroForReq(out[0], req[0]);
  MXNET_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType* g = in[0].dptr<DType>();
    DType* d = out[0].dptr<DType>();
    ParallelFor(v.outer * v.inner, [&](int64_t r) {
      const int64_t oi = r / v.inner, i = r % v.inner;
      Store(d + (oi * v.mid + idx[r]) * v.inner + i, kAddTo, g[r]);
    });
  });
}

/*! \brief Gradient: _backward_<op>(ograd, index, data); the index gets zeros. */
FGradient IndexGrad(const char* backward) {
  return [backward](const NodePtr& n, const std::vector<NodeEntry>& og) {
    return std::vector<NodeEntry>{
        MakeNode(backward, n->attrs.name + "_backward", {og[0], n->inputs[1], n->inputs[0]}, n->attrs.dict),
        MakeZeroGrad(n, 1)};
  };
}

Op& IndexBackward(Op& op, const char* doc, FCompute fc) {
  return op.describe(doc)
      .set_num_inputs(3)
      .set_num_outputs(1)
      .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output.")
      .add_argument("indices", "NDArray-or-Symbol", "The forward indices.")
      .add_argument("data", "NDArray-or-Symbol", "The forward data (gives the shape).")
      .set_infer_shape([](const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
        AssignShape(attrs, &(*out)[0], (*in)[2], "output", 0);
        return (*in)[2].IsKnown();
      })
      .set_infer_type(TypeOfFirst)
      // the CUDA kernels resolve the indices into scratch memory
      .set_resource_request(std::vector<ResourceRequest>{ResourceRequest::kTempSpace})
      .set_compute(Context::kCPU, fc);
}

struct Registrar {
  Registrar() {
    MXNET_REGISTER_OP(take)
        .describe(
            "Takes elements from an input array along the given axis: out has shape a.shape[:axis] + "
            "indices.shape + a.shape[axis+1:]. Out-of-range indices are clipped, wrapped or rejected per "
            "`mode`.")
        .set_num_inputs(2)
        .set_num_outputs(1)
        .add_argument("a", "NDArray-or-Symbol", "The input array.")
        .add_argument("indices", "NDArray-or-Symbol", "The indices of the values to be extracted.")
        .add_arguments(TakeParam::__FIELDS__())
        .set_attr_parser(ParamParser<TakeParam>)
        .set_infer_shape(TakeShape)
        .set_infer_type(TypeOfFirst)
        // the CUDA kernels resolve the indices into scratch memory
        .set_resource_request(std::vector<ResourceRequest>{ResourceRequest::kTempSpace})
        .set_compute(Context::kCPU, TakeForward)
        .set_gradient(IndexGrad("_backward_take"));
    MXNET_REGISTER_OP_FAMILY(_backward_take, IndexBackward, "Gradient of take: scatter-add of the output gradient.",
                             TakeBackward)
        .add_arguments(TakeParam::__FIELDS__())
        .set_attr_parser(ParamParser<TakeParam>);

    MXNET_REGISTER_OP(pick)
        .describe(
            "Picks one element per position along `axis`: out[i, j] = data[i, index[i, j], j] (for axis 1). "
            "index has the shape of data without the axis (or with it as size 1).")
        .set_num_inputs(2)
        .set_num_outputs(1)
        .add_argument("data", "NDArray-or-Symbol", "The input array")
        .add_argument("index", "NDArray-or-Symbol", "The index array")
        .add_arguments(PickParam::__FIELDS__())
        .set_attr_parser(ParamParser<PickParam>)
        .set_infer_shape(PickShape)
        .set_infer_type(TypeOfFirst)
        // the CUDA kernels resolve the indices into scratch memory
        .set_resource_request(std::vector<ResourceRequest>{ResourceRequest::kTempSpace})
        .set_compute(Context::kCPU, PickForward)
        .set_gradient(IndexGrad("_backward_pick"));
    MXNET_REGISTER_OP_FAMILY(_backward_pick, IndexBackward, "Gradient of pick.", PickBackward)
        .add_arguments(PickParam::__FIELDS__())
        .set_attr_parser(ParamParser<PickParam>);
  }
};
const Registrar registrar;

}  // namespace
}  // namespace op
}  // namespace mxnet
