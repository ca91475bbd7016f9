/*!
 * \file optimizer_update.cuh
 * \brief The CUDA loop of a single-tensor update op: a rule struct of the optimizer's *_rules.h
 *        headers (host+device) applied to every element, as RunUpdateRule does on the CPU.
 */
#ifndef MXNET_OPERATOR_CUDA_OPTIMIZER_UPDATE_CUH_
#define MXNET_OPERATOR_CUDA_OPTIMIZER_UPDATE_CUH_

#include <cstdint>

#include "operator/cuda/cuda_kernel.cuh"
#include "operator/cuda/device_values.cuh"

namespace mxnet {
namespace op {
namespace cuda {

/*! \brief y[i] = rule(i) under req for every i; the rule updates element i's states itself. */
template <typename DType, typename Rule>
void RunUpdateRule(const OpContext& ctx, int64_t n, const Rule& rule, DType* y, OpReqType req, const char* what) {
  ForEach(
      Stream(ctx), n, [=] __device__(int64_t i) { AssignReqDevice(y + i, req, rule(i)); }, what);
}

}  // namespace cuda
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_CUDA_OPTIMIZER_UPDATE_CUH_
