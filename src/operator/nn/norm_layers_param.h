/*!
 * \file norm_layers_param.h
 * \brief InstanceNorm's and GroupNorm's parameters and how LayerNorm, InstanceNorm and GroupNorm
 *        view a call as rows (norm_rows.h's RowView, the parameter index, the statistics' shape,
 *        eps), shared by the reference kernels (norm_layers.cc) and the CUDA kernels
 *        (cuda/norm_layers.cu).
 */
#ifndef MXNET_OPERATOR_NN_NORM_LAYERS_PARAM_H_
#define MXNET_OPERATOR_NN_NORM_LAYERS_PARAM_H_

#include <dmlc/parameter.h>

#include <cstdint>

#include "mxnet/op.h"
#include "mxnet/xinline.h"
#include "operator/nn/layer_norm_param.h"
#include "operator/nn/nn_util.h"
#include "operator/nn/norm_rows.h"

namespace mxnet {
namespace op {

struct InstanceNormParam : public dmlc::Parameter<InstanceNormParam> {
  float eps;
  DMLC_DECLARE_PARAMETER(InstanceNormParam) {
    DMLC_DECLARE_FIELD(eps).set_default(1e-3f).describe("An `epsilon` parameter to prevent division by 0.");
  }
};

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

enum NormKind { kLayer, kInstance, kGroup };

/*! \brief Rows, parameter count, the statistics' shape and the eps of one op on data shape s. */
struct NormSpec {
  RowView v;
  int64_t nparam, period;  // parameter index: l (LayerNorm) or outer % period
  TShape stat;
  double eps;
};

template <NormKind K>
NormSpec NormSpecOf(const NodeAttrs& attrs, const TShape& s) {
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

/*! \brief The gamma/beta entry of element l of row outer index o. */
struct ParamIndex {
  int64_t period;
  MXNET_XINLINE int64_t operator()(int64_t o, int64_t l) const { return period ? o % period : l; }
};

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_NORM_LAYERS_PARAM_H_
