/*!
 * \file batch_norm.cu
 * \brief CUDA kernels of BatchNorm, _contrib_BatchNormWithReLU and their `_backward_*` ops
 *        (nn/batch_norm.cc): the plain kernels' math on the device. Per-channel sums over
 *        (outer, inner) of the (outer, C, inner) view are broadcast_reduce.cuh's chunked sums,
 *        in double: the batch mean, then the sum of squared deviations (two passes, like the
 *        CPU); the backward pass's sums of dy and dy * xhat. Half-typed data keeps float32
 *        gamma, beta and statistics. As on the CPU, the moving statistics change only in a
 *        training backward (moving = moving * momentum + batch * (1 - momentum)), and
 *        BatchNormWithReLU's backward masks the gradient with its forward output. This is the
 *        plain GPU entry (rank 100); a cuDNN entry may rank before it.
 */
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/cuda/broadcast_reduce.cuh"
#include "operator/cuda/cuda_kernel.cuh"
#include "operator/nn/batch_norm.h"

namespace mxnet {
namespace op {
namespace cuda {
namespace {

/*! \brief Statistics and parameters: float32 for half-precision data, else the data type. */
template <typename D>
using ParamT = std::conditional_t<std::is_same_v<D, double>, double, float>;

/*! \brief The sums over all but the channel: arrays (data laid out as the view, a (1, C, 1) index). */
bcast::ReduceWalk<2> ChannelSumWalk(const BNView& v) {
  const TShape ds{v.outer, v.C, v.inner};
  return bcast::MakeReduceWalk<2>(ds, {ds, TShape{1, v.C, 1}}, {true, false, true});
}

/*! \brief kTempSpace for `per_channel` double arrays of C entries, then the sums' partials. */
struct BNScratch {
  double* arrays;
  double* partial;
  BNScratch(const OpContext& ctx, int64_t C, int per_channel, size_t partial_bytes) {
    const size_t head = sizeof(double) * static_cast<size_t>(C) * per_channel;
    char* space = static_cast<char*>(ctx.requested[0].GetSpace(std::max<size_t>(head + partial_bytes, 8)));
    arrays = reinterpret_cast<double*>(space);
    partial = partial_bytes ? reinterpret_cast<double*>(space + head) : nullptr;
  }
};

/*! \brief Channel of element j of the (outer, C, inner) view. */
__device__ __forceinline__ int64_t ChannelOf(int64_t j, int64_t C, int64_t inner) {
  int64_t r, c;
  bcast::DivMod(bcast::DivMod(j, inner, &r), C, &c);
  return c;
}

/*!
 * \brief Forward: outputs (out, mean, var [, workspace]). Training: batch mean and biased
 *        variance (double sums) into mean/var; otherwise the moving statistics copied there.
 *        Then y = x * scale + shift with scale = gamma / sqrt(var + eps) in the compute type
 *        (ReLU'd after rounding to D for BatchNormWithReLU).
 */
template <typename D>
void BNForwardImpl(const OpContext& ctx, const BatchNormParam& p, const BNView& v, bool training, bool relu,
                   const std::vector<TBlob>& in, OpReqType req, const std::vector<TBlob>& out) {
  using P = ParamT<D>;
  using C = compute_t<D>;
  const cudaStream_t s = Stream(ctx);
  const int64_t nc = v.C, inner = v.inner, M = v.M();
  P* mean = out[1].dptr<P>();
  P* var = out[2].dptr<P>();
  if (relu)  // the mask's tag: no oneDNN primitive wrote it (the backward masks with the output)
    Check(cudaMemsetAsync(out[3].dptr<uint8_t>() + in[0].Size(), 0, kReluTagBytes, s), "BatchNorm: tag memset");
  if (nc == 0) return;
  const auto w = ChannelSumWalk(v);
  const BNScratch sc(ctx, nc, 2, training ? bcast::SumScratchBytes<double>(w) : 0);
  double *scale = sc.arrays, *shift = sc.arrays + nc;
  const D* x = in[0].dptr<D>();
  if (training) {
    double* m = scale;  // the batch mean in double, then scale and shift over it
    double* ss = shift;
    bcast::Sum<double>(s, w, [=] __device__(const int64_t* off) { return static_cast<double>(x[off[0]]); }, m,
                       kWriteTo, sc.partial);
    ForEach(s, nc, [=] __device__(int64_t c) { m[c] = M > 0 ? m[c] / M : 0.0; }, "BatchNorm: mean");
    bcast::Sum<double>(
        s, w,
        [=] __device__(const int64_t* off) {
          const double d = static_cast<double>(x[off[0]]) - m[off[1]];
          return d * d;
        },
        ss, kWriteTo, sc.partial);
    ForEach(
        s, nc,
        [=] __device__(int64_t c) {
          mean[c] = static_cast<P>(m[c]);
          var[c] = static_cast<P>(M > 0 ? ss[c] / M : 0.0);
        },
        "BatchNorm: variance");
  } else {
    Check(cudaMemcpyAsync(mean, in[3].dptr_, in[3].Bytes(), cudaMemcpyDeviceToDevice, s), "BatchNorm: mean copy");
    Check(cudaMemcpyAsync(var, in[4].dptr_, in[4].Bytes(), cudaMemcpyDeviceToDevice, s), "BatchNorm: var copy");
  }
  const P *gamma = in[1].dptr<P>(), *beta = in[2].dptr<P>();
  const bool fix_gamma = p.fix_gamma;
  const C eps = static_cast<C>(p.eps);
  ForEach(
      s, nc,
      [=] __device__(int64_t c) {
        const C g = fix_gamma ? C(1) : C(gamma[c]);
        const C k = g / std::sqrt(C(var[c]) + eps);
        scale[c] = k;
        shift[c] = C(beta[c]) - C(mean[c]) * k;
      },
      "BatchNorm: scale");
  if (req == kNullOp) return;
  D* y = out[0].dptr<D>();
  ForEach(
      s, M * nc,
      [=] __device__(int64_t j) {
        const int64_t c = ChannelOf(j, nc, inner);
        C r = C(x[j]) * C(scale[c]) + C(shift[c]);
        if (relu) {
          r = C(static_cast<D>(r));  // the CPU rounds the normalized value to D before its ReLU
          r = r > C(0) ? r : C(0);
        }
        Store(y + j, req, r);
      },
      "BatchNorm: normalize");
}

/*! \brief The gradient of the normalization's output: ograd, or 0 where BatchNormWithReLU's output is not positive. */
template <typename D>
struct OutGrad {
  const D* dy;
  const D* y;  // null: no ReLU
  __device__ __forceinline__ double operator()(int64_t j) const {
    if (y && !(static_cast<compute_t<D>>(y[j]) > compute_t<D>(0))) return 0.0;
    return static_cast<double>(dy[j]);
  }
};

/*!
 * \brief moving = moving * momentum + batch * (1 - momentum) in P, products rounded apart as the CPU's
 *        loop (batch_norm.h's BNUpdateMovingStats) computes them.
 */
template <typename P>
__device__ __forceinline__ P MovingAverage(P moving, P batch, P mom) {
  if constexpr (std::is_same_v<P, double>) {
    return __dadd_rn(__dmul_rn(moving, mom), __dmul_rn(batch, __dsub_rn(1.0, mom)));
  } else {
    return __fadd_rn(__fmul_rn(moving, mom), __fmul_rn(batch, __fsub_rn(1.f, mom)));
  }
}

/*!
 * \brief Backward: inputs (ograd, data, gamma, mean, var, [output, workspace,] moving_mean,
 *        moving_var), outputs (ddata, dgamma, dbeta). Training: dx = gamma / std * (g - mean(g)
 *        - xhat * mean(g * xhat)); otherwise dx = gamma / std * g. dgamma = sum(g * xhat) (0
 *        with fix_gamma), dbeta = sum(g); then the moving statistics' update (training only).
 */
template <typename D>
void BNBackwardImpl(const OpContext& ctx, const BatchNormParam& p, const BNView& v, bool relu,
                    const std::vector<TBlob>& in, const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  using P = ParamT<D>;
  using C = compute_t<D>;
  const cudaStream_t s = Stream(ctx);
  const bool training = BNTraining(p, ctx);
  const int64_t nc = v.C, inner = v.inner, M = v.M();
  const size_t moving_at = relu ? kBNReluBackwardMovingAt : kBNBackwardMovingAt;
  const bool sums = req[1] != kNullOp || req[2] != kNullOp || (req[0] != kNullOp && training);
  if (nc > 0 && (sums || req[0] != kNullOp)) {
    const auto w = ChannelSumWalk(v);
    const BNScratch sc(ctx, nc, 4, sums ? bcast::SumScratchBytes<double>(w) : 0);
    double *m = sc.arrays, *invstd = m + nc, *sdy = m + 2 * nc, *sdyx = m + 3 * nc;
    const P *mean = in[3].dptr<P>(), *var = in[4].dptr<P>(), *gamma = in[2].dptr<P>();
    const double eps = p.eps;
    ForEach(
        s, nc,
        [=] __device__(int64_t c) {
          m[c] = static_cast<double>(mean[c]);
          invstd[c] = 1.0 / std::sqrt(static_cast<double>(var[c]) + eps);
        },
        "_backward_BatchNorm: inverse std");
    const OutGrad<D> grad{in[0].dptr<D>(), relu ? in[5].dptr<D>() : nullptr};
    const D* x = in[1].dptr<D>();
    if (sums) {
      bcast::Sum<double>(s, w, [=] __device__(const int64_t* off) { return grad(off[0]); }, sdy, kWriteTo,
                         sc.partial);
      bcast::Sum<double>(
          s, w,
          [=] __device__(const int64_t* off) {
            return grad(off[0]) * (static_cast<double>(x[off[0]]) - m[off[1]]) * invstd[off[1]];
          },
          sdyx, kWriteTo, sc.partial);
      P *dgamma = out[1].dptr<P>(), *dbeta = out[2].dptr<P>();
      const OpReqType req_g = req[1], req_b = req[2];
      const bool fix_gamma = p.fix_gamma;
      ForEach(
          s, nc,
          [=] __device__(int64_t c) {
            if (req_g != kNullOp) Store(dgamma + c, req_g, fix_gamma ? 0.0 : sdyx[c]);
            if (req_b != kNullOp) Store(dbeta + c, req_b, sdy[c]);
          },
          "_backward_BatchNorm: dgamma, dbeta");
    }
    if (req[0] != kNullOp) {
      D* dx = out[0].dptr<D>();
      const OpReqType rq = req[0];
      const bool fix_gamma = p.fix_gamma;
      const double Mf = static_cast<double>(M > 0 ? M : 1);
      ForEach(
          s, M * nc,
          [=] __device__(int64_t j) {
            const int64_t c = ChannelOf(j, nc, inner);
            const double g = grad(j);
            const double k = (fix_gamma ? 1.0 : static_cast<double>(gamma[c])) * invstd[c];
            double r = k * g;
            if (training) {
              const double xhat = (static_cast<double>(x[j]) - m[c]) * invstd[c];
              r = k * (g - sdy[c] / Mf - xhat * sdyx[c] / Mf);
            }
            Store(dx + j, rq, static_cast<C>(r));
          },
          "_backward_BatchNorm: ddata");
    }
  }
  if (!training || nc == 0) return;
  const P mom = static_cast<P>(p.momentum);
  P *mm = in[moving_at].dptr<P>(), *mv = in[moving_at + 1].dptr<P>();
  const P *bm = in[3].dptr<P>(), *bv = in[4].dptr<P>();
  ForEach(
      s, in[moving_at].Size(),
      [=] __device__(int64_t c) {
        mm[c] = MovingAverage(mm[c], bm[c], mom);
        mv[c] = MovingAverage(mv[c], bv[c], mom);
      },
      "_backward_BatchNorm: moving statistics");
}

template <bool kRelu>
void BNForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
               const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = attrs.get<BatchNormParam>();
  const BNView v(attrs, in[0].shape_);
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, D,
                         { BNForwardImpl<D>(ctx, p, v, BNTraining(p, ctx), kRelu, in, req[0], out); });
}

template <bool kRelu>
void BNBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = attrs.get<BatchNormParam>();
  const BNView v(attrs, in[1].shape_);
  MXNET_REAL_TYPE_SWITCH(in[1].type_flag_, D, { BNBackwardImpl<D>(ctx, p, v, kRelu, in, req, out); });
}

}  // namespace
}  // namespace cuda

MXNET_REGISTER_KERNEL(BatchNorm, kGPU, cuda).set_rank(100).set_compute(cuda::BNForward<false>);
MXNET_REGISTER_KERNEL(_backward_BatchNorm, kGPU, cuda).set_rank(100).set_compute(cuda::BNBackward<false>);
MXNET_REGISTER_KERNEL(_contrib_BatchNormWithReLU, kGPU, cuda).set_rank(100).set_compute(cuda::BNForward<true>);
MXNET_REGISTER_KERNEL(_backward_BatchNormWithReLU, kGPU, cuda).set_rank(100).set_compute(cuda::BNBackward<true>);

}  // namespace op
}  // namespace mxnet
