/*!
 * \file cuda_kernel.cuh
 * \brief What every CUDA kernel file uses: the worker's stream from the OpContext, error checks
 *        that throw mxnet::Error naming the call, and ForEach, a grid-stride launch of a device
 *        lambda over [0, n). Kernels call the element functors the CPU kernels use
 *        (unary_functors.h, binary_functors.h), so the math is written once.
 */
#ifndef MXNET_OPERATOR_CUDA_CUDA_KERNEL_CUH_
#define MXNET_OPERATOR_CUDA_CUDA_KERNEL_CUH_

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "mxnet/error.h"
#include "mxnet/op_context.h"
#include "mxnet/tensor.h"

namespace mxnet {
namespace op {
namespace cuda {

/*! \brief Throws mxnet::Error "<what>: <CUDA's message>" when err is not cudaSuccess. */
inline void Check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    cudaGetLastError();  // clear a non-sticky error so the next call does not report it again
    MX_THROW("MXNetError") << what << ": " << cudaGetErrorString(err);
  }
}

/*! \brief The stream of the engine worker running this kernel (the engine syncs it after the op). */
inline cudaStream_t Stream(const OpContext& ctx) { return static_cast<cudaStream_t>(ctx.run_ctx.stream); }

constexpr int kThreads = 256;
/*! \brief Enough blocks to fill an H100 several times over; grid-stride loops cover the rest. */
constexpr int64_t kMaxBlocks = 8192;

inline int BlocksFor(int64_t n) {
  return static_cast<int>(std::min<int64_t>((n + kThreads - 1) / kThreads, kMaxBlocks));
}

template <typename F>
__global__ void ForEachKernel(int64_t n, F f) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) f(i);
}

/*! \brief Runs f(i) for every i in [0, n) on the stream; f is a __device__ lambda or functor. */
template <typename F>
void ForEach(cudaStream_t stream, int64_t n, F f, const char* what = "CUDA kernel launch") {
  if (n <= 0) return;
  ForEachKernel<<<BlocksFor(n), kThreads, 0, stream>>>(n, f);
  Check(cudaGetLastError(), what);
}

/*! \brief Stores v into *out under req, accumulating in the compute type C for kAddTo. */
template <typename DType, typename C>
__device__ __forceinline__ void StoreReq(DType* out, OpReqType req, C v) {
  if (req == kAddTo) {
    *out = static_cast<DType>(static_cast<C>(*out) + v);
  } else {
    *out = static_cast<DType>(v);
  }
}

}  // namespace cuda
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_CUDA_CUDA_KERNEL_CUH_
