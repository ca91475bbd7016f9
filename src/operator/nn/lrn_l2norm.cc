/*!
 * \file lrn_l2norm.cc
 * \brief LRN (local response normalization across channels) and L2Normalization (instance,
 *        channel, spatial), with `_backward_*` ops and their reference kernels (parameters in
 *        lrn.h and l2_normalization_param.h, shared with cuda/lrn_l2norm.cu). LRN's oneDNN
 *        entries (4-D float32, same formula: alpha is divided by nsize) join its lists from
 *        onednn/onednn_lrn_layer_norm_kernels.cc.
 */
#include <cmath>
#include <vector>

#include "operator/nn/l2_normalization_param.h"
#include "operator/nn/lrn.h"
#include "operator/nn/nn_util.h"

namespace mxnet {
namespace op {

DMLC_REGISTER_PARAMETER(LRNParam);
DMLC_REGISTER_PARAMETER(L2NormalizationParam);

namespace {

void LRNCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = attrs.get<LRNParam>();
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, D, {
    const NCS v(in[0].shape_);
    std::vector<double> scale(in[0].Size());
    const D* x = in[0].dptr<D>();
    LRNScale(v, p, x, scale.data());
    D* y = out[0].dptr<D>();
    D* s = out[1].dptr<D>();
    ParallelFor(in[0].Size(), [&](int64_t i) {
      s[i] = static_cast<D>(scale[i]);
      Store(y + i, req[0], static_cast<real_compute_t<D>>(LRNOut(static_cast<double>(x[i]), scale[i], p.beta)));
    });
  });
}

/*! \brief inputs (ograd, data); output ddata. dx_i = dy_i s_i^-b - 2ab/n x_i sum_{c: i in W(c)} dy_c x_c s_c^(-b-1). */
void LRNBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const auto& p = attrs.get<LRNParam>();
  MXNET_REAL_TYPE_SWITCH(in[1].type_flag_, D, {
    const NCS v(in[1].shape_);
    const D *dy = in[0].dptr<D>(), *x = in[1].dptr<D>();
    D* dx = out[0].dptr<D>();
    std::vector<double> scale(in[1].Size()), t(in[1].Size());
    LRNScale(v, p, x, scale.data());
    for (int64_t i = 0; i < in[1].Size(); ++i)
      t[i] = LRNGradTerm(static_cast<double>(dy[i]), static_cast<double>(x[i]), scale[i], p.beta);
    const int64_t half = p.nsize / 2;
    const double k = 2.0 * p.alpha * p.beta / p.nsize;
    ParallelFor(in[1].Size(), [&](int64_t idx) {
      const int64_t i = idx % v.S, c = (idx / v.S) % v.C, n = idx / (v.S * v.C);
      int64_t lo, hi;  // channels whose window contains c: the window is symmetric
      LRNWindow(c, half, v.C, &lo, &hi);
      double s = 0;
      for (int64_t j = lo; j <= hi; ++j) s += t[(n * v.C + j) * v.S + i];
      const double g = LRNGrad(static_cast<double>(dy[idx]), static_cast<double>(x[idx]), scale[idx], p.beta, k, s);
      Store(dx + idx, req[0], static_cast<real_compute_t<D>>(g));
    });
  });
}

void L2Compute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
               const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = attrs.get<L2NormalizationParam>();
  int64_t O, L, I;
  L2View(p, in[0].shape_, &O, &L, &I);
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, D, {
    const D* x = in[0].dptr<D>();
    D* y = out[0].dptr<D>();
    D* norm = out[1].dptr<D>();
    ParallelFor(O * I, [&](int64_t r) {
      const int64_t base = (r / I) * L * I + r % I;
      double s = p.eps;
      for (int64_t l = 0; l < L; ++l) s += std::pow(static_cast<double>(x[base + l * I]), 2);
      const double nv = std::sqrt(s);
      norm[r] = static_cast<D>(nv);
      for (int64_t l = 0; l < L; ++l)
        Store(y + base + l * I, req[0], static_cast<real_compute_t<D>>(static_cast<double>(x[base + l * I]) / nv));
    });
  });
}

/*! \brief inputs (ograd, output, norm); dx = (dy - y * sum(dy * y)) / norm. */
void L2Backward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const auto& p = attrs.get<L2NormalizationParam>();
  int64_t O, L, I;
  L2View(p, in[1].shape_, &O, &L, &I);
  MXNET_REAL_TYPE_SWITCH(in[1].type_flag_, D, {
    const D *dy = in[0].dptr<D>(), *y = in[1].dptr<D>(), *norm = in[2].dptr<D>();
    D* dx = out[0].dptr<D>();
    ParallelFor(O * I, [&](int64_t r) {
      const int64_t base = (r / I) * L * I + r % I;
      double s = 0;
      for (int64_t l = 0; l < L; ++l) s += static_cast<double>(dy[base + l * I]) * static_cast<double>(y[base + l * I]);
      const double nv = static_cast<double>(norm[r]);
      for (int64_t l = 0; l < L; ++l) {
        const int64_t j = base + l * I;
        Store(dx + j, req[0],
              static_cast<real_compute_t<D>>((static_cast<double>(dy[j]) - static_cast<double>(y[j]) * s) / nv));
      }
    });
  });
}

}  // namespace

MXNET_REGISTER_OP(LRN)
    .describe("Applies local response normalization across channels: out = x * (knorm + alpha/nsize * sum of "
              "x^2 over nsize neighbouring channels)^(-beta).")
    .set_num_inputs(1)
    .set_num_outputs(2)
    .set_num_visible_outputs([](const NodeAttrs&) { return 1u; })
    .add_argument("data", "NDArray-or-Symbol", "Input data to LRN")
    .add_arguments(LRNParam::__FIELDS__())
    .set_attr_parser(ParamParser<LRNParam>)
    .set_infer_shape(ElemwiseShape)
    .set_infer_type(ElemwiseType)
    .set_compute(Context::kCPU, LRNCompute)
    .set_gradient([](const NodePtr& n, const std::vector<NodeEntry>& og) {
      return std::vector<NodeEntry>{
          MakeNode("_backward_LRN", n->attrs.name + "_backward", {og[0], n->inputs[0]}, n->attrs.dict)};
    });

MXNET_REGISTER_OP(_backward_LRN)
    .describe("Gradient of LRN.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .add_arguments(LRNParam::__FIELDS__())
    .set_attr_parser(ParamParser<LRNParam>)
    .set_infer_shape(ElemwiseShape)
    .set_infer_type(ElemwiseType)
    .set_resource_request(std::vector<ResourceRequest>{ResourceRequest::kTempSpace})
    .set_compute(Context::kCPU, LRNBackward);

MXNET_REGISTER_OP(L2Normalization)
    .describe("Normalize the input array using the L2 norm: per instance (all but axis 0), per channel (axis 1 at "
              "each spatial position) or per spatial map (each (sample, channel)). out = x / sqrt(sum(x^2) + eps).")
    .set_num_inputs(1)
    .set_num_outputs(2)
    .set_num_visible_outputs([](const NodeAttrs&) { return 1u; })
    .add_argument("data", "NDArray-or-Symbol", "Input array to normalize.")
    .add_arguments(L2NormalizationParam::__FIELDS__())
    .set_attr_parser(ParamParser<L2NormalizationParam>)
    .set_infer_shape([](const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
      const TShape& s = (*in)[0];
      if (!s.IsKnown()) return false;
      const auto& p = attrs.get<L2NormalizationParam>();
      MX_CHECK_KIND(s.ndim() >= (p.mode == kL2Instance ? 2 : 3), "ValueError")
          << "L2Normalization: data of shape " << s << " has too few dimensions for this mode";
      int64_t O, L, I;
      L2View(p, s, &O, &L, &I);
      AssignShape(attrs, &(*out)[0], s, "output", 0);
      AssignShape(attrs, &(*out)[1], p.mode == kL2Channel ? TShape{s[0], I} : TShape{O}, "norm", 1);
      return true;
    })
    .set_infer_type(ElemwiseType)
    .set_resource_request(std::vector<ResourceRequest>{ResourceRequest::kTempSpace})
    .set_compute(Context::kCPU, L2Compute)
    .set_gradient([](const NodePtr& n, const std::vector<NodeEntry>& og) {
      return std::vector<NodeEntry>{MakeNode("_backward_L2Normalization", n->attrs.name + "_backward",
                                             {og[0], NodeEntry{n, 0, 0}, NodeEntry{n, 1, 0}}, n->attrs.dict)};
    });

MXNET_REGISTER_OP(_backward_L2Normalization)
    .describe("Gradient of L2Normalization.")
    .set_num_inputs(3)
    .set_num_outputs(1)
    .add_arguments(L2NormalizationParam::__FIELDS__())
    .set_attr_parser(ParamParser<L2NormalizationParam>)
    .set_infer_shape([](const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
      AssignShape(attrs, &(*out)[0], (*in)[1], "output", 0);
      return (*in)[1].IsKnown();
    })
    .set_infer_type([](const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
      AssignType(attrs, &(*out)[0], (*in)[1], "output", 0);
      return (*in)[1] >= 0;
    })
    .set_resource_request(std::vector<ResourceRequest>{ResourceRequest::kTempSpace})
    .set_compute(Context::kCPU, L2Backward);

}  // namespace op
}  // namespace mxnet
