/*!
 * \file gemm.cc
 * \brief Row-major GEMM for the NN kernels on OpenBLAS, and the start-up check of which
 *        OpenBLAS threading model the process actually loaded: the pthread build runs its
 *        own thread pool beside OpenMP's and the two oversubscribe small machines.
 */
#include <string>

#include "common/logging.h"
#include "common/runtime_info.h"
#include "operator/nn/nn_util.h"

namespace mxnet {
namespace op {

#if MXNET_USE_OPENBLAS
namespace {
CBLAS_TRANSPOSE T(bool t) { return t ? CblasTrans : CblasNoTrans; }

/*! \brief Runs once at load: records the OpenBLAS threading model for mx.runtime.info(). */
struct OpenBLASThreadingCheck {
  OpenBLASThreadingCheck() {
    const int mode = openblas_get_parallel();
    const char* name = mode == 0 ? "sequential" : mode == 1 ? "pthread" : mode == 2 ? "openmp" : "unknown";
    common::SetRuntimeInfo("openblas_threading", name);
    common::SetRuntimeInfo("openblas_config", openblas_get_config());
    if (mode == 1) {
      common::LogWarning(
          "libmxnet loaded the pthread build of OpenBLAS; its threads compete with OpenMP's. Install "
          "libopenblas0-openmp and make sure its directory precedes openblas-pthread in the library path.");
    }
  }
};
const OpenBLASThreadingCheck openblas_threading_check;
}  // namespace

void Gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
          const float* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  if (M == 0 || N == 0) return;
  cblas_sgemm(CblasRowMajor, T(ta), T(tb), M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

void Gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, double alpha, const double* A, int64_t lda,
          const double* B, int64_t ldb, double beta, double* C, int64_t ldc) {
  if (M == 0 || N == 0) return;
  cblas_dgemm(CblasRowMajor, T(ta), T(tb), M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}
#else
namespace {
/*! \brief Without BLAS: the textbook triple loop (builds without OpenBLAS are for debugging). */
template <typename D>
void NaiveGemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, D alpha, const D* A, int64_t lda, const D* B,
               int64_t ldb, D beta, D* C, int64_t ldc) {
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < N; ++j) {
      D acc = 0;
      for (int64_t k = 0; k < K; ++k) acc += (ta ? A[k * lda + i] : A[i * lda + k]) * (tb ? B[j * ldb + k] : B[k * ldb + j]);
      C[i * ldc + j] = alpha * acc + (beta == D(0) ? D(0) : beta * C[i * ldc + j]);
    }
  }
}
const bool openblas_threading_recorded = (common::SetRuntimeInfo("openblas_threading", "none"), true);
}  // namespace
void Gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
          const float* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  NaiveGemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}
void Gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, double alpha, const double* A, int64_t lda,
          const double* B, int64_t ldb, double beta, double* C, int64_t ldc) {
  NaiveGemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}
#endif

}  // namespace op
}  // namespace mxnet
