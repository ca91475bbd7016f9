/*!
 * \file broadcast_reduce.cuh
 * \brief What the CUDA kernels of the broadcasting ops share: strided walks (a POD copy of
 *        broadcast_util.h's plan, passed to kernels by value) that map an output index to an
 *        offset in each input, and a sum over the broadcast axes for the gradients. The sum
 *        takes each summand from a device functor of the element's offsets, so a gradient
 *        (ograd * d/da) is summed without storing it first. Three schedules: a thread per
 *        output (few summands), a warp or block per output with a shuffle tree (summed axes
 *        innermost), and 32 outputs per block with 8 rows of summands each (kept axes
 *        innermost). Long sums are cut into chunks over blockIdx.y whose partial sums are
 *        added in chunk order by a second pass, so the result does not depend on timing.
 */
#ifndef MXNET_OPERATOR_CUDA_BROADCAST_REDUCE_CUH_
#define MXNET_OPERATOR_CUDA_BROADCAST_REDUCE_CUH_

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "operator/common/broadcast_util.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/cuda/cuda_kernel.cuh"

namespace mxnet {
namespace op {
namespace cuda {
namespace bcast {

/*! \brief Dims a walk holds after merging (MXNet caps ndim at 32). */
constexpr int kMaxWalkDims = 32;

/*! \brief q = i / d and *r = i % d, in 32 bits when both fit (64-bit division is emulated). */
__device__ __forceinline__ int64_t DivMod(int64_t i, int64_t d, int64_t* r) {
  if (((i | d) >> 32) == 0) {
    const uint32_t q = static_cast<uint32_t>(i) / static_cast<uint32_t>(d);
    *r = i - static_cast<int64_t>(q) * d;
    return q;
  }
  const int64_t q = i / d;
  *r = i - q * d;
  return q;
}

/*! \brief A row-major walk over `nd` dims with, per array j, the element stride of each dim. */
template <int NI>
struct Walk {
  int nd{0};
  int64_t shape[kMaxWalkDims];
  int64_t stride[NI][kMaxWalkDims];

  /*! \brief Adds to off[j] the offset in array j of walk position i. */
  __device__ __forceinline__ void AddOffsets(int64_t i, int64_t* off) const {
    for (int d = nd - 1; d > 0; --d) {
      int64_t r;
      i = DivMod(i, shape[d], &r);
#pragma unroll
      for (int j = 0; j < NI; ++j) off[j] += r * stride[j][d];
    }
    if (nd > 0) {
#pragma unroll
      for (int j = 0; j < NI; ++j) off[j] += i * stride[j][0];
    }
  }

  void Push(int64_t len, const int64_t* st) {
    MX_CHECK(nd < kMaxWalkDims) << "CUDA broadcast: more than " << kMaxWalkDims << " dims after merging";
    shape[nd] = len;
    for (int j = 0; j < NI; ++j) stride[j][nd] = st[j];
    ++nd;
  }
};

/*! \brief The walk of broadcast_util.h's plan for NI inputs read against the output. */
template <int NI>
Walk<NI> ToWalk(const BroadcastPlan& p) {
  Walk<NI> w;
  for (size_t d = 0; d < p.shape.size(); ++d) {
    int64_t st[NI];
    for (int j = 0; j < NI; ++j) st[j] = p.strides[j][d];
    w.Push(p.shape[d], st);
  }
  return w;
}

/*!
 * \brief A sum over some dims of `os`, reading NI arrays whose shapes broadcast to `os`:
 *        output o (row-major over the kept dims) sums the positions k of the reduced dims.
 */
template <int NI>
struct ReduceWalk {
  Walk<NI> kept, red;
  int64_t M{1}, K{1};
};

/*!
 * \brief Plans the sum over the dims of `os` flagged in `reduce`, array j having shape ins[j]
 *        (broadcast to os); adjacent dims of the same kind merge where every array is
 *        contiguous across them, as MakeReducePlan and MakeBroadcastPlan do.
 */
template <int NI>
ReduceWalk<NI> MakeReduceWalk(const TShape& os, const std::vector<TShape>& ins, const std::vector<bool>& reduce) {
  const int n = os.ndim();
  std::vector<std::vector<int64_t>> st(NI, std::vector<int64_t>(n, 0));
  for (int j = 0; j < NI; ++j) {
    int64_t s = 1;
    for (int i = n - 1; i >= 0; --i) {
      const int ii = ins[j].ndim() - n + i;
      const int64_t d = ii >= 0 ? ins[j][ii] : 1;
      st[j][i] = (d == 1 && os[i] != 1) ? 0 : s;
      s *= d;
    }
  }
  ReduceWalk<NI> p;
  int last = -1;  // kind of the previous non-unit dim: 0 kept, 1 reduced
  for (int i = 0; i < n; ++i) {
    if (os[i] == 1) continue;
    const int kind = reduce[i] ? 1 : 0;
    Walk<NI>& w = kind ? p.red : p.kept;
    bool merge = last == kind;
    for (int j = 0; j < NI && merge; ++j) merge = w.stride[j][w.nd - 1] == st[j][i] * os[i];
    if (merge) {
      w.shape[w.nd - 1] *= os[i];
      for (int j = 0; j < NI; ++j) w.stride[j][w.nd - 1] = st[j][i];
    } else {
      int64_t s[NI];
      for (int j = 0; j < NI; ++j) s[j] = st[j][i];
      w.Push(os[i], s);
    }
    last = kind;
  }
  p.M = 1;
  for (int d = 0; d < p.kept.nd; ++d) p.M *= p.kept.shape[d];
  p.K = 1;
  for (int d = 0; d < p.red.nd; ++d) p.K *= p.red.shape[d];
  return p;
}

/*! \brief The dims of `os` summed to give shape `ts` (as broadcast_binary.cc's SumToShape). */
inline std::vector<bool> SummedDims(const TShape& os, const TShape& ts) {
  std::vector<bool> reduce(os.ndim());
  for (int i = 0; i < os.ndim(); ++i) {
    const int ti = ts.ndim() - os.ndim() + i;
    reduce[i] = (ti < 0 || ts[ti] == 1) && os[i] != 1;
  }
  return reduce;
}

template <typename A>
__device__ __forceinline__ A WarpSum(A v) {
#pragma unroll
  for (int s = 16; s > 0; s /= 2) v = A(v + __shfl_down_sync(0xffffffffu, v, s));
  return v;
}

/*! \brief Where a sum's result goes: the output under req, or chunk y's partial sums. */
template <typename A, typename DType>
__device__ __forceinline__ void Emit(DType* out, OpReqType req, A* partial, int64_t M, int64_t o, A v) {
  if (gridDim.y == 1) {
    Store(out + o, req, v);
  } else {
    partial[blockIdx.y * M + o] = v;
  }
}

/*!
 * \brief Summed dims innermost: TPO threads (a warp or the block) per output, strided over
 *        the output's summands in chunk blockIdx.y, then a shuffle tree.
 */
template <int TPO, int NI, typename A, typename DType, typename F>
__global__ void __launch_bounds__(kThreads) RowSumKernel(ReduceWalk<NI> p, F f, int64_t kchunk, DType* out,
                                                          OpReqType req, A* partial) {
  constexpr int kPerBlock = kThreads / TPO;
  __shared__ A warp_sums[kThreads / 32];
  const int lane = threadIdx.x % TPO;
  const int64_t k0 = blockIdx.y * kchunk, k1 = min(p.K, k0 + kchunk);
  // ob is the same for the whole block, so every thread reaches the shuffles and barriers.
  for (int64_t ob = static_cast<int64_t>(blockIdx.x) * kPerBlock; ob < p.M;
       ob += static_cast<int64_t>(gridDim.x) * kPerBlock) {
    const int64_t o = ob + threadIdx.x / TPO;
    A acc = A(0);
    if (o < p.M) {
      int64_t base[NI] = {};
      p.kept.AddOffsets(o, base);
      for (int64_t k = k0 + lane; k < k1; k += TPO) {
        int64_t off[NI];
#pragma unroll
        for (int j = 0; j < NI; ++j) off[j] = base[j];
        p.red.AddOffsets(k, off);
        acc = A(acc + f(off));
      }
    }
    acc = WarpSum(acc);
    if constexpr (TPO > 32) {
      if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = acc;
      __syncthreads();
      if (threadIdx.x < 32) acc = WarpSum(threadIdx.x < kThreads / 32 ? warp_sums[threadIdx.x] : A(0));
      __syncthreads();
    }
    if (lane == 0 && o < p.M) Emit(out, req, partial, p.M, o, acc);
  }
}

/*!
 * \brief Kept dims innermost: 32 adjacent outputs per block (coalesced reads), 8 rows of
 *        threads each summing every 8th summand of chunk blockIdx.y, then the rows in order.
 */
template <int NI, typename A, typename DType, typename F>
__global__ void __launch_bounds__(kThreads) ColSumKernel(ReduceWalk<NI> p, F f, int64_t kchunk, DType* out,
                                                          OpReqType req, A* partial) {
  constexpr int kRows = kThreads / 32;
  __shared__ A sums[kRows][33];
  const int tx = threadIdx.x % 32, ty = threadIdx.x / 32;
  const int64_t k0 = blockIdx.y * kchunk, k1 = min(p.K, k0 + kchunk);
  for (int64_t ob = static_cast<int64_t>(blockIdx.x) * 32; ob < p.M; ob += static_cast<int64_t>(gridDim.x) * 32) {
    const int64_t o = ob + tx;
    A acc = A(0);
    if (o < p.M) {
      int64_t base[NI] = {};
      p.kept.AddOffsets(o, base);
      for (int64_t k = k0 + ty; k < k1; k += kRows) {
        int64_t off[NI];
#pragma unroll
        for (int j = 0; j < NI; ++j) off[j] = base[j];
        p.red.AddOffsets(k, off);
        acc = A(acc + f(off));
      }
    }
    sums[ty][tx] = acc;
    __syncthreads();
    if (ty == 0 && o < p.M) {
      for (int t = 1; t < kRows; ++t) acc = A(acc + sums[t][tx]);
      Emit(out, req, partial, p.M, o, acc);
    }
    __syncthreads();
  }
}

/*! \brief How a sum is scheduled; `chunks` > 1 needs chunks * M partial sums of scratch. */
struct SumSchedule {
  enum Kind { kThreadPerOutput, kWarpPerOutput, kBlockPerOutput, kColumns } kind{kThreadPerOutput};
  int64_t blocks{1}, chunks{1}, kchunk{0};
};

/*! \brief Blocks a launch aims for (an H100 holds 132 SMs x 8 blocks of 256 threads). */
constexpr int64_t kTargetBlocks = 1024;
/*! \brief Summands per thread below which a sum is not cut into more chunks. */
constexpr int64_t kMinPerThread = 16;

/*! \brief input0_contiguous: array 0 is laid out as `os` (the summands' order in memory). */
template <int NI>
SumSchedule ScheduleSum(const ReduceWalk<NI>& p) {
  SumSchedule s;
  if (p.M == 0 || p.K <= 8) return s;  // thread per output (also K == 0: zeros)
  // Array 0 has the layout of os: either its innermost summed dim or its innermost kept dim is
  // contiguous.
  const bool rows = p.red.nd > 0 && p.red.stride[0][p.red.nd - 1] == 1;
  int64_t per_block, threads_per_output;
  if (rows) {
    s.kind = p.K >= 1024 ? SumSchedule::kBlockPerOutput : SumSchedule::kWarpPerOutput;
    threads_per_output = s.kind == SumSchedule::kBlockPerOutput ? kThreads : 32;
    per_block = kThreads / threads_per_output;
  } else {
    s.kind = SumSchedule::kColumns;
    threads_per_output = kThreads / 32;
    per_block = 32;
  }
  s.blocks = (p.M + per_block - 1) / per_block;
  int64_t chunks = 1;
  if (s.blocks < kTargetBlocks) {
    const int64_t most = std::max<int64_t>(1, p.K / (threads_per_output * kMinPerThread));
    chunks = std::min<int64_t>({(kTargetBlocks + s.blocks - 1) / s.blocks, most, 65535});
  }
  s.kchunk = (p.K + chunks - 1) / chunks;
  s.chunks = (p.K + s.kchunk - 1) / s.kchunk;
  s.blocks = std::min<int64_t>(s.blocks, 1 << 30);  // the kernels stride over the rest
  return s;
}

/*! \brief Bytes of scratch the sum needs for its partial sums (0: none). */
template <typename A, int NI>
size_t SumScratchBytes(const ReduceWalk<NI>& p) {
  const SumSchedule s = ScheduleSum(p);
  return s.kind != SumSchedule::kThreadPerOutput && s.chunks > 1 ? sizeof(A) * s.chunks * p.M : 0;
}

/*!
 * \brief out[o] (under req) = sum over k of f(offsets of (o, k)) in the accumulation type A;
 *        f(const int64_t* off) -> A is a device functor of the NI offsets. partial: scratch of
 *        SumScratchBytes<A>(p) bytes (may be null when that is 0).
 */
template <typename A, int NI, typename DType, typename F>
void Sum(cudaStream_t stream, const ReduceWalk<NI>& p, F f, DType* out, OpReqType req, A* partial) {
  static_assert(std::is_same_v<A, float> || std::is_same_v<A, double>, "sums accumulate in float or double");
  if (req == kNullOp || p.M == 0) return;
  const SumSchedule s = ScheduleSum(p);
  if (s.kind == SumSchedule::kThreadPerOutput) {
    ForEach(
        stream, p.M,
        [=] __device__(int64_t o) {
          int64_t base[NI] = {};
          p.kept.AddOffsets(o, base);
          A acc = A(0);
          for (int64_t k = 0; k < p.K; ++k) {
            int64_t off[NI];
#pragma unroll
            for (int j = 0; j < NI; ++j) off[j] = base[j];
            p.red.AddOffsets(k, off);
            acc = A(acc + f(off));
          }
          Store(out + o, req, acc);
        },
        "CUDA broadcast sum");
    return;
  }
  const dim3 grid(static_cast<unsigned>(s.blocks), static_cast<unsigned>(s.chunks));
  switch (s.kind) {
    case SumSchedule::kWarpPerOutput:
      RowSumKernel<32><<<grid, kThreads, 0, stream>>>(p, f, s.kchunk, out, req, partial);
      break;
    case SumSchedule::kBlockPerOutput:
      RowSumKernel<kThreads><<<grid, kThreads, 0, stream>>>(p, f, s.kchunk, out, req, partial);
      break;
    default:
      ColSumKernel<<<grid, kThreads, 0, stream>>>(p, f, s.kchunk, out, req, partial);
      break;
  }
  Check(cudaGetLastError(), "CUDA broadcast sum");
  if (s.chunks > 1) {
    const int64_t M = p.M, chunks = s.chunks;
    ForEach(
        stream, M,
        [=] __device__(int64_t o) {
          A acc = partial[o];
          for (int64_t c = 1; c < chunks; ++c) acc = A(acc + partial[c * M + o]);
          Store(out + o, req, acc);
        },
        "CUDA broadcast sum (chunks)");
  }
}

}  // namespace bcast
}  // namespace cuda
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_CUDA_BROADCAST_REDUCE_CUH_
