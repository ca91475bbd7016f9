/*!
 * \file float_lanes.h
 * \brief Eight float32 lanes, one nChw8c channel block and one AVX2 register, as the
 *        hand-written convolution kernels compute on them: unaligned loads and stores,
 *        broadcasts and fused multiply-adds.
 */
#ifndef MXNET_OPERATOR_NN_FLOAT_LANES_H_
#define MXNET_OPERATOR_NN_FLOAT_LANES_H_

#include <cstdint>

#if defined(__FMA__)
#include <immintrin.h>
#endif

namespace mxnet {
namespace op {
namespace lanes {

constexpr int64_t kLanes = 8;

typedef float Lanes __attribute__((vector_size(kLanes * sizeof(float))));

inline Lanes Load(const float* p) {
  Lanes v;
  __builtin_memcpy(&v, p, sizeof(v));
  return v;
}

inline void Store(float* p, Lanes v) { __builtin_memcpy(p, &v, sizeof(v)); }

inline Lanes Splat(float s) { return Lanes{s, s, s, s, s, s, s, s}; }

/*! \brief a * b + c, fused where the target has FMA (the language standard lets GCC contract
 *         a * b + c only when asked). */
inline Lanes Fma(Lanes a, Lanes b, Lanes c) {
#if defined(__FMA__)
  return reinterpret_cast<Lanes>(
      _mm256_fmadd_ps(reinterpret_cast<__m256>(a), reinterpret_cast<__m256>(b), reinterpret_cast<__m256>(c)));
#else
  return a * b + c;
#endif
}

}  // namespace lanes
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_FLOAT_LANES_H_
