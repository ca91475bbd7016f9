/*!
 * \file gather_scatter.cc
 * \brief N-d index addressing: gather_nd, scatter_nd, _backward_gather_nd (scatter-add,
 *        gather_nd's gradient) and one_hot. indices of shape (M, Y0, ...) address the first
 *        M axes of the data; negative indices count from the end, anything else out of
 *        range raises IndexError when the op runs.
 */
#include <string>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/common/index_util.h"
#include "operator/common/parallel.h"
#include "operator/common/strided_copy.h"
#include "operator/tensor/gather_scatter.h"

namespace mxnet {
namespace op {

DMLC_REGISTER_PARAMETER(ScatterNDParam);
DMLC_REGISTER_PARAMETER(OneHotParam);

namespace {

/*! \brief Output shape of gathering with `idx` from `data`: idx.shape[1:] + data.shape[M:]. */
TShape GatheredShape(const NodeAttrs& attrs, const TShape& data, const TShape& idx) {
  MX_CHECK_KIND(idx.ndim() >= 1 && idx[0] >= 1 && idx[0] <= data.ndim(), "ValueError")
      << attrs.op->name << ": indices of shape " << idx << " must have a first dim between 1 and the rank of data "
      << "of shape " << data;
  std::vector<dim_t> o(idx.begin() + 1, idx.end());
  o.insert(o.end(), data.begin() + idx[0], data.end());
  if (o.empty()) o.push_back(1);
  return TShape(o);
}

/*! \brief For each of the K index columns, the element offset (in units of `inner`) into data. */
struct NdAddress {
  std::vector<int64_t> row;  // K entries
  int64_t inner{1};
};

NdAddress Address(const NodeAttrs& attrs, const TShape& data, const TBlob& indices) {
  const int64_t M = indices.shape_[0], K = indices.Size() / M;
  const std::vector<int64_t> raw = ReadIndices(indices);
  NdAddress a;
  a.inner = data.ProdShape(static_cast<int>(M), data.ndim());
  a.row.assign(K, 0);
  for (int64_t m = 0; m < M; ++m) {
    const int64_t n = data[static_cast<int>(m)];
    for (int64_t k = 0; k < K; ++k)
      a.row[k] = a.row[k] * n + ResolveIndex(raw[m * K + k], n, kIndexRaise, attrs.op->name.c_str());
  }
  return a;
}

void GatherND(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
              const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const NdAddress a = Address(attrs, in[0].shape_, in[1]);
  const int64_t K = static_cast<int64_t>(a.row.size());
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    const DType* d = in[0].dptr<DType>();
    DType* o = out[0].dptr<DType>();
    ParallelFor(K, [&](int64_t k) {
      for (int64_t i = 0; i < a.inner; ++i) Store(o + k * a.inner + i, req[0], d[a.row[k] * a.inner + i]);
    });
  });
}

/*! \brief out[indices] = data (add: +=), the rest of out zeroed for writes. */
void ScatterInto(const NodeAttrs& attrs, const std::vector<TBlob>& in, OpReqType req, const TBlob& out, bool add) {
  if (req == kNullOp) return;
  ZeroForReq(out, req);
  const NdAddress a = Address(attrs, out.shape_, in[1]);
  const int64_t K = static_cast<int64_t>(a.row.size());
  MXNET_TYPE_SWITCH(out.type_flag_, DType, {
    const DType* d = in[0].dptr<DType>();
    DType* o = out.dptr<DType>();
    // Serial over k: duplicate indices must accumulate (or the last write win) deterministically.
    for (int64_t k = 0; k < K; ++k)
      for (int64_t i = 0; i < a.inner; ++i)
        Store(o + a.row[k] * a.inner + i, add || req == kAddTo ? kAddTo : kWriteTo, d[k * a.inner + i]);
  });
}

/*! \brief scatter_nd / _backward_gather_nd: out shape from `shape`, or from the third input. */
bool ScatterShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& given = attrs.get<ScatterNDParam>().shape;
  const TShape target = in->size() > 2 ? (*in)[2] : given;
  if (!target.IsKnown() || target.ndim() <= 0) {
    MX_CHECK_KIND(in->size() > 2, "ValueError") << attrs.op->name << ": parameter shape is required";
    return false;
  }
  if (!(*in)[0].IsKnown() || !(*in)[1].IsKnown()) return false;
  const TShape expect = GatheredShape(attrs, target, (*in)[1]);
  MX_CHECK_KIND((*in)[0] == expect || (*in)[0].Size() == expect.Size(), "ValueError")
      << attrs.op->name << ": data of shape " << (*in)[0] << " does not match indices of shape " << (*in)[1]
      << " into shape " << target << " (expected " << expect << ")";
  AssignShape(attrs, &(*out)[0], target, "output", 0);
  return true;
}

bool TypeOfFirst(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  AssignType(attrs, &(*out)[0], (*in)[0], "output", 0);
  return (*in)[0] >= 0;
}

void OneHot(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
            const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const auto& p = attrs.get<OneHotParam>();
  const std::vector<int64_t> idx = ReadIndices(in[0]);
  const int64_t depth = p.depth;
  MXNET_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType on = CastValue<double, DType>(p.on_value), off = CastValue<double, DType>(p.off_value);
    DType* o = out[0].dptr<DType>();
    ParallelFor(static_cast<int64_t>(idx.size()), [&](int64_t r) {
      // Out-of-range (and negative) indices give an all-off row, as MXNet.
      for (int64_t j = 0; j < depth; ++j) Store(o + r * depth + j, req[0], j == idx[r] ? on : off);
    });
  });
}

struct Registrar {
  Registrar() {
    MXNET_REGISTER_OP(gather_nd)
        .describe(
            "Gathers elements or slices from data into an array of shape indices.shape[1:] + "
            "data.shape[M:], where M = indices.shape[0]: out[y] = data[indices[0, y], ..., indices[M-1, y]].")
        .set_num_inputs(2)
        .set_num_outputs(1)
        .add_argument("data", "NDArray-or-Symbol", "data")
        .add_argument("indices", "NDArray-or-Symbol", "indices")
        .set_infer_shape([](const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
          if (!(*in)[0].IsKnown() || !(*in)[1].IsKnown()) return false;
          AssignShape(attrs, &(*out)[0], GatheredShape(attrs, (*in)[0], (*in)[1]), "output", 0);
          return true;
        })
        .set_infer_type(TypeOfFirst)
        // the CUDA kernels resolve the indices into scratch memory
        .set_resource_request(std::vector<ResourceRequest>{ResourceRequest::kTempSpace})
        .set_compute(Context::kCPU, GatherND)
        .set_gradient([](const NodePtr& n, const std::vector<NodeEntry>& og) {
          return std::vector<NodeEntry>{
              MakeNode("_backward_gather_nd", n->attrs.name + "_backward", {og[0], n->inputs[1], n->inputs[0]}),
              MakeZeroGrad(n, 1)};
        });

    MXNET_REGISTER_OP(scatter_nd)
        .describe(
            "Scatters data into a new zero tensor of the given shape at the places indices address (the "
            "inverse of gather_nd). With duplicate indices the last write wins.")
        .set_num_inputs(2)
        .set_num_outputs(1)
        .add_argument("data", "NDArray-or-Symbol", "data")
        .add_argument("indices", "NDArray-or-Symbol", "indices")
        .add_arguments(ScatterNDParam::__FIELDS__())
        .set_attr_parser(ParamParser<ScatterNDParam>)
        .set_infer_shape(ScatterShape)
        .set_infer_type(TypeOfFirst)
        // the CUDA kernels resolve the indices into scratch memory
        .set_resource_request(std::vector<ResourceRequest>{ResourceRequest::kTempSpace})
        .set_compute(Context::kCPU,
                     [](const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req,
                        const std::vector<TBlob>& out) { ScatterInto(attrs, in, req[0], out[0], false); })
        .set_gradient([](const NodePtr& n, const std::vector<NodeEntry>& og) {
          const NodeEntry g = MakeNode("gather_nd", n->attrs.name + "_backward", {og[0], n->inputs[1]});
          return std::vector<NodeEntry>{MakeNode("reshape_like", n->attrs.name + "_backward_r", {g, n->inputs[0]}),
                                        MakeZeroGrad(n, 1)};
        });

    // Inputs (data, indices) with `shape` as MXNet registers it; the gradient of gather_nd passes
    // the forward data as a third input instead, since shapes are not known when graphs are built.
    MXNET_REGISTER_OP(_backward_gather_nd)
        .describe(
            "Accumulates data into a zero tensor of the given shape at the places indices address; "
            "duplicate indices add up. The gradient of gather_nd.")
        .set_num_inputs([](const NodeAttrs& a) { return a.get<ScatterNDParam>().shape.ndim() > 0 ? 2u : 3u; })
        .set_num_outputs(1)
        .add_argument("data", "NDArray-or-Symbol", "data")
        .add_argument("indices", "NDArray-or-Symbol", "indices")
        .add_arguments(ScatterNDParam::__FIELDS__())
        .set_attr_parser(ParamParser<ScatterNDParam>)
        .set_infer_shape(ScatterShape)
        .set_infer_type(TypeOfFirst)
        // the CUDA kernels resolve the indices into scratch memory
        .set_resource_request(std::vector<ResourceRequest>{ResourceRequest::kTempSpace})
        .set_compute(Context::kCPU, [](const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                                       const std::vector<OpReqType>& req,
                                       const std::vector<TBlob>& out) { ScatterInto(attrs, in, req[0], out[0], true); })
        .set_gradient([](const NodePtr& n, const std::vector<NodeEntry>& og) {
          std::vector<NodeEntry> g{
              MakeNode("reshape_like", n->attrs.name + "_backward_r",
                       {MakeNode("gather_nd", n->attrs.name + "_backward", {og[0], n->inputs[1]}), n->inputs[0]})};
          for (uint32_t i = 1; i < n->inputs.size(); ++i) g.push_back(MakeZeroGrad(n, i));
          return g;
        });

    MXNET_REGISTER_OP(one_hot)
        .describe(
            "Returns a one-hot array: out[..., j] = on_value if j == indices[...] else off_value, shape "
            "indices.shape + (depth,).")
        .set_num_inputs(1)
        .set_num_outputs(1)
        .add_argument("indices", "NDArray-or-Symbol", "array of locations where to set on_value")
        .add_arguments(OneHotParam::__FIELDS__())
        .set_attr_parser(ParamParser<OneHotParam>)
        .set_infer_shape([](const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
          if (!(*in)[0].IsKnown()) return false;
          std::vector<dim_t> o((*in)[0].begin(), (*in)[0].end());
          o.push_back(attrs.get<OneHotParam>().depth);
          AssignShape(attrs, &(*out)[0], TShape(o), "output", 0);
          return true;
        })
        .set_infer_type([](const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
          AssignType(attrs, &(*out)[0], attrs.get<OneHotParam>().dtype, "output", 0);
          return (*in)[0] >= 0;
        })
        // the CUDA kernels resolve the indices into scratch memory
        .set_resource_request(std::vector<ResourceRequest>{ResourceRequest::kTempSpace})
        .set_compute(Context::kCPU, OneHot)
        .set_gradient(ZeroGrads);
  }
};
const Registrar registrar;

}  // namespace
}  // namespace op
}  // namespace mxnet
