/*!
 * \file segment_reduce.cuh
 * \brief SegmentSum: kN sums per segment, in double (gradients of per-distribution or per-channel
 *        parameters, row checks). A short segment is summed by one thread, in order (as the CPU
 *        loops do); a long one by a block (warp shuffles, then shared memory across warps).
 */
#ifndef MXNET_OPERATOR_CUDA_SEGMENT_REDUCE_CUH_
#define MXNET_OPERATOR_CUDA_SEGMENT_REDUCE_CUH_

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "operator/cuda/cuda_kernel.cuh"

namespace mxnet {
namespace op {
namespace cuda {

/*! \brief Segments at most this long are summed by one thread each, in order (as the CPU loops do). */
constexpr int64_t kSerialSegment = 8;

template <int kN, typename Term, typename Done>
__global__ void SegmentSumKernel(int64_t segments, int64_t len, Term term, Done done) {
  __shared__ double partial[kN][32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  for (int64_t s = blockIdx.x; s < segments; s += gridDim.x) {
    double acc[kN];
    for (int k = 0; k < kN; ++k) acc[k] = 0.0;
    for (int64_t t = threadIdx.x; t < len; t += blockDim.x) term(s, t, acc);
    for (int k = 0; k < kN; ++k)
      for (int off = 16; off > 0; off >>= 1) acc[k] += __shfl_down_sync(0xffffffffu, acc[k], off);
    if (lane == 0)
      for (int k = 0; k < kN; ++k) partial[k][warp] = acc[k];
    __syncthreads();
    if (warp == 0) {
      for (int k = 0; k < kN; ++k) {
        acc[k] = lane < warps ? partial[k][lane] : 0.0;
        for (int off = 16; off > 0; off >>= 1) acc[k] += __shfl_down_sync(0xffffffffu, acc[k], off);
      }
      if (lane == 0) done(s, acc);
    }
    __syncthreads();  // partial is reused by the next segment
  }
}

/*!
 * \brief For every segment s in [0, segments): term(s, t, acc) adds segment s's kN terms of
 *        position t into acc[0..kN) (and may write outputs of its own), for t in [0, len); then
 *        done(s, sums) receives the kN sums (zeros when len is 0). Short segments take one thread
 *        each, long ones a block each, so both many small and few large segments fill the GPU.
 */
template <int kN, typename Term, typename Done>
void SegmentSum(cudaStream_t stream, int64_t segments, int64_t len, Term term, Done done,
                const char* what = "CUDA segment sum") {
  if (segments <= 0) return;
  if (len <= kSerialSegment) {
    ForEach(
        stream, segments,
        [=] __device__(int64_t s) {
          double acc[kN];
          for (int k = 0; k < kN; ++k) acc[k] = 0.0;
          for (int64_t t = 0; t < len; ++t) term(s, t, acc);
          done(s, acc);
        },
        what);
    return;
  }
  const int threads = len >= kThreads ? kThreads : static_cast<int>((len + 31) / 32 * 32);
  const int blocks = static_cast<int>(std::min<int64_t>(segments, kMaxBlocks * 4));
  SegmentSumKernel<kN><<<blocks, threads, 0, stream>>>(segments, len, term, done);
  Check(cudaGetLastError(), what);
}

}  // namespace cuda
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_CUDA_SEGMENT_REDUCE_CUH_
