/*!
 * \file vector_math.h
 * \brief Float32 exp, log, expm1, log1p, tanh, sigmoid, erf, pow, sin, cos, tan, their inverses,
 *        sinh, cosh and the inverse hyperbolics written without branches or library calls, so a
 *        loop over them (under MXNET_SIMD) compiles to AVX-512/AVX2 code. libm's scalar calls
 *        kept those loops scalar: exp ran at 0.45x numpy on 16M floats, sin at 0.11x.
 *        Special values (inf, NaN, zeros, denormals) are handled by selects, not branches.
 *        Sin, Cos and Tan reduce their argument in float up to kTrigLimit; the kernels call
 *        libm beyond it (unary_functors.h's TrigLimited). Max ulp errors against a float64
 *        reference are asserted in tests/python/test_op_vector_math.py. Polynomials: Cephes'
 *        expf/logf/tanhf/sinf/cosf/tanf/asinf/atanf coefficients; erf's fitted to float64 erf
 *        on [0, 0.95] and [0.95, 4].
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

namespace detail {
constexpr float kLn2Hi = 0.693359375f;      // ln 2 = kLn2Hi + kLn2Lo; n * kLn2Hi is exact for |n| < 2^15
constexpr float kLn2Lo = -2.12194440e-4f;
constexpr float kLog2e = 1.44269504088896341f;
constexpr float kRound = 12582912.f;        // 1.5 * 2^23: adding and subtracting it rounds to an integer

/*! \brief (e^r - 1 - r) / r^2 for |r| <= ln2 / 2 (Cephes expf's polynomial). */
MXNET_VMATH_INLINE float ExpTail(float r) {
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  return p * r + 5.0000001201e-1f;
}

/*! \brief y 2^n for n in [-252, 254]: two normal factors, so a denormal result is rounded once. */
MXNET_VMATH_INLINE float Scale2(float y, int32_t n) {
  const int32_t h = n >> 1;
  return y * Pow2i(h) * Pow2i(n - h);
}

/*! \brief e^x 2^k for x in [-110, 90] (clamped, not NaN) and k in {0, -1}. */
MXNET_VMATH_INLINE float ExpScaled(float xc, int32_t k) {
  const float fn = (xc * kLog2e + kRound) - kRound;
  const float r = (xc - fn * kLn2Hi) - fn * kLn2Lo;  // ln2 split in two so the product is exact
  const float er = ExpTail(r) * r * r + r + 1.f;
  return Scale2(er, static_cast<int32_t>(fn) + k);
}

/*! \brief x reduced by the nearest multiple q of pi/2: x = q pi/2 + r, |r| <= pi/4 (a little
 *         more near the limit). Cody-Waite with pi/2 in three floats and FMAs (numpy's
 *         constants): exact enough for |x| <= kTrigLimit. */
struct Quadrant {
  float r;
  int32_t q;
};
MXNET_VMATH_INLINE Quadrant ReduceHalfPi(float x) {
  const float fq = (x * 0.636619772367581343f + kRound) - kRound;  // NaN for inf and NaN, so r is NaN
  float r = std::fma(fq, -1.57079601287841796875f, x);
  r = std::fma(fq, -3.13916473648180544376e-07f, r);
  r = std::fma(fq, -5.39030295347423836389e-15f, r);
  return {r, static_cast<int32_t>(std::fabs(fq) < 16777216.f ? fq : 0.f)};  // a defined conversion
}
/*! \brief sin r and cos r for |r| <= pi/4 (Cephes sinf/cosf polynomials). */
MXNET_VMATH_INLINE float SinPoly(float r, float z) {
  float p = -1.9515295891e-4f;
  p = p * z + 8.3321608736e-3f;
  p = p * z - 1.6666654611e-1f;
  return r + r * z * p;
}
MXNET_VMATH_INLINE float CosPoly(float z) {
  float p = 2.443315711809948e-5f;
  p = p * z - 1.388731625493765e-3f;
  p = p * z + 4.166664568298827e-2f;
  return p * z * z - 0.5f * z + 1.f;
}
/*!
 * \brief sqrt x for x >= 0 (NaN below). std::sqrt keeps a branch that sets errno for
 *        negative x unless the build has -fno-math-errno, and that branch stops vectorisation;
 *        without it, 1/sqrt by two Newton steps from the bit-level guess, then one Newton step
 *        on the root itself: within 1 ulp (nearly always correctly rounded).
 */
MXNET_VMATH_INLINE float Sqrt(float x) {
#if defined(__NO_MATH_ERRNO__)
  return std::sqrt(x);
#else
  const bool tiny = x < 1.17549435e-38f;  // denormals: scaled by 2^24, the root by 2^-12
  const float scaled = x * 16777216.f;
  const float xs = tiny ? scaled : x;
  // Unsigned: for negative x (its guess is discarded below) the signed difference overflows.
  float y = FromBits(static_cast<int32_t>(0x5f3759dfu - (static_cast<uint32_t>(Bits(xs)) >> 1)));
  y = y * (1.5f - 0.5f * xs * y * y);
  y = y * (1.5f - 0.5f * xs * y * y);
  const float s = xs * y;
  const float root = std::fma(0.5f * y, std::fma(-s, s, xs), s);
  const float inf = std::numeric_limits<float>::infinity();
  const float r = tiny ? root * 2.44140625e-4f : root;
  return x > 0.f ? (x == inf ? x : r) : (x == 0.f ? x : std::numeric_limits<float>::quiet_NaN());
#endif
}
/*! \brief y with its sign flipped where bit 1 of q is set. */
MXNET_VMATH_INLINE float FlipIfBit1(float y, int32_t q) {
  return FromBits(Bits(y) ^ static_cast<int32_t>(static_cast<uint32_t>(q & 2) << 30));
}
}  // namespace detail

/*! \brief e^x; at most 1 ulp from the true value (2 in the denormal range). */
MXNET_VMATH_INLINE float Exp(float x) {
  // Beyond these the result is 0 or inf; clamping keeps n in [-150, 128] for the scaling.
  const float xc = x < -104.f ? -104.f : (x > 89.f ? 89.f : (x == x ? x : 0.f));
  const float y = detail::ExpScaled(xc, 0);
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

/*!
 * \brief e^x - 1, accurate near 0: x = n ln2 + r, e^r - 1 = r + r^2 tail(r) and
 *        e^x - 1 = 2 (2^(n-1) (e^r - 1) + (2^(n-1) - 1/2)), exact but for the last two roundings.
 */
MXNET_VMATH_INLINE float Expm1(float x) {
  using namespace detail;  // NOLINT
  // Below -30 the result is -1; above 89 inf. n in [-44, 129].
  const float xc = x < -30.f ? -30.f : (x > 89.f ? 89.f : (x == x ? x : 0.f));
  const float fn = (xc * kLog2e + kRound) - kRound;
  const float r = (xc - fn * kLn2Hi) - fn * kLn2Lo;
  const float em = ExpTail(r) * (r * r) + r;
  const float u = Pow2i(static_cast<int32_t>(fn) - 1);
  const float y = 2.f * (u * em + (u - 0.5f));
  const float y0 = fn == 0.f ? em : y;  // n = 0: e^r - 1 itself
  return (x == 0.f) | (x != x) ? x : y0;  // -0 keeps its sign
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
  return ax < 0.625f ? (x == 0.f ? x : small) : large;  // tanh(-0) = -0: small rounds -0 + 0 to +0
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
 * \brief a^b with C99's special cases, which numpy's float32 power follows too (pow(x, 0) =
 *        pow(1, y) = 1, pow(-1, +-inf) = 1, signed zeros and infinities for zero and infinite
 *        bases, odd integer exponents keeping a negative base's sign, NaN for a negative
 *        base with a non-integer exponent). e^(b ln|a|) in float, with ln|a|, the product and
 *        the reduced exponent each carried as a pair hi + lo, so float's 16 lanes do what
 *        a double version did in 8: within 0.8 ulp (0.72 for normal results).
 */
MXNET_VMATH_INLINE float Pow(float a, float b) {
  using namespace detail;  // NOLINT
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const float aa = std::fabs(a);
  // |a| = m 2^e, m in [sqrt(1/2), sqrt(2)); denormals scaled into the normal range first.
  const bool tiny = aa < 1.17549435e-38f;
  const float scaled = aa * 8388608.f;
  const int32_t bits = Bits(tiny ? scaled : aa);
  const int32_t e0 = ((bits >> 23) & 0xff) - 127;
  const float m0 = FromBits((bits & 0x007fffff) | 0x3f800000);
  const bool big = m0 > 1.41421356f;
  const float mh = m0 * 0.5f;
  const float m = big ? mh : m0;
  float e = static_cast<float>((big ? e0 + 1 : e0) - (tiny ? 23 : 0));
  // Zero and infinite |a|: ln|a| = -inf, +inf, so b ln|a| is +-inf (NaN for b = 0, below) and
  // the clamp of the exponent gives the power 0 or inf.
  e = aa == 0.f ? -inf : e;
  e = aa == inf ? inf : e;
  // ln m = 2 atanh(x) = 2x + x^3 (2/3 + x^2 p(x^2)), x = (m - 1) / (m + 1), |x| < 0.172. x, x^2,
  // x^3 and the x^3 term are float pairs (hi + lo, products split by FMA): float alone loses
  // ~2^-29 of ln|a| there, which b up to ~250 turns into several ulps of the power.
  const float num = m - 1.f;             // exact
  const float den = m + 1.f;
  const float den_lo = (1.f - den) + m;  // m + 1 = den + den_lo exactly
  const float inv = 1.f / den;
  const float xh = num * inv;
  const float xl = std::fma(-xh, den_lo, std::fma(-xh, den, num)) * inv;
  const float zh = xh * xh;
  const float zl = std::fma(xh, xh, -zh) + 2.f * xh * xl;
  const float ch = zh * xh;
  const float cl = std::fma(zh, xh, -ch) + (zh * xl + zl * xh);
  const float z2 = zh * zh;
  const float u = zh * ((2.f / 5 + zh * (2.f / 7)) + z2 * (2.f / 9 + zh * (2.f / 11)));  // Estrin: a shorter chain
  const float kh = 0.666666627f + u;  // 2/3 = 0.666666627f + 3.97364e-8f
  const float kl = ((0.666666627f - kh) + u) + 3.97364143e-8f;
  const float th3 = ch * kh;
  const float tl3 = std::fma(ch, kh, -th3) + (ch * kl + cl * kh);
  // ln|a| = e ln2 + 2x + x^3 (...) = hi + lo: e kLn2Hi and 2xh are exact; the two sums of the
  // large terms are exact (Fast2Sum: |e kLn2Hi| >= |2xh| unless e = 0, and |2xh| >> |th3|).
  const float s1 = e * kLn2Hi, s2 = xh + xh;
  const float h0 = s1 + s2;
  const float hi = h0 + th3;
  const float lo = (((s1 - h0) + s2) + ((h0 - hi) + th3)) + (e * kLn2Lo + ((xl + xl) + tl3));
  // t = b ln|a| = th + tl; e^t = 2^n e^(rh + rl). lo is not renormalised into hi (that would
  // lengthen the dependency chain): |b lo| < 0.04 where the result is finite, so the reduced
  // exponent r below stays within +-0.39. Past [-110, 90] the result is 0 or inf.
  const float th = b * hi;
  const float t1 = th > -110.f ? th : -110.f;  // maxps, minps; NaN becomes -110
  const float tc = t1 < 90.f ? t1 : 90.f;
  const float tl = std::fma(b, hi, -th) + b * lo;
  const float fn = (tc * kLog2e + kRound) - kRound;
  const float r1 = tc - fn * kLn2Hi;                   // exact
  const float rs = (tc == th ? tl : 0.f) - fn * kLn2Lo;  // small: |rs| < 0.04
  const float rh = r1 + rs;
  const float rl = (r1 - rh) + rs;  // exact where |r1| >= |rs|; else rh is small and its error too
  // e^(rh + rl) = (1 + rh) + rh^2 tail(rh) + rl, with 1 + rh = s + se exactly: one rounding at the end.
  const float r2 = rh * rh;
  const float tail = (0.5f + rh * 1.6666665459e-1f) +
                     r2 * ((4.1665795894e-2f + rh * 8.3334519073e-3f) +
                           r2 * (1.3981999507e-3f + rh * 1.9875691500e-4f));  // ExpTail by Estrin
  const float s = 1.f + rh;
  const float se = (1.f - s) + rh;
  const float er = s + ((se + rl) + tail * r2);
  // A negative base with an odd integer exponent keeps its sign.
  const float tb = std::trunc(b), hb = b * 0.5f;
  const bool neg_odd = std::signbit(a) & (tb == b) & (std::trunc(hb) != hb);
  const int32_t sign = neg_odd ? std::numeric_limits<int32_t>::min() : 0;
  float y = FromBits(Bits(Scale2(er, static_cast<int32_t>(fn))) ^ sign);
  // What the main path leaves wrong, each one select after it:
  // - a finite non-zero negative base with a non-integer exponent, or a NaN: NaN;
  // - |a| = 1 with b = +-inf (0 * inf above), b = 0 and a = 1: 1, even for NaN.
  y = (a < 0.f) & (a > -inf) & (tb != b) ? nan : y;
  y = std::isunordered(a, b) ? nan : y;
  y = (aa == 1.f) & (std::fabs(b) == inf) ? 1.f : y;
  y = a == 1.f ? 1.f : y;
  return b == 0.f ? 1.f : y;
}

/*! \brief |x| up to which Sin, Cos and Tan reduce their argument in float (numpy's bound for
 *         the same reduction); beyond it the kernels call libm, whose reduction is exact. */
constexpr float kTrigLimit = 71476.0625f;

/*! \brief sin x for |x| <= kTrigLimit (and NaN, inf). */
MXNET_VMATH_INLINE float Sin(float x) {
  const detail::Quadrant d = detail::ReduceHalfPi(x);
  const float z = d.r * d.r;
  const float s = detail::SinPoly(d.r, z), c = detail::CosPoly(z);
  const float y = detail::FlipIfBit1(d.q & 1 ? c : s, d.q);
  return x == 0.f ? x : y;  // sin(-0) = -0: r + r z p(z) rounds -0 + 0 to +0
}

/*! \brief cos x for |x| <= kTrigLimit (and NaN, inf). */
MXNET_VMATH_INLINE float Cos(float x) {
  const detail::Quadrant d = detail::ReduceHalfPi(x);
  const float z = d.r * d.r;
  const float s = detail::SinPoly(d.r, z), c = detail::CosPoly(z);
  return detail::FlipIfBit1(d.q & 1 ? s : c, d.q + 1);
}

/*! \brief tan x for |x| <= kTrigLimit (and NaN, inf): tan r (Cephes tanf), -1 / tan r in odd quadrants. */
MXNET_VMATH_INLINE float Tan(float x) {
  const detail::Quadrant d = detail::ReduceHalfPi(x);
  const float r = d.r, z = r * r;
  float p = 9.38540185543e-3f;
  p = p * z + 3.11992232697e-3f;
  p = p * z + 2.44301354525e-2f;
  p = p * z + 5.34112807005e-2f;
  p = p * z + 1.33387994085e-1f;
  p = p * z + 3.33331568548e-1f;
  const float t = r + r * z * p;
  const float cot = -1.f / t;
  return d.q & 1 ? cot : t;
}

/*! \brief e^|x| / 2, finite up to |x| = 89.4 where e^|x| alone overflows. */
MXNET_VMATH_INLINE float HalfExpAbs(float x) {
  const float ax = std::fabs(x);
  return detail::ExpScaled(ax > 90.f ? 90.f : (ax == ax ? ax : 0.f), -1);
}

/*! \brief sinh x: an odd Taylor polynomial below |x| = 1 (no cancellation), e^|x|/2 - e^-|x|/2 above. */
MXNET_VMATH_INLINE float Sinh(float x) {
  const float z = x * x;
  float p = 1.f / 6227020800;
  p = p * z + 1.f / 39916800;
  p = p * z + 1.f / 362880;
  p = p * z + 1.f / 5040;
  p = p * z + 1.f / 120;
  p = p * z + 1.f / 6;
  const float small = x + x * z * p;
  const float h = HalfExpAbs(x);
  const float large = std::copysign(h - 0.25f / h, x);
  return std::fabs(x) < 1.f ? small : (x != x ? x : large);
}

/*! \brief cosh x = e^|x|/2 + e^-|x|/2. */
MXNET_VMATH_INLINE float Cosh(float x) {
  const float h = HalfExpAbs(x);
  return x != x ? x : h + 0.25f / h;
}

/*! \brief asin w for |w| <= 1/2, given z = w * w (Cephes asinf's polynomial); shared by Asin and Acos. */
MXNET_VMATH_INLINE float AsinKernel(float w, float z) {
  float p = 4.2163199048e-2f;
  p = p * z + 2.4181311049e-2f;
  p = p * z + 4.5470025998e-2f;
  p = p * z + 7.4953002686e-2f;
  p = p * z + 1.6666752422e-1f;
  return w + w * z * p;
}

/*! \brief asin x (Cephes asinf): a polynomial to |x| = 1/2, pi/2 - 2 asin(sqrt((1 - |x|) / 2)) above. */
MXNET_VMATH_INLINE float Asin(float x) {
  const float ax = std::fabs(x);
  const bool big = ax > 0.5f;
  const float zb = 0.5f * (1.f - ax);
  const float z = big ? zb : x * x;
  const float w = big ? detail::Sqrt(zb) : ax;  // NaN beyond 1
  const float y = AsinKernel(w, z);
  const float yb = 1.57079637f - (y + y - -4.37113883e-8f);  // pi/2 = 1.57079637 - 4.37e-8
  return std::copysign(big ? yb : y, x);
}

/*! \brief acos x: pi/2 - asin x to |x| = 1/2, 2 asin(sqrt((1 - |x|) / 2)) (or pi minus it) above. */
MXNET_VMATH_INLINE float Acos(float x) {
  const float ax = std::fabs(x);
  const bool big = ax > 0.5f;
  const float zb = 0.5f * (1.f - ax);
  const float z = big ? zb : x * x;
  const float w = big ? detail::Sqrt(zb) : x;  // NaN beyond 1
  const float y = AsinKernel(w, z);
  // pi/2 and pi as float + float: 1.57079637f - 4.37113900e-8f, 3.14159274f - 8.74227800e-8f
  const float small = 1.57079637f - (y + 4.37113900e-8f);
  const float neg = 3.14159274f - ((y + y) + 8.74227800e-8f);
  return big ? (x > 0.f ? y + y : neg) : small;
}

/*! \brief atan x (Cephes atanf): |x| reduced to [0, tan(pi/8)] by pi/4 + atan((|x| - 1)/(|x| + 1))
 *         or pi/2 - atan(1/|x|). */
MXNET_VMATH_INLINE float Atan(float x) {
  const float ax = std::fabs(x);
  const bool big = ax > 2.414213562373095f, mid = ax > 0.4142135623730950f;
  const float num = big ? -1.f : (mid ? ax - 1.f : ax);
  const float den = big ? ax : (mid ? ax + 1.f : 1.f);
  const float w = num / den;
  const float z = w * w;
  float p = 8.05374449538e-2f;
  p = p * z - 1.38776856032e-1f;
  p = p * z + 1.99777106478e-1f;
  p = p * z - 3.33329491539e-1f;
  const float y = w + w * z * p;
  // pi/2 and pi/4 as float + float
  const float base_hi = big ? 1.57079637f : (mid ? 0.785398185f : 0.f);
  const float base_lo = big ? -4.37113900e-8f : (mid ? -2.18556950e-8f : 0.f);
  return std::copysign(base_hi + (y + base_lo), x);
}

/*! \brief asinh x = log1p(|x| + x^2 / (1 + sqrt(1 + x^2))) (fdlibm's form near 0, one log1p
 *         throughout); log|x| + ln2 from 2^24, where x^2 + 1 is x^2. */
MXNET_VMATH_INLINE float Asinh(float x) {
  const float ax = std::fabs(x);
  const bool large = ax >= 16777216.f;
  const float z = large ? 0.f : ax * ax;
  const float w = large ? ax : ax + z / (1.f + detail::Sqrt(1.f + z));
  return std::copysign(Log1p(w) + (large ? 0.693147181f : 0.f), x);
}

/*! \brief acosh x = log1p(t + sqrt(2t + t^2)), t = x - 1 (exact); log x + ln2 from 2^24; NaN below 1. */
MXNET_VMATH_INLINE float Acosh(float x) {
  const bool large = x >= 16777216.f;
  const float t = large ? 0.f : x - 1.f;
  const float w = large ? x : t + detail::Sqrt(t * (t + 2.f));
  const float y = Log1p(w) + (large ? 0.693147181f : 0.f);
  return x >= 1.f ? y : std::numeric_limits<float>::quiet_NaN();  // NaN too
}

/*! \brief atanh x (fdlibm's split): log1p(2|x| + 2x^2 / (1 - |x|)) / 2 below 1/2,
 *         log1p(2|x| / (1 - |x|)) / 2 above; +-inf at +-1, NaN beyond. */
MXNET_VMATH_INLINE float Atanh(float x) {
  const float ax = std::fabs(x);
  const float t = ax + ax;
  const float d = 1.f - ax;
  const float u = ax < 0.5f ? t + t * ax / d : t / d;
  return std::copysign(0.5f * Log1p(u), x);
}
}  // namespace vmath
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_COMMON_VECTOR_MATH_H_
