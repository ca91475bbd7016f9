/*!
 * \file vector_math.h
 * \brief Float32 exp, log, tanh, sigmoid, erf and pow written without branches or library
 *        calls, so a loop over them (under MXNET_SIMD) compiles to AVX-512/AVX2 code. libm's
 *        scalar calls kept those loops scalar: exp ran at 0.45x numpy on 16M floats.
 *        Special values (inf, NaN, zeros, denormals) are handled by selects, not branches.
 *        Max ulp errors against a float64 reference are asserted in
 *        tests/python/test_op_vector_math.py. Polynomials: Cephes' expf/logf/tanhf
 *        coefficients; erf's fitted to float64 erf on [0, 0.95] and [0.95, 4].
 */
#ifndef MXNET_OPERATOR_COMMON_VECTOR_MATH_H_
#define MXNET_OPERATOR_COMMON_VECTOR_MATH_H_

#include <cmath>
#include <cstdint>
#include <limits>

// Always inlined: a call left in a loop (Pow is past -O2's inlining limit) keeps it scalar.
#define MXNET_VMATH_INLINE inline __attribute__((always_inline))

namespace mxnet {
namespace op {
namespace vmath {

MXNET_VMATH_INLINE int32_t Bits(float x) { return __builtin_bit_cast(int32_t, x); }
MXNET_VMATH_INLINE float FromBits(int32_t b) { return __builtin_bit_cast(float, b); }
/*! \brief 2^n for n in [-126, 127], built in the exponent field. */
MXNET_VMATH_INLINE float Pow2i(int32_t n) { return FromBits((n + 127) << 23); }

/*! \brief e^x; at most 1 ulp from the true value (2 in the denormal range). */
MXNET_VMATH_INLINE float Exp(float x) {
  // Beyond these the result is 0 or inf; clamping keeps n in [-150, 128] for the scaling.
  const float xc = x < -104.f ? -104.f : (x > 89.f ? 89.f : (x == x ? x : 0.f));
  const float kRound = 12582912.f;  // 1.5 * 2^23: adding and subtracting it rounds to an integer
  const float fn = (xc * 1.44269504088896341f + kRound) - kRound;
  // r = x - n ln2 with ln2 split in two so the product is exact.
  const float r = (xc - fn * 0.693359375f) - fn * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float er = p * r * r + r + 1.f;
  const int32_t n = static_cast<int32_t>(fn);
  const int32_t h = n >> 1;  // two normal factors cover 2^-150 (denormal results) to 2^128
  const float y = er * Pow2i(h) * Pow2i(n - h);
  return x != x ? x : y;
}

/*! \brief Natural log; NaN below 0, -inf at 0. */
MXNET_VMATH_INLINE float Log(float x) {
  const bool tiny = x < 1.17549435e-38f;  // denormal: scale into the normal range first
  // Both arms computed first: a conditional FP op may trap, so it would stay a branch.
  const float scaled = x * 8388608.f;
  const float xs = tiny ? scaled : x;
  const int32_t bits = Bits(xs);
  int32_t e = ((bits >> 23) & 0xff) - 126;            // xs = m 2^e, m in [0.5, 1)
  const float m = FromBits((bits & 0x007fffff) | 0x3f000000);
  const bool low = m < 0.707106781f;                   // keep f = m - 1 within +-0.29
  const float f2 = m + m - 1.f, f1 = m - 1.f;
  const float f = low ? f2 : f1;
  const float fe = static_cast<float>(low ? e - 1 : e) - (tiny ? 23.f : 0.f);
  const float z = f * f;
  float p = 7.0376836292e-2f;
  p = p * f - 1.1514610310e-1f;
  p = p * f + 1.1676998740e-1f;
  p = p * f - 1.2420140846e-1f;
  p = p * f + 1.4249322787e-1f;
  p = p * f - 1.6668057665e-1f;
  p = p * f + 2.0000714765e-1f;
  p = p * f - 2.4999993993e-1f;
  p = p * f + 3.3333331174e-1f;
  float y = p * f * z + fe * -2.12194440e-4f - 0.5f * z;
  y = (f + y) + fe * 0.693359375f;
  const float inf = std::numeric_limits<float>::infinity();
  // Bitwise & and |, not && and ||: short-circuits are branches, which stop vectorisation.
  const float special = x == 0.f ? -inf : (x == inf ? inf : std::numeric_limits<float>::quiet_NaN());
  return (x > 0.f) & (x < inf) ? y : special;
}

/*! \brief log(1 + x), accurate near 0: log(u) * x / (u - 1) cancels u's rounding. */
MXNET_VMATH_INLINE float Log1p(float x) {
  const float u = 1.f + x;
  const float d = u - 1.f;
  const float y = Log(u) * (x / (d == 0.f ? 1.f : d));
  return d == 0.f ? x : (x == std::numeric_limits<float>::infinity() ? x : y);
}

/*! \brief e^x - 1, accurate near 0 (Kahan: (u - 1) x / log(u) cancels u's rounding). */
MXNET_VMATH_INLINE float Expm1(float x) {
  const float u = Exp(x);
  const float d = u - 1.f;
  const float l = Log(u);
  const float y = d * (x / (l == 0.f ? 1.f : l));
  const bool plain = (u == 0.f) | (d == -1.f) | (u == std::numeric_limits<float>::infinity()) | (x > 20.f);
  return u == 1.f ? x : (plain ? d : y);
}

MXNET_VMATH_INLINE float Tanh(float x) {
  const float ax = std::fabs(x);
  const float z = x * x;
  float p = -5.70498872745e-3f;
  p = p * z + 2.06390887954e-2f;
  p = p * z - 5.37397155531e-2f;
  p = p * z + 1.33314422036e-1f;
  p = p * z - 3.33332819422e-1f;
  const float small = x + x * z * p;
  const float large = std::copysign(1.f - 2.f / (Exp(ax + ax) + 1.f), x);
  return ax < 0.625f ? small : large;
}

/*! \brief 1 / (1 + e^-x), as e^x / (1 + e^x) below 0 so tiny results keep their precision. */
MXNET_VMATH_INLINE float Sigmoid(float x) {
  const float e = Exp(-std::fabs(x));
  const float s = 1.f / (1.f + e);
  return x >= 0.f ? s : e * s;
}

MXNET_VMATH_INLINE float Erf(float x) {
  const float ax = std::fabs(x);
  const float t = x * x;
  float p = 8.18509143e-05f;  // erf(x) / x as a polynomial in x^2, |x| < 0.95
  p = p * t - 8.0977031e-04f;
  p = p * t + 5.19695226e-03f;
  p = p * t - 2.68577058e-02f;
  p = p * t + 1.12836637e-01f;
  p = p * t - 3.76126319e-01f;
  p = p * t + 1.12837923f;
  const float small = x * p;
  // 0.95 <= |x| < 4: erf = 1 - e^-x^2 q(x), q = erfc(x) e^x^2 in s = (x - 2.475) / 1.525;
  // x^2 = hi + lo exactly, so its rounding does not reach the exponential. At 4, erf is 1.
  const float a4 = ax < 4.f ? ax : (ax == ax ? 4.f : ax);
  const float hi = a4 * a4;
  const float lo = std::fma(a4, a4, -hi);
  const float s = (a4 - 2.475f) * (1.f / 1.525f);
  float q = 1.7251823e-05f;
  q = q * s - 4.84146767e-05f;
  q = q * s + 7.247147e-05f;
  q = q * s - 1.7645146e-04f;
  q = q * s + 4.98702284e-04f;
  q = q * s - 1.20714959e-03f;
  q = q * s + 2.78697349e-03f;
  q = q * s - 6.3138702e-03f;
  q = q * s + 1.38498163e-02f;
  q = q * s - 2.92701833e-02f;
  q = q * s + 5.94138764e-02f;
  q = q * s - 1.15304321e-01f;
  q = q * s + 2.12680757e-01f;
  const float large = std::copysign(1.f - Exp(-hi) * (1.f - lo) * q, x);
  return ax < 0.95f ? small : large;
}

/*!
 * \brief a^b with C99's special cases (pow(x, 0) = pow(1, y) = 1, negative bases with
 *        integer exponents, zeros and infinities), through log2 and exp2 in double so the
 *        float result is correctly rounded but for ties.
 */
MXNET_VMATH_INLINE float Pow(float a, float b) {
  const float aa = std::fabs(a);
  const bool tiny = aa < 1.17549435e-38f;
  const float scaled = aa * 8388608.f;
  const int32_t bits = Bits(tiny ? scaled : aa);
  int32_t e = ((bits >> 23) & 0xff) - 127;  // |a| = m 2^e, m in [1, 2)
  float m = FromBits((bits & 0x007fffff) | 0x3f800000);
  const bool big = m > 1.41421356f;
  const float half = m * 0.5f;
  m = big ? half : m;
  e = (big ? e + 1 : e) - (tiny ? 23 : 0);
  // ln m = 2 atanh(s) = 2 s (1 + s^2/3 + s^4/5 + ...), |s| < 0.172.
  const double md = m, s = (md - 1.0) / (md + 1.0), s2 = s * s;
  double q = 1.0 / 19;
  q = q * s2 + 1.0 / 17;
  q = q * s2 + 1.0 / 15;
  q = q * s2 + 1.0 / 13;
  q = q * s2 + 1.0 / 11;
  q = q * s2 + 1.0 / 9;
  q = q * s2 + 1.0 / 7;
  q = q * s2 + 1.0 / 5;
  q = q * s2 + 1.0 / 3;
  q = q * s2 + 1.0;
  const double inf = std::numeric_limits<double>::infinity();
  double log2a = static_cast<double>(e) + 2.0 * s * q * 1.4426950408889634;
  // Compared as double: a float mask selecting doubles stops GCC 12 vectorising the loop.
  const double ad = aa;
  log2a = ad == 0.0 ? -inf : (ad == inf ? inf : log2a);
  double t = static_cast<double>(b) * log2a;  // |a|^b = 2^t; past +-200 the float is inf or 0
  t = t > 200.0 ? 200.0 : (t < -200.0 ? -200.0 : (t == t ? t : 0.0));  // NaN: fixed below
  const double kRound = 6755399441055744.0;  // 1.5 * 2^52
  const double fn = (t + kRound) - kRound;
  const double g = (t - fn) * 0.6931471805599453;  // 2^(t - n) = e^g, |g| < 0.347
  double p = 1.0 / 479001600;
  p = p * g + 1.0 / 39916800;
  p = p * g + 1.0 / 3628800;
  p = p * g + 1.0 / 362880;
  p = p * g + 1.0 / 40320;
  p = p * g + 1.0 / 5040;
  p = p * g + 1.0 / 720;
  p = p * g + 1.0 / 120;
  p = p * g + 1.0 / 24;
  p = p * g + 1.0 / 6;
  p = p * g + 0.5;
  p = p * g + 1.0;
  p = p * g + 1.0;
  const int64_t n = static_cast<int64_t>(fn);
  float y = static_cast<float>(p * __builtin_bit_cast(double, (n + 1023) << 52));
  // Negative bases: odd integer exponents keep the sign, non-integers have no real power.
  // Single-condition selects only: GCC 12 does not vectorise masks combined with & here.
  const float finf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const float tb = std::trunc(b), hb = b * 0.5f;
  const float odd_signed = std::trunc(hb) != hb ? -y : y;  // only read for integer b
  const float y_int = std::signbit(a) ? odd_signed : y;
  const float y_frac = std::fabs(b) == finf ? y : (aa == finf ? y : (aa == 0.f ? y : nan));
  const float y_neg = tb == b ? y_int : y_frac;
  y = std::signbit(a) ? y_neg : y;
  y = a != a ? nan : y;
  y = b != b ? nan : y;
  // 0 * inf exponents (|a| = 1 with b = inf) and the two exact cases.
  const float y_unit = std::fabs(b) == finf ? 1.f : y;
  y = aa == 1.f ? y_unit : y;
  y = a == 1.f ? 1.f : y;
  return b == 0.f ? 1.f : y;
}

}  // namespace vmath
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_COMMON_VECTOR_MATH_H_
