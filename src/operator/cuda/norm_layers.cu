/*!
 * \file norm_layers.cu
 * \brief CUDA kernels of LayerNorm, InstanceNorm, GroupNorm and their `_backward_*` ops
 *        (nn/norm_layers.cc; rows, parameter index and eps from nn/norm_layers_param.h). The
 *        reference kernel's math (norm_rows.h) on norm_rows.cuh's row schedules: the mean, then
 *        the sum of squared deviations (two passes, in double, for every dtype), std =
 *        sqrt(var + eps), outputs in the CPU's compute type; the backward pass's mean of
 *        g = dy * gamma and of g * xhat per row, and dgamma/dbeta as broadcast_reduce.cuh's
 *        chunked sums over everything but the parameter index.
 */
#include <cmath>
#include <cstdint>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/cuda/broadcast_reduce.cuh"
#include "operator/cuda/cuda_kernel.cuh"
#include "operator/cuda/norm_rows.cuh"
#include "operator/nn/norm_layers_param.h"

namespace mxnet {
namespace op {
namespace cuda {
namespace {

using normrows::RowLanes;
using normrows::Rows;
using normrows::SplitShapes;
using normrows::Sum2;

Rows RowsOf(const NormSpec& n) { return {n.v.Rows(), n.v.L, n.v.inner}; }

/*! \brief gamma's and beta's shape in the split view: (1, 1, L, 1) for LayerNorm, (1, P, 1, 1) else. */
TShape ParamShape(const NormSpec& n, const SplitShapes& s) {
  return n.period ? TShape{1, s.data[1], 1, 1} : TShape{1, 1, s.data[2], 1};
}

/*! \brief y = (x - mean) / std * gamma + beta; mean and std per row (outputs 1 and 2, always written). */
template <typename D>
void NormForwardRows(const OpContext& ctx, const NormSpec& n, const TBlob& data, const TBlob& gm, const TBlob& bt,
                     const TBlob& out, const TBlob& mean_out, const TBlob& std_out, OpReqType req) {
  using C = real_compute_t<D>;
  const Rows v = RowsOf(n);
  if (v.rows == 0) return;
  const cudaStream_t s = Stream(ctx);
  const D *x = data.dptr<D>(), *gamma = gm.dptr<D>(), *beta = bt.dptr<D>();
  D *y = out.dptr<D>(), *mean = mean_out.dptr<D>(), *stdv = std_out.dptr<D>();
  const ParamIndex pi{n.period};
  const double eps = n.eps;
  const int64_t L = v.L, inner = v.inner;
  if (!normrows::SplitRows(v)) {
    normrows::RowLoop(
        s, v,
        [=] __device__(const RowLanes& c) {
          const double m =
              c.Sum<double>([&](double& a, int64_t, int64_t j) { a += static_cast<double>(x[j]); }) / L;
          const double ss = c.Sum<double>([&](double& a, int64_t, int64_t j) {
            const double d = static_cast<double>(x[j]) - m;
            a += d * d;
          });
          const double sd = std::sqrt(ss / L + eps);
          if (c.valid && c.lane == 0) {
            mean[c.r] = static_cast<D>(m);
            stdv[c.r] = static_cast<D>(sd);
          }
          c.Each([&](int64_t l, int64_t j) {
            const int64_t k = pi(c.o, l);
            Store(y + j, req,
                  static_cast<C>((static_cast<double>(x[j]) - m) / sd * static_cast<double>(gamma[k]) +
                                 static_cast<double>(beta[k])));
          });
        },
        "CUDA norm forward");
    return;
  }
  // Few long rows: the sums in chunks over the whole GPU, then the outputs elementwise.
  const SplitShapes sh(v, n.period);
  const auto w1 = normrows::RowSumWalk<1>(sh, {sh.data});
  const auto w2 = normrows::RowSumWalk<2>(sh, {sh.data, sh.stat});
  double* partial;
  double* st = normrows::RowScratch(
      ctx, v.rows, 2, std::max(bcast::SumScratchBytes<double>(w1), bcast::SumScratchBytes<double>(w2)), &partial);
  double *rm = st, *rsd = st + v.rows;
  bcast::Sum<double>(s, w1, [=] __device__(const int64_t* off) { return static_cast<double>(x[off[0]]); }, rm,
                     kWriteTo, partial);
  ForEach(s, v.rows, [=] __device__(int64_t r) { rm[r] /= L; }, "CUDA norm forward (mean)");
  bcast::Sum<double>(
      s, w2,
      [=] __device__(const int64_t* off) {
        const double d = static_cast<double>(x[off[0]]) - rm[off[1]];
        return d * d;
      },
      rsd, kWriteTo, partial);
  ForEach(
      s, v.rows,
      [=] __device__(int64_t r) {
        rsd[r] = std::sqrt(rsd[r] / L + eps);
        mean[r] = static_cast<D>(rm[r]);
        stdv[r] = static_cast<D>(rsd[r]);
      },
      "CUDA norm forward (std)");
  ForEach(
      s, v.rows * L,
      [=] __device__(int64_t j) {
        int64_t o, l;
        const int64_t r = normrows::RowOf(j, L, inner, &o, &l), k = pi(o, l);
        Store(y + j, req,
              static_cast<C>((static_cast<double>(x[j]) - rm[r]) / rsd[r] * static_cast<double>(gamma[k]) +
                             static_cast<double>(beta[k])));
      },
      "CUDA norm forward");
}

/*! \brief The split view's walk of the gradient's row sums (arrays: data, statistics, gamma). */
bcast::ReduceWalk<3> DataGradWalk(const NormSpec& n) {
  const SplitShapes sh(RowsOf(n), n.period);
  return normrows::RowSumWalk<3>(sh, {sh.data, sh.stat, ParamShape(n, sh)});
}

/*! \brief The walk of dgamma's and dbeta's sums: all but the parameter index (the period or l). */
bcast::ReduceWalk<2> ParamGradWalk(const NormSpec& n) {
  const SplitShapes sh(RowsOf(n), n.period);
  std::vector<bool> red(4, true);
  red[n.period ? 1 : 2] = false;
  return bcast::MakeReduceWalk<2>(sh.data, {sh.data, sh.stat}, red);
}

/*! \brief Scratch bytes of the backward pass: dx's split row sums, then (reusing it) dgamma's and dbeta's. */
size_t BackwardScratchBytes(const NormSpec& n, bool data, bool params) {
  size_t bytes = 0;
  const Rows v = RowsOf(n);
  if (data && normrows::SplitRows(v))
    bytes = sizeof(double) * 2 * v.rows + bcast::SumScratchBytes<double>(DataGradWalk(n));
  if (params) bytes = std::max(bytes, bcast::SumScratchBytes<double>(ParamGradWalk(n)));
  return bytes;
}

/*!
 * \brief dx = (g - mean(g) - xhat * mean(g * xhat)) / std with g = dy * gamma, under req.
 *        space: BackwardScratchBytes of kTempSpace.
 */
template <typename D>
void NormBackwardData(const OpContext& ctx, const NormSpec& n, const D* dy, const D* x, const D* gamma,
                      const D* mean, const D* stdv, D* dx, OpReqType req, char* space) {
  using C = real_compute_t<D>;
  const Rows v = RowsOf(n);
  if (v.rows == 0) return;
  const cudaStream_t s = Stream(ctx);
  const ParamIndex pi{n.period};
  const int64_t L = v.L, inner = v.inner;
  if (!normrows::SplitRows(v)) {
    normrows::RowLoop(
        s, v,
        [=] __device__(const RowLanes& c) {
          const double m = c.valid ? static_cast<double>(mean[c.r]) : 0.0;
          const double sd = c.valid ? static_cast<double>(stdv[c.r]) : 1.0;
          const Sum2 t = c.Sum<Sum2>([&](Sum2& a, int64_t l, int64_t j) {
            const double g = static_cast<double>(dy[j]) * static_cast<double>(gamma[pi(c.o, l)]);
            a.a += g;
            a.b += g * (static_cast<double>(x[j]) - m) / sd;
          });
          const double mg = t.a / L, mgx = t.b / L;
          c.Each([&](int64_t l, int64_t j) {
            const double g = static_cast<double>(dy[j]) * static_cast<double>(gamma[pi(c.o, l)]);
            const double xhat = (static_cast<double>(x[j]) - m) / sd;
            Store(dx + j, req, static_cast<C>((g - mg - xhat * mgx) / sd));
          });
        },
        "CUDA norm backward");
    return;
  }
  const auto w = DataGradWalk(n);
  double *rg = reinterpret_cast<double*>(space), *rgx = rg + v.rows;
  double* partial = bcast::SumScratchBytes<double>(w) ? rgx + v.rows : nullptr;
  bcast::Sum<double>(
      s, w,
      [=] __device__(const int64_t* off) {
        return static_cast<double>(dy[off[0]]) * static_cast<double>(gamma[off[2]]);
      },
      rg, kWriteTo, partial);
  bcast::Sum<double>(
      s, w,
      [=] __device__(const int64_t* off) {
        const double g = static_cast<double>(dy[off[0]]) * static_cast<double>(gamma[off[2]]);
        return g * (static_cast<double>(x[off[0]]) - static_cast<double>(mean[off[1]])) /
               static_cast<double>(stdv[off[1]]);
      },
      rgx, kWriteTo, partial);
  ForEach(
      s, v.rows * L,
      [=] __device__(int64_t j) {
        int64_t o, l;
        const int64_t r = normrows::RowOf(j, L, inner, &o, &l);
        const double m = static_cast<double>(mean[r]), sd = static_cast<double>(stdv[r]);
        const double g = static_cast<double>(dy[j]) * static_cast<double>(gamma[pi(o, l)]);
        const double xhat = (static_cast<double>(x[j]) - m) / sd;
        Store(dx + j, req, static_cast<C>((g - rg[r] / L - xhat * (rgx[r] / L)) / sd));
      },
      "CUDA norm backward");
}

/*!
 * \brief dgamma = sum of dy * xhat and dbeta = sum of dy per parameter entry, under req.
 *        space: BackwardScratchBytes of kTempSpace (after dx's kernels on the stream).
 */
template <typename D>
void NormBackwardParams(const OpContext& ctx, const NormSpec& n, const D* dy, const D* x, const D* mean,
                        const D* stdv, D* dgamma, D* dbeta, OpReqType req_g, OpReqType req_b, char* space) {
  const auto w = ParamGradWalk(n);
  double* partial = bcast::SumScratchBytes<double>(w) ? reinterpret_cast<double*>(space) : nullptr;
  const cudaStream_t s = Stream(ctx);
  bcast::Sum<double>(
      s, w,
      [=] __device__(const int64_t* off) {
        return static_cast<double>(dy[off[0]]) * (static_cast<double>(x[off[0]]) - static_cast<double>(mean[off[1]])) /
               static_cast<double>(stdv[off[1]]);
      },
      dgamma, req_g, partial);
  bcast::Sum<double>(s, w, [=] __device__(const int64_t* off) { return static_cast<double>(dy[off[0]]); }, dbeta,
                     req_b, partial);
}

template <NormKind K>
void NormForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const NormSpec n = NormSpecOf<K>(attrs, in[0].shape_);
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, D,
                         { NormForwardRows<D>(ctx, n, in[0], in[1], in[2], out[0], out[1], out[2], req[0]); });
}

/*! \brief inputs (ograd, data, gamma, mean, std); outputs (ddata, dgamma, dbeta). */
template <NormKind K>
void NormBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const NormSpec n = NormSpecOf<K>(attrs, in[1].shape_);
  const bool data = req[0] != kNullOp, params = req[1] != kNullOp || req[2] != kNullOp;
  const size_t bytes = BackwardScratchBytes(n, data, params);
  char* space = bytes ? static_cast<char*>(ctx.requested[0].GetSpace(bytes)) : nullptr;
  MXNET_REAL_TYPE_SWITCH(in[1].type_flag_, D, {
    const D *dy = in[0].dptr<D>(), *x = in[1].dptr<D>(), *mean = in[3].dptr<D>(), *stdv = in[4].dptr<D>();
    if (data) NormBackwardData<D>(ctx, n, dy, x, in[2].dptr<D>(), mean, stdv, out[0].dptr<D>(), req[0], space);
    if (params)
      NormBackwardParams<D>(ctx, n, dy, x, mean, stdv, out[1].dptr<D>(), out[2].dptr<D>(), req[1], req[2], space);
  });
}

}  // namespace
}  // namespace cuda

MXNET_REGISTER_KERNEL(LayerNorm, kGPU, cuda).set_compute(cuda::NormForward<kLayer>);
MXNET_REGISTER_KERNEL(InstanceNorm, kGPU, cuda).set_compute(cuda::NormForward<kInstance>);
MXNET_REGISTER_KERNEL(GroupNorm, kGPU, cuda).set_compute(cuda::NormForward<kGroup>);
MXNET_REGISTER_KERNEL(_backward_LayerNorm, kGPU, cuda).set_compute(cuda::NormBackward<kLayer>);
MXNET_REGISTER_KERNEL(_backward_InstanceNorm, kGPU, cuda).set_compute(cuda::NormBackward<kInstance>);
MXNET_REGISTER_KERNEL(_backward_GroupNorm, kGPU, cuda).set_compute(cuda::NormBackward<kGroup>);

}  // namespace op
}  // namespace mxnet
