/*!
 * \file optimizer_sgd.cu
 * \brief CUDA kernels of the SGD-family updates: sgd_update, sgd_mom_update, nag_mom_update and
 *        their mp_ variants (sgd.cc), and the multi-tensor multi_sgd_update, multi_sgd_mom_update,
 *        multi_mp_sgd_update, multi_mp_sgd_mom_update (multi_sgd.cc). Every element takes
 *        SgdStep (sgd_rules.h), the step the CPU kernels take. A multi-tensor call updates up to
 *        kBatch weights of one dtype per launch, their steps passed in the kernel's parameters.
 */
#include <vector>

#include "mxnet/op.h"
#include "operator/cuda/cuda_kernel.cuh"
#include "operator/cuda/device_values.cuh"
#include "operator/optimizer/sgd_rules.h"

namespace mxnet {
namespace op {
namespace cuda {

using optimizer::SgdCoef;
using optimizer::SgdRule;
using optimizer::SgdStep;

/*! \brief SgdStep's store: the new weight into out element i under req. */
template <typename DType>
struct ReqStore {
  DType* y;
  OpReqType req;
  template <typename C>
  __device__ void operator()(int64_t i, C v) const {
    AssignReqDevice(y + i, req, v);
  }
};

template <typename P, SgdRule kRule, bool kMP>
void SgdCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const SgdCoef coef = optimizer::CoefOf(attrs.get<P>());
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, {
    const SgdStep<kRule, kMP, DType> step(coef, in.data(), out[0]);
    const ReqStore<DType> store{out[0].dptr<DType>(), req[0]};
    ForEach(
        Stream(ctx), in[0].Size(), [=] __device__(int64_t i) { step(i, store); }, attrs.op->name.c_str());
  });
}

/*! \brief Weights per multi-tensor launch: their steps stay well inside the 4 KiB of kernel parameters. */
constexpr int kBatch = 24;

/*! \brief Up to kBatch weights: weight t covers elements [offset[t], offset[t + 1]) of the launch. */
template <typename Step, typename DType>
struct SgdBatch {
  Step step[kBatch];
  ReqStore<DType> store[kBatch];
  int64_t offset[kBatch + 1];
  int count;
};

template <typename Step, typename DType>
__global__ void MultiSgdKernel(const SgdBatch<Step, DType> b) {
  const int64_t total = b.offset[b.count];
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride) {
    int t = 0;
    while (i >= b.offset[t + 1]) ++t;
    b.step[t](i - b.offset[t], b.store[t]);
  }
}

template <typename Step, typename DType>
void LaunchBatch(cudaStream_t stream, const SgdBatch<Step, DType>& b) {
  static_assert(sizeof(b) <= 4096, "a multi-tensor SGD batch must fit the kernel parameter space");
  const int64_t total = b.offset[b.count];
  if (total == 0) return;
  MultiSgdKernel<<<BlocksFor(total), kThreads, 0, stream>>>(b);
  Check(cudaGetLastError(), "multi-tensor SGD launch");
}

/*! \brief Each weight follows its single-tensor step with its own lr and wd; weights are batched per dtype. */
template <SgdRule kRule, bool kMP>
void MultiSgdCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = attrs.get<optimizer::MultiSGDParam>();
  const size_t group = in.size() / out.size();
  cudaStream_t stream = Stream(ctx);
  for (int dtype : {kFloat32, kFloat64, kFloat16, kBfloat16}) {
    MXNET_REAL_TYPE_SWITCH(dtype, DType, {
      using Step = SgdStep<kRule, kMP, DType>;
      SgdBatch<Step, DType> b;
      b.count = 0;
      b.offset[0] = 0;
      for (size_t k = 0; k < out.size(); ++k) {
        const TBlob* g = in.data() + k * group;
        if (req[k] == kNullOp || g[0].type_flag_ != dtype || g[0].Size() == 0) continue;
        const SgdCoef c{p.lrs.v[k], p.wds.v[k], p.momentum, p.rescale_grad, p.clip_gradient};
        b.step[b.count] = Step(c, g, out[k]);
        b.store[b.count] = ReqStore<DType>{out[k].dptr<DType>(), req[k]};
        b.offset[b.count + 1] = b.offset[b.count] + g[0].Size();
        if (++b.count == kBatch) {
          LaunchBatch(stream, b);
          b.count = 0;
        }
      }
      if (b.count > 0) LaunchBatch(stream, b);
    });
  }
}

}  // namespace cuda

namespace opt = optimizer;
MXNET_REGISTER_KERNEL(sgd_update, kGPU, cuda).set_compute(cuda::SgdCompute<opt::SGDParam, opt::SgdRule::kPlain, false>);
MXNET_REGISTER_KERNEL(sgd_mom_update, kGPU, cuda)
    .set_compute(cuda::SgdCompute<opt::SGDMomParam, opt::SgdRule::kMomentum, false>);
MXNET_REGISTER_KERNEL(mp_sgd_update, kGPU, cuda)
    .set_compute(cuda::SgdCompute<opt::SGDParam, opt::SgdRule::kPlain, true>);
MXNET_REGISTER_KERNEL(mp_sgd_mom_update, kGPU, cuda)
    .set_compute(cuda::SgdCompute<opt::SGDMomParam, opt::SgdRule::kMomentum, true>);
MXNET_REGISTER_KERNEL(nag_mom_update, kGPU, cuda)
    .set_compute(cuda::SgdCompute<opt::NAGMomParam, opt::SgdRule::kNesterov, false>);
MXNET_REGISTER_KERNEL(mp_nag_mom_update, kGPU, cuda)
    .set_compute(cuda::SgdCompute<opt::NAGMomParam, opt::SgdRule::kNesterov, true>);
MXNET_REGISTER_KERNEL(multi_sgd_update, kGPU, cuda).set_compute(cuda::MultiSgdCompute<opt::SgdRule::kPlain, false>);
MXNET_REGISTER_KERNEL(multi_sgd_mom_update, kGPU, cuda)
    .set_compute(cuda::MultiSgdCompute<opt::SgdRule::kMomentum, false>);
MXNET_REGISTER_KERNEL(multi_mp_sgd_update, kGPU, cuda).set_compute(cuda::MultiSgdCompute<opt::SgdRule::kPlain, true>);
MXNET_REGISTER_KERNEL(multi_mp_sgd_mom_update, kGPU, cuda)
    .set_compute(cuda::MultiSgdCompute<opt::SgdRule::kMomentum, true>);

}  // namespace op
}  // namespace mxnet
