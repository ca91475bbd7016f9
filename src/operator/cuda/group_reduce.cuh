/*!
 * \file group_reduce.cuh
 * \brief Reductions inside a thread block for the CUDA kernels of the axis reductions
 *        (reduce.cu) and softmax (softmax.cu). A block is a 2-D grid of threads split into
 *        groups that each reduce one row: a group's lanes lie along x (adjacent threads, a
 *        shuffle tree within a warp, then shared memory across warps) or along y (a shared
 *        memory tree over rows of threads). The reduced value is any trivially copyable state
 *        (a sum, a max, argmax's value and index, a compensated float16 sum) combined by a
 *        caller's merge, so one schedule serves every reducer.
 */
#ifndef MXNET_OPERATOR_CUDA_GROUP_REDUCE_CUH_
#define MXNET_OPERATOR_CUDA_GROUP_REDUCE_CUH_

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace mxnet {
namespace op {
namespace cuda {

/*! \brief q = i / d and *r = i % d, in 32 bits when both fit (64-bit division is emulated). */
__host__ __device__ __forceinline__ int64_t DivMod(int64_t i, int64_t d, int64_t* r) {
  if (((i | d) >> 32) == 0) {
    const uint32_t q = static_cast<uint32_t>(i) / static_cast<uint32_t>(d);
    *r = i - static_cast<int64_t>(q) * d;
    return q;
  }
  const int64_t q = i / d;
  *r = i - q * d;
  return q;
}

/*! \brief Smallest power of two >= v (v >= 1). */
inline int64_t Pow2Ceil(int64_t v) {
  int64_t p = 1;
  while (p < v) p *= 2;
  return p;
}

/*! \brief __shfl_down_sync of any trivially copyable value, word by word (full warp). */
template <typename S>
__device__ __forceinline__ S ShflDown(const S& v, int delta, int width) {
  constexpr int kWords = (sizeof(S) + 3) / 4;
  uint32_t w[kWords] = {};
  memcpy(w, &v, sizeof(S));
#pragma unroll
  for (int i = 0; i < kWords; ++i) w[i] = __shfl_down_sync(0xffffffffu, w[i], delta, width);
  S r;
  memcpy(&r, w, sizeof(S));
  return r;
}

/*! \brief __shfl_sync of any trivially copyable value from lane src of each width-wide segment. */
template <typename S>
__device__ __forceinline__ S Shfl(const S& v, int src, int width) {
  constexpr int kWords = (sizeof(S) + 3) / 4;
  uint32_t w[kWords] = {};
  memcpy(w, &v, sizeof(S));
#pragma unroll
  for (int i = 0; i < kWords; ++i) w[i] = __shfl_sync(0xffffffffu, w[i], src, width);
  S r;
  memcpy(&r, w, sizeof(S));
  return r;
}

/*! \brief Shared memory (in S's) GroupReduce needs for a block of `threads` threads. */
inline size_t GroupReduceSmem(int threads, size_t state_bytes) { return (threads + 32) * state_bytes; }

/*!
 * \brief Reduces v over the lanes of each group and returns the result to every lane.
 *        lanes_x: a group is a row of the block (blockDim.x lanes, a power of two; rows of
 *        64 or more lanes are whole warps); otherwise a column (blockDim.y lanes, a power of
 *        two). merge(S& a, const S& b) folds b, from higher lanes, into a. Every thread of the
 *        block calls it (barriers and full-warp shuffles); blockDim.x * blockDim.y is a
 *        multiple of 32. smem holds GroupReduceSmem bytes, reusable once it returns.
 */
template <typename S, typename Merge>
__device__ __forceinline__ S GroupReduce(S v, bool lanes_x, S* smem, Merge merge) {
  const int bx = blockDim.x, by = blockDim.y;
  if (lanes_x) {
    const int w = bx < 32 ? bx : 32;
    // Lane 0 of each segment of w lanes ends with the segment's result; the other lanes'
    // values are not read by it.
    for (int off = w / 2; off > 0; off /= 2) merge(v, ShflDown(v, off, w));
    if (bx <= 32) return Shfl(v, 0, w);
    const int row = threadIdx.y, warp = threadIdx.x / 32, nw = bx / 32;
    if (threadIdx.x % 32 == 0) smem[row * 32 + warp] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
      v = smem[row * 32 + (static_cast<int>(threadIdx.x) < nw ? threadIdx.x : 0)];
      for (int off = nw / 2; off > 0; off /= 2) merge(v, ShflDown(v, off, nw));
      if (threadIdx.x == 0) smem[bx * by + row] = v;
    }
    __syncthreads();
    v = smem[bx * by + row];
    __syncthreads();
    return v;
  }
  const int tid = threadIdx.y * bx + threadIdx.x;
  smem[tid] = v;
  __syncthreads();
  for (int off = by / 2; off > 0; off /= 2) {
    if (static_cast<int>(threadIdx.y) < off) merge(smem[tid], smem[tid + off * bx]);
    __syncthreads();
  }
  v = smem[threadIdx.x];
  __syncthreads();
  return v;
}

/*! \brief How rows of n elements are spread over 256-thread blocks (see GroupReduce). */
struct GroupLayout {
  bool lanes_x{true};
  int bx{1}, by{1};
  int lanes() const { return lanes_x ? bx : by; }
  int rows_per_block() const { return lanes_x ? by : bx; }
};

constexpr int kGroupThreads = 256;

/*!
 * \brief contiguous: a row's elements are adjacent in memory (lanes along x, up to max_lanes
 *        of them, about four elements each); otherwise adjacent rows are (rows along x for
 *        coalesced reads, up to 16 lanes along y).
 */
inline GroupLayout MakeGroupLayout(bool contiguous, int64_t n, int max_lanes = kGroupThreads) {
  GroupLayout g;
  g.lanes_x = contiguous;
  const int64_t want = Pow2Ceil(std::max<int64_t>(1, (n + 3) / 4));
  if (contiguous) {
    g.bx = static_cast<int>(std::min<int64_t>(want, max_lanes));
    g.by = std::max(1, kGroupThreads / g.bx);
  } else {
    g.by = static_cast<int>(std::min<int64_t>(want, 16));
    g.bx = kGroupThreads / g.by;
  }
  return g;
}

}  // namespace cuda
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_CUDA_GROUP_REDUCE_CUH_
