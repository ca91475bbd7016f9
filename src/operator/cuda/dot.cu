/*!
 * \file dot.cu
 * \brief CUDA kernels of dot, _backward_dot and batch_dot (linalg/dot.cc): cuBLAS GEMMs for
 *        float32/float64/float16/bfloat16 on the same 2-D views as the CPU kernels, and a
 *        shared-memory tiled GEMM accumulating in double for the integer and bool dtypes.
 *        float16 batch_dot honours MXNET_FC_TRUE_FP16 as MXNet's linalg_batch_gemm does; dot
 *        always accumulates float16 in float32 (MXNet's dot does not read the variable).
 */
#include <type_traits>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/cuda/cublas_handle.h"
#include "operator/cuda/cuda_kernel.cuh"
#include "operator/linalg/dot_param.h"

namespace mxnet {
namespace op {
namespace cuda {
namespace {

constexpr int kTile = 16;

/*!
 * \brief C (+)= op(A) op(B) for `batch` row-major matrices, one kTile x kTile output tile per
 *        block, operands staged through shared memory in the compute type C.
 */
template <typename T, typename C>
__global__ void TiledGemmKernel(GemmArgs g, OpReqType req) {
  __shared__ C as[kTile][kTile + 1];
  __shared__ C bs[kTile][kTile + 1];
  const T* A = static_cast<const T*>(g.a);
  const T* B = static_cast<const T*>(g.b);
  T* Cm = static_cast<T*>(g.c);
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int64_t tiles_m = (g.m + kTile - 1) / kTile;
  for (int64_t bz = blockIdx.z; bz < g.batch; bz += gridDim.z) {
    const T* a = A + bz * g.stride_a;
    const T* b = B + bz * g.stride_b;
    T* c = Cm + bz * g.stride_c;
    for (int64_t tm = blockIdx.y; tm < tiles_m; tm += gridDim.y) {
      const int64_t i = tm * kTile + ty;                             // output row
      const int64_t j = static_cast<int64_t>(blockIdx.x) * kTile + tx;  // output column
      C acc = 0;
      for (int64_t p0 = 0; p0 < g.k; p0 += kTile) {
        // as[ty][tx] = op(A)[i][p0 + tx]; bs[ty][tx] = op(B)[p0 + ty][j]
        const int64_t pa = p0 + tx, pb = p0 + ty;
        as[ty][tx] = (i < g.m && pa < g.k) ? static_cast<C>(g.ta ? a[pa * g.lda + i] : a[i * g.lda + pa]) : C(0);
        bs[ty][tx] = (pb < g.k && j < g.n) ? static_cast<C>(g.tb ? b[j * g.ldb + pb] : b[pb * g.ldb + j]) : C(0);
        __syncthreads();
#pragma unroll
        for (int q = 0; q < kTile; ++q) acc += as[ty][q] * bs[q][tx];
        __syncthreads();
      }
      if (i < g.m && j < g.n) StoreReq(c + i * g.ldc + j, req, acc);
    }
  }
}

template <typename T>
void TiledGemm(cudaStream_t stream, const GemmArgs& g, OpReqType req) {
  if (g.m == 0 || g.n == 0 || g.batch == 0) return;
  const dim3 block(kTile, kTile);
  const int64_t tn = (g.n + kTile - 1) / kTile, tm = (g.m + kTile - 1) / kTile;
  MX_CHECK_KIND(tn <= 0x7fffffff, "ValueError") << "dot: " << g.n << " output columns exceed the CUDA grid";
  const dim3 grid(static_cast<unsigned>(tn), static_cast<unsigned>(std::min<int64_t>(tm, 65535)),
                  static_cast<unsigned>(std::min<int64_t>(g.batch, 65535)));
  TiledGemmKernel<T, real_compute_t<T>><<<grid, block, 0, stream>>>(g, req);
  Check(cudaGetLastError(), "dot: tiled GEMM launch");
}

/*! \brief The GEMM of one output under req: cuBLAS for the floating dtypes, the tiled kernel otherwise. */
void DotGemm(const OpContext& ctx, int dtype, GemmArgs g, OpReqType req, const char* what) {
  if (req == kNullOp) return;
  g.accumulate = req == kAddTo;
  if (dtype == kFloat32 || dtype == kFloat64 || dtype == kFloat16 || dtype == kBfloat16) {
    Gemm(ctx, dtype, g, what);
    return;
  }
  MXNET_TYPE_SWITCH(dtype, T, {
    if constexpr (std::is_integral_v<T>) TiledGemm<T>(Stream(ctx), g, req);
  });
}

/*! \brief A single row-major GEMM's arguments (lda/ldb/ldc: stored row lengths). */
GemmArgs Mat(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const void* a, int64_t lda, const void* b, int64_t ldb,
             void* c) {
  GemmArgs g;
  g.ta = ta;
  g.tb = tb;
  g.m = m;
  g.n = n;
  g.k = k;
  g.a = a;
  g.lda = lda;
  g.b = b;
  g.ldb = ldb;
  g.c = c;
  g.ldc = n;
  return g;
}

void DotForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = attrs.get<DotParam>();
  TShape os;
  const DotDims d = DotShape(attrs, in[0].shape_, in[1].shape_, &os);
  // lhs stored (m, k) or, transposed, (k, m); rhs (k, n) or (n, k).
  DotGemm(ctx, in[0].type_flag_,
          Mat(p.transpose_a, p.transpose_b, d.m, d.n, d.k, in[0].dptr_, p.transpose_a ? d.m : d.k, in[1].dptr_,
              p.transpose_b ? d.k : d.n, out[0].dptr_),
          req[0], "dot");
}

/*! \brief inputs (ograd, lhs, rhs), outputs (dlhs, drhs): the CPU kernel's GEMMs (linalg/dot.cc). */
void DotBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = attrs.get<DotParam>();
  TShape os;
  const DotDims d = DotShape(attrs, in[1].shape_, in[2].shape_, &os);
  const int64_t m = d.m, k = d.k, n = d.n;
  const int dtype = in[0].type_flag_;
  const void *g = in[0].dptr_, *a = in[1].dptr_, *b = in[2].dptr_;
  const int64_t lda = p.transpose_a ? m : k, ldb = p.transpose_b ? k : n;
  if (!p.transpose_a) {  // dA (m, k) = G . op(B)^T
    DotGemm(ctx, dtype, Mat(false, !p.transpose_b, m, k, n, g, n, b, ldb, out[0].dptr_), req[0], "_backward_dot");
  } else {  // dA stored (k, m) = op(B) . G^T
    DotGemm(ctx, dtype, Mat(p.transpose_b, true, k, m, n, b, ldb, g, n, out[0].dptr_), req[0], "_backward_dot");
  }
  if (!p.transpose_b) {  // dB (k, n) = op(A)^T . G
    DotGemm(ctx, dtype, Mat(!p.transpose_a, false, k, n, m, a, lda, g, n, out[1].dptr_), req[1], "_backward_dot");
  } else {  // dB stored (n, k) = G^T . op(A)
    DotGemm(ctx, dtype, Mat(true, p.transpose_a, n, k, m, g, n, a, lda, out[1].dptr_), req[1], "_backward_dot");
  }
}

void BatchDotForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = attrs.get<DotParam>();
  const TShape &a = in[0].shape_, &b = in[1].shape_;
  const int nd = a.ndim();
  const int64_t m = p.transpose_a ? a[nd - 1] : a[nd - 2], k = p.transpose_a ? a[nd - 2] : a[nd - 1];
  const int64_t n = p.transpose_b ? b[nd - 2] : b[nd - 1];
  GemmArgs g = Mat(p.transpose_a, p.transpose_b, m, n, k, in[0].dptr_, a[nd - 1], in[1].dptr_, b[nd - 1],
                   out[0].dptr_);
  g.batch = a.ProdShape(0, nd - 2);
  g.stride_a = m * k;
  g.stride_b = k * n;
  g.stride_c = m * n;
  g.true_fp16 = in[0].type_flag_ == kFloat16 && TrueFp16Gemm();
  DotGemm(ctx, in[0].type_flag_, g, req[0], "batch_dot");
}

}  // namespace
}  // namespace cuda

MXNET_REGISTER_KERNEL(dot, kGPU, cuda).set_compute(cuda::DotForward);
MXNET_REGISTER_KERNEL(_backward_dot, kGPU, cuda).set_compute(cuda::DotBackward);
MXNET_REGISTER_KERNEL(batch_dot, kGPU, cuda).set_compute(cuda::BatchDotForward);

}  // namespace op
}  // namespace mxnet
