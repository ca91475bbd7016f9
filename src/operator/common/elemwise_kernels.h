/*!
 * \file elemwise_kernels.h
 * \brief Element-wise loops over raw pointers: unary map, same-shape binary, binary with
 *        a scalar. fp16/bf16 are computed in float (MXNet does the same).
 */
#ifndef MXNET_OPERATOR_COMMON_ELEMWISE_KERNELS_H_
#define MXNET_OPERATOR_COMMON_ELEMWISE_KERNELS_H_

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "mxnet/op.h"
#include "mxnet/tensor.h"
#include "mxnet/xinline.h"
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
/*!
 * \brief Compute type for math that is not closed over integers (sqrt, 1/x, gradients):
 *        integers and bool go through double, so nothing traps on integer division by zero.
 */
template <typename T>
using real_compute_t = std::conditional_t<std::is_integral_v<T>, double, compute_t<T>>;

/*!
 * \brief Stores v into *out under req. The write-only case is a plain store so loops
 *        that call it stay vectorisable; kAddTo accumulates in the compute type.
 */
template <typename T, typename V>
MXNET_XINLINE void Store(T* out, OpReqType req, V v) {
  if (req == kAddTo) {
    *out = static_cast<T>(static_cast<compute_t<T>>(*out) + static_cast<compute_t<T>>(v));
  } else {
    *out = static_cast<T>(v);
  }
}

/*!
 * \brief out[i] = f(in[i]) in the compute type; in and out may alias. The chunk body is
 *        flattened (f and what it calls inlined): a call left in the loop, such as a large
 *        vector_math.h function past the inliner's limits, keeps it scalar.
 */
template <typename T, typename C = compute_t<T>, typename F>
inline void MapUnary(const T* in, T* out, int64_t n, OpReqType req, F f) {
  if (req == kNullOp) return;
  ParallelChunks(n, [&](int64_t b, int64_t e) __attribute__((flatten)) {
    // A local copy of f: a float it captured (power's scalar exponent), read through the
    // reference, might alias out[i], so all that depends on it was recomputed per element.
    const F fl = f;
    if (req == kAddTo) {
      for (int64_t i = b; i < e; ++i) Store(out + i, req, fl(static_cast<C>(in[i])));
    } else {
      MXNET_SIMD
      for (int64_t i = b; i < e; ++i) out[i] = static_cast<T>(fl(static_cast<C>(in[i])));
    }
  });
}

/*! \brief out[i] = f(a[i], b[i]); any of the three may alias. */
template <typename T, typename C = compute_t<T>, typename F>
inline void MapBinary(const T* a, const T* b, T* out, int64_t n, OpReqType req, F f) {
  if (req == kNullOp) return;
  ParallelChunks(n, [&](int64_t s, int64_t e) __attribute__((flatten)) {  // as MapUnary
    const F fl = f;
    if (req == kAddTo) {
      for (int64_t i = s; i < e; ++i) Store(out + i, req, fl(static_cast<C>(a[i]), static_cast<C>(b[i])));
    } else {
      MXNET_SIMD
      for (int64_t i = s; i < e; ++i) out[i] = static_cast<T>(fl(static_cast<C>(a[i]), static_cast<C>(b[i])));
    }
  });
}

/*! \brief Elements per block of the limited maps: small enough that the check pass leaves it in L1. */
constexpr int64_t kLimitedBlock = 1024;

/*!
 * \brief Calls body(s, e, vec) over blocks of [0, n) split as ParallelChunks does; vec says that
 *        no x[i] in the block has limit < |x[i]| < inf, so a vector form valid within the limit
 *        (and for inf and NaN) may run on the whole block.
 */
template <typename T, typename Body>
inline void LimitedBlocks(const T* x, int64_t n, float limit, Body body) {
  ParallelChunks(n, [&](int64_t b, int64_t e) {
    const T* const xs = x;  // a local copy: through the reference capture GCC made the loads a gather
    for (int64_t s = b; s < e; s += kLimitedBlock) {
      const int64_t t = e - s < kLimitedBlock ? e : s + kLimitedBlock;
      int any = 0;
      MXNET_SIMD_OR_ANY
      for (int64_t i = s; i < t; ++i) {
        const float a = std::fabs(static_cast<float>(static_cast<compute_t<T>>(xs[i])));
        any |= (a > limit) & (a < std::numeric_limits<float>::infinity());
      }
      body(s, t, any == 0);
    }
  });
}

/*!
 * \brief out[i] = f(in[i]) where the vectorisable vec equals f only for |in[i]| <= limit (sin,
 *        cos, tan in float: see TrigLimited). Blocks beyond it (rare: |x| > 71476 for the trig
 *        functions) take f, which is exact everywhere, element by element. in and out may alias:
 *        a block is checked before any of it is written.
 */
template <typename T, typename C = compute_t<T>, typename V, typename F>
inline void MapUnaryLimited(const T* in, T* out, int64_t n, OpReqType req, float limit, V vec, F f) {
  if (req == kNullOp) return;
  LimitedBlocks(in, n, limit, [&](int64_t b, int64_t e, bool use_vec) __attribute__((flatten)) {
    if (req == kAddTo) {
      for (int64_t i = b; i < e; ++i) Store(out + i, req, f(static_cast<C>(in[i])));
    } else if (use_vec) {
      MXNET_SIMD
      for (int64_t i = b; i < e; ++i) out[i] = static_cast<T>(vec(static_cast<C>(in[i])));
    } else {
      for (int64_t i = b; i < e; ++i) out[i] = static_cast<T>(f(static_cast<C>(in[i])));
    }
  });
}

/*! \brief out[i] = f(a[i], x[i]) as MapUnaryLimited, the limit applying to x (gradients: f(ograd, x)). */
template <typename T, typename C = compute_t<T>, typename V, typename F>
inline void MapBinaryLimited(const T* a, const T* x, T* out, int64_t n, OpReqType req, float limit, V vec, F f) {
  if (req == kNullOp) return;
  LimitedBlocks(x, n, limit, [&](int64_t s, int64_t e, bool use_vec) __attribute__((flatten)) {
    if (req == kAddTo) {
      for (int64_t i = s; i < e; ++i) Store(out + i, req, f(static_cast<C>(a[i]), static_cast<C>(x[i])));
    } else if (use_vec) {
      MXNET_SIMD
      for (int64_t i = s; i < e; ++i) out[i] = static_cast<T>(vec(static_cast<C>(a[i]), static_cast<C>(x[i])));
    } else {
      for (int64_t i = s; i < e; ++i) out[i] = static_cast<T>(f(static_cast<C>(a[i]), static_cast<C>(x[i])));
    }
  });
}

/*! \brief out[i] = f(a[i], b[i], c[i]). */
template <typename T, typename C = compute_t<T>, typename F>
inline void MapTernary(const T* a, const T* b, const T* c, T* out, int64_t n, OpReqType req, F f) {
  if (req == kNullOp) return;
  ParallelChunks(n, [&](int64_t s, int64_t e) __attribute__((flatten)) {  // as MapUnary
    const F fl = f;
    if (req == kAddTo) {
      for (int64_t i = s; i < e; ++i)
        Store(out + i, req, fl(static_cast<C>(a[i]), static_cast<C>(b[i]), static_cast<C>(c[i])));
    } else {
      MXNET_SIMD
      for (int64_t i = s; i < e; ++i)
        out[i] = static_cast<T>(fl(static_cast<C>(a[i]), static_cast<C>(b[i]), static_cast<C>(c[i])));
    }
  });
}

/*! \brief Copies n elements converting between storage types (through the compute type of the source). */
template <typename S, typename D>
MXNET_XINLINE D CastValue(S v) {
  if constexpr (std::is_same_v<D, bool>) {
    return static_cast<compute_t<S>>(v) != compute_t<S>(0);
  } else if constexpr (std::is_same_v<D, half_t> || std::is_same_v<D, bf16_t>) {
    return D(static_cast<float>(static_cast<compute_t<S>>(v)));
  } else {
    return static_cast<D>(static_cast<compute_t<S>>(v));
  }
}
template <typename S, typename D>
inline void CastCopy(const S* in, D* out, int64_t n, OpReqType req) {
  if (req == kNullOp) return;
  ParallelChunks(n, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) Store(out + i, req, CastValue<S, D>(in[i]));
  });
}

/*! \brief out[i] = v. */
template <typename T>
inline void Fill(T* out, int64_t n, T v, OpReqType req = kWriteTo) {
  if (req == kNullOp) return;
  ParallelChunks(n, [&](int64_t b, int64_t e) {
    if (req == kAddTo) {
      for (int64_t i = b; i < e; ++i) Store(out + i, req, v);
    } else {
      for (int64_t i = b; i < e; ++i) out[i] = v;
    }
  });
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_COMMON_ELEMWISE_KERNELS_H_
