/*!
 * \file nn_util.h
 * \brief Small pieces the neural-network operators share: row-major GEMM on the OpenMP
 *        OpenBLAS, the float32/float64 switch of GEMM-based kernels, req-aware copies,
 *        axis normalisation and the kAddTo-through-scratch pattern of backend paths.
 */
#ifndef MXNET_OPERATOR_NN_NN_UTIL_H_
#define MXNET_OPERATOR_NN_NN_UTIL_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "mxnet/op.h"
#include "mxnet/tensor.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/common/parallel.h"

#if MXNET_USE_OPENBLAS
#include <cblas.h>
#endif

namespace mxnet {
namespace op {

inline const char* OpNameOf(const NodeAttrs& attrs) { return attrs.op ? attrs.op->name.c_str() : "operator"; }

/*! \brief GEMM-based kernels (conv, FC) run in float32 and float64. */
#define MXNET_GEMM_TYPE_SWITCH(type, opname, DType, ...)                                                \
  switch (type) {                                                                                      \
    case ::mxnet::kFloat32: { using DType = float; {__VA_ARGS__} } break;                              \
    case ::mxnet::kFloat64: { using DType = double; {__VA_ARGS__} } break;                             \
    default: MX_THROW("TypeError") << opname << ": supports float32 and float64 inputs, got "          \
                                   << ::mxnet::DTypeName(static_cast<int>(type));                      \
  }

/*!
 * \brief C = alpha * op(A) * op(B) + beta * C, row-major; op(A) is M x K, op(B) K x N.
 *        Threads come from OpenBLAS's OpenMP pool (the same pool as our loops).
 */
void Gemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
          const float* B, int64_t ldb, float beta, float* C, int64_t ldc);
void Gemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, double alpha, const double* A, int64_t lda,
          const double* B, int64_t ldb, double beta, double* C, int64_t ldc);

/*! \brief beta for a GEMM writing under req (kAddTo accumulates). */
template <typename DType>
inline DType BetaFor(OpReqType req) {
  return req == kAddTo ? DType(1) : DType(0);
}

/*! \brief Normalises a possibly negative axis; throws naming the op and parameter. */
inline int NormAxis(const NodeAttrs& attrs, int axis, int ndim, const char* param = "axis") {
  MX_CHECK_KIND(axis >= -ndim && axis < ndim, "ValueError")
      << OpNameOf(attrs) << ": " << param << " " << axis << " is out of range for an input of rank " << ndim;
  return axis < 0 ? axis + ndim : axis;
}

/*! \brief dst (under req) = src, elementwise over n values of one dtype. */
inline void CopyWithReq(const TBlob& src, const TBlob& dst, OpReqType req) {
  if (req == kNullOp) return;
  if (req != kAddTo) {
    if (src.dptr_ != dst.dptr_) std::memcpy(dst.dptr_, src.dptr_, src.Bytes());
    return;
  }
  MXNET_TYPE_SWITCH(dst.type_flag_, DType, {
    const DType* s = static_cast<const DType*>(src.dptr_);
    DType* d = dst.dptr<DType>();
    ParallelFor(dst.Size(), [&](int64_t i) { Store(d + i, kAddTo, compute_t<DType>(s[i])); });
  });
}

/*! \brief Whether the input list holds an out-of-place request somewhere (backend paths write plainly). */
inline bool AnyAddTo(const std::vector<OpReqType>& req) {
  for (auto r : req)
    if (r == kAddTo) return true;
  return false;
}

/*! \brief Rewrites a shape tuple parameter to length n filled with v when it is empty. */
inline TShape FillIfEmpty(const TShape& s, int n, dim_t v) {
  if (s.ndim() > 0) return s;
  return TShape(n, v);
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_NN_UTIL_H_
