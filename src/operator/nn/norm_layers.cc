/*!
 * \file norm_layers.cc
 * \brief LayerNorm (axis, eps, output_mean_var), InstanceNorm (eps) and GroupNorm
 *        (num_groups, eps, output_mean_var) with `_backward_*` ops, all on the row kernel of
 *        norm_rows.h (the reference kernels). Outputs: out, mean, std (std = sqrt(var + eps)).
 *        LayerNorm's oneDNN entries (last axis, float32) join its lists from
 *        onednn/onednn_lrn_layer_norm_kernels.cc. GroupNorm's gamma and beta
 *        have one entry per group, as in MXNet 1.x.
 */
#include <string>
#include <vector>

#include "operator/nn/norm_rows.h"
#include "operator/nn/layer_norm_param.h"

namespace mxnet {
namespace op {

DMLC_REGISTER_PARAMETER(LayerNormParam);

struct InstanceNormParam : public dmlc::Parameter<InstanceNormParam> {
  float eps;
  DMLC_DECLARE_PARAMETER(InstanceNormParam) {
    DMLC_DECLARE_FIELD(eps).set_default(1e-3f).describe("An `epsilon` parameter to prevent division by 0.");
  }
};
DMLC_REGISTER_PARAMETER(InstanceNormParam);

struct GroupNormParam : public dmlc::Parameter<GroupNormParam> {
  int num_groups;
  float eps;
  bool output_mean_var;
  DMLC_DECLARE_PARAMETER(GroupNormParam) {
    DMLC_DECLARE_FIELD(num_groups).set_default(1).set_lower_bound(1).describe("Total number of groups.");
    DMLC_DECLARE_FIELD(eps).set_default(1e-5f).describe("An `epsilon` parameter to prevent division by 0.");
    DMLC_DECLARE_FIELD(output_mean_var).set_default(false).describe("Output the mean and std calculated along the given axis.");
  }
};
DMLC_REGISTER_PARAMETER(GroupNormParam);

namespace {

enum NormKind { kLayer, kInstance, kGroup };

/*! \brief Rows, parameter count, the statistics' shape and the eps of one op on data shape s. */
struct NormSpec {
  RowView v;
  int64_t nparam, period;  // parameter index: l (LayerNorm) or outer % period
  TShape stat;
  double eps;
};

template <NormKind K>
NormSpec Spec(const NodeAttrs& attrs, const TShape& s) {
  NormSpec n;
  if constexpr (K == kLayer) {
    const auto& p = attrs.get<LayerNormParam>();
    const int ax = NormAxis(attrs, p.axis, s.ndim());
    n.v = {s.ProdShape(0, ax), s[ax], s.ProdShape(ax + 1, s.ndim())};
    n.nparam = s[ax];
    n.period = 0;
    n.stat = s;
    n.stat[ax] = 1;
    n.eps = p.eps;
  } else {
    MX_CHECK_KIND(s.ndim() >= 3, "ValueError") << OpNameOf(attrs) << ": data must be (N, C, spatial...), got " << s;
    const int64_t N = s[0], C = s[1], S = s.ProdShape(2, s.ndim());
    if constexpr (K == kInstance) {
      n.v = {N * C, S, 1};
      n.nparam = n.period = C;
      n.stat = TShape{N, C};
      n.eps = attrs.get<InstanceNormParam>().eps;
    } else {
      const auto& p = attrs.get<GroupNormParam>();
      MX_CHECK_KIND(C % p.num_groups == 0, "ValueError")
          << "GroupNorm: num_groups " << p.num_groups << " must divide the number of channels " << C;
      n.v = {N * p.num_groups, (C / p.num_groups) * S, 1};
      n.nparam = n.period = p.num_groups;
      n.stat = TShape{N, static_cast<dim_t>(p.num_groups)};
      n.eps = p.eps;
    }
  }
  return n;
}

struct ParamIndex {
  int64_t period;
  int64_t operator()(int64_t o, int64_t l) const { return period ? o % period : l; }
};

template <NormKind K>
bool NormShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& ds = (*in)[0];
  if (!ds.IsKnown()) return false;
  const NormSpec n = Spec<K>(attrs, ds);
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
  const NormSpec n = Spec<K>(attrs, in[0].shape_);
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, D, {
    NormRowsForward<D>(n.v, n.eps, in[0].dptr<D>(), in[1].dptr<D>(), in[2].dptr<D>(), out[0].dptr<D>(),
                       out[1].dptr<D>(), out[2].dptr<D>(), req[0], ParamIndex{n.period});
  });
}

/*! \brief inputs (ograd, data, gamma, mean, std); outputs (ddata, dgamma, dbeta). */
template <NormKind K>
void NormBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const NormSpec n = Spec<K>(attrs, in[1].shape_);
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
