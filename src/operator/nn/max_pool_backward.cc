/*!
 * \file max_pool_backward.cc
 * \brief Max-pooling backward over blocked or plain channel-first data (max_pool_backward.h).
 */
#include "operator/nn/max_pool_backward.h"

#include <algorithm>
#include <cstring>

#include "mxnet/error.h"
#include "operator/common/parallel.h"

namespace mxnet {
namespace op {
namespace {

/*!
 * \brief Lanes [l0, l0 + n) of one (n, channel block) plane whose positions hold L lanes each
 *        (L == B for blocked formats, L == C for NHWC). Windows that tile the input (stride ==
 *        window, no padding) are written whole, once; otherwise dx was zeroed and windows
 *        accumulate. With B > 0 the lane loops have a fixed trip count the compiler vectorises
 *        (16 lanes: one AVX-512 register); B == 0 handles a runtime n < 16.
 */
template <int B>
void Lanes(const MaxPool2DGeom& g, bool tiled, int64_t L, int64_t l0, int nl, const float* x, const float* dy,
           float* dx) {
  const int n = B ? B : nl;
  for (int64_t oh = 0; oh < g.OH; ++oh) {
    const int64_t hs = oh * g.sh - g.ph;
    const int64_t h0 = std::max<int64_t>(hs, 0), h1 = std::min(hs + g.kh, g.H);
    for (int64_t ow = 0; ow < g.OW; ++ow) {
      const int64_t ws = ow * g.sw - g.pw;
      const int64_t w0 = std::max<int64_t>(ws, 0), w1 = std::min(ws + g.kw, g.W);
      if (h0 >= h1 || w0 >= w1) continue;  // a window wholly in the padding has no input
      // Local copies: with dx possibly aliasing dy as far as the compiler knows, loops over
      // the arrays themselves stayed scalar.
      const float* gp = dy + (oh * g.OW + ow) * L + l0;
      float gy[16], best[16];
      int32_t at[16];
      const int32_t first = static_cast<int32_t>(h0 * g.W + w0);
      for (int l = 0; l < n; ++l) {
        gy[l] = gp[l];
        best[l] = x[first * L + l0 + l];
        at[l] = first;
      }
      for (int64_t h = h0; h < h1; ++h)
        for (int64_t w = w0; w < w1; ++w) {
          const int32_t pos = static_cast<int32_t>(h * g.W + w);
          const float* xp = x + pos * L + l0;
          for (int l = 0; l < n; ++l) {
            const bool more = xp[l] > best[l];  // strict: the first maximum keeps the gradient
            best[l] = more ? xp[l] : best[l];
            at[l] = more ? pos : at[l];
          }
        }
      if (tiled) {
        for (int64_t h = h0; h < h1; ++h)
          for (int64_t w = w0; w < w1; ++w) {
            const int32_t pos = static_cast<int32_t>(h * g.W + w);
            float* dp = dx + pos * L + l0;
            float out[16];
            for (int l = 0; l < n; ++l) out[l] = at[l] == pos ? gy[l] : 0.f;
            for (int l = 0; l < n; ++l) dp[l] = out[l];
          }
      } else {
        for (int l = 0; l < n; ++l) dx[at[l] * L + l0 + l] += gy[l];
      }
    }
  }
}

void Plane(const MaxPool2DGeom& g, bool tiled, const float* x, const float* dy, float* dx) {
  const int64_t L = g.B;
  if (!tiled) std::memset(dx, 0, sizeof(float) * g.H * g.W * L);
  if (L == 1) return Lanes<1>(g, tiled, 1, 0, 1, x, dy, dx);
  if (L == 8) return Lanes<8>(g, tiled, 8, 0, 8, x, dy, dx);
  int64_t l0 = 0;
  for (; l0 + 16 <= L; l0 += 16) Lanes<16>(g, tiled, L, l0, 16, x, dy, dx);
  if (l0 == L) return;
  // NHWC with C % 16 != 0: tiled windows write each element once, so the last 16 lanes may
  // overlap lanes already written (same values) and stay vectorised; accumulation may not.
  if (tiled && L >= 16) return Lanes<16>(g, tiled, L, L - 16, 16, x, dy, dx);
  Lanes<0>(g, tiled, L, l0, static_cast<int>(L - l0), x, dy, dx);
}

}  // namespace

void MaxPool2DBackward(const MaxPool2DGeom& g, const float* x, const float* dy, float* dx) {
  MX_CHECK_KIND(g.B >= 1 && g.Cb >= 1, "ValueError")
      << "max-pooling backward: bad channel blocking " << g.Cb << " x " << g.B;
  // Windows partition the input when they neither overlap nor leave rows/columns uncovered.
  const bool tiled = g.sh == g.kh && g.sw == g.kw && g.ph == 0 && g.pw == 0 && g.OH * g.kh >= g.H && g.OW * g.kw >= g.W;
  const int64_t in_plane = g.H * g.W * g.B, out_plane = g.OH * g.OW * g.B;
  const int64_t planes = g.N * g.Cb;
  auto one = [&](int64_t i) { Plane(g, tiled, x + i * in_plane, dy + i * out_plane, dx + i * in_plane); };
  if (UseParallel(planes * in_plane)) {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < planes; ++i) one(i);
  } else {
    for (int64_t i = 0; i < planes; ++i) one(i);
  }
}

}  // namespace op
}  // namespace mxnet
