/*!
 * \file onednn_softmax_kernels.cc
 * \brief The "onednn" entries (tagged "onednn") of softmax, log_softmax, softmin and their
 *        backward ops: oneDNN softmax / logsoftmax on float32 without length masking, after the
 *        tiled kernels that take non-last axes (softmax.cc). Temperature and softmin's sign
 *        apply as a scale of the input (of the gradient, backward).
 */
#if MXNET_USE_ONEDNN

#include <vector>

#include "operator/kernel_dispatch.h"
#include "operator/nn/softmax_param.h"
#include "operator/onednn/onednn_ops.h"

namespace mxnet {
namespace op {
namespace onednn {
namespace {

/*! \brief float32 in and out, no length masking, overwritten output, a rank oneDNN takes. */
bool Takes(const NodeAttrs& attrs, const TBlob& data, const TBlob& res, OpReqType req) {
  return !UseLength(attrs) && req != kAddTo && data.type_flag_ == kFloat32 && res.type_flag_ == kFloat32 &&
         data.Size() > 0 && data.ndim() <= 6;
}

void ScaleInto(const TBlob& src, const TBlob& dst, float scale) {
  const float* x = src.dptr<float>();
  float* y = dst.dptr<float>();
  ParallelFor(src.Size(), [&](int64_t i) { y[i] = x[i] * scale; });
}

template <SoftmaxKind kKind>
void Forward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
             const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const int axis = AxisView(attrs, in[0].shape_).axis;
  const float scale = InputScale(kKind, Temperature(attrs));
  if (scale == 1.f) return SoftmaxForward(kKind == kLogSoftmax, in[0], out[0], axis);
  // softmax(x / T) = softmax of the scaled copy, computed in place in the output.
  ScaleInto(in[0], out[0], scale);
  SoftmaxForward(kKind == kLogSoftmax, out[0], out[0], axis);
}

/*! \brief inputs (ograd, output, data); outputs (ddata). */
template <SoftmaxKind kKind>
void Backward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
              const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const int axis = AxisView(attrs, in[1].shape_).axis;
  // d softmax(s * x) / dx = s * (the Jacobian at s * x), so the gradient is scaled after.
  SoftmaxBackward(kKind == kLogSoftmax, in[0], in[1], out[0], axis);
  const float scale = InputScale(kKind, Temperature(attrs));
  if (scale != 1.f) ScaleInto(out[0], out[0], scale);
}

bool ForwardAccepts(const KernelProblem& p) { return Takes(p.attrs, p.inputs[0], p.outputs[0], p.req[0]); }
bool BackwardAccepts(const KernelProblem& p) { return Takes(p.attrs, p.inputs[1], p.outputs[0], p.req[0]); }

}  // namespace

#define MXNET_REGISTER_ONEDNN_SOFTMAX(opname, kind)                                         \
  MXNET_REGISTER_KERNEL(opname, kCPU, onednn)                                               \
      .set_rank(30)                                                                         \
      .add_tag("onednn")                                                                    \
      .set_accepts(ForwardAccepts, /*cheap=*/true)                                          \
      .set_compute(Forward<kind>);                                                          \
  MXNET_REGISTER_KERNEL(_backward_##opname, kCPU, onednn)                                   \
      .set_rank(30)                                                                         \
      .add_tag("onednn")                                                                    \
      .set_accepts(BackwardAccepts, /*cheap=*/true)                                         \
      .set_compute(Backward<kind>)

MXNET_REGISTER_ONEDNN_SOFTMAX(softmax, kSoftmax);
MXNET_REGISTER_ONEDNN_SOFTMAX(log_softmax, kLogSoftmax);
MXNET_REGISTER_ONEDNN_SOFTMAX(softmin, kSoftmin);

}  // namespace onednn
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_USE_ONEDNN
