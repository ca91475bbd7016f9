/*!
 * \file sparse_csr.cu
 * \brief CUDA kernels of the CSR operators (sparse/csr_convert.cc, sparse/csr_dot.cc). A CSR
 *        matrix reaches them as three dense arrays (data, int64 indices, int64 indptr) on the
 *        device, with its dense shape as the `shape` parameter (csr_common.h).
 *        - The structure is checked on the device first (one flag word of temp space, read
 *          back: a sync per call); a malformed one is copied to the host, where CheckCSR
 *          raises the CPU's ValueError.
 *        - _sparse_csr_to_dense: one thread per row writes the row's entries in order, so a
 *          repeated column keeps the last value (kAddTo: the sum), as on the CPU; its gradient
 *          is a gather, one thread per entry.
 *        - _sparse_csr_dot_dense, A . B: one thread per output value, summing the row's
 *          entries in order. A^T . B: the entries are grouped by column with a stable radix
 *          sort (cub), rows ascending within a column as the CPU's counting sort leaves them,
 *          then one thread per output value sums its column in that order: no atomics, the
 *          CPU's summation order.
 *        - _backward_sparse_csr_dot_dense_data: one dot product of two rows per entry (one
 *          thread each for narrow rows, one warp each for wide ones).
 */
#include <cub/device/device_radix_sort.cuh>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/cuda/cuda_kernel.cuh"
#include "operator/cuda/device_values.cuh"
#include "operator/cuda/group_reduce.cuh"
#include "operator/sparse/csr_common.h"

namespace mxnet {
namespace op {
namespace cuda {
namespace {

using FlagWord = unsigned long long;  // NOLINT(runtime/int): FirstIndex's word

inline size_t Aligned(size_t bytes) { return (bytes + 255) / 256 * 256; }

/*! \brief The CSR structure on the device. */
struct CSRDev {
  int64_t rows, cols, nnz;
  const int64_t* indices;
  const int64_t* indptr;
};

/*!
 * \brief Reads the structure from (indices, indptr) and checks it as CheckCSR does: on the device
 *        into `flag`; when something is wrong, on the host, which throws the CPU's error.
 */
CSRDev CheckedCSR(const NodeAttrs& attrs, cudaStream_t s, const TBlob& indices, const TBlob& indptr, FlagWord* flag) {
  CSRDev a{};
  CSRDims(attrs, &a.rows, &a.cols);
  a.nnz = indices.Size();
  a.indices = indices.dptr<int64_t>();
  a.indptr = indptr.dptr<int64_t>();
  const FirstIndex bad{flag};
  bad.Clear(s);
  const CSRDev c = a;
  ForEach(s, std::max(a.rows + 1, a.nnz), [=] __device__(int64_t i) {
    bool ok = true;
    if (i == 0 && c.indptr[0] != 0) ok = false;
    if (i < c.rows && c.indptr[i + 1] < c.indptr[i]) ok = false;
    if (i == c.rows && c.indptr[c.rows] != c.nnz) ok = false;
    if (i < c.nnz && (c.indices[i] < 0 || c.indices[i] >= c.cols)) ok = false;
    if (!ok) bad.Report(i);
  });
  if (bad.Read(s) >= 0) {
    std::vector<int64_t> ip(a.rows + 1), ix(a.nnz);
    CopyToHostNow(ip.data(), a.indptr, sizeof(int64_t) * ip.size(), s);
    if (a.nnz > 0) CopyToHostNow(ix.data(), a.indices, sizeof(int64_t) * ix.size(), s);
    CheckCSR(attrs, a.rows, a.cols, a.nnz, ip.data(), ix.data());  // throws the CPU's error
    MX_THROW("ValueError") << attrs.op->name << ": malformed CSR structure";
  }
  return a;
}

/*! \brief The row holding entry j of a checked structure (0 <= j < nnz): the last i with indptr[i] <= j. */
__device__ __forceinline__ int64_t RowOf(const int64_t* indptr, int64_t rows, int64_t j) {
  int64_t lo = 0, hi = rows;  // indptr[lo] <= j < indptr[hi]
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (indptr[mid] <= j) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

// ---- _sparse_csr_to_dense and its gradient ---------------------------------------------------

void CSRToDense(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const cudaStream_t s = Stream(ctx);
  const CSRDev a = CheckedCSR(attrs, s, in[1], in[2], static_cast<FlagWord*>(ctx.requested[0].GetSpace(8)));
  const OpReqType r = req[0];
  if (r != kAddTo && out[0].Size() > 0) Check(cudaMemsetAsync(out[0].dptr_, 0, out[0].Bytes(), s), "cudaMemsetAsync");
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    const DType* v = in[0].dptr<DType>();
    DType* o = out[0].dptr<DType>();
    ForEach(s, a.rows, [=] __device__(int64_t i) {
      DType* row = o + i * a.cols;
      for (int64_t j = a.indptr[i]; j < a.indptr[i + 1]; ++j) StoreReq(row + a.indices[j], r, v[j]);
    });
  });
}

/*! \brief inputs (ograd (rows, cols), indices, indptr) -> the gradient of each stored value (nnz,). */
void GatherAtCSR(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const cudaStream_t s = Stream(ctx);
  const CSRDev a = CheckedCSR(attrs, s, in[1], in[2], static_cast<FlagWord*>(ctx.requested[0].GetSpace(8)));
  const OpReqType r = req[0];
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    const DType* g = in[0].dptr<DType>();
    DType* o = out[0].dptr<DType>();
    ForEach(s, a.nnz, [=] __device__(int64_t j) {
      StoreReq(o + j, r, g[RowOf(a.indptr, a.rows, j) * a.cols + a.indices[j]]);
    });
  });
}

// ---- _sparse_csr_dot_dense ---------------------------------------------------------------------

/*! \brief Bits of a column index below cols (radix sort passes). */
int ColumnBits(int64_t cols) {
  int bits = 1;
  while (bits < 63 && (int64_t{1} << bits) < cols) ++bits;
  return bits;
}

/*! \brief cub's scratch bytes for a radix sort of nnz (column, entry) pairs. */
size_t SortBytes(int64_t nnz, int bits) {
  size_t bytes = 0;
  Check(cub::DeviceRadixSort::SortPairs(nullptr, bytes, static_cast<const uint64_t*>(nullptr),
                                        static_cast<uint64_t*>(nullptr), static_cast<const int64_t*>(nullptr),
                                        static_cast<int64_t*>(nullptr), nnz, 0, bits),
        "cub::DeviceRadixSort::SortPairs (size)");
  return bytes;
}

template <typename T>
void DotCompute(const CSRParam& p, const CSRDev& a, cudaStream_t s, char* space, size_t sort_bytes, int bits,
                const T* v, const T* b, int64_t n, T* out, OpReqType r) {
  if (!p.transpose_a) {
    ForEach(s, a.rows * n, [=] __device__(int64_t t) {
      int64_t k;
      const int64_t i = DivMod(t, n, &k);
      T acc = r == kAddTo ? out[t] : T(0);
      for (int64_t j = a.indptr[i]; j < a.indptr[i + 1]; ++j) acc += v[j] * b[a.indices[j] * n + k];
      out[t] = acc;
    });
    return;
  }
  // The entries grouped by column (stable: rows ascending), their rows, and the column starts.
  const size_t list_b = Aligned(sizeof(int64_t) * std::max<int64_t>(a.nnz, 1));
  uint64_t* col_sorted = reinterpret_cast<uint64_t*>(space);
  int64_t* entry = reinterpret_cast<int64_t*>(space + list_b);
  int64_t* entry_sorted = reinterpret_cast<int64_t*>(space + 2 * list_b);
  int64_t* colptr = reinterpret_cast<int64_t*>(space + 3 * list_b);
  void* cub_space = space + 3 * list_b + Aligned(sizeof(int64_t) * (a.cols + 1));
  const int64_t nnz = a.nnz;
  if (nnz > 0) {
    ForEach(s, nnz, [=] __device__(int64_t j) { entry[j] = j; });
    size_t bytes = sort_bytes;
    Check(cub::DeviceRadixSort::SortPairs(cub_space, bytes, reinterpret_cast<const uint64_t*>(a.indices), col_sorted,
                                          entry, entry_sorted, nnz, 0, bits, s),
          "cub::DeviceRadixSort::SortPairs");
    // entry now holds the row of each sorted entry.
    int64_t* row_sorted = entry;
    ForEach(s, nnz, [=] __device__(int64_t q) { row_sorted[q] = RowOf(a.indptr, a.rows, entry_sorted[q]); });
  }
  const int64_t* row_sorted = entry;
  ForEach(s, a.cols + 1, [=] __device__(int64_t c) {
    int64_t lo = 0, hi = nnz;  // first sorted position whose column is >= c
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (static_cast<int64_t>(col_sorted[mid]) < c) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    colptr[c] = lo;
  });
  ForEach(s, a.cols * n, [=] __device__(int64_t t) {
    int64_t k;
    const int64_t c = DivMod(t, n, &k);
    T acc = r == kAddTo ? out[t] : T(0);
    for (int64_t q = colptr[c]; q < colptr[c + 1]; ++q) acc += v[entry_sorted[q]] * b[row_sorted[q] * n + k];
    out[t] = acc;
  });
}

/*! \brief inputs (data, indices, indptr, rhs) -> op(A) . rhs. */
void CSRDotCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const auto& p = attrs.get<CSRParam>();
  const cudaStream_t s = Stream(ctx);
  int64_t rows, cols;
  CSRDims(attrs, &rows, &cols);
  const int64_t nnz = in[1].Size();
  // One block of temp space: the flag word, then (A^T . B) the column grouping and cub's scratch.
  const int bits = ColumnBits(cols);
  const size_t sort_bytes = p.transpose_a && nnz > 0 ? SortBytes(nnz, bits) : 0;
  const size_t flag_b = Aligned(sizeof(FlagWord));
  const size_t group_b = p.transpose_a ? 3 * Aligned(sizeof(int64_t) * std::max<int64_t>(nnz, 1)) +
                                             Aligned(sizeof(int64_t) * (cols + 1)) + Aligned(sort_bytes)
                                       : 0;
  char* space = static_cast<char*>(ctx.requested[0].GetSpace(flag_b + group_b));
  const CSRDev a = CheckedCSR(attrs, s, in[1], in[2], reinterpret_cast<FlagWord*>(space));
  CheckCSRDotFloat(attrs, in[3].type_flag_);
  const int64_t n = DenseRowWidth(in[3].shape_);
  if (in[3].type_flag_ == kFloat32) {
    DotCompute(p, a, s, space + flag_b, sort_bytes, bits, in[0].dptr<float>(), in[3].dptr<float>(), n,
               out[0].dptr<float>(), req[0]);
  } else {
    DotCompute(p, a, s, space + flag_b, sort_bytes, bits, in[0].dptr<double>(), in[3].dptr<double>(), n,
               out[0].dptr<double>(), req[0]);
  }
}

// ---- _backward_sparse_csr_dot_dense_data ----------------------------------------------------------

/*! \brief Rows at least this long get a warp per entry; shorter ones a thread (the CPU's order). */
constexpr int64_t kWarpRow = 32;

template <typename T>
void DataGradCompute(const CSRParam& p, const CSRDev& a, cudaStream_t s, const T* g, const T* b, int64_t n, T* out,
                     OpReqType r) {
  const bool ta = p.transpose_a;
  // A . B: out[i] += v_j B[c]; A^T . B: out[c] += v_j B[i]; entry j is at (row i, column c).
  if (n < kWarpRow) {
    ForEach(s, a.nnz, [=] __device__(int64_t j) {
      const int64_t i = RowOf(a.indptr, a.rows, j), c = a.indices[j];
      const T* gr = g + (ta ? c : i) * n;
      const T* br = b + (ta ? i : c) * n;
      T acc = 0;
      for (int64_t k = 0; k < n; ++k) acc += gr[k] * br[k];
      StoreReq(out + j, r, acc);
    });
    return;
  }
  // Whole warps walk the same entry: the grid stride and the thread count are multiples of 32.
  ForEach(s, a.nnz * 32, [=] __device__(int64_t t) {
    const int64_t j = t / 32;
    const int lane = static_cast<int>(t % 32);
    const int64_t i = RowOf(a.indptr, a.rows, j), c = a.indices[j];
    const T* gr = g + (ta ? c : i) * n;
    const T* br = b + (ta ? i : c) * n;
    T acc = 0;
    for (int64_t k = lane; k < n; k += 32) acc += gr[k] * br[k];
    for (int off = 16; off > 0; off /= 2) acc += __shfl_down_sync(0xffffffffu, acc, off);
    if (lane == 0) StoreReq(out + j, r, acc);
  });
}

/*! \brief inputs (ograd, indices, indptr, rhs) -> the gradient of the stored values (nnz,). */
void CSRDotDataGrad(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const auto& p = attrs.get<CSRParam>();
  const cudaStream_t s = Stream(ctx);
  const CSRDev a = CheckedCSR(attrs, s, in[1], in[2], static_cast<FlagWord*>(ctx.requested[0].GetSpace(8)));
  CheckCSRDotFloat(attrs, in[3].type_flag_);
  const int64_t n = DenseRowWidth(in[3].shape_);
  if (in[3].type_flag_ == kFloat32) {
    DataGradCompute(p, a, s, in[0].dptr<float>(), in[3].dptr<float>(), n, out[0].dptr<float>(), req[0]);
  } else {
    DataGradCompute(p, a, s, in[0].dptr<double>(), in[3].dptr<double>(), n, out[0].dptr<double>(), req[0]);
  }
}

}  // namespace
}  // namespace cuda

MXNET_REGISTER_KERNEL(_sparse_csr_to_dense, kGPU, cuda).set_compute(cuda::CSRToDense);
MXNET_REGISTER_KERNEL(_backward_sparse_csr_to_dense, kGPU, cuda).set_compute(cuda::GatherAtCSR);
MXNET_REGISTER_KERNEL(_sparse_csr_dot_dense, kGPU, cuda).set_compute(cuda::CSRDotCompute);
MXNET_REGISTER_KERNEL(_backward_sparse_csr_dot_dense_data, kGPU, cuda).set_compute(cuda::CSRDotDataGrad);

}  // namespace op
}  // namespace mxnet
