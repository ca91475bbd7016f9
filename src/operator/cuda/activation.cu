/*!
 * \file activation.cu
 * \brief CUDA kernels of Activation, LeakyReLU and their `_backward_` ops (nn/activation.cc,
 *        nn/leaky_relu.cc), with the element math the CPU kernels use (ActFwd/ActGrad in
 *        activation_param.h, LeakyFwd/LeakyGrad in leaky_relu_param.h), in the same compute
 *        types. rrelu draws its slopes from the kRandom stream exactly as the CPU does; prelu's
 *        gamma gradient is a per-channel sum in double, in two deterministic passes through
 *        kTempSpace.
 */
#include <algorithm>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/cuda/cuda_kernel.cuh"
#include "operator/cuda/segment_reduce.cuh"
#include "operator/nn/activation_param.h"
#include "operator/nn/leaky_relu_param.h"

namespace mxnet {
namespace op {
namespace cuda {

void ActivationForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const int t = attrs.get<ActivationParam>().act_type;
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, D, {
    using C = compute_t<D>;
    const D* x = in[0].dptr<D>();
    D* y = out[0].dptr<D>();
    const OpReqType r = req[0];
    ForEach(Stream(ctx), in[0].Size(), [=] __device__(int64_t i) { StoreReq(y + i, r, ActFwd(t, C(x[i]))); },
            "Activation launch");
  });
}

/*! \brief inputs (ograd, data, output) -> ograd * f'(x). */
void ActivationBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const int t = attrs.get<ActivationParam>().act_type;
  MXNET_REAL_TYPE_SWITCH(in[1].type_flag_, D, {
    using C = compute_t<D>;
    const D *dy = in[0].dptr<D>(), *x = in[1].dptr<D>(), *y = in[2].dptr<D>();
    D* dx = out[0].dptr<D>();
    const OpReqType r = req[0];
    ForEach(Stream(ctx), in[1].Size(),
            [=] __device__(int64_t i) { StoreReq(dx + i, r, C(C(dy[i]) * ActGrad(t, C(x[i]), C(y[i])))); },
            "_backward_Activation launch");
  });
}

void LeakyForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = attrs.get<LeakyReLUParam>();
  const int t = p.act_type;
  const cudaStream_t s = Stream(ctx);
  const int64_t n = in[0].Size();
  const OpReqType r = req[0];
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, D, {
    using C = real_compute_t<D>;
    const D* x = in[0].dptr<D>();
    D* y = out[0].dptr<D>();
    if (t == kPReLU) {
      if (r == kNullOp) return;
      const D* gamma = in[1].dptr<D>();
      const ChannelOf ch(in[0].shape_, in[1].Size());
      ForEach(s, n, [=] __device__(int64_t j) { StoreReq(y + j, r, LeakyFwd(t, C(x[j]), C(gamma[ch(j)]))); },
              "LeakyReLU launch");
    } else if (t == kRReLU) {
      // The mask (the slope of every element) is written even when the output is not.
      D* mask = out[1].dptr<D>();
      const C lo = p.lower_bound, hi = p.upper_bound;
      if (ctx.is_train) {
        const RandomStream rnd = ctx.requested[0].random;
        ForEach(
            s, n,
            [=] __device__(int64_t j) {
              const C slope = lo + (hi - lo) * C(rnd.ForElement(j).UniformD());
              mask[j] = static_cast<D>(slope);
              if (r != kNullOp) StoreReq(y + j, r, LeakyFwd(t, C(x[j]), slope));
            },
            "LeakyReLU launch");
      } else {
        const C slope = (lo + hi) / C(2);
        ForEach(
            s, n,
            [=] __device__(int64_t j) {
              mask[j] = static_cast<D>(slope);
              if (r != kNullOp) StoreReq(y + j, r, LeakyFwd(t, C(x[j]), slope));
            },
            "LeakyReLU launch");
      }
    } else {
      if (r == kNullOp) return;
      const C slope = p.slope;
      ForEach(s, n, [=] __device__(int64_t j) { StoreReq(y + j, r, LeakyFwd(t, C(x[j]), slope)); },
              "LeakyReLU launch");
    }
  });
}

/*!
 * \brief dgamma[c] under req = sum over the elements j of channel c with !(x > 0) of dy * x, in
 *        double. Each channel is cut into chunks summed in parallel (pass 1, into kTempSpace),
 *        whose sums pass 2 adds in chunk order, so a shared gamma does not leave the sum to one block.
 */
template <typename D>
void PReLUGammaGrad(const OpContext& ctx, const D* dy, const D* x, const TShape& xs, int64_t channels, D* dg,
                    OpReqType req) {
  const cudaStream_t s = Stream(ctx);
  const ChannelOf ch(xs, channels);
  // Elements of one channel: `outer` runs of `inner` contiguous ones, `channels * inner` apart.
  const int64_t inner = channels == 1 ? xs.Size() : ch.inner;
  const int64_t per_channel = channels == 1 ? xs.Size() : xs.Size() / channels;
  constexpr int64_t kChunk = 16384;
  const int64_t chunks =
      std::max<int64_t>(1, std::min<int64_t>((per_channel + kChunk - 1) / kChunk, std::max<int64_t>(1, 2048 / channels)));
  const int64_t chunk_len = (per_channel + chunks - 1) / chunks;
  auto term = [=] __device__(int64_t c, int64_t t, double* acc) {
    const int64_t o = t / inner, i = t - o * inner;
    const int64_t j = (o * channels + c) * inner + i;
    const D xv = x[j];
    if (!(static_cast<double>(xv) > 0)) acc[0] += static_cast<double>(dy[j]) * static_cast<double>(xv);
  };
  if (chunks == 1) {
    SegmentSum<1>(
        s, channels, per_channel, term,
        [=] __device__(int64_t c, const double* sum) { StoreReq(dg + c, req, static_cast<compute_t<D>>(sum[0])); },
        "_backward_LeakyReLU: gamma gradient launch");
    return;
  }
  double* partial = static_cast<double*>(ctx.requested[0].GetSpace(sizeof(double) * channels * chunks));
  SegmentSum<1>(
      s, channels * chunks, chunk_len,
      [=] __device__(int64_t sc, int64_t t, double* acc) {
        const int64_t c = sc / chunks, tt = (sc - c * chunks) * chunk_len + t;
        if (tt < per_channel) term(c, tt, acc);
      },
      [=] __device__(int64_t sc, const double* sum) { partial[sc] = sum[0]; },
      "_backward_LeakyReLU: gamma gradient launch");
  SegmentSum<1>(
      s, channels, chunks, [=] __device__(int64_t c, int64_t t, double* acc) { acc[0] += partial[c * chunks + t]; },
      [=] __device__(int64_t c, const double* sum) { StoreReq(dg + c, req, static_cast<compute_t<D>>(sum[0])); },
      "_backward_LeakyReLU: gamma gradient launch");
}

/*! \brief inputs (ograd, data [, gamma | mask]); outputs (ddata [, dgamma]). */
void LeakyBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = attrs.get<LeakyReLUParam>();
  const int t = p.act_type;
  const cudaStream_t s = Stream(ctx);
  const int64_t n = in[1].Size();
  const OpReqType r = req[0];
  MXNET_REAL_TYPE_SWITCH(in[1].type_flag_, D, {
    using C = real_compute_t<D>;
    const D *dy = in[0].dptr<D>(), *x = in[1].dptr<D>();
    D* dx = out[0].dptr<D>();
    if (t == kPReLU) {
      const D* gamma = in[2].dptr<D>();
      const ChannelOf ch(in[1].shape_, in[2].Size());
      if (r != kNullOp) {
        ForEach(
            s, n, [=] __device__(int64_t j) { StoreReq(dx + j, r, C(C(dy[j]) * LeakyGrad(t, C(x[j]), C(gamma[ch(j)])))); },
            "_backward_LeakyReLU launch");
      }
      if (req[1] != kNullOp) PReLUGammaGrad<D>(ctx, dy, x, in[1].shape_, in[2].Size(), out[1].dptr<D>(), req[1]);
    } else if (r != kNullOp) {
      const D* mask = t == kRReLU ? in[2].dptr<D>() : nullptr;
      const C slope = p.slope;
      ForEach(
          s, n,
          [=] __device__(int64_t j) {
            StoreReq(dx + j, r, C(C(dy[j]) * LeakyGrad(t, C(x[j]), mask ? C(mask[j]) : slope)));
          },
          "_backward_LeakyReLU launch");
    }
  });
}

}  // namespace cuda

MXNET_REGISTER_KERNEL(Activation, kGPU, cuda).set_compute(cuda::ActivationForward);
MXNET_REGISTER_KERNEL(_backward_Activation, kGPU, cuda).set_compute(cuda::ActivationBackward);
MXNET_REGISTER_KERNEL(LeakyReLU, kGPU, cuda).set_compute(cuda::LeakyForward);
MXNET_REGISTER_KERNEL(_backward_LeakyReLU, kGPU, cuda).set_compute(cuda::LeakyBackward);

}  // namespace op
}  // namespace mxnet
