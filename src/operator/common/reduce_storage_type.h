/*!
 * \file reduce_storage_type.h
 * \brief Sum-like reductions of float16 computed as MXNet 1.x computes them in the storage type
 *        (MXNET_SAFE_ACCUMULATION=0): each output walks its reduced elements in row-major
 *        order, every arithmetic step rounded to float16. Sums carry a compensation term
 *        (Kahan), so 100,000 x 0.1 comes to 9992 rather than stalling at 256; the mean divides
 *        by the element count converted to float16 (which overflows to inf past 65504, as
 *        in 1.x); the 2-norm accumulates squares scaled by the largest magnitude seen.
 */
#ifndef MXNET_OPERATOR_COMMON_REDUCE_STORAGE_TYPE_H_
#define MXNET_OPERATOR_COMMON_REDUCE_STORAGE_TYPE_H_

#include <cmath>

#include "mxnet/xinline.h"
#include "operator/common/reduce_kernels.h"

namespace mxnet {
namespace op {

enum class StorageReduceKind { kNone, kSum, kMean, kNanSum, kProd, kNanProd, kL1, kL2 };

/*! \brief The storage-type form of reducer R (kNone: R has none, it needs no accumulation). */
template <typename R>
constexpr StorageReduceKind kStorageReduceKind = StorageReduceKind::kNone;
template <>
constexpr StorageReduceKind kStorageReduceKind<SumReducer> = StorageReduceKind::kSum;
template <>
constexpr StorageReduceKind kStorageReduceKind<MeanReducer> = StorageReduceKind::kMean;
template <>
constexpr StorageReduceKind kStorageReduceKind<NanSumReducer> = StorageReduceKind::kNanSum;
template <>
constexpr StorageReduceKind kStorageReduceKind<ProdReducer> = StorageReduceKind::kProd;
template <>
constexpr StorageReduceKind kStorageReduceKind<NanProdReducer> = StorageReduceKind::kNanProd;
template <>
constexpr StorageReduceKind kStorageReduceKind<L1Reducer> = StorageReduceKind::kL1;
template <>
constexpr StorageReduceKind kStorageReduceKind<L2Reducer> = StorageReduceKind::kL2;

namespace storage_reduce {

/*! \brief v rounded to float16 (every step of a float16 expression is). */
MXNET_XINLINE float H(float v) { return static_cast<float>(half_t(v)); }

/*! \brief One compensated step: sum += x, residual keeps what rounding dropped. */
MXNET_XINLINE void KahanAdd(float* sum, float* residual, float x) {
  const float y = H(x - *residual);
  const float t = H(*sum + y);
  *residual = std::isinf(t) ? 0.f : H(H(t - *sum) - y);
  *sum = t;
}

/*! \brief The 2-norm step: ssq holds sum((x / scale)^2), scale the largest |x| so far. */
MXNET_XINLINE void ScaledSquareAdd(float* ssq, float* scale, float x) {
  if (x == 0.f) return;
  const float a = std::fabs(x);
  if (*scale < a) {
    const float r = H(*scale / a);
    *ssq = H(1.f + H(H(*ssq * r) * r));
    *scale = a;
  } else {
    const float r = H(a / *scale);
    *ssq = H(*ssq + H(r * r));
  }
}

}  // namespace storage_reduce

/*! \brief out[o] = the float16 reduction `kind` of output o's reduced elements. */
inline void ReduceInStorageType(const ReducePlan& p, const half_t* in, half_t* out, OpReqType req,
                                StorageReduceKind kind) {
  using namespace storage_reduce;
  if (req == kNullOp) return;
  auto outer = [&](int64_t o) {
    float acc = (kind == StorageReduceKind::kProd || kind == StorageReduceKind::kNanProd) ? 1.f : 0.f;
    float aux = 0.f;  // Kahan residual, or the 2-norm's scale
    WalkReduced(p, KeptOffset(p, o), 0, p.K, [&](int64_t off) {
      const float x = static_cast<float>(in[off]);
      switch (kind) {
        case StorageReduceKind::kNanSum:
          if (x != x) break;
          KahanAdd(&acc, &aux, x);
          break;
        case StorageReduceKind::kL1: KahanAdd(&acc, &aux, std::fabs(x)); break;
        case StorageReduceKind::kL2: ScaledSquareAdd(&acc, &aux, x); break;
        case StorageReduceKind::kNanProd:
          if (x != x) break;
          acc = H(acc * x);
          break;
        case StorageReduceKind::kProd: acc = H(acc * x); break;
        default: KahanAdd(&acc, &aux, x); break;
      }
    });
    if (kind == StorageReduceKind::kMean) acc = H(acc / H(static_cast<float>(p.K)));
    if (kind == StorageReduceKind::kL2) acc = H(aux * H(std::sqrt(acc)));
    Store(out + o, req, acc);
  };
  ForEachKept(p, outer);
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_COMMON_REDUCE_STORAGE_TYPE_H_
