/*!
 * \file conv_winograd_wgrad.cc
 * \brief See conv_winograd.h (WeightGrad). For F(4x4, 3x3) the forward tile is
 *        y = A^T [(G w G^T) (.) (B^T x B)] A; transposing that bilinear form gives each tile's
 *        share of the weight gradient as G^T [(A dy A^T) (.) (B^T x B)] G. The threads share one
 *        chunk of tiles at a time: both transforms split by tiles, then the 36 GEMMs
 *        M[e] += DY[e]^T V[e] split by element, so every M[e] has one writer.
 */
#include <omp.h>

#include <algorithm>
#include <vector>

#include "operator/nn/conv_winograd.h"
#include "operator/nn/conv_winograd_kernels.h"

namespace mxnet {
namespace op {
namespace winograd {
namespace {

using namespace kernels;  // NOLINT: the shared pieces of the Winograd kernels

/*! \brief A d (6 from 4): A^T's columns, the output transform transposed. */
inline void GradRow(const Lanes* d, Lanes* r) {
  const Lanes s02 = d[0] + d[2], s13 = d[1] + d[3];
  r[0] = d[0];
  r[1] = s02 + s13;
  r[2] = s02 - s13;
  r[3] = d[0] + 2 * d[1] + 4 * d[2] + 8 * d[3];
  r[4] = d[0] - 2 * d[1] + 4 * d[2] - 8 * d[3];
  r[5] = d[3];
}

/*! \brief G^T m (3 from 6): the filter transform transposed. */
inline void FilterGradRow(const Lanes* m, Lanes* o) {
  const Lanes s12 = m[1] + m[2], s34 = m[3] + m[4];
  o[0] = m[0] * 0.25f - s12 * (1.f / 6) + s34 * (1.f / 24);
  o[1] = (m[2] - m[1]) * (1.f / 6) + (m[3] - m[4]) * (1.f / 12);
  o[2] = (s34 - s12) * (1.f / 6) + m[5];
}

/*! \brief DY[e][tl][F] = A dy A^T of the 4x4 dy tile t (zero past the output's edges). */
void TransformGrad(const Conv2dGeom& g, const Tiling& tg, const float* dy, const LaneLayout& dyl, int64_t t, int64_t tl,
                   int64_t rows, float* DY) {
  const int64_t FB = g.F / kLanes, n = t / tg.per_image, r = t % tg.per_image;
  const int64_t oh0 = (r / tg.tw) * kOut, ow0 = (r % tg.tw) * kOut;
  const int64_t nh = std::min(kOut, g.OH - oh0), nw = std::min(kOut, g.OW - ow0);
  for (int64_t fb = 0; fb < FB; ++fb) {
    const float* plane = dy + dyl.At(n, fb, 0, 0);
    Lanes tmp[kAlpha][kOut];
    for (int64_t j = 0; j < kOut; ++j) {
      Lanes col[kOut], out[kAlpha];
      for (int64_t i = 0; i < kOut; ++i)
        col[i] = i < nh && j < nw ? Load(plane + (oh0 + i) * dyl.h_ + (ow0 + j) * dyl.w_) : Lanes{};
      GradRow(col, out);
      for (int64_t i = 0; i < kAlpha; ++i) tmp[i][j] = out[i];
    }
    for (int64_t i = 0; i < kAlpha; ++i) {
      Lanes out[kAlpha];
      GradRow(tmp[i], out);
      for (int64_t j = 0; j < kAlpha; ++j) Store(DY + ((i * kAlpha + j) * rows + tl) * g.F + fb * kLanes, out[j]);
    }
  }
}

/*! \brief dw[f][c0 .. c0 + 8) = G^T M G from M ([36][F][C]). */
void FinishFilters(const Conv2dGeom& g, const float* M, int64_t f, int64_t c0, float* dw) {
  Lanes m[kAlpha][kAlpha], cols[3][kAlpha];
  for (int64_t e = 0; e < kElems; ++e) m[e / kAlpha][e % kAlpha] = Load(M + (e * g.F + f) * g.C + c0);
  for (int64_t j = 0; j < kAlpha; ++j) {
    Lanes col[kAlpha], out[3];
    for (int64_t i = 0; i < kAlpha; ++i) col[i] = m[i][j];
    FilterGradRow(col, out);
    for (int64_t i = 0; i < 3; ++i) cols[i][j] = out[i];
  }
  for (int64_t i = 0; i < 3; ++i) {
    Lanes out[3];
    FilterGradRow(cols[i], out);
    for (int64_t j = 0; j < 3; ++j)
      for (int64_t l = 0; l < kLanes; ++l) dw[((f * g.C + c0 + l) * 3 + i) * 3 + j] = out[j][l];
  }
}

}  // namespace

bool WeightGradFits(const Conv2dGeom& g) {
  Conv2dGeom swapped = g;  // Fits asks F % 16 and C % 8; the weight gradient the reverse
  swapped.C = g.F;
  swapped.F = g.C;
  return Fits(swapped);
}

void WeightGrad(const Conv2dGeom& g, const float* x, const LaneLayout& xl, const float* dy, const LaneLayout& dyl,
                float* dw, float* db) {
  const Tiling tg(g);
  // Tiles per chunk: the chunk's V and DY in about 8 MB (L3), shared by the threads.
  constexpr int64_t kBudget = int64_t{8} << 20;
  const int64_t rows = std::min(tg.total, std::max(kRows, kBudget / (kElems * int64_t{sizeof(float)} * (g.C + g.F))));
  const int64_t CB16 = g.C / kCols;
  thread_local std::vector<float> V, DY, M;
  V.resize(static_cast<size_t>(kElems * rows * g.C));
  DY.resize(static_cast<size_t>(kElems * rows * g.F));
  M.resize(static_cast<size_t>(kElems * g.F * g.C));  // the first chunk writes it, later ones add
  float *v = V.data(), *d = DY.data(), *m = M.data();
  // V[e][C / 16][tl][16]: each 16-channel column block of V[e] is a contiguous GEMM operand.
  const auto at = [&](int64_t e, int64_t tl, int64_t cb) {
    return ((e * CB16 + cb / 2) * rows + tl) * kCols + (cb % 2) * kLanes;
  };
#pragma omp parallel
  {
    for (int64_t t0 = 0; t0 < tg.total; t0 += rows) {
      const int64_t nt = std::min(rows, tg.total - t0);
#pragma omp for schedule(static)
      for (int64_t tl = 0; tl < nt; ++tl) {
        const auto at_tl = [&](int64_t e, int64_t, int64_t cb) { return at(e, tl, cb); };
        TransformInput(g, tg, x, xl, t0 + tl, 1, at_tl, v);
        TransformGrad(g, tg, dy, dyl, t0 + tl, tl, rows, d);
      }
#pragma omp for schedule(static)
      for (int64_t e = 0; e < kElems; ++e) {
        const float* de = d + e * rows * g.F;
        for (int64_t cb = 0; cb < CB16; ++cb) {
          const float* vb = v + (e * CB16 + cb) * rows * kCols;
          for (int64_t f0 = 0; f0 < g.F; f0 += kRows) {
            const int64_t nf = std::min(kRows, g.F - f0);
            float* me = m + (e * g.F + f0) * g.C + cb * kCols;
            if (t0 == 0)
              MicroGemmRows<true, false>(nf, de + f0, g.F, vb, nt, me, g.C);
            else
              MicroGemmRows<true, true>(nf, de + f0, g.F, vb, nt, me, g.C);
          }
        }
      }
    }
#pragma omp for schedule(static)
    for (int64_t f = 0; f < g.F; ++f)
      for (int64_t c0 = 0; c0 < g.C; c0 += kLanes) FinishFilters(g, m, f, c0, dw);
    if (db) {
      const int64_t FB = g.F / kLanes;
#pragma omp for schedule(static)
      for (int64_t fb = 0; fb < FB; ++fb) {
        Lanes sum{};
        for (int64_t n = 0; n < g.N; ++n)
          for (int64_t h = 0; h < g.OH; ++h) {
            const float* p = dy + dyl.At(n, fb, h, 0);
            for (int64_t w = 0; w < g.OW; ++w) sum += Load(p + w * dyl.w_);
          }
        Store(db + fb * kLanes, sum);
      }
    }
  }
}

}  // namespace winograd
}  // namespace op
}  // namespace mxnet
