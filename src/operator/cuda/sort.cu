/*!
 * \file sort.cu
 * \brief CUDA kernels of topk, sort, argsort (every ret_typ) and _backward_topk (sort.cc).
 *        Each column along the axis is copied into a contiguous segment of scratch memory
 *        (kTempSpace) as unsigned keys whose order is the values' (descending: the keys
 *        inverted) together with the positions, and the segments are sorted at once by
 *        cub::DeviceSegmentedSort::StableSortPairs (shared-memory sorts for short segments,
 *        radix passes for long ones). A stable sort of the keys breaks ties by position, the
 *        order sort.cc's comparator gives; -0.0 equals 0.0 as there. The first k positions of
 *        each segment then give the values, indices or mask.
 *        NaN (an unordered value, for which the CPU's comparator gives no defined order) sorts
 *        above +inf: last ascending, first descending. With more than a few hundred segments cub
 *        reads its segment-size groups back to the host (a sync of this op's stream).
 */
#include <cub/device/device_segmented_sort.cuh>

#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/cuda/cuda_kernel.cuh"
#include "operator/cuda/group_reduce.cuh"
#include "operator/tensor/sort_param.h"

namespace mxnet {
namespace op {
namespace cuda {
namespace {

/*! \brief The unsigned key type of a value type: same width, ordered as the values. */
template <typename T>
struct SortKey {
  using type = std::conditional_t<sizeof(T) == 1, uint8_t,
                                  std::conditional_t<sizeof(T) == 2, uint16_t,
                                                     std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;
};

/*! \brief Float bits (U of the float's width) as an ordered key: -0 as +0, every NaN one value above +inf. */
template <typename U>
__host__ __device__ __forceinline__ U FloatKey(U bits, U exp_mask, U quiet_nan) {
  constexpr U kSign = U(U(1) << (sizeof(U) * 8 - 1));
  const U mag = U(bits & U(~kSign));
  if (mag == 0) bits = 0;
  if (mag > exp_mask) bits = quiet_nan;
  return (bits & kSign) ? U(~bits) : U(bits | kSign);
}

template <typename T>
__host__ __device__ __forceinline__ typename SortKey<T>::type KeyOf(T v) {
  using U = typename SortKey<T>::type;
  if constexpr (std::is_same_v<T, float>) {
    uint32_t b;
    memcpy(&b, &v, 4);
    return FloatKey<uint32_t>(b, 0x7f800000u, 0x7fc00000u);
  } else if constexpr (std::is_same_v<T, double>) {
    uint64_t b;
    memcpy(&b, &v, 8);
    return FloatKey<uint64_t>(b, 0x7ff0000000000000ull, 0x7ff8000000000000ull);
  } else if constexpr (std::is_same_v<T, half_t>) {
    return FloatKey<uint16_t>(v.bits, 0x7c00u, 0x7e00u);
  } else if constexpr (std::is_same_v<T, bf16_t>) {
    return FloatKey<uint16_t>(v.bits, 0x7f80u, 0x7fc0u);
  } else if constexpr (std::is_same_v<T, bool>) {
    return U(v ? 1 : 0);
  } else if constexpr (std::is_signed_v<T>) {
    return U(U(v) ^ U(U(1) << (sizeof(T) * 8 - 1)));
  } else {
    return U(v);
  }
}

/*! \brief Rounds a scratch size up so the next buffer stays aligned. */
inline size_t Aligned(size_t bytes) { return (bytes + 255) / 256 * 256; }

/*!
 * \brief Sorts each of `rows` columns of x (outer, n, inner) into order[r * n + j] = the
 *        position of the j-th element of column r; the scratch comes from kTempSpace.
 */
template <typename DType, typename V>
const V* SortColumns(const OpContext& ctx, const DType* x, int64_t outer, int64_t n, int64_t inner, bool ascend) {
  using U = typename SortKey<DType>::type;
  cudaStream_t stream = Stream(ctx);
  const int64_t rows = outer * inner, N = rows * n;
  size_t cub_bytes = 0;
  Check(cub::DeviceSegmentedSort::StableSortPairs(nullptr, cub_bytes, static_cast<const U*>(nullptr),
                                                  static_cast<U*>(nullptr), static_cast<const V*>(nullptr),
                                                  static_cast<V*>(nullptr), N, rows, static_cast<int64_t*>(nullptr),
                                                  static_cast<int64_t*>(nullptr), stream),
        "CUDA sort (scratch size)");
  const size_t key_bytes = Aligned(sizeof(U) * N), val_bytes = Aligned(sizeof(V) * N);
  const size_t off_bytes = Aligned(sizeof(int64_t) * (rows + 1));
  MX_CHECK(!ctx.requested.empty()) << "CUDA sort: no temp space was requested";
  char* space = static_cast<char*>(ctx.requested[0].GetSpace(2 * key_bytes + 2 * val_bytes + off_bytes + cub_bytes));
  U* keys_in = reinterpret_cast<U*>(space);
  U* keys_out = reinterpret_cast<U*>(space + key_bytes);
  V* vals_in = reinterpret_cast<V*>(space + 2 * key_bytes);
  V* vals_out = reinterpret_cast<V*>(space + 2 * key_bytes + val_bytes);
  int64_t* offsets = reinterpret_cast<int64_t*>(space + 2 * key_bytes + 2 * val_bytes);
  void* cub_space = space + 2 * key_bytes + 2 * val_bytes + off_bytes;
  // Reads follow the input's layout (coalesced); column r = (o, i) is segment r.
  ForEach(
      stream, N,
      [=] __device__(int64_t t) {
        int64_t i;
        const int64_t q = DivMod(t, inner, &i), o = q / n, j = q - o * n;
        const int64_t dst = (o * inner + i) * n + j;
        const U key = KeyOf(x[t]);
        keys_in[dst] = ascend ? key : U(~key);
        vals_in[dst] = static_cast<V>(j);
      },
      "CUDA sort (keys)");
  ForEach(stream, rows + 1, [=] __device__(int64_t r) { offsets[r] = r * n; }, "CUDA sort (segments)");
  Check(cub::DeviceSegmentedSort::StableSortPairs(cub_space, cub_bytes, keys_in, keys_out, vals_in, vals_out, N, rows,
                                                  offsets, offsets + 1, stream),
        "CUDA sort");
  return vals_out;
}

/*! \brief What SortForward writes: each output null where the call does not write it. */
template <typename DType>
struct Selected {
  DType* values{nullptr};
  DType* mask{nullptr};
  OpReqType value_req{kNullOp};  // also the mask's
  const TBlob* indices{nullptr};
  OpReqType index_req{kNullOp};
};

/*! \brief Sorts the columns of x and writes the first k of each as `sel` says. */
template <typename DType, typename V>
void Select(const OpContext& ctx, const DType* x, int64_t outer, int64_t n, int64_t inner, int64_t k, bool ascend,
            const Selected<DType>& sel) {
  cudaStream_t stream = Stream(ctx);
  const V* order = SortColumns<DType, V>(ctx, x, outer, n, inner, ascend);
  // Output position (o, j, i) of the selected shape; its element is order[(o * inner + i) * n + j].
  if (sel.values || sel.mask) {
    DType* vo = sel.values;
    DType* mo = sel.mask;
    const OpReqType r = sel.value_req;
    ForEach(
        stream, outer * k * inner,
        [=] __device__(int64_t pos) {
          int64_t i;
          const int64_t q = DivMod(pos, inner, &i), o = q / k, j = q - o * k;
          const int64_t src = (o * n + static_cast<int64_t>(order[(o * inner + i) * n + j])) * inner + i;
          if (vo) Store(vo + pos, r, x[src]);
          if (mo) Store(mo + src, r, DType(1.0f));
        },
        "CUDA topk (values)");
  }
  if (const TBlob* ib = sel.indices) {
    MXNET_TYPE_SWITCH(ib->type_flag_, IType, {
      IType* io = ib->dptr<IType>();
      const OpReqType r = sel.index_req;
      ForEach(
          stream, outer * k * inner,
          [=] __device__(int64_t pos) {
            int64_t i;
            const int64_t q = DivMod(pos, inner, &i), o = q / k, j = q - o * k;
            Store(io + pos, r, CastValue<int64_t, IType>(static_cast<int64_t>(order[(o * inner + i) * n + j])));
          },
          "CUDA topk (indices)");
    });
  }
}

void SortForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const SortSpec s = SpecOf(attrs);
  const SortView sv = ViewOf(attrs, s, in[0].shape_);
  const int64_t outer = sv.v.outer, n = sv.v.mid, inner = sv.v.inner, k = sv.k;
  const TBlob* value_out = (s.ret == kRetValue || s.ret == kRetBoth) ? &out[0] : nullptr;
  const TBlob* index_out = s.ret == kRetIndices ? &out[0] : (out.size() > 1 ? &out[1] : nullptr);
  const TBlob* mask_out = s.ret == kRetMask ? &out[0] : nullptr;
  const OpReqType index_req = s.ret == kRetIndices ? req[0] : (out.size() > 1 ? req[1] : kNullOp);
  if (mask_out && (req[0] == kWriteTo || req[0] == kWriteInplace) && mask_out->Size() > 0)
    Check(cudaMemsetAsync(mask_out->dptr_, 0, mask_out->Bytes(), Stream(ctx)), "CUDA topk (mask)");
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    Selected<DType> sel;
    sel.value_req = req[0];
    if (req[0] != kNullOp && value_out) sel.values = value_out->dptr<DType>();
    if (req[0] != kNullOp && mask_out) sel.mask = mask_out->dptr<DType>();
    if (index_req != kNullOp && index_out) {
      sel.indices = index_out;
      sel.index_req = index_req;
    }
    if (outer * inner * k == 0 || !(sel.values || sel.mask || sel.indices)) return;
    if (n <= std::numeric_limits<int32_t>::max()) {
      Select<DType, int32_t>(ctx, in[0].dptr<DType>(), outer, n, inner, k, s.ascend, sel);
    } else {
      Select<DType, int64_t>(ctx, in[0].dptr<DType>(), outer, n, inner, k, s.ascend, sel);
    }
  });
}

/*! \brief Inputs (ograd of the values, indices, data): adds ograd at the selected positions. */
void TopKBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const SortSpec s = SpecOf(attrs);
  const SortView sv = ViewOf(attrs, s, in[2].shape_);
  const int64_t n = sv.v.mid, inner = sv.v.inner, k = sv.k;
  cudaStream_t stream = Stream(ctx);
  if ((req[0] == kWriteTo || req[0] == kWriteInplace) && out[0].Size() > 0)
    Check(cudaMemsetAsync(out[0].dptr_, 0, out[0].Bytes(), stream), "CUDA topk backward");
  MXNET_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType* g = in[0].dptr<DType>();
    DType* d = out[0].dptr<DType>();
    MXNET_TYPE_SWITCH(in[1].type_flag_, IType, {
      const IType* idx = in[1].dptr<IType>();
      // Positions within one column are distinct and columns are disjoint: no two threads
      // add to one element.
      ForEach(
          stream, sv.v.outer * k * inner,
          [=] __device__(int64_t pos) {
            int64_t i;
            const int64_t q = DivMod(pos, inner, &i), o = q / k;
            const int64_t t = static_cast<int64_t>(static_cast<real_compute_t<IType>>(idx[pos]));
            if (t >= 0 && t < n) Store(d + (o * n + t) * inner + i, kAddTo, g[pos]);
          },
          "CUDA topk backward");
    });
  });
}

}  // namespace
}  // namespace cuda

MXNET_REGISTER_KERNEL(topk, kGPU, cuda).set_compute(cuda::SortForward);
MXNET_REGISTER_KERNEL(sort, kGPU, cuda).set_compute(cuda::SortForward);
MXNET_REGISTER_KERNEL(argsort, kGPU, cuda).set_compute(cuda::SortForward);
MXNET_REGISTER_KERNEL(_backward_topk, kGPU, cuda).set_compute(cuda::TopKBackward);

}  // namespace op
}  // namespace mxnet
