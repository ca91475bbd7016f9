/*!
 * \file dropout.cc
 * \brief Dropout (p, mode training/always, axes) and `_backward_Dropout`. The hidden second
 *        output is the scaled mask (0 or 1/(1-p)), drawn from the kRandom resource once per
 *        element of the mask's reduced shape (dims listed in axes share one draw), so the
 *        result depends only on the seed and the push order. Outside training (mode
 *        'training') the op is the identity and the mask is all ones. The reference kernel is
 *        here; the identity on a oneDNN-blocked input, which shares the input's data, joins the
 *        list from onednn/onednn_dropout_kernels.cc.
 */
#include <vector>

#include "operator/nn/dropout_param.h"
#include "operator/nn/nn_util.h"

namespace mxnet {
namespace op {

DMLC_REGISTER_PARAMETER(DropoutParam);

namespace {

void DropoutCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = attrs.get<DropoutParam>();
  const TShape& s = in[0].shape_;
  const int nd = s.ndim();
  const bool active = DropoutActive(p, ctx);
  // Strides of the reduced (mask-draw) shape, 0 along shared axes.
  std::vector<int64_t> rstride(nd, 0);
  std::vector<bool> shared(nd, false);
  for (dim_t a : p.axes) shared[NormAxis(attrs, static_cast<int>(a), nd, "axes")] = true;
  int64_t acc = 1;
  for (int i = nd - 1; i >= 0; --i) {
    rstride[i] = shared[i] ? 0 : acc;
    acc *= shared[i] ? 1 : s[i];
  }
  const bool plain_index = p.axes.ndim() <= 0;
  const double keep = 1.0 - static_cast<double>(p.p);
  const RandomStream rnd = active ? ctx.requested[0].random : RandomStream();
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, D, {
    using C = compute_t<D>;
    const D* x = in[0].dptr<D>();
    D* y = out[0].dptr<D>();
    D* mask = out[1].dptr<D>();
    const C scale = keep > 0 ? C(1.0 / keep) : C(0);
    ParallelFor(in[0].Size(), [&](int64_t j) {
      C m = C(1);
      if (active) {
        int64_t r = j;
        if (!plain_index) {
          r = 0;
          int64_t rem = j;
          for (int i = nd - 1; i >= 0; --i) {
            r += (rem % s[i]) * rstride[i];
            rem /= s[i];
          }
        }
        m = DropoutMaskValue(rnd, r, keep, scale);
      }
      mask[j] = static_cast<D>(m);
      Store(y + j, req[0], C(x[j]) * m);
    });
  });
}

void DropoutBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, D, {
    using C = compute_t<D>;
    const D *dy = in[0].dptr<D>(), *mask = in[1].dptr<D>();
    D* dx = out[0].dptr<D>();
    ParallelFor(in[0].Size(), [&](int64_t j) { Store(dx + j, req[0], C(dy[j]) * C(mask[j])); });
  });
}

}  // namespace

MXNET_REGISTER_OP(Dropout)
    .describe("Applies dropout to the input: during training each element (or each slice sharing the listed "
              "axes) is zeroed with probability p and the rest scaled by 1/(1-p); identity otherwise unless "
              "mode='always'.")
    .add_alias("_npx_dropout")
    .set_num_inputs(1)
    .set_num_outputs(2)
    .set_num_visible_outputs([](const NodeAttrs&) { return 1u; })
    .set_list_output_names([](const NodeAttrs&) { return std::vector<std::string>{"output", "mask"}; })
    .add_argument("data", "NDArray-or-Symbol", "Input array to which dropout will be applied.")
    .add_arguments(DropoutParam::__FIELDS__())
    .set_attr_parser(ParamParser<DropoutParam>)
    .set_infer_shape(ElemwiseShape)
    .set_infer_type(ElemwiseType)
    .set_resource_request(std::vector<ResourceRequest>{ResourceRequest::kRandom})
    .set_compute(Context::kCPU, DropoutCompute)
    .set_gradient([](const NodePtr& n, const std::vector<NodeEntry>& og) {
      return std::vector<NodeEntry>{
          MakeNode("_backward_Dropout", n->attrs.name + "_backward", {og[0], NodeEntry{n, 1, 0}}, n->attrs.dict)};
    });

MXNET_REGISTER_OP(_backward_Dropout)
    .describe("Gradient of Dropout: ograd * mask.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output.")
    .add_argument("mask", "NDArray-or-Symbol", "The forward mask.")
    .add_arguments(DropoutParam::__FIELDS__())
    .set_attr_parser(ParamParser<DropoutParam>)
    .set_infer_shape(ElemwiseShape)
    .set_infer_type(ElemwiseType)
    .set_compute(Context::kCPU, DropoutBackward);

}  // namespace op
}  // namespace mxnet
