/*!
 * \file samplers.h
 * \brief The distributions behind _random_*, _random_*_like and _sample_*: their parameter
 *        names as MXNet spells them, the validity rule, and a draw from one element's
 *        counter-based sub-stream (so a value depends only on seed, launch and index).
 *        Draw and Invalid are host+device (MXNET_XINLINE): the CUDA samplers call the same code,
 *        so a GPU draws the numbers the CPU draws from the same stream.
 */
#ifndef MXNET_OPERATOR_RANDOM_SAMPLERS_H_
#define MXNET_OPERATOR_RANDOM_SAMPLERS_H_

#include <cmath>
#include <string>

#include "mxnet/op.h"
#include "mxnet/xinline.h"

namespace mxnet {
namespace op {
namespace random {

using Draws = RandomStream::Element;

/*! \brief One distribution parameter: name as an op attribute, as a _sample_* input, default. */
struct DistArg {
  const char* name;
  const char* input_name;
  double default_value;
  bool required;
  const char* doc;
};

/*!
 * \brief log(Gamma(x)) without touching glibc's global signgam (lgamma is not thread-safe on
 *        the host; CUDA's device lgamma keeps no global state).
 */
MXNET_XINLINE double LogGamma(double x) {
#ifdef __CUDA_ARCH__
  return ::lgamma(x);
#else
  int sign;
  return lgamma_r(x, &sign);
#endif
}

/*! \brief Uniform in (0, 1): never 0, so logarithms of it are finite. */
MXNET_XINLINE double OpenUniform(Draws* e) {
  double u = e->UniformD();
  while (u <= 0.0) u = e->UniformD();
  return u;
}

/*! \brief Gamma(shape alpha, scale beta): Marsaglia & Tsang (2000), boosted for alpha < 1. */
MXNET_XINLINE double DrawGamma(Draws* e, double alpha, double beta) {
  double boost = 1.0;
  if (alpha < 1.0) {
    boost = std::pow(OpenUniform(e), 1.0 / alpha);
    alpha += 1.0;
  }
  const double d = alpha - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x, v;
    do {
      x = e->Normal();
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = OpenUniform(e);
    if (u < 1.0 - 0.0331 * x * x * x * x || std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v)))
      return d * v * boost * beta;
  }
}

/*! \brief Poisson(lam): multiplication of uniforms for small lam, Hoermann's PTRS (1993) above. */
MXNET_XINLINE double DrawPoisson(Draws* e, double lam) {
  if (lam <= 0.0) return 0.0;
  if (lam < 10.0) {
    const double limit = std::exp(-lam);
    double prod = e->UniformD();
    double k = 0.0;
    while (prod > limit) {
      prod *= e->UniformD();
      k += 1.0;
    }
    return k;
  }
  const double slam = std::sqrt(lam), loglam = std::log(lam);
  const double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
  const double inv_alpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2.0);
  for (;;) {
    const double u = e->UniformD() - 0.5, v = OpenUniform(e);
    const double us = 0.5 - std::fabs(u);
    const double k = std::floor((2.0 * a / us + b) * u + lam + 0.43);
    if (us >= 0.07 && v <= vr) return k;
    if (k < 0.0 || (us < 0.013 && v > us)) continue;
    if (std::log(v) + std::log(inv_alpha) - std::log(a / (us * us) + b) <= -lam + k * loglam - LogGamma(k + 1.0))
      return k;
  }
}

struct UniformDist {
  static constexpr const char* kName = "uniform";
  static constexpr int kNumArgs = 2;
  static constexpr bool kInteger = false;
  static constexpr DistArg kArgs[2] = {{"low", "low", 0.0, false, "Lower bound of the distribution."},
                                       {"high", "high", 1.0, false, "Upper bound of the distribution."}};
  static MXNET_XINLINE const char* Invalid(const double* p) { return p[0] <= p[1] ? nullptr : "low must be <= high"; }
  static MXNET_XINLINE double Draw(Draws* e, const double* p) { return p[0] + (p[1] - p[0]) * e->UniformD(); }
};

struct NormalDist {
  static constexpr const char* kName = "normal";
  static constexpr int kNumArgs = 2;
  static constexpr bool kInteger = false;
  static constexpr DistArg kArgs[2] = {{"loc", "mu", 0.0, false, "Mean of the distribution."},
                                       {"scale", "sigma", 1.0, false, "Standard deviation of the distribution."}};
  static MXNET_XINLINE const char* Invalid(const double* p) {
    return p[1] > 0.0 ? nullptr : "scale (sigma) must be > 0";
  }
  static MXNET_XINLINE double Draw(Draws* e, const double* p) { return p[0] + p[1] * e->Normal(); }
};

struct GammaDist {
  static constexpr const char* kName = "gamma";
  static constexpr int kNumArgs = 2;
  static constexpr bool kInteger = false;
  static constexpr DistArg kArgs[2] = {
      {"alpha", "alpha", 1.0, false, "Alpha parameter (shape) of the gamma distribution."},
      {"beta", "beta", 1.0, false, "Beta parameter (scale) of the gamma distribution."}};
  static MXNET_XINLINE const char* Invalid(const double* p) {
    return p[0] > 0.0 && p[1] > 0.0 ? nullptr : "alpha and beta must be > 0";
  }
  static MXNET_XINLINE double Draw(Draws* e, const double* p) { return DrawGamma(e, p[0], p[1]); }
};

struct ExponentialDist {
  static constexpr const char* kName = "exponential";
  static constexpr int kNumArgs = 1;
  static constexpr bool kInteger = false;
  static constexpr DistArg kArgs[1] = {
      {"lam", "lam", 1.0, false, "Lambda parameter (rate) of the exponential distribution."}};
  static MXNET_XINLINE const char* Invalid(const double* p) { return p[0] > 0.0 ? nullptr : "lam must be > 0"; }
  static MXNET_XINLINE double Draw(Draws* e, const double* p) { return -std::log(OpenUniform(e)) / p[0]; }
};

struct PoissonDist {
  static constexpr const char* kName = "poisson";
  static constexpr int kNumArgs = 1;
  static constexpr bool kInteger = false;
  static constexpr DistArg kArgs[1] = {
      {"lam", "lam", 1.0, false, "Lambda parameter (rate) of the Poisson distribution."}};
  static MXNET_XINLINE const char* Invalid(const double* p) {
    return p[0] >= 0.0 && std::isfinite(p[0]) ? nullptr : "lam must be >= 0 and finite";
  }
  static MXNET_XINLINE double Draw(Draws* e, const double* p) { return DrawPoisson(e, p[0]); }
};

/*! \brief Failures before the k-th success with success probability p: Poisson(Gamma(k, (1-p)/p)). */
struct NegBinomialDist {
  static constexpr const char* kName = "negative_binomial";
  static constexpr int kNumArgs = 2;
  static constexpr bool kInteger = false;
  static constexpr DistArg kArgs[2] = {{"k", "k", 1.0, false, "Limit of unsuccessful experiments."},
                                       {"p", "p", 1.0, false, "Failure probability in each experiment."}};
  static MXNET_XINLINE const char* Invalid(const double* p) {
    return p[0] > 0.0 && p[1] > 0.0 && p[1] <= 1.0 ? nullptr : "k must be > 0 and p in (0, 1]";
  }
  static MXNET_XINLINE double Draw(Draws* e, const double* p) {
    if (p[1] >= 1.0) return 0.0;
    return DrawPoisson(e, DrawGamma(e, p[0], (1.0 - p[1]) / p[1]));
  }
};

/*! \brief Mean mu, variance mu + alpha*mu^2: Poisson(Gamma(1/alpha, alpha*mu)); alpha = 0 is Poisson(mu). */
struct GenNegBinomialDist {
  static constexpr const char* kName = "generalized_negative_binomial";
  static constexpr int kNumArgs = 2;
  static constexpr bool kInteger = false;
  static constexpr DistArg kArgs[2] = {
      {"mu", "mu", 1.0, false, "Mean of the negative binomial distribution."},
      {"alpha", "alpha", 1.0, false, "Alpha (dispersion) parameter of the negative binomial distribution."}};
  static MXNET_XINLINE const char* Invalid(const double* p) {
    return p[0] >= 0.0 && p[1] >= 0.0 && std::isfinite(p[0]) ? nullptr : "mu and alpha must be >= 0";
  }
  static MXNET_XINLINE double Draw(Draws* e, const double* p) {
    if (p[1] == 0.0) return DrawPoisson(e, p[0]);
    return DrawPoisson(e, DrawGamma(e, 1.0 / p[1], p[1] * p[0]));
  }
};

/*! \brief Integers uniform in [low, high); exact while the range is below 2^53. */
struct RandintDist {
  static constexpr const char* kName = "randint";
  static constexpr int kNumArgs = 2;
  static constexpr bool kInteger = true;
  static constexpr DistArg kArgs[2] = {
      {"low", "low", 0.0, true, "Lower boundary of the output interval (inclusive)."},
      {"high", "high", 0.0, true, "Upper boundary of the output interval (exclusive)."}};
  static MXNET_XINLINE const char* Invalid(const double* p) { return p[0] < p[1] ? nullptr : "low must be < high"; }
  static MXNET_XINLINE double Draw(Draws* e, const double* p) {
    const double range = p[1] - p[0];
    const double k = std::floor(e->UniformD() * range);
    return p[0] + (k < range ? k : range - 1.0);
  }
};

/*! \brief Throws ValueError "<op>: <rule> (got name=value, ...)" when the values break the rule. */
template <typename Dist>
void CheckArgs(const std::string& op, const double* p, bool as_inputs) {
  const char* why = Dist::Invalid(p);
  if (why == nullptr) return;
  auto e = MX_THROW("ValueError");
  e << op << ": " << why << " (got ";
  for (int i = 0; i < Dist::kNumArgs; ++i)
    e << (i ? ", " : "") << (as_inputs ? Dist::kArgs[i].input_name : Dist::kArgs[i].name) << "=" << p[i];
  e << ")";
}

}  // namespace random
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_RANDOM_SAMPLERS_H_
