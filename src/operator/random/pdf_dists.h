/*!
 * \file pdf_dists.h
 * \brief Log-densities (log-probabilities for the discrete distributions) behind
 *        _random_pdf_<dist>, with their derivatives with respect to the sample and to each
 *        parameter. Parameterisations follow MXNet 1.x's pdf ops: gamma and exponential take
 *        rates; negative_binomial(k, p) counts failures before the k-th success with success
 *        probability p; generalized_negative_binomial(mu, alpha) has mean mu and variance
 *        mu + alpha*mu^2. As in 1.x no support or parameter check is made: a value outside
 *        the support gets whatever the formula gives, and discrete samples get a zero gradient.
 *        LogPdf and Grad are host+device: the CPU and CUDA kernels share them.
 */
#ifndef MXNET_OPERATOR_RANDOM_PDF_DISTS_H_
#define MXNET_OPERATOR_RANDOM_PDF_DISTS_H_

#include <cmath>

#include "mxnet/xinline.h"
#include "operator/common/special_functions.h"
#include "operator/random/samplers.h"

namespace mxnet {
namespace op {
namespace random {

/*! \brief The attribute of every _random_pdf_* op and its _backward_pdf_* op. */
struct PdfParam : public dmlc::Parameter<PdfParam> {
  bool is_log;
  DMLC_DECLARE_PARAMETER(PdfParam) {
    DMLC_DECLARE_FIELD(is_log).set_default(false).describe(
        "If true, the logarithm of the density (probability mass for discrete distributions) is "
        "computed instead.");
  }
};

/*! \brief Samples per distribution: the sample size over the number of distributions. */
inline int64_t PerDistribution(int64_t total, int64_t n) { return n > 0 ? total / n : 0; }

/*! \brief One parameter input of a pdf op: its name and its doc. */
struct PdfArg {
  const char* name;
  const char* doc;
};

struct PdfUniform {
  static constexpr const char* kName = "uniform";
  static constexpr int kNumParams = 2;
  static constexpr PdfArg kParams[2] = {{"low", "Lower bounds of the distributions."},
                                        {"high", "Upper bounds of the distributions."}};
  static MXNET_XINLINE double LogPdf(double, const double* p) { return -std::log(p[1] - p[0]); }
  static MXNET_XINLINE void Grad(double, const double* p, double* dx, double* dp) {
    const double inv = 1.0 / (p[1] - p[0]);
    *dx = 0.0;
    dp[0] = inv;
    dp[1] = -inv;
  }
};

struct PdfNormal {
  static constexpr const char* kName = "normal";
  static constexpr int kNumParams = 2;
  static constexpr PdfArg kParams[2] = {{"mu", "Means of the distributions."},
                                        {"sigma", "Standard deviations of the distributions."}};
  static MXNET_XINLINE double LogPdf(double x, const double* p) {
    const double z = (x - p[0]) / p[1];
    return -0.5 * z * z - std::log(p[1]) - 0.9189385332046728;  // 0.5 * log(2 pi)
  }
  static MXNET_XINLINE void Grad(double x, const double* p, double* dx, double* dp) {
    const double d = x - p[0], s2 = p[1] * p[1];
    *dx = -d / s2;
    dp[0] = d / s2;
    dp[1] = d * d / (s2 * p[1]) - 1.0 / p[1];
  }
};

/*! \brief Gamma with shape alpha and rate beta. */
struct PdfGamma {
  static constexpr const char* kName = "gamma";
  static constexpr int kNumParams = 2;
  static constexpr PdfArg kParams[2] = {{"alpha", "Alpha (shape) parameters of the distributions."},
                                        {"beta", "Beta (rate) parameters of the distributions."}};
  static MXNET_XINLINE double LogPdf(double x, const double* p) {
    return p[0] * std::log(p[1]) + (p[0] - 1.0) * std::log(x) - p[1] * x - LogGamma(p[0]);
  }
  static MXNET_XINLINE void Grad(double x, const double* p, double* dx, double* dp) {
    *dx = (p[0] - 1.0) / x - p[1];
    dp[0] = std::log(p[1]) + std::log(x) - math::digamma(p[0]);
    dp[1] = p[0] / p[1] - x;
  }
};

/*! \brief Exponential with rate lam. */
struct PdfExponential {
  static constexpr const char* kName = "exponential";
  static constexpr int kNumParams = 1;
  static constexpr PdfArg kParams[1] = {{"lam", "Lambda (rate) parameters of the distributions."}};
  static MXNET_XINLINE double LogPdf(double x, const double* p) { return std::log(p[0]) - p[0] * x; }
  static MXNET_XINLINE void Grad(double x, const double* p, double* dx, double* dp) {
    *dx = -p[0];
    dp[0] = 1.0 / p[0] - x;
  }
};

struct PdfPoisson {
  static constexpr const char* kName = "poisson";
  static constexpr int kNumParams = 1;
  static constexpr PdfArg kParams[1] = {{"lam", "Lambda (rate) parameters of the distributions."}};
  static MXNET_XINLINE double LogPdf(double x, const double* p) {
    return x * std::log(p[0]) - p[0] - LogGamma(x + 1.0);
  }
  static MXNET_XINLINE void Grad(double x, const double* p, double* dx, double* dp) {
    *dx = 0.0;
    dp[0] = x / p[0] - 1.0;
  }
};

/*! \brief log C(x+k-1, x) + k log p + x log(1-p), with the binomial coefficient through lgamma. */
MXNET_XINLINE double NegBinomialLogPmf(double x, double k, double p) {
  return LogGamma(x + k) - LogGamma(x + 1.0) - LogGamma(k) + k * std::log(p) + x * std::log1p(-p);
}

struct PdfNegBinomial {
  static constexpr const char* kName = "negative_binomial";
  static constexpr int kNumParams = 2;
  static constexpr PdfArg kParams[2] = {{"k", "Limits of unsuccessful experiments."},
                                        {"p", "Failure probabilities in each experiment."}};
  static MXNET_XINLINE double LogPdf(double x, const double* p) { return NegBinomialLogPmf(x, p[0], p[1]); }
  static MXNET_XINLINE void Grad(double x, const double* p, double* dx, double* dp) {
    *dx = 0.0;
    dp[0] = math::digamma(x + p[0]) - math::digamma(p[0]) + std::log(p[1]);
    dp[1] = p[0] / p[1] - x / (1.0 - p[1]);
  }
};

/*!
 * \brief A negative binomial with k = 1/alpha, p = 1/(1 + alpha*mu). alpha = 0 is its limit,
 *        Poisson(mu) (1.x gives NaN there), with the limit of the alpha-derivative.
 */
struct PdfGenNegBinomial {
  static constexpr const char* kName = "generalized_negative_binomial";
  static constexpr int kNumParams = 2;
  static constexpr PdfArg kParams[2] = {{"mu", "Means of the distributions."},
                                        {"alpha", "Alpha (dispersion) parameters of the distributions."}};
  static MXNET_XINLINE double LogPdf(double x, const double* p) {
    const double mu = p[0], alpha = p[1];
    if (alpha == 0.0) return PdfPoisson::LogPdf(x, p);
    return NegBinomialLogPmf(x, 1.0 / alpha, 1.0 / (1.0 + alpha * mu));
  }
  static MXNET_XINLINE void Grad(double x, const double* p, double* dx, double* dp) {
    const double mu = p[0], alpha = p[1];
    *dx = 0.0;
    if (alpha == 0.0) {
      dp[0] = x / mu - 1.0;
      dp[1] = 0.5 * ((x - mu) * (x - mu) - x);
      return;
    }
    const double k = 1.0 / alpha, q = 1.0 + alpha * mu;
    dp[0] = x / mu - (1.0 + x * alpha) / q;
    dp[1] = k * k * (std::log(q) - math::digamma(x + k) + math::digamma(k)) - (k + x) * mu / q + x * k;
  }
};

/*!
 * \brief Dirichlet over the last axis (K categories): log Gamma(sum a) - sum log Gamma(a_i)
 *        + sum (a_i - 1) log x_i. Works on one K-vector of samples and of alphas.
 */
struct PdfDirichlet {
  static constexpr const char* kName = "dirichlet";
  template <typename X, typename A>
  static MXNET_XINLINE double LogPdf(const X* x, const A* a, int64_t k) {
    double sum_a = 0.0, lp = 0.0;
    for (int64_t i = 0; i < k; ++i) {
      const double ai = static_cast<double>(a[i]);
      sum_a += ai;
      lp += (ai - 1.0) * std::log(static_cast<double>(x[i])) - LogGamma(ai);
    }
    return lp + LogGamma(sum_a);
  }
  /*! \brief digamma(sum of the k alphas), the term every d/d a_i shares. */
  template <typename A>
  static MXNET_XINLINE double PsiSum(const A* a, int64_t k) {
    double sum_a = 0.0;
    for (int64_t i = 0; i < k; ++i) sum_a += static_cast<double>(a[i]);
    return math::digamma(sum_a);
  }
  /*! \brief One category's terms: dx = d log pdf / d x_i, da = d log pdf / d a_i. */
  static MXNET_XINLINE void GradAt(double x, double a, double psi_sum, double* dx, double* da) {
    *dx = (a - 1.0) / x;
    *da = psi_sum - math::digamma(a) + std::log(x);
  }
  /*! \brief dx[i] = d log pdf / d x_i, da[i] = d log pdf / d a_i. */
  static void Grad(const double* x, const double* a, int64_t k, double* dx, double* da) {
    const double psi_sum = PsiSum(a, k);
    for (int64_t i = 0; i < k; ++i) GradAt(x[i], a[i], psi_sum, &dx[i], &da[i]);
  }
};

}  // namespace random
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_RANDOM_PDF_DISTS_H_
