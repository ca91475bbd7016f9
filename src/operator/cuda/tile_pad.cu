/*!
 * \file tile_pad.cu
 * \brief CUDA kernels of tile and repeat (tile_repeat.cc), Pad (pad.cc) and diag (diag.cc) with
 *        their `_backward_` ops. The forwards are the CPU's strided walks and coordinate maps
 *        run as device gathers. The gradients of tile and repeat sum, for each input element,
 *        the output-gradient copies of it (a thread, a warp or a block per element, by how many
 *        copies there are); Pad's adds each output gradient to the element it read, atomically
 *        where edge/reflect padding reads one element several times; diag's is the walk reversed.
 */
#include <algorithm>
#include <limits>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/axis_util.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/cuda/copy_kernels.cuh"
#include "operator/cuda/cuda_kernel.cuh"
#include "operator/tensor/diag.h"
#include "operator/tensor/pad.h"
#include "operator/tensor/tile_repeat.h"

namespace mxnet {
namespace op {
namespace cuda {
namespace {

using layout::Walk;
using layout::WalkArgs;

// ---- tile / repeat ---------------------------------------------------------------------

/*!
 * \brief d[e] (req) = sum over c < C of g[base.At(e) + copy.At(c)], kGroup threads per element
 *        (a warp or the whole block), reduced with warp shuffles and, for a block, shared memory.
 */
template <int kGroup, typename I, typename T>
__global__ void SumCopiesKernel(WalkArgs<I> base, WalkArgs<I> copy, int64_t E, I C, const T* g, T* d, OpReqType req) {
  using A = real_compute_t<T>;
  __shared__ A partial[kThreads / 32];
  const int lane = static_cast<int>(threadIdx.x) % kGroup;
  const int64_t per_block = kThreads / kGroup;
  for (int64_t e = blockIdx.x * per_block + threadIdx.x / kGroup; e < E; e += gridDim.x * per_block) {
    const I b = base.At(static_cast<I>(e));
    A acc = 0;
    for (I c = lane; c < C; c += kGroup) acc += static_cast<A>(g[b + copy.At(c)]);
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
    if constexpr (kGroup > 32) {  // every thread of the block is on the same e
      if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = acc;
      __syncthreads();
      if (threadIdx.x < 32) {
        acc = threadIdx.x < kThreads / 32 ? partial[threadIdx.x] : A(0);
        for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
      }
      __syncthreads();
    }
    if (lane == 0) Store(d + e, req, acc);
  }
}

template <typename I, typename T>
void SumCopiesI(cudaStream_t s, const Walk& base_w, const Walk& copy_w, const T* g, T* d, OpReqType req) {
  const WalkArgs<I> base = base_w.Args<I>(), copy = copy_w.Args<I>();
  const int64_t E = base_w.size;
  const I C = static_cast<I>(copy_w.size);
  if (C <= 32) {  // few copies: a thread per element
    using A = real_compute_t<T>;
    ForEach(s, E, [=] __device__(int64_t e) {
      const I b = base.At(static_cast<I>(e));
      A acc = 0;
      for (I c = 0; c < C; ++c) acc += static_cast<A>(g[b + copy.At(c)]);
      Store(d + e, req, acc);
    });
  } else if (E >= 8192) {  // enough elements to fill the GPU with a warp each
    const int64_t blocks = std::min<int64_t>((E + kThreads / 32 - 1) / (kThreads / 32), kMaxBlocks);
    SumCopiesKernel<32><<<static_cast<int>(blocks), kThreads, 0, s>>>(base, copy, E, C, g, d, req);
  } else {  // few elements with many copies each: a block each
    const int64_t blocks = std::min<int64_t>(E, kMaxBlocks);
    SumCopiesKernel<kThreads><<<static_cast<int>(blocks), kThreads, 0, s>>>(base, copy, E, C, g, d, req);
  }
  Check(cudaGetLastError(), "CUDA kernel launch");
}

/*! \brief d[e] (req) = sum of g over the copy walk, started at element e's base: the tile/repeat gradient. */
template <typename T>
void SumCopies(cudaStream_t s, const Walk& base, const Walk& copy, int64_t g_size, const T* g, T* d, OpReqType req) {
  if (req == kNullOp || base.size == 0) return;
  if (base.Fits32() && copy.Fits32() && g_size <= std::numeric_limits<int32_t>::max()) {
    SumCopiesI<int32_t>(s, base, copy, g, d, req);
  } else {
    SumCopiesI<int64_t>(s, base, copy, g, d, req);
  }
}

void TileForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  std::vector<int64_t> shape, stride;
  TileWalk(PlanTile(attrs, in[0].shape_), &shape, &stride);
  const Walk w = layout::MakeWalk(shape, stride, 0);
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType,
                    { layout::StridedGather(Stream(ctx), w, in[0].dptr<DType>(), out[0].dptr<DType>(), req[0]); });
}

/*! \brief Inputs (ograd, data): grad[e] = sum over every tile copy of e. */
void TileBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const TilePlan p = PlanTile(attrs, in[1].shape_);
  const auto os = ContiguousStrides(p.OutShape());
  std::vector<int64_t> copy_stride;  // one tile further along axis i
  for (size_t i = 0; i < p.dims.size(); ++i) copy_stride.push_back(p.dims[i] * os[i]);
  const Walk base = layout::MakeWalk(p.dims, os, 0), copy = layout::MakeWalk(p.reps, copy_stride, 0);
  MXNET_TYPE_SWITCH(out[0].type_flag_, DType, {
    SumCopies(Stream(ctx), base, copy, in[0].Size(), in[0].dptr<DType>(), out[0].dptr<DType>(), req[0]);
  });
}

void RepeatForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const AxisView v = RepeatView(attrs, in[0].shape_);
  const int64_t r = attrs.get<RepeatParam>().repeats;
  // output as (outer, mid, r, inner) reading the input with stride 0 along r
  const Walk w = layout::MakeWalk({v.outer, v.mid, r, v.inner}, {v.mid * v.inner, v.inner, 0, 1}, 0);
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType,
                    { layout::StridedGather(Stream(ctx), w, in[0].dptr<DType>(), out[0].dptr<DType>(), req[0]); });
}

/*! \brief Inputs (ograd, data): sums the `repeats` copies of each element. */
void RepeatBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const AxisView v = RepeatView(attrs, in[1].shape_);
  const int64_t r = attrs.get<RepeatParam>().repeats;
  const Walk base = layout::MakeWalk({v.outer * v.mid, v.inner}, {r * v.inner, 1}, 0);
  const Walk copy = layout::MakeWalk({r}, {v.inner}, 0);
  MXNET_TYPE_SWITCH(out[0].type_flag_, DType, {
    SumCopies(Stream(ctx), base, copy, in[0].Size(), in[0].dptr<DType>(), out[0].dptr<DType>(), req[0]);
  });
}

// ---- Pad -------------------------------------------------------------------------------

/*! \brief PadGeometry as a kernel argument. */
struct PadArgs {
  int n, mode;
  int64_t os[layout::kMaxWalkDims], is[layout::kMaxWalkDims], ist[layout::kMaxWalkDims], before[layout::kMaxWalkDims];
  __device__ __forceinline__ int64_t Source(int64_t e) const { return PaddedSource(e, n, os, is, ist, before, mode); }
};

PadArgs MakePadArgs(const NodeAttrs& attrs, const TShape& is, const TShape& os) {
  const auto& p = attrs.get<PadParam>();
  const PadGeometry g(p, is, os);
  MX_CHECK_KIND(is.ndim() <= layout::kMaxWalkDims, "ValueError")
      << attrs.op->name << ": the CUDA kernel pads up to " << layout::kMaxWalkDims << " dims, got shape " << is;
  PadArgs a{};
  a.n = is.ndim();
  a.mode = p.mode;
  std::copy(g.os.begin(), g.os.end(), a.os);
  std::copy(g.is.begin(), g.is.end(), a.is);
  std::copy(g.ist.begin(), g.ist.end(), a.ist);
  std::copy(g.before.begin(), g.before.end(), a.before);
  return a;
}

void PadForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const PadArgs a = MakePadArgs(attrs, in[0].shape_, out[0].shape_);
  const double cv = attrs.get<PadParam>().constant_value;
  const OpReqType r = req[0];
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    const DType* x = in[0].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    const DType value = CastValue<double, DType>(cv);
    ForEach(Stream(ctx), out[0].Size(), [=] __device__(int64_t e) {
      const int64_t src = a.Source(e);
      Store(y + e, r, src < 0 ? value : x[src]);
    });
  });
}

/*! \brief Inputs (ograd, data): each output gradient added to the input element it was read from. */
void PadBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const PadArgs a = MakePadArgs(attrs, in[1].shape_, in[0].shape_);
  const bool distinct = a.mode == kPadConstant;  // each input element is read once
  layout::ZeroForReq(Stream(ctx), out[0], req[0]);
  MXNET_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType* g = in[0].dptr<DType>();
    DType* d = out[0].dptr<DType>();
    ForEach(Stream(ctx), in[0].Size(), [=] __device__(int64_t e) {
      const int64_t src = a.Source(e);
      if (src < 0) return;
      if (distinct) {
        Store(d + src, kAddTo, g[e]);
      } else {
        layout::AtomicAdd(d + src, g[e]);
      }
    });
  });
}

// ---- diag ------------------------------------------------------------------------------

Walk WalkOf(const DiagWalk& w) { return layout::MakeWalk(w.shape, w.stride, w.offset); }

void DiagForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const cudaStream_t s = Stream(ctx);
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    if (in[0].ndim() == 1) {
      const Walk w = WalkOf(PlanMatrix(attrs, in[0].shape_[0]));
      layout::ZeroForReq(s, out[0], req[0]);
      layout::StridedScatter(s, w, in[0].dptr<DType>(), out[0].dptr<DType>(), req[0] == kAddTo);
    } else {
      layout::StridedGather(s, WalkOf(PlanDiag(attrs, in[0].shape_)), in[0].dptr<DType>(), out[0].dptr<DType>(),
                            req[0]);
    }
  });
}

/*! \brief Inputs (ograd, data): the forward walk reversed. */
void DiagBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const cudaStream_t s = Stream(ctx);
  MXNET_TYPE_SWITCH(out[0].type_flag_, DType, {
    if (in[1].ndim() == 1) {
      layout::StridedGather(s, WalkOf(PlanMatrix(attrs, in[1].shape_[0])), in[0].dptr<DType>(), out[0].dptr<DType>(),
                            req[0]);
    } else {
      const Walk w = WalkOf(PlanDiag(attrs, in[1].shape_));
      layout::ZeroForReq(s, out[0], req[0]);
      layout::StridedScatter(s, w, in[0].dptr<DType>(), out[0].dptr<DType>(), req[0] == kAddTo);
    }
  });
}

}  // namespace
}  // namespace cuda

MXNET_REGISTER_KERNEL(tile, kGPU, cuda).set_compute(cuda::TileForward);
MXNET_REGISTER_KERNEL(_backward_tile, kGPU, cuda).set_compute(cuda::TileBackward);
MXNET_REGISTER_KERNEL(repeat, kGPU, cuda).set_compute(cuda::RepeatForward);
MXNET_REGISTER_KERNEL(_backward_repeat, kGPU, cuda).set_compute(cuda::RepeatBackward);
MXNET_REGISTER_KERNEL(Pad, kGPU, cuda).set_compute(cuda::PadForward);
MXNET_REGISTER_KERNEL(_backward_Pad, kGPU, cuda).set_compute(cuda::PadBackward);
MXNET_REGISTER_KERNEL(diag, kGPU, cuda).set_compute(cuda::DiagForward);
MXNET_REGISTER_KERNEL(_backward_diag, kGPU, cuda).set_compute(cuda::DiagBackward);

}  // namespace op
}  // namespace mxnet
