/*!
 * \file conv_wgrad_few_channels.cc
 * \brief See conv_wgrad_few_channels.h.
 */
#include "operator/nn/conv_wgrad_few_channels.h"

#include <algorithm>
#include <vector>

namespace mxnet {
namespace op {
namespace {

constexpr int64_t L = kFewChannelLanes;
using few_channel::Lanes;
using few_channel::Load;
// Kernel columns summed side by side: independent accumulators hide the add latency and
// share each dy load.
constexpr int64_t kCols = 4;

/*!
 * \brief a[b][t] += sum over one output row of dy block b times x at kernel column j0 + t, for
 *        b < kB, t < kN. Each dy load serves kN columns and each x value kB blocks; the fixed
 *        trip counts unroll so the accumulators stay in registers.
 */
template <int kB, int kN>
inline void SumRow(const Conv2dGeom& g, const float* xr, const float* const* dyr, Lanes (*a)[kCols]) {
  static_assert(kB >= 1 && kB <= 2 && kN >= 1 && kN <= kCols, "register budget: 2 blocks x 4 columns");
  Lanes acc[2][kCols] = {};
#pragma GCC unroll 2
  for (int b = 0; b < kB; ++b)
#pragma GCC unroll 4
    for (int t = 0; t < kN; ++t) acc[b][t] = a[b][t];
  const int64_t sw = g.sw, dw = g.dw, OW = g.OW;
  const float* dy0 = dyr[0];
  const float* dy1 = kB > 1 ? dyr[1] : dyr[0];
  for (int64_t ow = 0; ow < OW; ++ow) {
    Lanes d0 = Load(dy0 + ow * L), d1 = Load(dy1 + ow * L);
    // Keep d0, d1 in registers: folded into each FMA as memory operands they cost kN loads
    // each instead of one, and loads, not FMAs, then bound the loop.
#if defined(__AVX__)  // a 256-bit value fits an x register only with AVX
    asm("" : "+x"(d0), "+x"(d1));
#endif
    const float* xp = xr + ow * sw;
#pragma GCC unroll 4
    for (int t = 0; t < kN; ++t) {
      const float v = xp[t * dw];
      acc[0][t] += d0 * v;
      if (kB > 1) acc[1][t] += d1 * v;
    }
  }
#pragma GCC unroll 2
  for (int b = 0; b < kB; ++b)
#pragma GCC unroll 4
    for (int t = 0; t < kN; ++t) a[b][t] = acc[b][t];
}

template <int kB>
void SumRowCols(const Conv2dGeom& g, int64_t nj, const float* xr, const float* const* dyr, Lanes (*a)[kCols]) {
  switch (nj) {
    case 4:
      SumRow<kB, 4>(g, xr, dyr, a);
      break;
    case 3:
      SumRow<kB, 3>(g, xr, dyr, a);
      break;
    case 2:
      SumRow<kB, 2>(g, xr, dyr, a);
      break;
    default:
      SumRow<kB, 1>(g, xr, dyr, a);
      break;
  }
}

/*! \brief Adds one image's contribution to acc ([Fb][C][kh][kw][L]) and bacc ([Fb][L]). */
void AddImage(const Conv2dGeom& g, int64_t Fb, const float* x, const float* dy, float* acc, float* bacc,
              std::vector<float>* pad) {
  const int64_t Hp = g.H + 2 * g.ph, Wp = g.W + 2 * g.pw, plane = g.OH * g.OW * L;
  pad->resize(g.C * Hp * Wp);
  few_channel::PadPlanes(g, x, g.C, pad->data());
  if (bacc) {
    for (int64_t fb = 0; fb < Fb; ++fb) {
      Lanes b = {};
      for (int64_t i = 0; i < g.OH * g.OW; ++i) b += Load(dy + fb * plane + i * L);
      for (int64_t l = 0; l < L; ++l) bacc[fb * L + l] += b[l];
    }
  }
  // Output-channel blocks two at a time (kRows), kernel columns kCols at a time, output rows a
  // tile at a time: every (channel, kernel row, column group) pass over a tile of dy then reads
  // it from L1 instead of streaming a whole plane (400 KB per block for a 112x112 output).
  constexpr int64_t kRows = 2, kTileBytes = 16 << 10;
  const int64_t tile = std::max<int64_t>(1, kTileBytes / (kRows * g.OW * L * int64_t{sizeof(float)}));
  for (int64_t fb0 = 0; fb0 < Fb; fb0 += kRows) {
    const int64_t nb = std::min(kRows, Fb - fb0);
    for (int64_t oh0 = 0; oh0 < g.OH; oh0 += tile) {
      const int64_t oh1 = std::min(g.OH, oh0 + tile);
      for (int64_t c = 0; c < g.C; ++c) {
        const float* xc = pad->data() + c * Hp * Wp;
        for (int64_t i = 0; i < g.kh; ++i) {
          for (int64_t j0 = 0; j0 < g.kw; j0 += kCols) {
            const int64_t nj = std::min(kCols, g.kw - j0);
            Lanes a[kRows][kCols] = {};
            for (int64_t oh = oh0; oh < oh1; ++oh) {
              const float* xr = xc + (oh * g.sh + i * g.dh) * Wp + j0 * g.dw;
              const float* dyr[kRows];
              for (int64_t b = 0; b < nb; ++b) dyr[b] = dy + (fb0 + b) * plane + oh * g.OW * L;
              if (nb == 2)
                SumRowCols<2>(g, nj, xr, dyr, a);
              else
                SumRowCols<1>(g, nj, xr, dyr, a);
            }
            for (int64_t b = 0; b < nb; ++b) {
              float* out = acc + ((((fb0 + b) * g.C + c) * g.kh + i) * g.kw + j0) * L;
              for (int64_t t = 0; t < nj; ++t)
                for (int64_t l = 0; l < L; ++l) out[t * L + l] += a[b][t][l];
            }
          }
        }
      }
    }
  }
}

}  // namespace

void FewChannelWeightGrad(const Conv2dGeom& g, const float* x, const float* dy8, float* dw, float* db) {
  const int64_t Fb = (g.F + L - 1) / L;
  const int64_t wsize = Fb * g.C * g.kh * g.kw * L, bsize = Fb * L;
  // Fixed chunks of images, independent of the thread count; each sums into its own slot.
  const int64_t chunks = std::min<int64_t>(g.N, 16);
  std::vector<float> acc(chunks * wsize, 0.f), bacc(db ? chunks * bsize : 0, 0.f);
  const int64_t in_image = g.C * g.H * g.W, out_image = Fb * g.OH * g.OW * L;
#pragma omp parallel for schedule(static)
  for (int64_t k = 0; k < chunks; ++k) {
    std::vector<float> pad;
    const int64_t n0 = g.N * k / chunks, n1 = g.N * (k + 1) / chunks;
    for (int64_t n = n0; n < n1; ++n)
      AddImage(g, Fb, x + n * in_image, dy8 + n * out_image, acc.data() + k * wsize,
               db ? bacc.data() + k * bsize : nullptr, &pad);
  }
  for (int64_t k = 1; k < chunks; ++k) {
    for (int64_t i = 0; i < wsize; ++i) acc[i] += acc[k * wsize + i];
    for (int64_t i = 0; db && i < bsize; ++i) bacc[i] += bacc[k * bsize + i];
  }
  // [Fb][C][kh][kw][L] -> (F, C, kh, kw)
  const int64_t per_c = g.kh * g.kw;
  for (int64_t f = 0; f < g.F; ++f)
    for (int64_t c = 0; c < g.C; ++c)
      for (int64_t t = 0; t < per_c; ++t)
        dw[(f * g.C + c) * per_c + t] = acc[(((f / L) * g.C + c) * per_c + t) * L + f % L];
  if (db)
    for (int64_t f = 0; f < g.F; ++f) db[f] = bacc[f];
}

}  // namespace op
}  // namespace mxnet
