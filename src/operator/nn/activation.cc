/*!
 * \file activation.cc
 * \brief Activation (relu, sigmoid, tanh, softrelu, softsign) and `_backward_Activation`
 *        (inputs: output gradient, forward input, forward output). The reference kernels are
 *        the plain loops here; oneDNN eltwise entries join both lists from
 *        onednn/onednn_eltwise_kernels.cc.
 */
#include <cmath>
#include <vector>

#include "operator/nn/activation_param.h"
#include "operator/nn/nn_util.h"

namespace mxnet {
namespace op {

DMLC_REGISTER_PARAMETER(ActivationParam);

namespace {

void ActivationCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const int t = attrs.get<ActivationParam>().act_type;
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, D, {
    using C = compute_t<D>;
    MapUnary<D, C>(in[0].dptr<D>(), out[0].dptr<D>(), in[0].Size(), req[0], [t](C x) { return ActFwd(t, x); });
  });
}

void ActivationBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const int t = attrs.get<ActivationParam>().act_type;
  MXNET_REAL_TYPE_SWITCH(in[1].type_flag_, D, {
    using C = compute_t<D>;
    const D *dy = in[0].dptr<D>(), *x = in[1].dptr<D>(), *y = in[2].dptr<D>();
    D* dx = out[0].dptr<D>();
    const OpReqType r = req[0];
    ParallelFor(in[1].Size(), [&](int64_t i) {
      Store(dx + i, r, C(dy[i]) * ActGrad(t, C(x[i]), C(y[i])));
    });
  });
}

}  // namespace

MXNET_REGISTER_OP(Activation)
    .describe("Applies an activation function element-wise: relu max(x, 0), sigmoid 1/(1+exp(-x)), tanh, "
              "softrelu log(1+exp(x)), softsign x/(1+|x|).")
    .add_alias("_npx_activation")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The input array.")
    .add_arguments(ActivationParam::__FIELDS__())
    .set_attr_parser(ParamParser<ActivationParam>)
    .set_infer_shape(ElemwiseShape)
    .set_infer_type(ElemwiseType)
    .set_compute(Context::kCPU, ActivationCompute)
    // Every kernel path maps element i to element i (oneDNN eltwise allows src == dst), so a
    // graph may write the output over an input nothing else reads.
    .set_inplace_option([](const NodeAttrs&) { return InplacePairs{{0, 0}}; })
    .set_gradient([](const NodePtr& n, const std::vector<NodeEntry>& og) {
      // relu'(x) = [x > 0] = [y > 0]: the gradient reads the output in the input's place, so a
      // graph need not keep the input alive for backward (in a conv-BN-ReLU chain, BN's output).
      const NodeEntry y{n, 0, 0};
      const bool relu = n->attrs.get<ActivationParam>().act_type == kReLU;
      return std::vector<NodeEntry>{MakeNode("_backward_Activation", n->attrs.name + "_backward",
                                             {og[0], relu ? y : n->inputs[0], y}, n->attrs.dict)};
    });

MXNET_REGISTER_OP(_backward_Activation)
    .describe("Gradient of Activation: ograd * f'(x).")
    .set_num_inputs(3)
    .set_num_outputs(1)
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output.")
    .add_argument("data", "NDArray-or-Symbol", "The forward input.")
    .add_argument("output", "NDArray-or-Symbol", "The forward output.")
    .add_arguments(ActivationParam::__FIELDS__())
    .set_attr_parser(ParamParser<ActivationParam>)
    .set_infer_shape(ElemwiseShape)
    .set_infer_type(ElemwiseType)
    .set_compute(Context::kCPU, ActivationBackward);

}  // namespace op
}  // namespace mxnet
