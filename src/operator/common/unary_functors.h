/*!
 * \file unary_functors.h
 * \brief The element-wise unary math table: forward value and derivative of every unary
 *        op, written once over a compute type C (float for fp16/bf16/fp32, the storage
 *        type otherwise). The registration file walks this table.
 */
#ifndef MXNET_OPERATOR_COMMON_UNARY_FUNCTORS_H_
#define MXNET_OPERATOR_COMMON_UNARY_FUNCTORS_H_

#include <cmath>
#include <type_traits>

#include "mxnet/xinline.h"
#include "operator/common/special_functions.h"
#include "operator/common/vector_math.h"

namespace mxnet {
namespace op {
namespace math {

template <typename C>
MXNET_XINLINE C sgn(C x) {
  return x > C(0) ? C(1) : (x < C(0) ? C(-1) : C(0));
}
template <typename C>
MXNET_XINLINE C absval(C x) {
  if constexpr (std::is_unsigned_v<C>) {
    return x;
  } else if constexpr (std::is_floating_point_v<C>) {
    return std::fabs(x);  // clears the sign of -0.0 too
  } else {
    return x < C(0) ? C(-x) : x;
  }
}
/*! \brief Rounding for integers is the identity; std::floor(int) would go through double. */
#define MXNET_ROUNDING(fn)                  \
  template <typename C>                     \
  MXNET_XINLINE C fn##_(C x) {                     \
    if constexpr (std::is_integral_v<C>) {  \
      return x;                             \
    } else {                                \
      return std::fn(x);                    \
    }                                       \
  }
MXNET_ROUNDING(floor)
MXNET_ROUNDING(ceil)
MXNET_ROUNDING(round)
MXNET_ROUNDING(trunc)
#undef MXNET_ROUNDING
/*! \brief MXNet's rint: a tie goes down (rint(1.5) = 1, rint(-1.5) = -2), unlike C's rint. */
template <typename C>
MXNET_XINLINE C rint_(C x) {
  if constexpr (std::is_integral_v<C>) {
    return x;
  } else {
    const C f = std::floor(x);
    return x - f <= C(0.5) ? f : f + C(1);
  }
}

// float (also fp16/bf16's compute type) takes vector_math.h so the loops vectorise; other
// types keep libm.
// CUDA device code has no vector_math.h: it takes the math library's form.
#ifdef __CUDA_ARCH__
#define MXNET_VECTOR_OR_STD(fn, vexpr, stdexpr) \
  template <typename C>                         \
  MXNET_XINLINE C fn(C x) {                     \
    return stdexpr;                             \
  }
#else
#define MXNET_VECTOR_OR_STD(fn, vexpr, stdexpr) \
  template <typename C>                         \
  MXNET_XINLINE C fn(C x) {                     \
    if constexpr (std::is_same_v<C, float>) {   \
      return vexpr;                             \
    } else {                                    \
      return stdexpr;                           \
    }                                           \
  }
#endif
MXNET_VECTOR_OR_STD(exp_, vmath::Exp(x), std::exp(x))
MXNET_VECTOR_OR_STD(expm1_, vmath::Expm1(x), std::expm1(x))
MXNET_VECTOR_OR_STD(log_, vmath::Log(x), std::log(x))
MXNET_VECTOR_OR_STD(log1p_, vmath::Log1p(x), std::log1p(x))
MXNET_VECTOR_OR_STD(log2_, vmath::Log(x) * 1.44269504088896341f, std::log2(x))
MXNET_VECTOR_OR_STD(log10_, vmath::Log(x) * 0.434294481903251828f, std::log10(x))
MXNET_VECTOR_OR_STD(tanh_, vmath::Tanh(x), std::tanh(x))
MXNET_VECTOR_OR_STD(sigmoid_, vmath::Sigmoid(x), C(C(1) / (C(1) + std::exp(-x))))
MXNET_VECTOR_OR_STD(erf_, vmath::Erf(x), std::erf(x))
MXNET_VECTOR_OR_STD(sinh_, vmath::Sinh(x), std::sinh(x))
MXNET_VECTOR_OR_STD(cosh_, vmath::Cosh(x), std::cosh(x))
MXNET_VECTOR_OR_STD(arcsin_, vmath::Asin(x), std::asin(x))
MXNET_VECTOR_OR_STD(arccos_, vmath::Acos(x), std::acos(x))
MXNET_VECTOR_OR_STD(arctan_, vmath::Atan(x), std::atan(x))
MXNET_VECTOR_OR_STD(arcsinh_, vmath::Asinh(x), std::asinh(x))
MXNET_VECTOR_OR_STD(arccosh_, vmath::Acosh(x), std::acosh(x))
MXNET_VECTOR_OR_STD(arctanh_, vmath::Atanh(x), std::atanh(x))
// Square roots inside gradients: vector_math.h's (within 1 ulp) for float, as std::sqrt keeps
// the loop scalar without -fno-math-errno. The sqrt op itself keeps std::sqrt (correctly rounded).
MXNET_VECTOR_OR_STD(grad_sqrt_, vmath::detail::Sqrt(x), std::sqrt(x))
// sin, cos and tan reduce in float up to vmath::kTrigLimit only; beyond it libm's exact
// reduction. The branch keeps a loop over these scalar: the forward kernels run the vector
// form alone over blocks known to be within the limit (TrigLimited below).
MXNET_VECTOR_OR_STD(sin_, std::fabs(x) > vmath::kTrigLimit ? std::sin(x) : vmath::Sin(x), std::sin(x))
MXNET_VECTOR_OR_STD(cos_, std::fabs(x) > vmath::kTrigLimit ? std::cos(x) : vmath::Cos(x), std::cos(x))
MXNET_VECTOR_OR_STD(tan_, std::fabs(x) > vmath::kTrigLimit ? std::tan(x) : vmath::Tan(x), std::tan(x))
#undef MXNET_VECTOR_OR_STD

}  // namespace math

// X(name, forward of x, derivative given x and y = forward(x)).
// Rounding, sign and logical ops have zero gradient, as in MXNet.
#define MXNET_UNARY_MATH_OPS(X)                                                              \
  X(abs, math::absval(x), math::sgn(x))                                                      \
  X(sign, math::sgn(x), C(0))                                                                \
  X(negative, C(-x), C(-1))                                                                  \
  X(reciprocal, C(C(1) / x), C(C(-1) / (x * x)))                                             \
  X(square, C(x * x), C(C(2) * x))                                                           \
  X(sqrt, C(std::sqrt(x)), C(C(0.5) / y))                                                    \
  X(rsqrt, C(C(1) / std::sqrt(x)), C(C(-0.5) * y * y * y))                                   \
  X(cbrt, C(std::cbrt(x)), C(C(1) / (C(3) * y * y)))                                         \
  X(rcbrt, C(C(1) / std::cbrt(x)), C(C(-1) / C(3) * y * y * y * y))                           \
  X(exp, C(math::exp_(x)), y)                                                                  \
  X(expm1, C(math::expm1_(x)), C(y + C(1)))                                                    \
  X(log, C(math::log_(x)), C(C(1) / x))                                                        \
  X(log1p, C(math::log1p_(x)), C(C(1) / (C(1) + x)))                                           \
  X(log2, C(math::log2_(x)), C(C(1) / (x * C(M_LN2))))                                         \
  X(log10, C(math::log10_(x)), C(C(1) / (x * C(M_LN10))))                                      \
  X(sin, C(math::sin_(x)), C(math::cos_(x)))                                                 \
  X(cos, C(math::cos_(x)), C(-math::sin_(x)))                                                \
  X(tan, C(math::tan_(x)), C(C(1) + y * y))                                                  \
  X(arcsin, C(math::arcsin_(x)), C(C(1) / math::grad_sqrt_(C(1) - x * x)))                   \
  X(arccos, C(math::arccos_(x)), C(C(-1) / math::grad_sqrt_(C(1) - x * x)))                  \
  X(arctan, C(math::arctan_(x)), C(C(1) / (C(1) + x * x)))                                   \
  X(sinh, C(math::sinh_(x)), C(math::cosh_(x)))                                              \
  X(cosh, C(math::cosh_(x)), C(math::sinh_(x)))                                              \
  X(tanh, C(math::tanh_(x)), C(C(1) - y * y))                                                  \
  X(arcsinh, C(math::arcsinh_(x)), C(C(1) / math::grad_sqrt_(x * x + C(1))))                 \
  X(arccosh, C(math::arccosh_(x)), C(C(1) / math::grad_sqrt_(x * x - C(1))))                 \
  X(arctanh, C(math::arctanh_(x)), C(C(1) / (C(1) - x * x)))                                 \
  X(degrees, C(x * C(180.0 / M_PI)), C(180.0 / M_PI))                                        \
  X(radians, C(x * C(M_PI / 180.0)), C(M_PI / 180.0))                                        \
  X(sigmoid, C(math::sigmoid_(x)), C(y * (C(1) - y)))                             \
  X(relu, C(x > C(0) || x != x ? x : C(0)), C(x > C(0) ? C(1) : C(0)))  /* NaN propagates */  \
  X(softsign, C(x / (C(1) + math::absval(x))),                                               \
    C(C(1) / ((C(1) + math::absval(x)) * (C(1) + math::absval(x)))))                         \
  X(erf, C(math::erf_(x)), C(C(M_2_SQRTPI) * math::exp_(C(-x * x))))                                \
  X(erfinv, C(math::erfinv(x)), C(C(1.0 / M_2_SQRTPI) * std::exp(y * y)))             \
  X(gamma, C(std::tgamma(x)), C(y * math::digamma(x)))                                       \
  X(gammaln, C(std::lgamma(x)), C(math::digamma(x)))                                         \
  X(floor, math::floor_(x), C(0))                                                            \
  X(ceil, math::ceil_(x), C(0))                                                              \
  X(round, math::round_(x), C(0))                                                            \
  X(rint, math::rint_(x), C(0))                                                              \
  X(trunc, math::trunc_(x), C(0))                                                            \
  X(fix, math::trunc_(x), C(0))                                                              \
  X(logical_not, C(x == C(0) ? 1 : 0), C(0))

namespace unary {
#define MXNET_DEFINE_UNARY_FUNCTOR(name, fwd, grad)         \
  struct name {                                             \
    template <typename C>                                   \
    static MXNET_XINLINE C Fwd(C x) {                              \
      return fwd;                                           \
    }                                                       \
    template <typename C>                                   \
    static MXNET_XINLINE C Grad(C x) {                             \
      const C y = Fwd(x);                                   \
      (void)y;                                              \
      return grad;                                          \
    }                                                       \
  };
MXNET_UNARY_MATH_OPS(MXNET_DEFINE_UNARY_FUNCTOR)
#undef MXNET_DEFINE_UNARY_FUNCTOR
}  // namespace unary

/*!
 * \brief Rows whose value on an integer is an integer: integer inputs are computed in their own
 *        type (exact for int64 beyond 2^53), the others through double.
 */
template <typename OP>
constexpr bool kIntegerClosed = false;
#define MXNET_INTEGER_CLOSED(name) \
  template <>                      \
  constexpr bool kIntegerClosed<unary::name> = true;
MXNET_INTEGER_CLOSED(abs)
MXNET_INTEGER_CLOSED(sign)
MXNET_INTEGER_CLOSED(negative)
MXNET_INTEGER_CLOSED(square)
MXNET_INTEGER_CLOSED(relu)
MXNET_INTEGER_CLOSED(floor)
MXNET_INTEGER_CLOSED(ceil)
MXNET_INTEGER_CLOSED(round)
MXNET_INTEGER_CLOSED(rint)
MXNET_INTEGER_CLOSED(trunc)
MXNET_INTEGER_CLOSED(fix)
MXNET_INTEGER_CLOSED(logical_not)
#undef MXNET_INTEGER_CLOSED

/*!
 * \brief Rows whose float vector form holds for |x| <= kLimit only. Fwd and Grad stay correct
 *        everywhere, through a branch to libm that keeps a loop scalar; the kernels run VecFwd
 *        and VecGrad, branch-free, over blocks with every |x| within kLimit (or inf, NaN) and
 *        Fwd and Grad over the rare others (MapUnaryLimited, MapBinaryLimited).
 */
template <typename OP>
struct TrigLimited {
  static constexpr bool kLimited = false;
};
template <>
struct TrigLimited<unary::sin> {
  static constexpr bool kLimited = true;
  static constexpr float kLimit = vmath::kTrigLimit;
  static float VecFwd(float x) { return vmath::Sin(x); }
  static float VecGrad(float x) { return vmath::Cos(x); }
};
template <>
struct TrigLimited<unary::cos> {
  static constexpr bool kLimited = true;
  static constexpr float kLimit = vmath::kTrigLimit;
  static float VecFwd(float x) { return vmath::Cos(x); }
  static float VecGrad(float x) { return -vmath::Sin(x); }
};
template <>
struct TrigLimited<unary::tan> {
  static constexpr bool kLimited = true;
  static constexpr float kLimit = vmath::kTrigLimit;
  static float VecFwd(float x) { return vmath::Tan(x); }
  static float VecGrad(float x) {
    const float y = vmath::Tan(x);
    return 1.f + y * y;
  }
};

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_COMMON_UNARY_FUNCTORS_H_
