/*!
 * \file onednn_dropout_kernels.cc
 * \brief Dropout's "share_blocked" entry (Dropout: share_blocked, reference), tagged "onednn":
 *        outside training Dropout is the identity, and an input held in a oneDNN-blocked format
 *        (a convolution's output) passes through without a reorder: the output shares the
 *        input's immutable blocked data and the mask is ones. A plain input, or an output that
 *        cannot keep a layout, takes the reference kernel on plain memory.
 */
#if MXNET_USE_ONEDNN

#include <vector>

#include "operator/kernel_dispatch.h"
#include "operator/nn/dropout_param.h"
#include "operator/nn/nn_util.h"
#include "operator/onednn/onednn_same_layout.h"

namespace mxnet {
namespace op {
namespace onednn {
namespace {

bool IdentityAccepts(const KernelProblem& p) {
  const OpReqType r = p.req[0];
  return !DropoutActive(p.attrs.get<DropoutParam>(), p.ctx) && (r == kWriteTo || r == kWriteInplace);
}

void IdentitySharingLayout(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                           const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (ShareBlockedInput(in[0], req[0], 0, out[0])) {
    MXNET_REAL_TYPE_SWITCH(out[1].type_flag_, D, {
      D* mask = out[1].dptr<D>();
      ParallelFor(out[1].Size(), [mask](int64_t j) { mask[j] = D(1); });
    });
    return;
  }
  PlainInputs();  // the reference reads plain memory
  (*Op::Get("Dropout")->GetCompute(Context::kCPU))(attrs, ctx, in, req, out);
}

}  // namespace

MXNET_REGISTER_KERNEL(Dropout, kCPU, share_blocked)
    .set_rank(30)
    .add_tag("onednn")
    .set_layouts(KernelLayouts::kAny)
    .set_accepts(IdentityAccepts, /*cheap=*/true)
    .set_compute(IdentitySharingLayout);

}  // namespace onednn
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_USE_ONEDNN
