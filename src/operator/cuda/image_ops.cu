/*!
 * \file image_ops.cu
 * \brief CUDA kernels of the layout `_image_*` operators: `_image_to_tensor`, `_image_normalize`
 *        and `_backward_image_normalize` (to_tensor.cc), the four flips (flip.cc), `_image_crop`
 *        and `_image_resize` (resize_crop.cc). One thread per output element; the same element
 *        math as the CPU kernels (image_params.h, resize_math.h).
 *        - The random flips draw each image's coin on the host from the op's random stream as the
 *          CPU kernel does (RandomFlipOf) and pass the coins as a bit mask, 2048 images a launch.
 *        - `_image_resize` computes nearest and bilinear as the CPU's own kernel does (the path it
 *          takes where OpenCV does not resize): interp 2-4 (bicubic, area, Lanczos, OpenCV only)
 *          are a ValueError on the GPU. Where the CPU resizes through OpenCV (uint8, float32,
 *          float64 in OpenCV builds), uint8 bilinear results may differ from it by 1, since
 *          OpenCV interpolates uint8 images in fixed point.
 *        The colour operators are in image_color.cu.
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/cuda/cuda_kernel.cuh"
#include "operator/cuda/group_reduce.cuh"
#include "operator/image/image_layout.h"
#include "operator/image/image_params.h"
#include "operator/image/resize_math.h"

namespace mxnet {
namespace op {
namespace cuda {
namespace {

using image::ImageDims;

// ---- _image_to_tensor ------------------------------------------------------------------------

/*! \brief (N)HWC values in [0, 255] -> (N)CHW float32 in [0, 1]. */
void ToTensorCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const ImageDims d = image::ChannelsLast(attrs, in[0].shape_);
  const int64_t plane = d.h * d.w, channels = d.c;
  float* y = out[0].dptr<float>();
  const OpReqType r = req[0];
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    const DType* x = in[0].dptr<DType>();
    ForEach(Stream(ctx), out[0].Size(), [=] __device__(int64_t i) {
      int64_t p, c;
      const int64_t nc = DivMod(i, plane, &p);
      const int64_t n = DivMod(nc, channels, &c);
      StoreReq(y + i, r, static_cast<float>(x[(n * plane + p) * channels + c]) / 255.0f);
    });
  });
}

// ---- _image_normalize, _backward_image_normalize -----------------------------------------------

/*! \brief Channels whose mean and std one launch takes by value. */
constexpr int kNormChannels = 32;

struct ChannelConsts {
  float mean[kNormChannels];
  float stdv[kNormChannels];
  double inv[kNormChannels];  // 1.0 / std in double, as the CPU's gradient takes it
};

/*!
 * \brief (x - mean[c]) / std[c] on (N)CHW, or for the gradient ograd * (1.0 / std[c]), in the
 *        CPU's compute types (float64 data in double); kNormChannels channels a launch.
 */
template <bool kBackward>
void NormalizeCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const ImageDims d = image::ChannelsFirst(attrs, in[0].shape_);
  std::vector<float> mean, stdv;
  image::ChannelStats(attrs, d.c, &mean, &stdv);
  if (req[0] == kNullOp) return;
  const int64_t plane = d.h * d.w, channels = d.c;
  const OpReqType r = req[0];
  const cudaStream_t s = Stream(ctx);
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, {
    using C = compute_t<DType>;
    const DType* x = in[0].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    for (int64_t c0 = 0; c0 < channels; c0 += kNormChannels) {
      const int64_t nc = std::min<int64_t>(kNormChannels, channels - c0);
      ChannelConsts k{};
      for (int64_t c = 0; c < nc; ++c) {
        k.mean[c] = mean[c0 + c];
        k.stdv[c] = stdv[c0 + c];
        k.inv[c] = 1.0 / static_cast<double>(stdv[c0 + c]);
      }
      ForEach(s, d.n * nc * plane, [=] __device__(int64_t i) {
        int64_t p, c;
        const int64_t q = DivMod(i, plane, &p);
        const int64_t n = DivMod(q, nc, &c);
        const int64_t at = (n * channels + c0 + c) * plane + p;
        if (kBackward) {
          StoreReq(y + at, r, DType(C(static_cast<double>(C(x[at])) * k.inv[c])));
        } else {
          StoreReq(y + at, r, DType((C(x[at]) - C(k.mean[c])) / C(k.stdv[c])));
        }
      });
    }
  });
}

// ---- flips ---------------------------------------------------------------------------------

/*! \brief Images whose coins one launch of a random flip takes by value. */
constexpr int64_t kFlipImages = 2048;

struct FlipCoins {
  uint32_t bits[kFlipImages / 32];
  __device__ bool Flipped(int64_t n) const { return (bits[n >> 5] >> (n & 31)) & 1u; }
};

/*! \brief Each image of an (N)HWC input mirrored along W (horizontal) or H; random: if its coin says so. */
template <bool kHorizontal, bool kRandom>
void FlipCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const ImageDims d = image::ChannelsLast(attrs, in[0].shape_);
  std::vector<char> flip(d.n, 1);
  if (kRandom) {
    for (int64_t n = 0; n < d.n; ++n) flip[n] = image::RandomFlipOf(ctx.requested[0].random, n);
  }
  if (req[0] == kNullOp) return;
  const int64_t h = d.h, w = d.w, c = d.c, row = w * c, image = h * row;
  const OpReqType r = req[0];
  const cudaStream_t s = Stream(ctx);
  const int64_t per_launch = kRandom ? kFlipImages : std::max<int64_t>(d.n, 1);
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    for (int64_t n0 = 0; n0 < d.n; n0 += per_launch) {
      const int64_t nn = std::min(per_launch, d.n - n0);
      FlipCoins coins{};
      if (kRandom)
        for (int64_t i = 0; i < nn; ++i)
          if (flip[n0 + i]) coins.bits[i / 32] |= 1u << (i % 32);
      const DType* x = in[0].dptr<DType>() + n0 * image;
      DType* y = out[0].dptr<DType>() + n0 * image;
      ForEach(s, nn * image, [=] __device__(int64_t i) {
        int64_t at, pc;
        const int64_t n = DivMod(i, image, &at);
        const int64_t rr = DivMod(at, row, &pc);  // pc = column * c + channel
        int64_t src = at;
        if (!kRandom || coins.Flipped(n)) {
          if (kHorizontal) {
            int64_t ch;
            const int64_t col = DivMod(pc, c, &ch);
            src = rr * row + (w - 1 - col) * c + ch;
          } else {
            src = (h - 1 - rr) * row + pc;
          }
        }
        StoreReq(y + i, r, x[n * image + src]);
      });
    }
  });
}

// ---- _image_crop ---------------------------------------------------------------------------

void CropCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const ImageDims d = image::ChannelsLast(attrs, in[0].shape_);
  const image::CropParam& p = attrs.get<image::CropParam>();
  const int64_t h = d.h, w = d.w, c = d.c, height = p.height, wc = int64_t{p.width} * d.c;
  const int64_t x0 = p.x, y0 = p.y;
  const OpReqType r = req[0];
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    const DType* x = in[0].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    ForEach(Stream(ctx), out[0].Size(), [=] __device__(int64_t i) {
      int64_t k, rr;
      const int64_t nr = DivMod(i, wc, &k);
      const int64_t n = DivMod(nr, height, &rr);
      StoreReq(y + i, r, x[((n * h + y0 + rr) * w + x0) * c + k]);
    });
  });
}

// ---- _image_resize -------------------------------------------------------------------------

void ResizeCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const int interp = attrs.get<image::ResizeParam>().interp;
  MX_CHECK_KIND(interp <= 1, "ValueError") << attrs.op->name << ": interp " << interp
                                           << " is not available on the GPU; use 0 (nearest) or 1 (bilinear)";
  if (req[0] == kNullOp) return;
  const ImageDims d = image::ChannelsLast(attrs, in[0].shape_);
  const ImageDims o = image::ChannelsLast(attrs, out[0].shape_);
  const bool nearest = interp == 0;
  const float sy = float(d.h) / o.h, sx = float(d.w) / o.w;
  const int64_t h = d.h, w = d.w, c = d.c, oh = o.h, ow = o.w;
  const OpReqType r = req[0];
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    const DType* x = in[0].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    ForEach(Stream(ctx), out[0].Size(), [=] __device__(int64_t i) {
      int64_t ch, col, rr;
      const int64_t q = DivMod(i, c, &ch);
      const int64_t nr = DivMod(q, ow, &col);
      const int64_t n = DivMod(nr, oh, &rr);
      const DType* img = x + n * h * w * c;
      if (nearest) {
        StoreReq(y + i, r, img[(image::NearestSource(rr, sy, h) * w + image::NearestSource(col, sx, w)) * c + ch]);
        return;
      }
      const image::LinearTaps ty = image::LinearSource(rr, sy, h), tx = image::LinearSource(col, sx, w);
      const float a = float(img[(ty.i0 * w + tx.i0) * c + ch]), b = float(img[(ty.i0 * w + tx.i1) * c + ch]);
      const float e = float(img[(ty.i1 * w + tx.i0) * c + ch]), f = float(img[(ty.i1 * w + tx.i1) * c + ch]);
      StoreReq(y + i, r, image::FromFloat<DType>(image::Bilerp(a, b, e, f, tx.w, ty.w)));
    });
  });
}

}  // namespace
}  // namespace cuda

MXNET_REGISTER_KERNEL(_image_to_tensor, kGPU, cuda).set_compute(cuda::ToTensorCompute);
MXNET_REGISTER_KERNEL(_image_normalize, kGPU, cuda).set_compute(cuda::NormalizeCompute<false>);
MXNET_REGISTER_KERNEL(_backward_image_normalize, kGPU, cuda).set_compute(cuda::NormalizeCompute<true>);
MXNET_REGISTER_KERNEL(_image_flip_left_right, kGPU, cuda).set_compute(cuda::FlipCompute<true, false>);
MXNET_REGISTER_KERNEL(_image_flip_top_bottom, kGPU, cuda).set_compute(cuda::FlipCompute<false, false>);
MXNET_REGISTER_KERNEL(_image_random_flip_left_right, kGPU, cuda).set_compute(cuda::FlipCompute<true, true>);
MXNET_REGISTER_KERNEL(_image_random_flip_top_bottom, kGPU, cuda).set_compute(cuda::FlipCompute<false, true>);
MXNET_REGISTER_KERNEL(_image_crop, kGPU, cuda).set_compute(cuda::CropCompute);
MXNET_REGISTER_KERNEL(_image_resize, kGPU, cuda).set_compute(cuda::ResizeCompute);

}  // namespace op
}  // namespace mxnet
