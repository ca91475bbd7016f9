/*!
 * \file conv_bwd_data_channel_last.cc
 * \brief The channel-last convolution data gradient as GEMM + col2im (see the header).
 */
#if MXNET_USE_ONEDNN

#include "operator/nn/conv_bwd_data_channel_last.h"

#include <dnnl.h>

#include <algorithm>
#include <cstddef>
#include <vector>

#include "mxnet/error.h"
#include "operator/common/parallel.h"

namespace mxnet {
namespace op {
namespace {

// Column rows per GEMM: a block of images whose columns stay in the L2 cache until col2im
// has added them into dx.
constexpr int64_t kColumnBlockBytes = 512 << 10;

/*! \brief dx of images [n0, n0 + count) from their column block dcol. */
void Col2Im(const Conv2dGeom& g, const float* dcol, int64_t n0, int64_t count, float* dx) {
  const int64_t cols = g.kh * g.kw * g.C, image = g.H * g.W * g.C;
  std::fill(dx + n0 * image, dx + (n0 + count) * image, 0.f);
  for (int64_t n = n0; n < n0 + count; ++n) {
    float* out = dx + n * image;
    for (int64_t oh = 0; oh < g.OH; ++oh)
      for (int64_t ow = 0; ow < g.OW; ++ow) {
        const float* row = dcol + (((n - n0) * g.OH + oh) * g.OW + ow) * cols;
        for (int64_t i = 0; i < g.kh; ++i) {
          const int64_t ih = oh * g.sh - g.ph + i * g.dh;
          if (ih < 0 || ih >= g.H) continue;
          for (int64_t j = 0; j < g.kw; ++j) {
            const int64_t iw = ow * g.sw - g.pw + j * g.dw;
            if (iw < 0 || iw >= g.W) continue;
            const float* src = row + (i * g.kw + j) * g.C;
            float* dst = out + (ih * g.W + iw) * g.C;
            for (int64_t c = 0; c < g.C; ++c) dst[c] += src[c];
          }
        }
      }
  }
}

}  // namespace

void ChannelLastBackwardData(const Conv2dGeom& g, const float* dy, const float* w, float* dx) {
  const int64_t taps = g.kh * g.kw, cols = taps * g.C, pixels = g.OH * g.OW;
  // w' (F x kh*kw*C): the taps of one output channel with the input channels innermost, so
  // each tap's block of a dcol row is the C contiguous channels of one dx pixel.
  std::vector<float> wt(static_cast<size_t>(g.F * cols));
  for (int64_t f = 0; f < g.F; ++f)
    for (int64_t c = 0; c < g.C; ++c)
      for (int64_t t = 0; t < taps; ++t) wt[(f * taps + t) * g.C + c] = w[(f * g.C + c) * taps + t];
  const int64_t image_bytes = pixels * cols * static_cast<int64_t>(sizeof(float));
  const int64_t per_block = std::max<int64_t>(1, kColumnBlockBytes / std::max<int64_t>(1, image_bytes));
  const int64_t blocks = (g.N + per_block - 1) / per_block;
  // Each thread runs whole blocks (oneDNN's sgemm is single-threaded inside a parallel
  // region): its GEMM output is added into dx while still in cache, and blocks own disjoint
  // images, so no two threads add into the same dx pixel.
#pragma omp parallel if (blocks > 1 && UseParallel(g.N * pixels * cols))
  {
    // Per thread and kept: a fresh half-megabyte block would fault its pages in on every call.
    thread_local std::vector<float> dcol;
    dcol.resize(std::max(dcol.size(), static_cast<size_t>(per_block * pixels * cols)));
#pragma omp for schedule(static)
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t n0 = b * per_block, count = std::min(per_block, g.N - n0);
      const dnnl_status_t st = dnnl_sgemm('N', 'N', count * pixels, cols, g.F, 1.f, dy + n0 * pixels * g.F, g.F,
                                          wt.data(), cols, 0.f, dcol.data(), cols);
      MX_CHECK(st == dnnl_success) << "dnnl_sgemm failed in the convolution data gradient: status " << st;
      Col2Im(g, dcol.data(), n0, count, dx);
    }
  }
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_USE_ONEDNN
