/*!
 * \file binary_functors.h
 * \brief The element-wise binary math table shared by elemwise_*, broadcast_* and the
 *        scalar ops: value and both partial derivatives over a compute type C.
 */
#ifndef MXNET_OPERATOR_COMMON_BINARY_FUNCTORS_H_
#define MXNET_OPERATOR_COMMON_BINARY_FUNCTORS_H_

#include <cmath>
#include <limits>
#include <type_traits>

#include "mxnet/xinline.h"
#include "operator/common/vector_math.h"

namespace mxnet {
namespace op {
namespace math {

/*! \brief Integer division by zero yields 0 instead of trapping (MXNet's behaviour). */
template <typename C>
MXNET_XINLINE C div(C a, C b) {
  if constexpr (std::is_integral_v<C>) {
    return b == C(0) ? C(0) : C(a / b);
  } else {
    return a / b;
  }
}

/*! \brief Python-style modulo: the result takes the divisor's sign; x % 0 = 0. */
template <typename C>
MXNET_XINLINE C mod(C a, C b) {
  if (b == C(0)) return C(0);
  if constexpr (std::is_integral_v<C>) {
    C r = C(a % b);
    if constexpr (std::is_signed_v<C>) {
      if (r != C(0) && ((r < C(0)) != (b < C(0)))) r = C(r + b);
    }
    return r;
  } else {
    C r = std::fmod(a, b);
    if (r != C(0) && ((r < C(0)) != (b < C(0)))) r += b;
    return r;
  }
}

/*!
 * \brief float (and fp16/bf16) through vector_math.h's Pow, which vectorises (powf on CUDA);
 *        others via double.
 */
template <typename C>
MXNET_XINLINE C power(C a, C b) {
  if constexpr (std::is_same_v<C, float>) {
#ifdef __CUDA_ARCH__
    return powf(a, b);
#else
    return vmath::Pow(a, b);
#endif
  } else {
    return C(std::pow(static_cast<double>(a), static_cast<double>(b)));
  }
}

/*! \brief Natural log, float through vector_math.h (power's gradient in the exponent). */
template <typename C>
MXNET_XINLINE C ln(C a) {
  if constexpr (std::is_same_v<C, float>) {
#ifdef __CUDA_ARCH__
    return logf(a);
#else
    return vmath::Log(a);
#endif
  } else {
    return C(std::log(a));
  }
}

/*! \brief The larger of a and b; NaN on either side propagates (numpy's maximum). */
template <typename C>
MXNET_XINLINE C maximum(C a, C b) {
  return (a > b || a != a) ? a : b;  // a != a: a is NaN; b NaN fails a > b and is returned
}
/*! \brief The smaller of a and b; NaN on either side propagates (numpy's minimum). */
template <typename C>
MXNET_XINLINE C minimum(C a, C b) {
  return (a < b || a != a) ? a : b;
}

/*!
 * \brief A scalar parameter (held as double) in the compute type C of an array: for integer
 *        arrays truncated toward zero, as MXNet casts the scalar to the array's dtype first
 *        (int32 x + 2.5 adds 2), and saturated to C's range instead of overflowing.
 */
template <typename C>
MXNET_XINLINE C ScalarAs(double s) {
  if constexpr (std::is_integral_v<C> && !std::is_same_v<C, bool>) {
    if (s != s) return C(0);
    if (s <= static_cast<double>(std::numeric_limits<C>::lowest())) return std::numeric_limits<C>::lowest();
    if (s >= static_cast<double>(std::numeric_limits<C>::max())) return std::numeric_limits<C>::max();
    return static_cast<C>(s);
  } else {
    return static_cast<C>(s);
  }
}

}  // namespace math

// X(name, value of (a, b), d/da, d/db). Comparisons and logical ops return 1/0 in C and
// have zero gradient.
#define MXNET_BINARY_MATH_OPS(X)                                                            \
  X(add, C(a + b), C(1), C(1))                                                              \
  X(sub, C(a - b), C(1), C(-1))                                                             \
  X(mul, C(a * b), b, a)                                                                    \
  X(div, math::div(a, b), C(C(1) / b), C(-a / (b * b)))                                     \
  X(mod, math::mod(a, b), C(1), C(-std::floor(a / b)))                                      \
  X(power, math::power(a, b), C(b * math::power(a, C(b - C(1)))),                           \
    C(math::power(a, b) * math::ln(a)))                                                     \
  X(maximum, math::maximum(a, b), C(a >= b ? 1 : 0), C(a < b ? 1 : 0))                      \
  X(minimum, math::minimum(a, b), C(a <= b ? 1 : 0), C(a > b ? 1 : 0))                      \
  X(hypot, C(std::hypot(a, b)), C(a / std::hypot(a, b)), C(b / std::hypot(a, b)))           \
  X(equal, C(a == b ? 1 : 0), C(0), C(0))                                                   \
  X(not_equal, C(a != b ? 1 : 0), C(0), C(0))                                               \
  X(greater, C(a > b ? 1 : 0), C(0), C(0))                                                  \
  X(greater_equal, C(a >= b ? 1 : 0), C(0), C(0))                                           \
  X(lesser, C(a < b ? 1 : 0), C(0), C(0))                                                   \
  X(lesser_equal, C(a <= b ? 1 : 0), C(0), C(0))                                            \
  X(logical_and, C((a != C(0)) && (b != C(0)) ? 1 : 0), C(0), C(0))                         \
  X(logical_or, C((a != C(0)) || (b != C(0)) ? 1 : 0), C(0), C(0))                          \
  X(logical_xor, C(((a != C(0)) != (b != C(0))) ? 1 : 0), C(0), C(0))

namespace binary {
#define MXNET_DEFINE_BINARY_FUNCTOR(name, fwd, lgrad, rgrad) \
  struct name {                                              \
    template <typename C>                                    \
    static MXNET_XINLINE C Fwd(C a, C b) {                          \
      return fwd;                                            \
    }                                                        \
    template <typename C>                                    \
    static MXNET_XINLINE C LGrad(C a, C b) {                        \
      return lgrad;                                          \
    }                                                        \
    template <typename C>                                    \
    static MXNET_XINLINE C RGrad(C a, C b) {                        \
      return rgrad;                                          \
    }                                                        \
  };
MXNET_BINARY_MATH_OPS(MXNET_DEFINE_BINARY_FUNCTOR)
#undef MXNET_DEFINE_BINARY_FUNCTOR
}  // namespace binary

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_COMMON_BINARY_FUNCTORS_H_
