/*!
 * \file embedding.cc
 * \brief Embedding: out[..., :] = weight[clip(index), :], and `_backward_Embedding`
 *        (scatter-add of the output gradient into the weight rows; the index gets none).
 */
#include <vector>

#include "operator/nn/embedding_param.h"
#include "operator/nn/nn_util.h"

namespace mxnet {
namespace op {

DMLC_REGISTER_PARAMETER(EmbeddingParam);

namespace {

std::vector<int64_t> Rows(const TBlob& idx, int64_t n) {
  std::vector<int64_t> r(idx.Size());
  MXNET_TYPE_SWITCH(idx.type_flag_, I, {
    const I* p = idx.dptr<I>();
    for (size_t i = 0; i < r.size(); ++i) r[i] = ClipRow(static_cast<double>(p[i]), n);
  });
  return r;
}

void EmbeddingCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const auto& p = attrs.get<EmbeddingParam>();
  const std::vector<int64_t> rows = Rows(in[0], p.input_dim);
  const int64_t D = p.output_dim;
  MXNET_TYPE_SWITCH(in[1].type_flag_, T, {
    const T* w = in[1].dptr<T>();
    T* y = out[0].dptr<T>();
    ParallelFor(static_cast<int64_t>(rows.size()) * D, [&](int64_t j) {
      Store(y + j, req[0], compute_t<T>(w[rows[j / D] * D + j % D]));
    });
  });
}

/*! \brief inputs (ograd, data); outputs (ddata = 0, dweight). */
void EmbeddingBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = attrs.get<EmbeddingParam>();
  if (req[0] != kNullOp && req[0] != kAddTo) std::memset(out[0].dptr_, 0, out[0].Bytes());
  if (req[1] == kNullOp) return;
  const std::vector<int64_t> rows = Rows(in[1], p.input_dim);
  const int64_t D = p.output_dim;
  MXNET_TYPE_SWITCH(out[1].type_flag_, T, {
    const T* dy = in[0].dptr<T>();
    T* dw = out[1].dptr<T>();
    std::vector<double> acc(p.input_dim * D, 0.0);
    for (size_t r = 0; r < rows.size(); ++r)
      for (int64_t d = 0; d < D; ++d) acc[rows[r] * D + d] += static_cast<double>(dy[r * D + d]);
    for (int64_t j = 0; j < p.input_dim * D; ++j) Store(dw + j, req[1], acc[j]);
  });
}

}  // namespace

MXNET_REGISTER_OP(Embedding)
    .describe("Maps integer indices to vector representations (embeddings): out = weight[data]. Indices are "
              "clipped to [0, input_dim - 1].")
    .add_alias("_npx_embedding")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_list_input_names([](const NodeAttrs&) { return std::vector<std::string>{"data", "weight"}; })
    .add_argument("data", "NDArray-or-Symbol", "The input array to the embedding operator.")
    .add_argument("weight", "NDArray-or-Symbol", "The embedding weight matrix.")
    .add_arguments(EmbeddingParam::__FIELDS__())
    .set_attr_parser(ParamParser<EmbeddingParam>)
    .set_infer_shape([](const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
      const auto& p = attrs.get<EmbeddingParam>();
      AssignShape(attrs, &(*in)[1], TShape{p.input_dim, p.output_dim}, "weight", 1);
      const TShape& ds = (*in)[0];
      if (!ds.IsKnown()) return false;
      std::vector<dim_t> o(ds.begin(), ds.end());
      o.push_back(p.output_dim);
      AssignShape(attrs, &(*out)[0], TShape(o), "output", 0);
      return true;
    })
    .set_infer_type([](const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
      const int t = attrs.get<EmbeddingParam>().dtype;
      AssignType(attrs, &(*in)[1], t, "weight", 1);
      if ((*in)[0] < 0) (*in)[0] = t;
      AssignType(attrs, &(*out)[0], t, "output", 0);
      return true;
    })
    .set_compute(Context::kCPU, EmbeddingCompute)
    .set_gradient([](const NodePtr& n, const std::vector<NodeEntry>& og) {
      return MakeNodeOutputs("_backward_Embedding", n->attrs.name + "_backward", {og[0], n->inputs[0]},
                             n->attrs.dict);
    });

MXNET_REGISTER_OP(_backward_Embedding)
    .describe("Gradient of Embedding: scatter-add of the output gradient into weight rows.")
    .set_num_inputs(2)
    .set_num_outputs(2)
    .add_arguments(EmbeddingParam::__FIELDS__())
    .set_attr_parser(ParamParser<EmbeddingParam>)
    .set_infer_shape([](const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
      const auto& p = attrs.get<EmbeddingParam>();
      AssignShape(attrs, &(*out)[0], (*in)[1], "output", 0);
      AssignShape(attrs, &(*out)[1], TShape{p.input_dim, p.output_dim}, "output", 1);
      return (*in)[1].IsKnown();
    })
    .set_infer_type([](const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
      AssignType(attrs, &(*out)[0], (*in)[1], "output", 0);
      AssignType(attrs, &(*out)[1], (*in)[0], "output", 1);
      return (*in)[0] >= 0 && (*in)[1] >= 0;
    })
    // The CUDA kernel accumulates half, integer and bool weight gradients in a wider scratch buffer.
    .set_resource_request(std::vector<ResourceRequest>{ResourceRequest::kTempSpace})
    .set_compute(Context::kCPU, EmbeddingBackward);

}  // namespace op
}  // namespace mxnet
