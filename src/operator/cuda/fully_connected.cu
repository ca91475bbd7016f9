/*!
 * \file fully_connected.cu
 * \brief CUDA kernels of FullyConnected and _backward_FullyConnected (nn/fully_connected.cc):
 *        cuBLAS GEMMs in float32/float64/float16/bfloat16 (float16 accumulates in float16 under
 *        MXNET_FC_TRUE_FP16, as MXNet's linalg_gemm does), the bias broadcast into the output
 *        ahead of an accumulating GEMM (one rounding for half types, like the CPU's float32
 *        path), and the bias gradient as a column sum accumulated in double like the CPU's.
 */
#include <vector>

#include "mxnet/op.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/cuda/cublas_handle.h"
#include "operator/cuda/cuda_kernel.cuh"
#include "operator/nn/fc_param.h"

namespace mxnet {
namespace op {
namespace cuda {
namespace {

constexpr int kColTile = 32;

/*! \brief out[c] under req = sum over r of x[r * cols + c]: 32 columns per block, 32 row lanes. */
template <typename D>
__global__ void ColumnSumKernel(const D* x, int64_t rows, int64_t cols, D* out, OpReqType req) {
  __shared__ double part[kColTile][kColTile + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int64_t c = static_cast<int64_t>(blockIdx.x) * kColTile + tx;
  double acc = 0;
  if (c < cols)
    for (int64_t r = ty; r < rows; r += kColTile) acc += static_cast<double>(x[r * cols + c]);
  part[ty][tx] = acc;
  __syncthreads();
  for (int s = kColTile / 2; s > 0; s >>= 1) {
    if (ty < s) part[ty][tx] += part[ty + s][tx];
    __syncthreads();
  }
  if (ty == 0 && c < cols) StoreReq(out + c, req, static_cast<compute_t<D>>(part[0][tx]));
}

template <typename D>
void ColumnSum(cudaStream_t stream, const D* x, int64_t rows, int64_t cols, D* out, OpReqType req) {
  if (req == kNullOp || cols == 0) return;
  const int64_t blocks = (cols + kColTile - 1) / kColTile;
  ColumnSumKernel<D><<<static_cast<unsigned>(blocks), dim3(kColTile, kColTile), 0, stream>>>(x, rows, cols, out, req);
  Check(cudaGetLastError(), "FullyConnected: bias gradient launch");
}

void CheckDType(int dtype, const char* op) {
  MX_CHECK_KIND(dtype == kFloat32 || dtype == kFloat64 || dtype == kFloat16 || dtype == kBfloat16, "TypeError")
      << op << ": supports float32, float64, float16 and bfloat16 inputs, got " << DTypeName(dtype);
}

void FCForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
               const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const auto& p = attrs.get<FullyConnectedParam>();
  const int dtype = in[0].type_flag_;
  CheckDType(dtype, "FullyConnected");
  int64_t M, K;
  FCDims(attrs, in[0].shape_, &M, &K);
  const int64_t H = p.num_hidden;
  const cudaStream_t s = Stream(ctx);
  GemmArgs g;
  g.tb = true;  // y (M, H) = x (M, K) . W (H, K)^T
  g.m = M;
  g.n = H;
  g.k = K;
  g.a = in[0].dptr_;
  g.lda = K;
  g.b = in[1].dptr_;
  g.ldb = K;
  g.c = out[0].dptr_;
  g.ldc = H;
  g.accumulate = req[0] == kAddTo;
  g.true_fp16 = dtype == kFloat16 && TrueFp16Gemm();
  const bool bias = !p.no_bias;
  MXNET_REAL_TYPE_SWITCH(dtype, D, {
    using C = compute_t<D>;
    D* y = out[0].dptr<D>();
    const D* b = bias ? in[2].dptr<D>() : nullptr;
    if (bias && !g.accumulate) {  // y = b, then the GEMM adds x W^T
      ForEach(s, M * H, [=] __device__(int64_t i) { y[i] = b[i % H]; }, "FullyConnected: bias launch");
      g.accumulate = true;
      Gemm(ctx, dtype, g, "FullyConnected");
    } else {
      Gemm(ctx, dtype, g, "FullyConnected");
      if (bias) {
        ForEach(s, M * H, [=] __device__(int64_t i) { y[i] = static_cast<D>(static_cast<C>(y[i]) + static_cast<C>(b[i % H])); },
                "FullyConnected: bias launch");
      }
    }
  });
}

/*! \brief inputs (ograd, data, weight); outputs (ddata, dweight [, dbias]). */
void FCBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = attrs.get<FullyConnectedParam>();
  const int dtype = in[1].type_flag_;
  CheckDType(dtype, "_backward_FullyConnected");
  int64_t M, K;
  FCDims(attrs, in[1].shape_, &M, &K);
  const int64_t H = p.num_hidden;
  const bool true_fp16 = dtype == kFloat16 && TrueFp16Gemm();
  if (req[0] != kNullOp) {  // dx (M, K) = dy (M, H) . W (H, K)
    GemmArgs g;
    g.m = M;
    g.n = K;
    g.k = H;
    g.a = in[0].dptr_;
    g.lda = H;
    g.b = in[2].dptr_;
    g.ldb = K;
    g.c = out[0].dptr_;
    g.ldc = K;
    g.accumulate = req[0] == kAddTo;
    g.true_fp16 = true_fp16;
    Gemm(ctx, dtype, g, "_backward_FullyConnected");
  }
  if (req[1] != kNullOp) {  // dW (H, K) = dy^T (H, M) . x (M, K)
    GemmArgs g;
    g.ta = true;
    g.m = H;
    g.n = K;
    g.k = M;
    g.a = in[0].dptr_;
    g.lda = H;
    g.b = in[1].dptr_;
    g.ldb = K;
    g.c = out[1].dptr_;
    g.ldc = K;
    g.accumulate = req[1] == kAddTo;
    g.true_fp16 = true_fp16;
    Gemm(ctx, dtype, g, "_backward_FullyConnected");
  }
  if (!p.no_bias && req[2] != kNullOp) {
    MXNET_REAL_TYPE_SWITCH(dtype, D, { ColumnSum<D>(Stream(ctx), in[0].dptr<D>(), M, H, out[2].dptr<D>(), req[2]); });
  }
}

}  // namespace
}  // namespace cuda

MXNET_REGISTER_KERNEL(FullyConnected, kGPU, cuda).set_compute(cuda::FCForward);
MXNET_REGISTER_KERNEL(_backward_FullyConnected, kGPU, cuda).set_compute(cuda::FCBackward);

}  // namespace op
}  // namespace mxnet
