/*!
 * \file norm_layers.cc
 * \brief LayerNorm (axis, eps, output_mean_var), InstanceNorm (eps) and GroupNorm
 *        (num_groups, eps, output_mean_var) with `_backward_*` ops, all on the row kernel of
 *        norm_rows.h (the reference kernels; parameters and row views in norm_layers_param.h,
 *        shared with cuda/norm_layers.cu). Outputs: out, mean, std (std = sqrt(var + eps)).
 *        LayerNorm's oneDNN entries (last axis, float32) join its lists from
 *        onednn/onednn_lrn_layer_norm_kernels.cc. GroupNorm's gamma and beta
 *        have one entry per group, as in MXNet 1.x.
 */
#include <string>
#include <vector>

#include "operator/nn/norm_layers_param.h"
#include "operator/nn/norm_rows.h"

namespace mxnet {
namespace op {

DMLC_REGISTER_PARAMETER(LayerNormParam);
DMLC_REGISTER_PARAMETER(InstanceNormParam);
DMLC_REGISTER_PARAMETER(GroupNormParam);

namespace {

template <NormKind K>
bool NormShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& ds = (*in)[0];
  if (!ds.IsKnown()) return false;
  const NormSpec n = NormSpecOf<K>(attrs, ds);
  AssignShape(attrs, &(*in)[1], TShape{n.nparam}, "gamma", 1);
  AssignShape(attrs, &(*in)[2], TShape{n.nparam}, "beta", 2);
  AssignShape(attrs, &(*out)[0], ds, "output", 0);
  AssignShape(attrs, &(*out)[1], n.stat, "mean", 1);
  AssignShape(attrs, &(*out)[2], n.stat, "std", 2);
  return true;
}

template <NormKind K>
void NormCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const NormSpec n = NormSpecOf<K>(attrs, in[0].shape_);
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, D, {
    NormRowsForward<D>(n.v, n.eps, in[0].dptr<D>(), in[1].dptr<D>(), in[2].dptr<D>(), out[0].dptr<D>(),
                       out[1].dptr<D>(), out[2].dptr<D>(), req[0], ParamIndex{n.period});
  });
}

/*! \brief inputs (ograd, data, gamma, mean, std); outputs (ddata, dgamma, dbeta). */
template <NormKind K>
void NormBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const NormSpec n = NormSpecOf<K>(attrs, in[1].shape_);
  MXNET_REAL_TYPE_SWITCH(in[1].type_flag_, D, {
    NormRowsBackward<D>(n.v, n.nparam, in[0].dptr<D>(), in[1].dptr<D>(), in[2].dptr<D>(), in[3].dptr<D>(),
                        in[4].dptr<D>(), out[0].dptr<D>(), out[1].dptr<D>(), out[2].dptr<D>(), req,
                        ParamIndex{n.period});
  });
}

bool BackwardShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  AssignShape(attrs, &(*out)[0], (*in)[1], "output", 0);
  AssignShape(attrs, &(*out)[1], (*in)[2], "output", 1);
  AssignShape(attrs, &(*out)[2], (*in)[2], "output", 2);
  return (*in)[1].IsKnown() && (*in)[2].IsKnown();
}

FGradient NormGradient(const char* backward) {
  const std::string name = backward;
  return [name](const NodePtr& n, const std::vector<NodeEntry>& og) {
    return MakeNodeOutputs(name, n->attrs.name + "_backward",
                           {og[0], n->inputs[0], n->inputs[1], NodeEntry{n, 1, 0}, NodeEntry{n, 2, 0}},
                           n->attrs.dict);
  };
}

}  // namespace

#define MXNET_REGISTER_NORM(opname, kind, Param, visible, doc)                                             \
  MXNET_REGISTER_OP(_backward_##opname)                                                                    \
      .describe("Gradients of " #opname " with respect to data, gamma and beta.")                          \
      .set_num_inputs(5)                                                                                   \
      .set_num_outputs(3)                                                                                  \
      .add_arguments(Param::__FIELDS__())                                                                  \
      .set_attr_parser(ParamParser<Param>)                                                                 \
      .set_infer_shape(BackwardShape)                                                                      \
      .set_infer_type(ElemwiseType)                                                                        \
      .set_resource_request(std::vector<ResourceRequest>{ResourceRequest::kTempSpace})                     \
      .set_compute(Context::kCPU, NormBackward<kind>);                                                     \
  MXNET_REGISTER_OP(opname)                                                                                \
      .describe(doc)                                                                                       \
      .set_num_inputs(3)                                                                                   \
      .set_num_outputs(3)                                                                                  \
      .set_num_visible_outputs(visible)                                                                    \
      .set_list_input_names([](const NodeAttrs&) { return std::vector<std::string>{"data", "gamma", "beta"}; }) \
      .set_list_output_names([](const NodeAttrs&) { return std::vector<std::string>{"output", "mean", "std"}; }) \
      .add_argument("data", "NDArray-or-Symbol", "Input data.")                                            \
      .add_argument("gamma", "NDArray-or-Symbol", "Scale parameter.")                                      \
      .add_argument("beta", "NDArray-or-Symbol", "Shift parameter.")                                       \
      .add_arguments(Param::__FIELDS__())                                                                  \
      .set_attr_parser(ParamParser<Param>)                                                                 \
      .set_infer_shape(NormShape<kind>)                                                                    \
      .set_infer_type(ElemwiseType)                                                                        \
      .set_resource_request(std::vector<ResourceRequest>{ResourceRequest::kTempSpace})                     \
      .set_compute(Context::kCPU, NormCompute<kind>)                                                       \
      .set_gradient(NormGradient("_backward_" #opname))

MXNET_REGISTER_NORM(LayerNorm, kLayer, LayerNormParam,
                    [](const NodeAttrs& a) { return a.get<LayerNormParam>().output_mean_var ? 3u : 1u; },
                    "Layer normalization: normalizes each slice along `axis` to zero mean and unit variance, then "
                    "applies gamma and beta (shape (data.shape[axis],)).")
    .add_alias("_npx_layer_norm");
MXNET_REGISTER_NORM(InstanceNorm, kInstance, InstanceNormParam, [](const NodeAttrs&) { return 1u; },
                    "Instance normalization: normalizes each (sample, channel) over the spatial dimensions, then "
                    "applies per-channel gamma and beta.");
MXNET_REGISTER_NORM(GroupNorm, kGroup, GroupNormParam,
                    [](const NodeAttrs& a) { return a.get<GroupNormParam>().output_mean_var ? 3u : 1u; },
                    "Group normalization: channels are split into num_groups groups; each (sample, group) is "
                    "normalized over its channels and spatial dimensions, then gamma and beta (one per group) "
                    "are applied.");

}  // namespace op
}  // namespace mxnet
