/*!
 * \file norm_rows.cuh
 * \brief The row schedule of the CUDA kernels of the normalization layers (norm_layers.cu:
 *        LayerNorm, InstanceNorm, GroupNorm; lrn_l2norm.cu: L2Normalization). Data is viewed as
 *        (outer, L, inner): each (outer, inner) row of L elements, `inner` apart, is reduced and
 *        then rewritten with its own sums. Two schedules:
 *          - fused (RowLoop): a group of lanes per row (group_reduce.cuh), lanes along x over a
 *            contiguous row (up to a 1024-thread block per row) or along y with adjacent rows
 *            along x; the row's sums and its outputs in one kernel, as the CPU loops read it.
 *          - split (SplitRows): few long rows that would leave most SMs idle. The row sums are
 *            broadcast_reduce.cuh's chunked sums (bcast::Sum) into double scratch, then the
 *            outputs come from an elementwise pass.
 *        Sums are taken in double, as the reference kernels take them.
 */
#ifndef MXNET_OPERATOR_CUDA_NORM_ROWS_CUH_
#define MXNET_OPERATOR_CUDA_NORM_ROWS_CUH_

#include <algorithm>
#include <cstdint>
#include <vector>

#include "operator/cuda/broadcast_reduce.cuh"
#include "operator/cuda/cuda_kernel.cuh"
#include "operator/cuda/group_reduce.cuh"

namespace mxnet {
namespace op {
namespace cuda {
namespace normrows {

/*! \brief rows = outer * inner rows of L elements; row r = (o, i) starts at (o * L) * inner + i. */
struct Rows {
  int64_t rows, L, inner;
  int64_t outer() const { return inner ? rows / inner : 0; }
};

/*! \brief Two sums carried together (the gradient's mean of g and of g * xhat). */
struct Sum2 {
  double a, b;
  __device__ __forceinline__ Sum2& operator+=(const Sum2& o) {
    a += o.a;
    b += o.b;
    return *this;
  }
};

/*! \brief The lanes of one row in the fused kernel: every thread of the block gets one. */
struct RowLanes {
  int64_t r, o, base, L, inner;  // row, its outer index, its first element
  int lane, lanes;
  bool valid, lanes_x;
  void* smem;

  /*!
   * \brief The row's sum of the terms f(acc, l, j) adds into a zero S for the elements l
   *        (offset j) of this lane, over the group; every lane gets it. Every thread of the
   *        block calls it (barriers), valid or not.
   */
  template <typename S, typename F>
  __device__ __forceinline__ S Sum(F f) const {
    S acc{};
    if (valid)
      for (int64_t l = lane; l < L; l += lanes) f(acc, l, base + l * inner);
    return GroupReduce(acc, lanes_x, static_cast<S*>(smem), [](S& x, const S& y) { x += y; });
  }

  /*! \brief f(l, j) for this lane's elements of a valid row. */
  template <typename F>
  __device__ __forceinline__ void Each(F f) const {
    if (valid)
      for (int64_t l = lane; l < L; l += lanes) f(l, base + l * inner);
  }
};

/*! \brief Bytes of one sum's state in shared memory (the largest S passed to RowLanes::Sum). */
constexpr size_t kStateBytes = sizeof(Sum2);

/*! \brief Rows [blockIdx.x * rows_per_block, ...) strided by the grid; body(const RowLanes&). */
template <typename Body>
__global__ void __launch_bounds__(1024) RowKernel(Rows v, bool lanes_x, Body body) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  RowLanes c;
  c.L = v.L;
  c.inner = v.inner;
  c.lanes_x = lanes_x;
  c.smem = smem_raw;
  c.lanes = lanes_x ? blockDim.x : blockDim.y;
  c.lane = lanes_x ? threadIdx.x : threadIdx.y;
  const int per_block = lanes_x ? blockDim.y : blockDim.x;
  // rb is the same for the whole block, so every thread reaches the barriers of Sum.
  for (int64_t rb = static_cast<int64_t>(blockIdx.x) * per_block; rb < v.rows;
       rb += static_cast<int64_t>(gridDim.x) * per_block) {
    c.r = rb + (lanes_x ? threadIdx.y : threadIdx.x);
    c.valid = c.r < v.rows;
    c.o = 0;
    c.base = 0;
    if (c.valid) {
      int64_t i;
      c.o = DivMod(c.r, v.inner, &i);
      c.base = c.o * v.L * v.inner + i;
    }
    body(c);
  }
}

/*! \brief The fused kernel's blocks for rows of L elements (lanes up to a 1024-thread block). */
struct RowLaunch {
  GroupLayout g;
  int64_t blocks;
  explicit RowLaunch(const Rows& v) {
    g = MakeGroupLayout(v.inner == 1, v.L, 1024);
    blocks = (v.rows + g.rows_per_block() - 1) / g.rows_per_block();
  }
};

/*! \brief Rows at least this long are split when the fused kernel would run fewer blocks than kSplitBlocks. */
constexpr int64_t kSplitMinLength = 4096;
constexpr int64_t kSplitBlocks = 128;

/*! \brief Whether the rows take the split schedule (few long rows) rather than RowLoop. */
inline bool SplitRows(const Rows& v) {
  return v.rows > 0 && v.L >= kSplitMinLength && RowLaunch(v).blocks < kSplitBlocks;
}

/*! \brief Runs body(const RowLanes&) for every row (fused schedule) on the stream. */
template <typename Body>
void RowLoop(cudaStream_t stream, const Rows& v, Body body, const char* what) {
  if (v.rows <= 0) return;
  const RowLaunch l(v);
  const dim3 grid(static_cast<unsigned>(std::min<int64_t>(l.blocks, 1 << 30)));
  const dim3 block(l.g.bx, l.g.by);
  const size_t smem = GroupReduceSmem(l.g.bx * l.g.by, kStateBytes);
  RowKernel<<<grid, block, smem, stream>>>(v, l.g.lanes_x, body);
  Check(cudaGetLastError(), what);
}

/*!
 * \brief The split schedule's view: data as (A, P, L, inner) with outer = A * P (P: the
 *        period of a per-outer parameter index, 1 without one), the row statistics as
 *        (A, P, 1, inner), row-major in the row index r.
 */
struct SplitShapes {
  TShape data, stat;
  SplitShapes(const Rows& v, int64_t period) {
    const int64_t P = period > 0 ? period : 1, A = v.outer() / P;
    data = TShape{A, P, v.L, v.inner};
    stat = TShape{A, P, 1, v.inner};
  }
  /*! \brief The dims a row sum adds up (L). */
  static std::vector<bool> RowDims() { return {false, false, true, false}; }
};

/*! \brief The walk of a row sum over arrays of the given shapes (array 0 laid out as data). */
template <int NI>
bcast::ReduceWalk<NI> RowSumWalk(const SplitShapes& s, const std::vector<TShape>& shapes) {
  return bcast::MakeReduceWalk<NI>(s.data, shapes, SplitShapes::RowDims());
}

/*!
 * \brief Carves kTempSpace into `nrows` double arrays of `rows` entries each, followed by
 *        `scratch` bytes for bcast::Sum's partial sums (returned in *partial, null if 0).
 */
inline double* RowScratch(const OpContext& ctx, int64_t rows, int nrows, size_t scratch, double** partial) {
  const size_t head = sizeof(double) * static_cast<size_t>(rows) * nrows;
  char* space = static_cast<char*>(ctx.requested[0].GetSpace(std::max<size_t>(head + scratch, 1)));
  *partial = scratch ? reinterpret_cast<double*>(space + head) : nullptr;
  return reinterpret_cast<double*>(space);
}

/*! \brief Row index and element index l of element j of the (outer, L, inner) view. */
__device__ __forceinline__ int64_t RowOf(int64_t j, int64_t L, int64_t inner, int64_t* o, int64_t* l) {
  int64_t i;
  const int64_t t = DivMod(j, inner, &i);
  *o = DivMod(t, L, l);
  return *o * inner + i;
}

}  // namespace normrows
}  // namespace cuda
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_CUDA_NORM_ROWS_CUH_
