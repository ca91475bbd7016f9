/*!
 * \file special_functions.h
 * \brief Special functions the C++ library lacks: erfinv and digamma (needed by the
 *        erfinv op and the gradients of gamma/gammaln).
 */
#ifndef MXNET_OPERATOR_COMMON_SPECIAL_FUNCTIONS_H_
#define MXNET_OPERATOR_COMMON_SPECIAL_FUNCTIONS_H_

#include <cmath>
#include <limits>

namespace mxnet {
namespace op {
namespace math {

/*!
 * \brief Inverse error function. Giles' single-precision approximation ("Approximating
 *        the erfinv function", GPU Gems 4) refined by two Newton steps on erf, which
 *        brings it to full double precision.
 */
template <typename C>
MXNET_XINLINE C erfinv(C y) {
  if (std::isnan(y) || y < C(-1) || y > C(1)) return std::numeric_limits<C>::quiet_NaN();
  if (y == C(1)) return std::numeric_limits<C>::infinity();
  if (y == C(-1)) return -std::numeric_limits<C>::infinity();
  const double x = static_cast<double>(y);
  double w = -std::log((1.0 - x) * (1.0 + x));
  double p;
  if (w < 5.0) {
    w -= 2.5;
    p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w;
    p = -3.5233877e-06 + p * w;
    p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w;
    p = -0.00125372503 + p * w;
    p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w;
    p = 1.50140941 + p * w;
  } else {
    w = std::sqrt(w) - 3.0;
    p = -0.000200214257;
    p = 0.000100950558 + p * w;
    p = 0.00134934322 + p * w;
    p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w;
    p = -0.0076224613 + p * w;
    p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w;
    p = 2.83297682 + p * w;
  }
  double r = p * x;
  const double k = 2.0 / std::sqrt(M_PI);
  for (int i = 0; i < 2; ++i) {
    const double err = std::erf(r) - x;
    r -= err / (k * std::exp(-r * r));
  }
  return static_cast<C>(r);
}

/*! \brief Digamma psi(x) = d/dx ln Gamma(x): reflection below 0, recurrence up to 6,
 *         then the asymptotic series. */
template <typename C>
MXNET_XINLINE C digamma(C xin) {
  double x = static_cast<double>(xin);
  double result = 0;
  if (x <= 0) {
    if (x == std::floor(x)) return std::numeric_limits<C>::quiet_NaN();
    // psi(1 - x) - psi(x) = pi / tan(pi x)
    result = -M_PI / std::tan(M_PI * x);
    x = 1 - x;
  }
  while (x < 6) {
    result -= 1 / x;
    x += 1;
  }
  const double f = 1 / (x * x);
  const double series =
      f * (-1.0 / 12 + f * (1.0 / 120 + f * (-1.0 / 252 + f * (1.0 / 240 + f * (-1.0 / 132)))));
  result += std::log(x) - 0.5 / x + series;
  return static_cast<C>(result);
}

}  // namespace math
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_COMMON_SPECIAL_FUNCTIONS_H_#include "mxnet/xinline.h"

