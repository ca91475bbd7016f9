/*!
 * \file elemwise_kernels.h
 * \brief Element-wise loops over raw pointers: unary map, same-shape binary, binary with
 *        a scalar. fp16/bf16 are computed in float (MXNet does the same).
 */
#ifndef MXNET_OPERATOR_COMMON_ELEMWISE_KERNELS_H_
#define MXNET_OPERATOR_COMMON_ELEMWISE_KERNELS_H_

#include <cstdint>

#include "mxnet/tensor.h"
#include "operator/common/parallel.h"

namespace mxnet {
namespace op {

/*! \brief The type arithmetic runs in for a storage type. */
template <typename T>
struct ComputeT {
  using type = T;
};
template <>
struct ComputeT<half_t> {
  using type = float;
};
template <>
struct ComputeT<bf16_t> {
  using type = float;
};
template <typename T>
using compute_t = typename ComputeT<T>::type;

/*! \brief out[i] = f(in[i]) in the compute type; in and out may alias. */
template <typename T, typename F>
inline void MapUnary(const T* in, T* out, int64_t n, F f) {
  using C = compute_t<T>;
  ParallelChunks(n, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) out[i] = static_cast<T>(f(static_cast<C>(in[i])));
  });
}

/*! \brief out[i] = f(a[i], b[i]); any of the three may alias. */
template <typename T, typename F>
inline void MapBinary(const T* a, const T* b, T* out, int64_t n, F f) {
  using C = compute_t<T>;
  ParallelChunks(n, [&](int64_t s, int64_t e) {
    for (int64_t i = s; i < e; ++i) out[i] = static_cast<T>(f(static_cast<C>(a[i]), static_cast<C>(b[i])));
  });
}

/*! \brief out[i] = f(a[i], b[i], c[i]). */
template <typename T, typename F>
inline void MapTernary(const T* a, const T* b, const T* c, T* out, int64_t n, F f) {
  using C = compute_t<T>;
  ParallelChunks(n, [&](int64_t s, int64_t e) {
    for (int64_t i = s; i < e; ++i)
      out[i] = static_cast<T>(f(static_cast<C>(a[i]), static_cast<C>(b[i]), static_cast<C>(c[i])));
  });
}

/*! \brief Copies n elements converting between storage types (through the compute type of the source). */
template <typename S, typename D>
inline void CastCopy(const S* in, D* out, int64_t n) {
  ParallelChunks(n, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      if constexpr (std::is_same_v<D, bool>) {
        out[i] = static_cast<compute_t<S>>(in[i]) != compute_t<S>(0);
      } else if constexpr (std::is_same_v<D, half_t> || std::is_same_v<D, bf16_t>) {
        out[i] = D(static_cast<float>(static_cast<compute_t<S>>(in[i])));
      } else {
        out[i] = static_cast<D>(static_cast<compute_t<S>>(in[i]));
      }
    }
  });
}

/*! \brief out[i] = v. */
template <typename T>
inline void Fill(T* out, int64_t n, T v) {
  ParallelChunks(n, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) out[i] = v;
  });
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_COMMON_ELEMWISE_KERNELS_H_
