/*!
 * \file random_pdf.cu
 * \brief CUDA kernels of _random_pdf_<dist> and _backward_pdf_<dist> (pdf.cc), with the
 *        log-densities and derivatives of pdf_dists.h that the CPU kernels use. A parameter's
 *        gradient sums its distribution's samples: one thread per distribution when it has few
 *        samples, a block (tree reduction) when it has many.
 */
#include <vector>

#include "mxnet/op.h"
#include "operator/cuda/cuda_kernel.cuh"
#include "operator/cuda/device_values.cuh"
#include "operator/cuda/segment_reduce.cuh"
#include "operator/random/pdf_dists.h"

namespace mxnet {
namespace op {
namespace cuda {

using random::PdfDirichlet;
using random::PdfParam;

/*! \brief The parameter arrays of a pdf op, one pointer per parameter, passed by value to kernels. */
template <typename DType, int kN>
struct ParamPtrs {
  DType* p[kN];
};

/*! \brief The write requests of the parameter gradients. */
template <int kN>
struct ParamReqs {
  OpReqType r[kN];
};

template <typename D>
void PdfForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  constexpr int kN = D::kNumParams;
  const OpReqType r = req[0];
  const int64_t total = in[0].Size(), per = random::PerDistribution(total, in[1].Size());
  if (r == kNullOp || total == 0) return;
  const bool is_log = attrs.get<PdfParam>().is_log;
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, {
    const DType* x = in[0].dptr<DType>();
    ParamPtrs<const DType, kN> params;
    for (int k = 0; k < kN; ++k) params.p[k] = in[k + 1].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    ForEach(Stream(ctx), total, [=] __device__(int64_t i) {
      double args[kN];
      for (int k = 0; k < kN; ++k) args[k] = static_cast<double>(params.p[k][i / per]);
      const double lp = D::LogPdf(static_cast<double>(x[i]), args);
      AssignReqDevice(y + i, r, is_log ? lp : exp(lp));
    });
  });
}

/*!
 * \brief in: ograd, sample, params...; out: d/d sample, d/d params. The gradient of the density
 *        is density * d log-density; a zero density gives zero (not 0 * inf).
 */
template <typename D>
void PdfBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  constexpr int kN = D::kNumParams;
  const bool is_log = attrs.get<PdfParam>().is_log;
  const int64_t n = in[2].Size(), per = random::PerDistribution(in[1].Size(), n);
  const OpReqType rx = req[0];
  ParamReqs<kN> rp;
  for (int k = 0; k < kN; ++k) rp.r[k] = req[k + 1];
  MXNET_REAL_TYPE_SWITCH(in[1].type_flag_, DType, {
    const DType* og = in[0].dptr<DType>();
    const DType* x = in[1].dptr<DType>();
    ParamPtrs<const DType, kN> params;
    ParamPtrs<DType, kN> gparams;
    for (int k = 0; k < kN; ++k) {
      params.p[k] = in[k + 2].dptr<DType>();
      gparams.p[k] = out[k + 1].dptr<DType>();
    }
    DType* gx = out[0].dptr<DType>();
    SegmentSum<kN>(
        Stream(ctx), n, per,
        [=] __device__(int64_t j, int64_t t, double* acc) {
          double args[kN];
          for (int k = 0; k < kN; ++k) args[k] = static_cast<double>(params.p[k][j]);
          const int64_t i = j * per + t;
          const double xi = static_cast<double>(x[i]);
          double head = static_cast<double>(og[i]);
          if (!is_log) head *= exp(D::LogPdf(xi, args));
          double dx = 0.0, dp[kN] = {};
          if (head != 0.0) D::Grad(xi, args, &dx, dp);
          AssignReqDevice(gx + i, rx, head * dx);
          for (int k = 0; k < kN; ++k) acc[k] += head * dp[k];
        },
        [=] __device__(int64_t j, const double* sums) {
          for (int k = 0; k < kN; ++k) AssignReqDevice(gparams.p[k] + j, rp.r[k], sums[k]);
        },
        "pdf backward");
  });
}

void DirichletForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const OpReqType r = req[0];
  const TShape& as = in[1].shape_;
  const int64_t k = as[as.ndim() - 1], n = k > 0 ? in[1].Size() / k : 0;
  const int64_t total = out[0].Size(), per = random::PerDistribution(total, n);
  if (r == kNullOp || total == 0) return;
  const bool is_log = attrs.get<PdfParam>().is_log;
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, {
    const DType* x = in[0].dptr<DType>();
    const DType* alpha = in[1].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    ForEach(Stream(ctx), total, [=] __device__(int64_t i) {
      const double lp = PdfDirichlet::LogPdf(x + i * k, alpha + (i / per) * k, k);
      AssignReqDevice(y + i, r, is_log ? lp : exp(lp));
    });
  });
}

/*!
 * \brief Dirichlet's gradient in three passes over temp space: per distribution digamma(sum alpha),
 *        per sample the head (ograd times the density unless is_log), then d sample element-wise
 *        and d alpha summed per (distribution, category) over its samples.
 */
void DirichletBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const bool is_log = attrs.get<PdfParam>().is_log;
  const TShape& as = in[2].shape_;
  const int64_t k = as[as.ndim() - 1], n = k > 0 ? in[2].Size() / k : 0;
  const int64_t per = random::PerDistribution(in[0].Size(), n);
  if (n == 0) return;
  cudaStream_t stream = Stream(ctx);
  double* psi = static_cast<double*>(ctx.requested[0].GetSpace(sizeof(double) * (n + n * per)));
  double* head = psi + n;
  const OpReqType rx = req[0], ra = req[1];
  MXNET_REAL_TYPE_SWITCH(in[1].type_flag_, DType, {
    const DType* og = in[0].dptr<DType>();
    const DType* x = in[1].dptr<DType>();
    const DType* alpha = in[2].dptr<DType>();
    DType* gx = out[0].dptr<DType>();
    DType* galpha = out[1].dptr<DType>();
    ForEach(stream, n, [=] __device__(int64_t j) { psi[j] = PdfDirichlet::PsiSum(alpha + j * k, k); });
    ForEach(stream, n * per, [=] __device__(int64_t i) {
      double h = static_cast<double>(og[i]);
      if (!is_log) h *= exp(PdfDirichlet::LogPdf(x + i * k, alpha + (i / per) * k, k));
      head[i] = h;
    });
    if (rx != kNullOp) {
      ForEach(stream, n * per * k, [=] __device__(int64_t e) {
        const int64_t i = e / k, c = e - i * k, j = i / per;
        const double h = head[i];
        if (h == 0.0) {
          AssignReqDevice(gx + e, rx, 0.0);
          return;
        }
        double dx, da;
        PdfDirichlet::GradAt(static_cast<double>(x[e]), static_cast<double>(alpha[j * k + c]), psi[j], &dx, &da);
        AssignReqDevice(gx + e, rx, h * dx);
      });
    }
    if (ra != kNullOp) {
      SegmentSum<1>(
          stream, n * k, per,
          [=] __device__(int64_t s, int64_t t, double* acc) {
            const int64_t j = s / k, c = s - j * k, i = j * per + t;
            const double h = head[i];
            if (h == 0.0) return;
            double dx, da;
            PdfDirichlet::GradAt(static_cast<double>(x[i * k + c]), static_cast<double>(alpha[s]), psi[j], &dx,
                                 &da);
            acc[0] += h * da;
          },
          [=] __device__(int64_t s, const double* sums) { AssignReqDevice(galpha + s, ra, sums[0]); },
          "dirichlet pdf backward");
    }
  });
}

}  // namespace cuda

#define MXNET_CUDA_PDF(dist, D)                                                                    \
  MXNET_REGISTER_KERNEL(_random_pdf_##dist, kGPU, cuda).set_compute(cuda::PdfForward<random::D>); \
  MXNET_REGISTER_KERNEL(_backward_pdf_##dist, kGPU, cuda).set_compute(cuda::PdfBackward<random::D>);
MXNET_CUDA_PDF(uniform, PdfUniform)
MXNET_CUDA_PDF(normal, PdfNormal)
MXNET_CUDA_PDF(gamma, PdfGamma)
MXNET_CUDA_PDF(exponential, PdfExponential)
MXNET_CUDA_PDF(poisson, PdfPoisson)
MXNET_CUDA_PDF(negative_binomial, PdfNegBinomial)
MXNET_CUDA_PDF(generalized_negative_binomial, PdfGenNegBinomial)
#undef MXNET_CUDA_PDF
MXNET_REGISTER_KERNEL(_random_pdf_dirichlet, kGPU, cuda).set_compute(cuda::DirichletForward);
MXNET_REGISTER_KERNEL(_backward_pdf_dirichlet, kGPU, cuda).set_compute(cuda::DirichletBackward);

}  // namespace op
}  // namespace mxnet
