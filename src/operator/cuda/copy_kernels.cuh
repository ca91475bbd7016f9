/*!
 * \file copy_kernels.cuh
 * \brief What the CUDA kernels of the layout and indexing ops share: the strided walk of
 *        strided_copy.h on the device (gather, scatter, fill), whole-array copies and zeroing
 *        under a write request, an atomic add for every dtype, and index arrays resolved on the
 *        device with raise-mode errors reported as the CPU reports them.
 */
#ifndef MXNET_OPERATOR_CUDA_COPY_KERNELS_CUH_
#define MXNET_OPERATOR_CUDA_COPY_KERNELS_CUH_

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/common/index_util.h"
#include "operator/common/strided_copy.h"
#include "operator/cuda/cuda_kernel.cuh"

namespace mxnet {
namespace op {
namespace cuda {
namespace layout {

/*! \brief The word type of CUDA's 64-bit atomics. */
using AtomicWord = unsigned long long;  // NOLINT(runtime/int)

/*! \brief Dims a walk may keep after merging; kernels get them by value. */
constexpr int kMaxWalkDims = 32;

/*! \brief A walk (strided_copy.h's shape, stride, offset) as a kernel argument, in index type I. */
template <typename I>
struct WalkArgs {
  int ndim;
  I shape[kMaxWalkDims];
  I stride[kMaxWalkDims];
  I offset;
  /*! \brief Strided offset of the element at row-major position `linear`. */
  __device__ __forceinline__ I At(I linear) const { return offset + StridedOffset(shape, stride, ndim, linear); }
};

/*! \brief A walk with size-1 dims dropped and contiguous neighbours merged (same elements, same order). */
struct Walk {
  std::vector<int64_t> shape, stride;
  int64_t offset{0};
  int64_t size{0};
  /*! \brief Every strided offset and row-major position fits in int32 (32-bit index math is much faster). */
  bool Fits32() const {
    int64_t hi = offset, lo = offset;
    for (size_t d = 0; d < shape.size(); ++d) (stride[d] > 0 ? hi : lo) += (shape[d] - 1) * stride[d];
    constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
    return size <= kMax && hi <= kMax && lo >= 0;
  }
  template <typename I>
  WalkArgs<I> Args() const {
    WalkArgs<I> a{};
    a.ndim = static_cast<int>(shape.size());
    for (int d = 0; d < a.ndim; ++d) {
      a.shape[d] = static_cast<I>(shape[d]);
      a.stride[d] = static_cast<I>(stride[d]);
    }
    a.offset = static_cast<I>(offset);
    return a;
  }
};

inline Walk MakeWalk(const std::vector<int64_t>& shape, const std::vector<int64_t>& stride, int64_t offset) {
  Walk w;
  w.offset = offset;
  w.size = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    w.size *= shape[d];
    if (shape[d] == 1) continue;
    if (!w.shape.empty() && w.stride.back() == stride[d] * shape[d]) {
      w.shape.back() *= shape[d];
      w.stride.back() = stride[d];
    } else {
      w.shape.push_back(shape[d]);
      w.stride.push_back(stride[d]);
    }
  }
  if (w.size == 0) {
    w.shape.clear();
    w.stride.clear();
  }
  MX_CHECK_KIND(static_cast<int>(w.shape.size()) <= kMaxWalkDims, "ValueError")
      << "CUDA strided copy: " << w.shape.size() << " dims that cannot be merged, more than the " << kMaxWalkDims
      << " the GPU kernels take";
  return w;
}

/*! \brief Calls KERNEL(walk args, ...) with 32-bit index math when the walk fits, else 64-bit. */
#define MXNET_CUDA_WALK_CALL(w, KERNEL, ...)    \
  do {                                          \
    if ((w).Fits32()) {                         \
      KERNEL((w).Args<int32_t>(), __VA_ARGS__); \
    } else {                                    \
      KERNEL((w).Args<int64_t>(), __VA_ARGS__); \
    }                                           \
  } while (0)

/*!
 * \brief *p = p's value + v in the compute type, atomically; the same per-add rounding as the CPU's
 *        Store(p, kAddTo, v). Types without a hardware atomic go through a CAS on their 32-bit word.
 */
template <typename T>
__device__ __forceinline__ void AtomicAdd(T* p, T v) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, int32_t>) {
    atomicAdd(p, v);
  } else if constexpr (std::is_same_v<T, int64_t>) {
    static_assert(sizeof(AtomicWord) == sizeof(int64_t));
    atomicAdd(reinterpret_cast<AtomicWord*>(p), static_cast<AtomicWord>(v));
  } else {
    static_assert(sizeof(T) <= 2, "AtomicAdd: unexpected type");
    const uintptr_t addr = reinterpret_cast<uintptr_t>(p);
    unsigned int* word = reinterpret_cast<unsigned int*>(addr & ~uintptr_t{3});
    const unsigned int shift = static_cast<unsigned int>(addr & 3) * 8;
    const unsigned int mask = (sizeof(T) == 1 ? 0xffu : 0xffffu) << shift;
    unsigned int old = *word, seen;
    do {
      seen = old;
      const unsigned int bits = (seen & mask) >> shift;
      T cur;
      memcpy(&cur, &bits, sizeof(T));  // little-endian: the low bytes hold the element
      Store(&cur, kAddTo, v);
      unsigned int nb = 0;
      memcpy(&nb, &cur, sizeof(T));
      old = atomicCAS(word, seen, (seen & ~mask) | ((nb << shift) & mask));
    } while (old != seen);
  }
}

template <typename I, typename T>
void GatherWalk(const WalkArgs<I>& a, cudaStream_t s, int64_t n, const T* in, T* out, OpReqType req) {
  ForEach(s, n, [=] __device__(int64_t i) { Store(out + i, req, in[a.At(static_cast<I>(i))]); });
}

template <typename I, typename T>
void ScatterWalk(const WalkArgs<I>& a, cudaStream_t s, int64_t n, const T* in, T* out, OpReqType req) {
  ForEach(s, n, [=] __device__(int64_t i) { Store(out + a.At(static_cast<I>(i)), req, in[i]); });
}

template <typename I, typename T>
void FillWalk(const WalkArgs<I>& a, cudaStream_t s, int64_t n, T v, T* out) {
  ForEach(s, n, [=] __device__(int64_t i) { out[a.At(static_cast<I>(i))] = v; });
}

/*! \brief out (contiguous) = the walked elements of in, under req. */
template <typename T>
void StridedGather(cudaStream_t s, const Walk& w, const T* in, T* out, OpReqType req) {
  if (req == kNullOp || w.size == 0) return;
  MXNET_CUDA_WALK_CALL(w, GatherWalk, s, w.size, in, out, req);
}

/*! \brief The walked elements of out = (add: +=) contiguous in; the walked positions are distinct. */
template <typename T>
void StridedScatter(cudaStream_t s, const Walk& w, const T* in, T* out, bool add) {
  if (w.size == 0) return;
  MXNET_CUDA_WALK_CALL(w, ScatterWalk, s, w.size, in, out, add ? kAddTo : kWriteTo);
}

/*! \brief The walked elements of out = v. */
template <typename T>
void StridedFill(cudaStream_t s, const Walk& w, T v, T* out) {
  if (w.size == 0) return;
  MXNET_CUDA_WALK_CALL(w, FillWalk, s, w.size, v, out);
}

/*! \brief Zero-fills b unless req is kAddTo or kNullOp (the backward ops that scatter), as ZeroForReq. */
inline void ZeroForReq(cudaStream_t s, const TBlob& b, OpReqType req) {
  if ((req == kWriteTo || req == kWriteInplace) && b.Size() > 0)
    Check(cudaMemsetAsync(b.dptr_, 0, b.Bytes(), s), "cudaMemsetAsync");
}

/*! \brief out = (kAddTo: +=) in, both contiguous of out's size and dtype; nothing when they alias. */
inline void CopyForReq(cudaStream_t s, const TBlob& in, const TBlob& out, OpReqType req) {
  if (req == kNullOp || in.dptr_ == out.dptr_ || out.Size() == 0) return;
  if (req != kAddTo) {
    Check(cudaMemcpyAsync(out.dptr_, in.dptr_, out.Bytes(), cudaMemcpyDeviceToDevice, s), "cudaMemcpyAsync");
    return;
  }
  MXNET_TYPE_SWITCH(out.type_flag_, DType, {
    const DType* x = static_cast<const DType*>(in.dptr_);
    DType* y = out.dptr<DType>();
    ForEach(s, out.Size(), [=] __device__(int64_t i) { Store(y + i, kAddTo, x[i]); });
  });
}

/*! \brief Bytes rounded up to whole int64 words, so pieces carved from one scratch block stay aligned. */
inline size_t Words(size_t bytes) { return (bytes + 7) / 8 * 8; }

/*! \brief No index mode: the index values as they are (one_hot). */
constexpr int kIndexAsIs = -1;

/*! \brief The value first_bad takes while no index was out of range. */
constexpr AtomicWord kNoBadIndex = ~0ull;

/*! \brief Records position pos as out of range; the smallest one wins (the CPU's first error). */
__device__ __forceinline__ void MarkBadIndex(AtomicWord* first_bad, int64_t pos) {
  atomicMin(first_bad, static_cast<AtomicWord>(pos));
}

/*!
 * \brief After a kernel that marked out-of-range indices into first_bad (device), waits for the
 *        stream and, if one was marked, throws the CPU's IndexError for it: the raw value at
 *        that position of `indices` and the length `axis_len(pos)` of the axis it indexes.
 */
template <typename AxisLen>
void ThrowFirstBadIndex(cudaStream_t s, const AtomicWord* first_bad, const TBlob& indices, AxisLen axis_len,
                        const char* op_name) {
  AtomicWord pos = kNoBadIndex;
  Check(cudaMemcpyAsync(&pos, first_bad, sizeof(pos), cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync");
  Check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
  if (pos == kNoBadIndex) return;
  int64_t raw = 0;
  MXNET_TYPE_SWITCH(indices.type_flag_, IType, {
    IType v;
    Check(cudaMemcpyAsync(&v, static_cast<const IType*>(indices.dptr_) + pos, sizeof(IType), cudaMemcpyDeviceToHost, s),
          "cudaMemcpyAsync");
    Check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    raw = IndexValue(v);
  });
  const int64_t n = axis_len(static_cast<int64_t>(pos));
  ResolveIndex(raw, n, kIndexRaise, op_name);  // throws: raw is out of range for n
  MX_THROW("MXNetError") << op_name << ": index " << raw << " was flagged out of range for axis of size " << n;
}

/*!
 * \brief The index array resolved against an axis of length n under `mode` (or kIndexAsIs) into
 *        `out` (device, indices.Size() int64s), as ResolvedIndices / ReadIndices do on the CPU;
 *        first_bad (device, one word) serves raise mode, whose errors throw as on the CPU.
 */
inline void ResolveIndices(cudaStream_t s, const TBlob& indices, int64_t n, int mode, const char* op_name, int64_t* out,
                           AtomicWord* first_bad) {
  const int64_t count = indices.Size();
  if (count == 0) return;
  if (mode == kIndexRaise) Check(cudaMemsetAsync(first_bad, 0xff, sizeof(*first_bad), s), "cudaMemsetAsync");
  MXNET_TYPE_SWITCH(indices.type_flag_, IType, {
    const IType* p = static_cast<const IType*>(indices.dptr_);
    ForEach(s, count, [=] __device__(int64_t i) {
      const int64_t v = IndexValue(p[i]);
      if (mode == kIndexAsIs) {
        out[i] = v;
      } else if (mode == kIndexRaise && !IndexInBounds(v, n)) {
        MarkBadIndex(first_bad, i);
        out[i] = 0;
      } else {
        out[i] = MapIndex(v, n, mode);
      }
    });
  });
  if (mode == kIndexRaise)
    ThrowFirstBadIndex(
        s, first_bad, indices, [n](int64_t) { return n; }, op_name);
}

}  // namespace layout
}  // namespace cuda
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_CUDA_COPY_KERNELS_CUH_
