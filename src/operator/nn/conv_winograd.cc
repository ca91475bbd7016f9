/*!
 * \file conv_winograd.cc
 * \brief See conv_winograd.h. Work goes in chunks of tiles, one chunk per thread at a time:
 *        input transform into V ([36][tiles][C]), 36 GEMMs into M ([36][tiles][F]), output
 *        transform into y. A chunk's V and M stay in cache between the three steps.
 */
#include "operator/nn/conv_winograd.h"

#include <omp.h>

#include <algorithm>
#include <vector>

#include "operator/nn/conv_winograd_kernels.h"

namespace mxnet {
namespace op {
namespace winograd {
namespace {

using namespace kernels;  // NOLINT: the shared pieces of this file's kernels

/*! \brief M[e] = V[e] U[e] for the nt tiles of a chunk and the 16-column blocks fb0 .. fb1.
 *         U's C x 16 slice stays in L1 while every row group of V[e] passes it. */
void MultiplyChunk(const Conv2dGeom& g, const float* V, const float* u, int64_t nt, int64_t rows, int64_t fb0,
                   int64_t fb1, float* M) {
  const int64_t FB = g.F / kCols;
  for (int64_t e = 0; e < kElems; ++e) {
    const float* ve = V + e * rows * g.C;
    float* me = M + e * rows * g.F;
    for (int64_t fb = fb0; fb < fb1; ++fb) {
      const float* ub = u + (e * FB + fb) * g.C * kCols;
      for (int64_t r0 = 0; r0 < nt; r0 += kRows)
        MicroGemmRows<false, false>(std::min(kRows, nt - r0), ve + r0 * g.C, g.C, ub, g.C, me + r0 * g.F + fb * kCols,
                                    g.F);
    }
  }
}

/*! \brief y tiles t0 .. t0 + nt, 8-channel blocks fb0 .. fb1, from M: A^T m A, plus bias,
 *         then relu; edges clipped. */
void TransformOutput(const Conv2dGeom& g, const Tiling& tg, const float* M, int64_t t0, int64_t nt, int64_t rows,
                     int64_t fb0, int64_t fb1, const float* bias, bool relu, float* y, const LaneLayout& yl) {
  for (int64_t tl = 0; tl < nt; ++tl) {
    const int64_t t = t0 + tl, n = t / tg.per_image, r = t % tg.per_image;
    const int64_t oh0 = (r / tg.tw) * kOut, ow0 = (r % tg.tw) * kOut;
    const int64_t nh = std::min(kOut, g.OH - oh0), nw = std::min(kOut, g.OW - ow0);
    for (int64_t fb = fb0; fb < fb1; ++fb) {
      Lanes tmp[kOut][kAlpha];
      for (int64_t j = 0; j < kAlpha; ++j) {
        Lanes col[kAlpha], out[kOut];
        for (int64_t i = 0; i < kAlpha; ++i) col[i] = Load(M + ((i * kAlpha + j) * rows + tl) * g.F + fb * kLanes);
        OutputRow(col, out);
        for (int64_t i = 0; i < kOut; ++i) tmp[i][j] = out[i];
      }
      const Lanes b = bias ? Load(bias + fb * kLanes) : Lanes{};
      float* plane = y + yl.At(n, fb, 0, 0);
      for (int64_t i = 0; i < nh; ++i) {
        Lanes out[kOut];
        OutputRow(tmp[i], out);
        for (int64_t j = 0; j < nw; ++j) {
          Lanes v = out[j] + b;
          if (relu) v = v > 0 ? v : Lanes{};
          Store(plane + (oh0 + i) * yl.h_ + (ow0 + j) * yl.w_, v);
        }
      }
    }
  }
}

/*! \brief Tiles per chunk: V and M of a chunk in about 3 MB, and work for every thread. */
int64_t ChunkTiles(const Conv2dGeom& g, int64_t tiles, int threads) {
  constexpr int64_t kBudget = int64_t{3} << 20;
  int64_t tb = kBudget / (kElems * int64_t{sizeof(float)} * (g.C + g.F));
  tb = std::max(kRows, tb / kRows * kRows);
  const int64_t per_thread = (tiles + threads - 1) / threads;
  return std::min(tb, (per_thread + kRows - 1) / kRows * kRows);
}

}  // namespace

bool Fits(const Conv2dGeom& g) {
  return g.kh == 3 && g.kw == 3 && g.sh == 1 && g.sw == 1 && g.dh == 1 && g.dw == 1 && g.ph >= 0 && g.ph <= 2 &&
         g.pw >= 0 && g.pw <= 2 && g.C > 0 && g.C % kLanes == 0 && g.F > 0 && g.F % kCols == 0 && g.N > 0 &&
         g.OH == g.H + 2 * g.ph - 2 && g.OW == g.W + 2 * g.pw - 2 && g.OH > 0 && g.OW > 0;
}

size_t PackedWeightFloats(const Conv2dGeom& g) { return static_cast<size_t>(kElems * g.C * g.F); }

void PackWeights(const Conv2dGeom& g, const float* w, bool for_data_grad, float* u) {
  const int64_t FB = g.F / kCols;
  constexpr int64_t kBlockC = 16;
  const int64_t CBs = (g.C + kBlockC - 1) / kBlockC;
  // Work per (16-column block, 16 input channels): its 36 transformed filters go to a local
  // buffer, then to u as one contiguous run per element. Stored element by element, each
  // filter wrote 36 places a multiple of 64 KiB apart, which share a cache set (30 ms for
  // a 512x512 bank instead of 2).
#pragma omp parallel for schedule(static)
  for (int64_t item = 0; item < FB * CBs; ++item) {
    const int64_t fb = item / CBs, c0 = (item % CBs) * kBlockC, nc = std::min(kBlockC, g.C - c0);
    Lanes buf[kElems][kBlockC][kCols / kLanes];
    for (int64_t cl = 0; cl < nc; ++cl) {
      const int64_t c = c0 + cl;
      for (int64_t half = 0; half < kCols / kLanes; ++half) {
        Lanes k[3][3];
        for (int64_t lane = 0; lane < kLanes; ++lane) {
          const int64_t f = fb * kCols + half * kLanes + lane;
          for (int64_t i = 0; i < 3; ++i)
            for (int64_t j = 0; j < 3; ++j)
              k[i][j][lane] =
                  for_data_grad ? w[(c * g.F + f) * 9 + (2 - i) * 3 + (2 - j)] : w[(f * g.C + c) * 9 + i * 3 + j];
        }
        Lanes cols[kAlpha][3];
        for (int64_t j = 0; j < 3; ++j) {
          const Lanes col[3] = {k[0][j], k[1][j], k[2][j]};
          Lanes out[kAlpha];
          FilterRow(col, out);
          for (int64_t i = 0; i < kAlpha; ++i) cols[i][j] = out[i];
        }
        for (int64_t i = 0; i < kAlpha; ++i) {
          Lanes out[kAlpha];
          FilterRow(cols[i], out);
          for (int64_t j = 0; j < kAlpha; ++j) buf[i * kAlpha + j][cl][half] = out[j];
        }
      }
    }
    for (int64_t e = 0; e < kElems; ++e)
      std::copy_n(reinterpret_cast<const float*>(buf[e]), nc * kCols, u + ((e * FB + fb) * g.C + c0) * kCols);
  }
}

void UnpackWeights(const Conv2dGeom& g, const float* u, float* w) {
  const int64_t FB = g.F / kCols;
  // FilterRow's outputs 0, 5 and 3 - 4 are g0 / 4, g2 and g1 / 6.
  const auto invert = [](const float* t, int64_t stride, float* k) {
    k[0] = 4 * t[0];
    k[1] = 6 * (t[3 * stride] - t[4 * stride]);
    k[2] = t[5 * stride];
  };
  for (int64_t f = 0; f < g.F; ++f) {
    for (int64_t c = 0; c < g.C; ++c) {
      float tile[kAlpha][kAlpha], rows[3][kAlpha];
      for (int64_t e = 0; e < kElems; ++e)
        tile[e / kAlpha][e % kAlpha] = u[((e * FB + f / kCols) * g.C + c) * kCols + f % kCols];
      for (int64_t j = 0; j < kAlpha; ++j) {
        float k[3];
        invert(&tile[0][j], kAlpha, k);
        for (int64_t i = 0; i < 3; ++i) rows[i][j] = k[i];
      }
      for (int64_t i = 0; i < 3; ++i) invert(rows[i], 1, w + ((f * g.C + c) * 3 + i) * 3);
    }
  }
}

void Forward(const Conv2dGeom& g, const float* x, const LaneLayout& xl, const float* u, const float* bias, bool relu,
             float* y, const LaneLayout& yl) {
  const Tiling tg(g);
  const int threads = omp_get_max_threads();
  const int64_t rows = ChunkTiles(g, tg.total, threads);
  const int64_t chunks = (tg.total + rows - 1) / rows;
  // Fewer chunks than threads (small images at batch 1): the threads share a chunk's output
  // channels instead, each transforming the chunk's input for itself.
  const int64_t FB = g.F / kCols;
  const int64_t parts = chunks >= threads ? 1 : std::min<int64_t>(FB, (threads + chunks - 1) / chunks);
#pragma omp parallel
  {
    // Per-thread scratch, kept between calls so its pages are faulted in once.
    thread_local std::vector<float> V, M;
    V.resize(static_cast<size_t>(kElems * rows * g.C));
    M.resize(static_cast<size_t>(kElems * rows * g.F));
#pragma omp for schedule(static)
    for (int64_t item = 0; item < chunks * parts; ++item) {
      const int64_t k = item / parts, p = item % parts;
      const int64_t t0 = k * rows, nt = std::min(rows, tg.total - t0);
      const int64_t fb0 = FB * p / parts, fb1 = FB * (p + 1) / parts;
      // V[e][tl][C]
      const auto at = [&](int64_t e, int64_t tl, int64_t cb) { return (e * rows + tl) * g.C + cb * kLanes; };
      TransformInput(g, tg, x, xl, t0, nt, at, V.data());
      MultiplyChunk(g, V.data(), u, nt, rows, fb0, fb1, M.data());
      TransformOutput(g, tg, M.data(), t0, nt, rows, fb0 * (kCols / kLanes), fb1 * (kCols / kLanes), bias, relu, y, yl);
    }
  }
}

}  // namespace winograd
}  // namespace op
}  // namespace mxnet
