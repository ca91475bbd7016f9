/*!
 * \file cublas_handle.h
 * \brief cuBLAS for the CUDA kernels: one handle per (engine thread, device, stream), bound to
 *        the op's stream, and a row-major GEMM over float32/float64/float16/bfloat16 that maps
 *        onto cuBLAS's column-major convention (C^T = op(B)^T op(A)^T) and applies the math
 *        policy of MXNET_CUDA_ALLOW_TENSOR_CORE, MXNET_CUDA_TENSOR_OP_MATH_ALLOW_CONVERSION and
 *        MXNET_FC_TRUE_FP16.
 */
#ifndef MXNET_OPERATOR_CUDA_CUBLAS_HANDLE_H_
#define MXNET_OPERATOR_CUDA_CUBLAS_HANDLE_H_

#include <cublas_v2.h>

#include <cstdint>

#include "mxnet/op_context.h"

namespace mxnet {
namespace op {
namespace cuda {

/*! \brief Throws mxnet::Error "<what>: <status name> (<status text>)" when st is not success. */
void CublasCheck(cublasStatus_t st, const char* what);

/*!
 * \brief The calling thread's cuBLAS handle for ctx's device and stream (cuda::Stream(ctx)),
 *        created on first use with its math mode and workspace set once. Handles are per
 *        thread because a cuBLAS handle must not be used by two threads at once.
 */
cublasHandle_t CublasHandle(const OpContext& ctx);

/*! \brief Whether GEMMs may use reduced-precision math; the registry fixes both at load. */
struct CublasMathPolicy {
  bool allow_tensor_core;  // MXNET_CUDA_ALLOW_TENSOR_CORE: tensor cores for float16/bfloat16
  bool allow_tf32;         // ... and MXNET_CUDA_TENSOR_OP_MATH_ALLOW_CONVERSION: float32 through TF32
};
const CublasMathPolicy& MathPolicy();

/*! \brief MXNET_FC_TRUE_FP16: float16 GEMMs of FullyConnected and batch_dot accumulate in float16. */
bool TrueFp16Gemm();

/*!
 * \brief One row-major GEMM, or `batch` of them at the given element strides:
 *        C (m x n, row length ldc) = op(A) op(B) (+ C when accumulate), op(A) m x k, op(B) k x n;
 *        lda/ldb are the stored row lengths of A and B (as CBLAS row-major takes them).
 */
struct GemmArgs {
  bool ta{false}, tb{false};
  int64_t m{0}, n{0}, k{0};
  const void* a{nullptr};
  int64_t lda{0}, stride_a{0};
  const void* b{nullptr};
  int64_t ldb{0}, stride_b{0};
  void* c{nullptr};
  int64_t ldc{0}, stride_c{0};
  int64_t batch{1};
  /*! \brief beta 1 (kAddTo) instead of 0; C is not read otherwise. */
  bool accumulate{false};
  /*! \brief float16 only: accumulate in float16 (the caller passes TrueFp16Gemm() where MXNet does). */
  bool true_fp16{false};
};

/*! \brief Runs g on ctx's stream for dtype float32/float64/float16/bfloat16; throws otherwise. */
void Gemm(const OpContext& ctx, int dtype, const GemmArgs& g, const char* what);

}  // namespace cuda
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_CUDA_CUBLAS_HANDLE_H_
