/*!
 * \file optimizer_adam.cu
 * \brief CUDA kernels of the Adam-family updates (adam.cc): adam_update, _adamw_update,
 *        _mp_adamw_update, lamb_update_phase1, lamb_update_phase2, applying the rules of
 *        adam_rules.h that the CPU kernels apply. The (1,)-shaped inputs (AdamW's rescale_grad,
 *        LAMB's norms r1 and r2) are read on the device, so no call waits for the GPU.
 */
#include <vector>

#include "mxnet/op.h"
#include "operator/cuda/cuda_kernel.cuh"
#include "operator/cuda/device_values.cuh"
#include "operator/cuda/optimizer_update.cuh"
#include "operator/optimizer/adam_rules.h"

namespace mxnet {
namespace op {
namespace cuda {

using optimizer::AdamRule;
using optimizer::AdamWRule;
using optimizer::LambPhase1Rule;
using optimizer::LambPhase2Rule;

void AdamCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, {
    RunUpdateRule(ctx, in[0].Size(), AdamRule<DType>(attrs.get<optimizer::AdamParam>(), in), out[0].dptr<DType>(),
                  req[0], "adam_update");
  });
}

/*!
 * \brief A scale of 0, inf or nan leaves weight and states untouched; an out-of-place kWriteTo
 *        output then receives the weight, as the CPU kernel's copy gives it.
 */
template <bool kMP>
void AdamWCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const DeviceScalar scale(in[kMP ? 5 : 4]);
  const OpReqType r = req[0];
  const bool copy_on_skip = r == kWriteTo && in[0].dptr_ != out[0].dptr_;
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, {
    using Rule = AdamWRule<DType, kMP>;
    using C = typename Rule::C;
    const Rule rule(attrs.get<optimizer::AdamWParam>(), in);
    const DType* w = in[0].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    ForEach(
        Stream(ctx), in[0].Size(),
        [=] __device__(int64_t i) {
          const double s = scale();
          if (!optimizer::AdamWScaleSteps(s)) {
            if (copy_on_skip) y[i] = w[i];
            return;
          }
          AssignReqDevice(y + i, r, rule(i, C(s)));
        },
        kMP ? "_mp_adamw_update" : "_adamw_update");
  });
}

void LambPhase1Compute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, {
    RunUpdateRule(ctx, in[0].Size(), LambPhase1Rule<DType>(attrs.get<optimizer::LambPhase1Param>(), in),
                  out[0].dptr<DType>(), req[0], "lamb_update_phase1");
  });
}

/*! \brief Every thread computes the trust ratio from r1 and r2 as the CPU kernel does once. */
void LambPhase2Compute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = attrs.get<optimizer::LambPhase2Param>();
  const DeviceScalar r1(in[2]), r2(in[3]);
  const float lr = p.lr, lower = p.lower_bound, upper = p.upper_bound;
  const OpReqType r = req[0];
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, {
    using Rule = LambPhase2Rule<DType>;
    using C = typename Rule::C;
    const Rule rule(in);
    DType* y = out[0].dptr<DType>();
    ForEach(
        Stream(ctx), in[0].Size(),
        [=] __device__(int64_t i) {
          const double ratio = optimizer::LambTrustRatio(r1(), r2(), lower, upper);
          AssignReqDevice(y + i, r, rule(i, C(lr * ratio)));
        },
        "lamb_update_phase2");
  });
}

}  // namespace cuda

MXNET_REGISTER_KERNEL(adam_update, kGPU, cuda).set_compute(cuda::AdamCompute);
MXNET_REGISTER_KERNEL(_adamw_update, kGPU, cuda).set_compute(cuda::AdamWCompute<false>);
MXNET_REGISTER_KERNEL(_mp_adamw_update, kGPU, cuda).set_compute(cuda::AdamWCompute<true>);
MXNET_REGISTER_KERNEL(lamb_update_phase1, kGPU, cuda).set_compute(cuda::LambPhase1Compute);
MXNET_REGISTER_KERNEL(lamb_update_phase2, kGPU, cuda).set_compute(cuda::LambPhase2Compute);

}  // namespace op
}  // namespace mxnet
