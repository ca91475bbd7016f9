/*!
 * \file cublas_handle.cc
 * \brief The per-thread cuBLAS handles and the row-major GEMM of the CUDA kernels.
 */
#include "operator/cuda/cublas_handle.h"

#include <cuda_runtime.h>

#include <vector>

#include "mxnet/env.h"
#include "mxnet/error.h"
#include "mxnet/tensor.h"

namespace mxnet {
namespace op {
namespace cuda {

void CublasCheck(cublasStatus_t st, const char* what) {
  if (st != CUBLAS_STATUS_SUCCESS) {
    MX_THROW("MXNetError") << what << ": " << cublasGetStatusName(st) << " (" << cublasGetStatusString(st) << ")";
  }
}

namespace {

void CudaCheck(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    cudaGetLastError();  // clear a non-sticky error
    MX_THROW("MXNetError") << what << ": " << cudaGetErrorString(err);
  }
}

/*! \brief One handle, bound for life to one stream of one device, with its own workspace. */
struct HandleEntry {
  int dev;
  cudaStream_t stream;
  cublasHandle_t handle;
  void* workspace;
};

/*! \brief A thread's handles; destroyed when the thread ends (engine workers at engine shutdown). */
struct ThreadHandles {
  std::vector<HandleEntry> entries;
  ~ThreadHandles() {
    int current = -1;
    const bool had_device = cudaGetDevice(&current) == cudaSuccess;
    for (const HandleEntry& e : entries) {
      // Failures mean the driver is shutting down with the process: nothing left to release.
      if (cudaSetDevice(e.dev) != cudaSuccess) continue;
      cublasDestroy(e.handle);
      if (e.workspace) cudaFree(e.workspace);
    }
    if (had_device) cudaSetDevice(current);
    cudaGetLastError();
  }
};

thread_local ThreadHandles thread_handles;

/*!
 * \brief cuBLAS's recommended workspace: 32 MiB from Hopper on, 4 MiB before. Owning it (rather
 *        than cuBLAS's default pool) keeps the handle from allocating while it runs.
 */
size_t WorkspaceBytes(int dev) {
  int major = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess) major = 0;
  return (major >= 9 ? 32u : 4u) << 20;
}

HandleEntry CreateEntry(int dev, cudaStream_t stream) {
  HandleEntry e{dev, stream, nullptr, nullptr};
  CublasCheck(cublasCreate(&e.handle), "cublasCreate");
  try {
    CublasCheck(cublasSetStream(e.handle, stream), "cublasSetStream");
    // Tensor-core use is chosen per GEMM by its compute type (Gemm below); the pedantic mode
    // additionally keeps every other routine off reduced-precision paths when they are not allowed.
    CublasCheck(cublasSetMathMode(e.handle, MathPolicy().allow_tensor_core ? CUBLAS_DEFAULT_MATH : CUBLAS_PEDANTIC_MATH),
                "cublasSetMathMode");
    const size_t bytes = WorkspaceBytes(dev);
    CudaCheck(cudaMalloc(&e.workspace, bytes), "cudaMalloc (cuBLAS workspace)");
    CublasCheck(cublasSetWorkspace(e.handle, e.workspace, bytes), "cublasSetWorkspace");
  } catch (...) {
    cublasDestroy(e.handle);
    if (e.workspace) cudaFree(e.workspace);
    throw;
  }
  return e;
}

}  // namespace

cublasHandle_t CublasHandle(const OpContext& ctx) {
  const int dev = ctx.run_ctx.ctx.dev_id;
  const cudaStream_t stream = static_cast<cudaStream_t>(ctx.run_ctx.stream);
  for (const HandleEntry& e : thread_handles.entries)
    if (e.dev == dev && e.stream == stream) return e.handle;
  thread_handles.entries.push_back(CreateEntry(dev, stream));
  return thread_handles.entries.back().handle;
}

const CublasMathPolicy& MathPolicy() {
  static const CublasMathPolicy policy = [] {
    CublasMathPolicy p;
    p.allow_tensor_core = env::GetBool(env::Var::MXNET_CUDA_ALLOW_TENSOR_CORE);
    p.allow_tf32 = p.allow_tensor_core && env::GetBool(env::Var::MXNET_CUDA_TENSOR_OP_MATH_ALLOW_CONVERSION);
    return p;
  }();
  return policy;
}

bool TrueFp16Gemm() { return env::GetBool(env::Var::MXNET_FC_TRUE_FP16); }

void Gemm(const OpContext& ctx, int dtype, const GemmArgs& g, const char* what) {
  if (g.m == 0 || g.n == 0 || g.batch == 0) return;
  const size_t es = DTypeSize(dtype);
  if (g.k == 0) {  // an empty contraction: C = 0 (or unchanged when accumulating)
    if (g.accumulate) return;
    const cudaStream_t s = static_cast<cudaStream_t>(ctx.run_ctx.stream);
    const bool packed = g.batch == 1 || g.stride_c == g.m * g.ldc;
    for (int64_t i = 0; i < (packed ? 1 : g.batch); ++i) {
      CudaCheck(cudaMemset2DAsync(static_cast<char*>(g.c) + i * g.stride_c * es, g.ldc * es, 0, g.n * es,
                                  g.m * (packed ? g.batch : 1), s),
                what);
    }
    return;
  }
  const CublasMathPolicy& policy = MathPolicy();
  cudaDataType_t type;
  cublasComputeType_t compute;
  // alpha and beta in the compute type's scale type
  const float f1 = 1.f, fb = g.accumulate ? 1.f : 0.f;
  const double d1 = 1.0, db = g.accumulate ? 1.0 : 0.0;
  const half_t h1(1.f), hb(g.accumulate ? 1.f : 0.f);
  const void* alpha = &f1;
  const void* beta = &fb;
  switch (dtype) {
    case kFloat32:
      type = CUDA_R_32F;
      compute = policy.allow_tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
      break;
    case kFloat64:
      type = CUDA_R_64F;
      compute = policy.allow_tensor_core ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_64F_PEDANTIC;
      alpha = &d1;
      beta = &db;
      break;
    case kFloat16:
      type = CUDA_R_16F;
      if (g.true_fp16) {
        compute = policy.allow_tensor_core ? CUBLAS_COMPUTE_16F : CUBLAS_COMPUTE_16F_PEDANTIC;
        alpha = &h1;
        beta = &hb;
      } else {
        compute = policy.allow_tensor_core ? CUBLAS_COMPUTE_32F : CUBLAS_COMPUTE_32F_PEDANTIC;
      }
      break;
    case kBfloat16:
      type = CUDA_R_16BF;
      compute = policy.allow_tensor_core ? CUBLAS_COMPUTE_32F : CUBLAS_COMPUTE_32F_PEDANTIC;
      break;
    default:
      MX_THROW("TypeError") << what << ": cuBLAS GEMM supports float32, float64, float16 and bfloat16, got "
                            << DTypeName(dtype);
  }
  // Row-major C (m x n) is column-major C^T (n x m) = op(B)^T op(A)^T: swap the operands, keep the
  // leading dimensions (a row-major row length is the column-major leading dimension of the transpose).
  const cublasOperation_t opa = g.ta ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t opb = g.tb ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasHandle_t h = CublasHandle(ctx);
  if (g.batch == 1) {
    CublasCheck(cublasGemmEx_64(h, opb, opa, g.n, g.m, g.k, alpha, g.b, type, g.ldb, g.a, type, g.lda, beta, g.c,
                                type, g.ldc, compute, CUBLAS_GEMM_DEFAULT),
                what);
  } else {
    CublasCheck(cublasGemmStridedBatchedEx_64(h, opb, opa, g.n, g.m, g.k, alpha, g.b, type, g.ldb, g.stride_b, g.a,
                                              type, g.lda, g.stride_a, beta, g.c, type, g.ldc, g.stride_c, g.batch,
                                              compute, CUBLAS_GEMM_DEFAULT),
                what);
  }
}

}  // namespace cuda
}  // namespace op
}  // namespace mxnet
