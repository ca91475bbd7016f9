/*!
 * \file onednn_eltwise_kernels.cc
 * \brief The oneDNN eltwise entries of the activation kernel lists, each named "onednn" and
 *        tagged "onednn" (MXNET_ONEDNN_ENABLED=0 skips them):
 *          Activation, _backward_Activation  relu, sigmoid, tanh, softrelu (not softsign)
 *          LeakyReLU, _backward_LeakyReLU    leaky, elu, gelu (not prelu, rrelu, selu)
 *        The Activation entries and LeakyReLU's forward read a blocked input (a convolution's
 *        output) in its own format and leave the output in it, so the format passes through;
 *        LeakyReLU's backward reads plain memory.
 */
#if MXNET_USE_ONEDNN

#include <vector>

#include "operator/kernel_dispatch.h"
#include "operator/nn/activation_param.h"
#include "operator/nn/fused_act.h"
#include "operator/nn/leaky_relu_param.h"
#include "operator/onednn/onednn_layout.h"
#include "operator/onednn/onednn_ops.h"

namespace mxnet {
namespace op {
namespace onednn {
namespace {

/*! \brief Activation's act_type codes are those of the fused activations (fused_act.h). */
bool ActivationAlg(const NodeAttrs& attrs, dnnl::algorithm* alg) {
  return OneDNNEltwise(attrs.get<ActivationParam>().act_type, alg);
}

/*! \brief leaky is relu with alpha = the negative slope; prelu, rrelu and selu have no primitive here. */
bool LeakyAlg(const NodeAttrs& attrs, dnnl::algorithm* alg) {
  switch (attrs.get<LeakyReLUParam>().act_type) {
    case kLeaky: *alg = dnnl::algorithm::eltwise_relu; return true;
    case kELU: *alg = dnnl::algorithm::eltwise_elu; return true;
    case kGELU: *alg = dnnl::algorithm::eltwise_gelu_erf; return true;
    default: return false;
  }
}

/*!
 * \brief y = f(x) on input 0's blocked format when it has one and output 0 may keep it, else on
 *        plain memory. The functions above map 0 to 0, so a blocked format's zero padding stays zero.
 */
void ForwardPassingLayout(dnnl::algorithm alg, float alpha, const TBlob& x, const TBlob& y) {
  const auto bx = BlockedInput(0, x);
  if (bx && CanLeaveBlocked(0, y)) return EltwiseForwardBlocked(alg, alpha, 0.f, *bx, y);
  PlainInput(0);
  EltwiseForward(alg, alpha, 0.f, x, y);
}

// ---- Activation; _backward_Activation: inputs (dy, x, y) ----

bool ActivationAccepts(const KernelProblem& p) {
  dnnl::algorithm alg;
  return p.req[0] != kNullOp && p.req[0] != kAddTo && p.inputs[0].Size() > 0 &&
         SupportedType(p.inputs[0].type_flag_) && ActivationAlg(p.attrs, &alg);
}

void ActivationForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>&, const std::vector<TBlob>& out) {
  dnnl::algorithm alg;
  ActivationAlg(attrs, &alg);
  ForwardPassingLayout(alg, 0.f, in[0], out[0]);
}

bool ActivationBackwardAccepts(const KernelProblem& p) {
  dnnl::algorithm alg;
  return p.req[0] != kNullOp && p.req[0] != kAddTo && p.inputs[1].Size() > 0 &&
         SupportedType(p.inputs[1].type_flag_) && ActivationAlg(p.attrs, &alg);
}

void ActivationBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>&, const std::vector<TBlob>& out) {
  dnnl::algorithm alg;
  ActivationAlg(attrs, &alg);
  EltwiseBackward(alg, 0.f, 0.f, in[0], in[1], out[0]);  // reads a blocked x in its format
}

// ---- LeakyReLU; _backward_LeakyReLU: inputs (dy, x [, gamma | mask]) ----

bool LeakyAccepts(const KernelProblem& p, const TBlob& data) {
  dnnl::algorithm alg;
  return p.req[0] == kWriteTo && data.Size() > 0 && SupportedType(data.type_flag_) && LeakyAlg(p.attrs, &alg);
}

void LeakyForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>&, const std::vector<TBlob>& out) {
  dnnl::algorithm alg;
  LeakyAlg(attrs, &alg);
  ForwardPassingLayout(alg, attrs.get<LeakyReLUParam>().slope, in[0], out[0]);
}

void LeakyBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>&, const std::vector<TBlob>& out) {
  dnnl::algorithm alg;
  LeakyAlg(attrs, &alg);
  EltwiseBackward(alg, attrs.get<LeakyReLUParam>().slope, 0.f, in[0], in[1], out[0]);
}

}  // namespace

MXNET_REGISTER_KERNEL(Activation, kCPU, onednn)
    .set_rank(30)
    .add_tag("onednn")
    .set_layouts(KernelLayouts::kAny)
    .set_accepts(ActivationAccepts, /*cheap=*/true)
    .set_compute(ActivationForward);
MXNET_REGISTER_KERNEL(_backward_Activation, kCPU, onednn)
    .set_rank(30)
    .add_tag("onednn")
    .set_layouts(KernelLayouts::kAny)
    .set_accepts(ActivationBackwardAccepts, /*cheap=*/true)
    .set_compute(ActivationBackward);

MXNET_REGISTER_KERNEL(LeakyReLU, kCPU, onednn)
    .set_rank(30)
    .add_tag("onednn")
    .set_layouts(KernelLayouts::kAny)
    .set_accepts([](const KernelProblem& p) { return LeakyAccepts(p, p.inputs[0]); }, /*cheap=*/true)
    .set_compute(LeakyForward);
MXNET_REGISTER_KERNEL(_backward_LeakyReLU, kCPU, onednn)
    .set_rank(30)
    .add_tag("onednn")
    .set_accepts([](const KernelProblem& p) { return LeakyAccepts(p, p.inputs[1]); }, /*cheap=*/true)
    .set_compute(LeakyBackward);

}  // namespace onednn
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_USE_ONEDNN
