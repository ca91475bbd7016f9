/*!
 * \file lrn_l2norm.cu
 * \brief CUDA kernels of LRN, L2Normalization and their `_backward_*` ops (nn/lrn_l2norm.cc;
 *        parameters and math shared through nn/lrn.h and nn/l2_normalization_param.h), in
 *        double as the reference kernels compute.
 *          - LRN: a thread per element sums its window of channels (LRNScaleAt); the gradient
 *            stores each element's term dy x scale^(-beta-1) in kTempSpace, then a thread per
 *            element sums the terms of the channels whose window holds it.
 *          - L2Normalization: rows of the (outer, L, inner) view of each mode on norm_rows.cuh's
 *            schedules: norm = sqrt(eps + sum x^2), y = x / norm; dx = (dy - y sum(dy y)) / norm.
 */
#include <cmath>
#include <cstdint>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/cuda/broadcast_reduce.cuh"
#include "operator/cuda/cuda_kernel.cuh"
#include "operator/cuda/norm_rows.cuh"
#include "operator/nn/l2_normalization_param.h"
#include "operator/nn/lrn.h"

namespace mxnet {
namespace op {
namespace cuda {
namespace {

using normrows::RowLanes;
using normrows::Rows;
using normrows::SplitShapes;

// ------------------------------------------------------------------------------------------
// LRN

/*! \brief (n, c, i) of element idx of the (N, C, S) view. */
__device__ __forceinline__ void NCSIndex(const NCS& v, int64_t idx, int64_t* n, int64_t* c, int64_t* i) {
  const int64_t t = DivMod(idx, v.S, i);
  *n = DivMod(t, v.C, c);
}

/*! \brief outputs (out, scale): scale = knorm + alpha/nsize * window sum of x^2, out = x scale^-beta. */
void LRNForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = attrs.get<LRNParam>();
  const NCS v(in[0].shape_);
  const int64_t half = p.nsize / 2;
  const double a = static_cast<double>(p.alpha) / p.nsize;
  const float knorm = p.knorm, beta = p.beta;
  const OpReqType rq = req[0];
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, D, {
    using C = real_compute_t<D>;
    const D* x = in[0].dptr<D>();
    D *y = out[0].dptr<D>(), *sc = out[1].dptr<D>();
    ForEach(
        Stream(ctx), in[0].Size(),
        [=] __device__(int64_t idx) {
          int64_t n, c, i;
          NCSIndex(v, idx, &n, &c, &i);
          const double scale = LRNScaleAt(v, half, a, knorm, x, n, c, i);
          sc[idx] = static_cast<D>(scale);
          Store(y + idx, rq, static_cast<C>(LRNOut(static_cast<double>(x[idx]), scale, beta)));
        },
        "CUDA LRN");
  });
}

/*! \brief inputs (ograd, data); output ddata. */
void LRNBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const auto& p = attrs.get<LRNParam>();
  const NCS v(in[1].shape_);
  const int64_t size = in[1].Size();
  if (size == 0) return;
  const int64_t half = p.nsize / 2;
  const double a = static_cast<double>(p.alpha) / p.nsize;
  const double k = 2.0 * p.alpha * p.beta / p.nsize;
  const float knorm = p.knorm, beta = p.beta;
  const OpReqType rq = req[0];
  const cudaStream_t s = Stream(ctx);
  MXNET_REAL_TYPE_SWITCH(in[1].type_flag_, D, {
    using C = real_compute_t<D>;
    const D *dy = in[0].dptr<D>(), *x = in[1].dptr<D>();
    D* dx = out[0].dptr<D>();
    double* t = static_cast<double*>(ctx.requested[0].GetSpace(sizeof(double) * size));
    ForEach(
        s, size,
        [=] __device__(int64_t idx) {
          int64_t n, c, i;
          NCSIndex(v, idx, &n, &c, &i);
          const double scale = LRNScaleAt(v, half, a, knorm, x, n, c, i);
          t[idx] = LRNGradTerm(static_cast<double>(dy[idx]), static_cast<double>(x[idx]), scale, beta);
        },
        "CUDA LRN backward (terms)");
    ForEach(
        s, size,
        [=] __device__(int64_t idx) {
          int64_t n, c, i, lo, hi;
          NCSIndex(v, idx, &n, &c, &i);
          const double scale = LRNScaleAt(v, half, a, knorm, x, n, c, i);
          LRNWindow(c, half, v.C, &lo, &hi);  // channels whose window holds c: the window is symmetric
          double sum = 0;
          for (int64_t j = lo; j <= hi; ++j) sum += t[(n * v.C + j) * v.S + i];
          const double g = LRNGrad(static_cast<double>(dy[idx]), static_cast<double>(x[idx]), scale, beta, k, sum);
          Store(dx + idx, rq, static_cast<C>(g));
        },
        "CUDA LRN backward");
  });
}

// ------------------------------------------------------------------------------------------
// L2Normalization

Rows L2Rows(const NodeAttrs& attrs, const TShape& s) {
  int64_t O, L, I;
  L2View(attrs.get<L2NormalizationParam>(), s, &O, &L, &I);
  return {O * I, L, I};
}

/*! \brief outputs (out, norm): norm = sqrt(eps + sum of x^2) per row, out = x / norm. */
void L2Forward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
               const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const Rows v = L2Rows(attrs, in[0].shape_);
  if (v.rows == 0) return;
  const double eps = attrs.get<L2NormalizationParam>().eps;
  const int64_t L = v.L, inner = v.inner;
  const OpReqType rq = req[0];
  const cudaStream_t s = Stream(ctx);
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, D, {
    using C = real_compute_t<D>;
    const D* x = in[0].dptr<D>();
    D *y = out[0].dptr<D>(), *norm = out[1].dptr<D>();
    if (!normrows::SplitRows(v)) {
      normrows::RowLoop(
          s, v,
          [=] __device__(const RowLanes& c) {
            const double nv = std::sqrt(eps + c.Sum<double>([&](double& acc, int64_t, int64_t j) {
              const double xv = static_cast<double>(x[j]);
              acc += xv * xv;
            }));
            if (c.valid && c.lane == 0) norm[c.r] = static_cast<D>(nv);
            c.Each([&](int64_t, int64_t j) { Store(y + j, rq, static_cast<C>(static_cast<double>(x[j]) / nv)); });
          },
          "CUDA L2Normalization");
    } else {
      const SplitShapes sh(v, 0);
      const auto w = normrows::RowSumWalk<1>(sh, {sh.data});
      double* partial;
      double* rn = normrows::RowScratch(ctx, v.rows, 1, bcast::SumScratchBytes<double>(w), &partial);
      bcast::Sum<double>(
          s, w,
          [=] __device__(const int64_t* off) {
            const double xv = static_cast<double>(x[off[0]]);
            return xv * xv;
          },
          rn, kWriteTo, partial);
      ForEach(
          s, v.rows,
          [=] __device__(int64_t r) {
            rn[r] = std::sqrt(eps + rn[r]);
            norm[r] = static_cast<D>(rn[r]);
          },
          "CUDA L2Normalization (norm)");
      ForEach(
          s, v.rows * L,
          [=] __device__(int64_t j) {
            int64_t o, l;
            const int64_t r = normrows::RowOf(j, L, inner, &o, &l);
            Store(y + j, rq, static_cast<C>(static_cast<double>(x[j]) / rn[r]));
          },
          "CUDA L2Normalization");
    }
  });
}

/*! \brief inputs (ograd, output, norm); dx = (dy - y * sum(dy * y)) / norm. */
void L2Backward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const Rows v = L2Rows(attrs, in[1].shape_);
  if (v.rows == 0) return;
  const int64_t L = v.L, inner = v.inner;
  const OpReqType rq = req[0];
  const cudaStream_t s = Stream(ctx);
  MXNET_REAL_TYPE_SWITCH(in[1].type_flag_, D, {
    using C = real_compute_t<D>;
    const D *dy = in[0].dptr<D>(), *y = in[1].dptr<D>(), *norm = in[2].dptr<D>();
    D* dx = out[0].dptr<D>();
    if (!normrows::SplitRows(v)) {
      normrows::RowLoop(
          s, v,
          [=] __device__(const RowLanes& c) {
            const double sum = c.Sum<double>([&](double& acc, int64_t, int64_t j) {
              acc += static_cast<double>(dy[j]) * static_cast<double>(y[j]);
            });
            const double nv = c.valid ? static_cast<double>(norm[c.r]) : 1.0;
            c.Each([&](int64_t, int64_t j) {
              Store(dx + j, rq,
                    static_cast<C>((static_cast<double>(dy[j]) - static_cast<double>(y[j]) * sum) / nv));
            });
          },
          "CUDA L2Normalization backward");
    } else {
      const SplitShapes sh(v, 0);
      const auto w = normrows::RowSumWalk<1>(sh, {sh.data});
      double* partial;
      double* rs = normrows::RowScratch(ctx, v.rows, 1, bcast::SumScratchBytes<double>(w), &partial);
      bcast::Sum<double>(
          s, w,
          [=] __device__(const int64_t* off) {
            return static_cast<double>(dy[off[0]]) * static_cast<double>(y[off[0]]);
          },
          rs, kWriteTo, partial);
      ForEach(
          s, v.rows * L,
          [=] __device__(int64_t j) {
            int64_t o, l;
            const int64_t r = normrows::RowOf(j, L, inner, &o, &l);
            Store(dx + j, rq,
                  static_cast<C>((static_cast<double>(dy[j]) - static_cast<double>(y[j]) * rs[r]) /
                                 static_cast<double>(norm[r])));
          },
          "CUDA L2Normalization backward");
    }
  });
}

}  // namespace
}  // namespace cuda

MXNET_REGISTER_KERNEL(LRN, kGPU, cuda).set_compute(cuda::LRNForward);
MXNET_REGISTER_KERNEL(_backward_LRN, kGPU, cuda).set_compute(cuda::LRNBackward);
MXNET_REGISTER_KERNEL(L2Normalization, kGPU, cuda).set_compute(cuda::L2Forward);
MXNET_REGISTER_KERNEL(_backward_L2Normalization, kGPU, cuda).set_compute(cuda::L2Backward);

}  // namespace op
}  // namespace mxnet
