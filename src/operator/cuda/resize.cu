/*!
 * \file resize.cu
 * \brief CUDA kernels of UpSampling (nearest; inputs concatenated or summed) and
 *        BilinearResize2D (every mode; the output size comes from shape inference), with their
 *        `_backward_` ops (nn/resize.cc). Sums are taken in double as the CPU takes them, and
 *        every gradient is a gather (no atomics):
 *          - UpSampling's: each input pixel sums its scale x scale block of the output gradient.
 *          - BilinearResize2D's: each input pixel visits the output rows and columns whose
 *            interpolation reads it (a contiguous range each, found by binary search on the
 *            monotonic source coordinates) and adds their weighted gradients in the CPU's order.
 */
#include <cstdint>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/cuda/copy_kernels.cuh"
#include "operator/cuda/cuda_kernel.cuh"
#include "operator/cuda/group_reduce.cuh"
#include "operator/nn/resize_param.h"

namespace mxnet {
namespace op {
namespace cuda {
namespace {

/*! \brief v in double, through D's compute type (half types widen to float first). */
template <typename D>
__device__ __forceinline__ double AsDouble(D v) {
  return static_cast<double>(static_cast<compute_t<D>>(v));
}

// ---- UpSampling (nearest) -------------------------------------------------------------------

void UpForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
               const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = UpParam(attrs);
  if (req[0] == kNullOp) return;
  const cudaStream_t s = Stream(ctx);
  const TShape& os = out[0].shape_;
  const int64_t N = os[0], C = os[1], OH = os[2], OW = os[3];
  MXNET_REAL_TYPE_SWITCH(out[0].type_flag_, D, {
    D* y = out[0].dptr<D>();
    layout::ZeroForReq(s, out[0], req[0]);
    // One launch per input in input order: sum mode rounds to D after each input, as the CPU.
    int64_t c0 = 0;
    for (const TBlob& b : in) {
      const int64_t Ci = b.shape_[1], H = b.shape_[2], W = b.shape_[3], sc = OH / H;
      const D* x = b.dptr<D>();
      ForEach(
          s, N * Ci * OH * OW,
          [=] __device__(int64_t j) {
            int64_t ow, oh, c;
            const int64_t t = DivMod(j, OW, &ow);
            const int64_t u = DivMod(t, OH, &oh);
            const int64_t n = DivMod(u, Ci, &c);
            D& dst = y[((n * C + c0 + c) * OH + oh) * OW + ow];
            dst = static_cast<D>(AsDouble(dst) + AsDouble(x[((n * Ci + c) * H + oh / sc) * W + ow / sc]));
          },
          "UpSampling CUDA kernel");
      if (p.multi_input_mode == 0) c0 += Ci;
    }
  });
}

/*! \brief inputs (ograd, data...); outputs one gradient per data input (block sums). */
void UpBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = UpParam(attrs);
  const cudaStream_t s = Stream(ctx);
  const TShape& os = in[0].shape_;
  const int64_t C = os[1], OH = os[2], OW = os[3];
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, D, {
    const D* dy = in[0].dptr<D>();
    int64_t c0 = 0;
    for (size_t i = 0; i < out.size(); ++i) {
      const int64_t N = out[i].shape_[0], Ci = out[i].shape_[1], H = out[i].shape_[2], W = out[i].shape_[3];
      const int64_t sc = OH / H;
      D* dx = out[i].dptr<D>();
      const OpReqType r = req[i];
      if (r != kNullOp) {
        ForEach(
            s, N * Ci * H * W,
            [=] __device__(int64_t j) {
              int64_t w, h, c;
              const int64_t t = DivMod(j, W, &w);
              const int64_t u = DivMod(t, H, &h);
              const int64_t n = DivMod(u, Ci, &c);
              const D* blk = dy + ((n * C + c0 + c) * OH + h * sc) * OW + w * sc;
              double acc = 0;
              for (int64_t a = 0; a < sc; ++a)
                for (int64_t b = 0; b < sc; ++b) acc += AsDouble(blk[a * OW + b]);
              Store(dx + j, r, acc);
            },
            "_backward_UpSampling CUDA kernel");
      }
      if (p.multi_input_mode == 0) c0 += Ci;
    }
  });
}

// ---- BilinearResize2D ---------------------------------------------------------------------

void ResizeForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const bool align = attrs.get<BilinearResize2DParam>().align_corners;
  const int64_t NC = in[0].shape_[0] * in[0].shape_[1], H = in[0].shape_[2], W = in[0].shape_[3];
  const int64_t OH = out[0].shape_[2], OW = out[0].shape_[3];
  const OpReqType r = req[0];
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, D, {
    const D* x = in[0].dptr<D>();
    D* y = out[0].dptr<D>();
    ForEach(
        Stream(ctx), NC * OH * OW,
        [=] __device__(int64_t j) {
          int64_t ow, oh;
          const int64_t t = DivMod(j, OW, &ow);
          const int64_t nc = DivMod(t, OH, &oh);
          int64_t h0, h1, w0, w1;
          double a, b;
          SrcCoord(oh, OH, H, align, &h0, &h1, &a);
          SrcCoord(ow, OW, W, align, &w0, &w1, &b);
          const D* p = x + nc * H * W;
          const double v = (1 - a) * ((1 - b) * AsDouble(p[h0 * W + w0]) + b * AsDouble(p[h0 * W + w1])) +
                           a * ((1 - b) * AsDouble(p[h1 * W + w0]) + b * AsDouble(p[h1 * W + w1]));
          Store(y + j, r, v);
        },
        "BilinearResize2D CUDA kernel");
  });
}

/*!
 * \brief The output indices [*lo, *hi] (empty: lo > hi) along an axis of `out` whose two source
 *        neighbours include input index i: i0 <= i <= i1, both non-decreasing in the output index.
 */
__device__ __forceinline__ void ReadersOf(int64_t i, int64_t out, int64_t in, bool align, int64_t* lo, int64_t* hi) {
  int64_t i0, i1;
  double f;
  int64_t a = 0, b = out;  // first o with i1(o) >= i
  while (a < b) {
    const int64_t m = a + (b - a) / 2;
    SrcCoord(m, out, in, align, &i0, &i1, &f);
    if (i1 >= i)
      b = m;
    else
      a = m + 1;
  }
  *lo = a;
  a = 0, b = out;  // first o with i0(o) > i
  while (a < b) {
    const int64_t m = a + (b - a) / 2;
    SrcCoord(m, out, in, align, &i0, &i1, &f);
    if (i0 > i)
      b = m;
    else
      a = m + 1;
  }
  *hi = a - 1;
}

/*! \brief inputs (ograd, data [, like]); outputs (ddata [, dlike = 0]). */
void ResizeBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const cudaStream_t s = Stream(ctx);
  if (out.size() > 1) layout::ZeroForReq(s, out[1], req[1]);
  if (req[0] == kNullOp) return;
  const bool align = attrs.get<BilinearResize2DParam>().align_corners;
  const int64_t NC = in[1].shape_[0] * in[1].shape_[1], H = in[1].shape_[2], W = in[1].shape_[3];
  const int64_t OH = in[0].shape_[2], OW = in[0].shape_[3];
  const OpReqType r = req[0];
  MXNET_REAL_TYPE_SWITCH(in[1].type_flag_, D, {
    const D* dy = in[0].dptr<D>();
    D* dx = out[0].dptr<D>();
    ForEach(
        s, NC * H * W,
        [=] __device__(int64_t j) {
          int64_t w, h;
          const int64_t t = DivMod(j, W, &w);
          const int64_t nc = DivMod(t, H, &h);
          int64_t oh_lo, oh_hi, ow_lo, ow_hi;
          ReadersOf(h, OH, H, align, &oh_lo, &oh_hi);
          ReadersOf(w, OW, W, align, &ow_lo, &ow_hi);
          // The CPU scatters every output in (oh, ow) order to its four neighbours in the order
          // (h0,w0), (h0,w1), (h1,w0), (h1,w1); this pixel takes the terms landing on it in that order.
          double acc = 0.0;
          for (int64_t oh = oh_lo; oh <= oh_hi; ++oh) {
            int64_t h0, h1;
            double a;
            SrcCoord(oh, OH, H, align, &h0, &h1, &a);
            for (int64_t ow = ow_lo; ow <= ow_hi; ++ow) {
              int64_t w0, w1;
              double b;
              SrcCoord(ow, OW, W, align, &w0, &w1, &b);
              const double g = AsDouble(dy[(nc * OH + oh) * OW + ow]);
              if (h0 == h && w0 == w) acc += (1 - a) * (1 - b) * g;
              if (h0 == h && w1 == w) acc += (1 - a) * b * g;
              if (h1 == h && w0 == w) acc += a * (1 - b) * g;
              if (h1 == h && w1 == w) acc += a * b * g;
            }
          }
          Store(dx + j, r, acc);
        },
        "_backward_BilinearResize2D CUDA kernel");
  });
}

}  // namespace
}  // namespace cuda

MXNET_REGISTER_KERNEL(UpSampling, kGPU, cuda).set_compute(cuda::UpForward);
MXNET_REGISTER_KERNEL(_backward_UpSampling, kGPU, cuda).set_compute(cuda::UpBackward);
MXNET_REGISTER_KERNEL(BilinearResize2D, kGPU, cuda).set_compute(cuda::ResizeForward);
MXNET_REGISTER_KERNEL(_backward_BilinearResize2D, kGPU, cuda).set_compute(cuda::ResizeBackward);

}  // namespace op
}  // namespace mxnet
