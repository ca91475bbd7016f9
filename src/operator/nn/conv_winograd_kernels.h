/*!
 * \file conv_winograd_kernels.h
 * \brief What the Winograd F(4x4, 3x3) kernels (conv_winograd.cc: forward and data gradient;
 *        conv_winograd_wgrad.cc: weight gradient) share: vectors of 8 channels (see LaneLayout), the
 *        1-D transforms, the tiling of the output, the input transform and the GEMM micro-tile.
 *        Internal to those two files.
 */
#ifndef MXNET_OPERATOR_NN_CONV_WINOGRAD_KERNELS_H_
#define MXNET_OPERATOR_NN_CONV_WINOGRAD_KERNELS_H_

#include <cstdint>

#include "operator/nn/conv2d_geom.h"
#include "operator/nn/conv_winograd.h"
#include "operator/nn/float_lanes.h"

namespace mxnet {
namespace op {
namespace winograd {
namespace kernels {

using lanes::kLanes;           // channels per vector (and per nChw8c block)
constexpr int64_t kCols = 16;  // output channels per GEMM micro-tile (two vectors)
constexpr int64_t kRows = 6;   // tiles per GEMM micro-tile: 12 accumulators + 2 weight vectors
constexpr int64_t kAlpha = 6;  // transform-domain tile side
constexpr int64_t kOut = 4;    // output tile side
constexpr int64_t kElems = kAlpha * kAlpha;

using lanes::Fma;
using lanes::Lanes;
using lanes::Load;
using lanes::Splat;
using lanes::Store;

// The 1-D transforms of F(4, 3) with interpolation points 0, -1, 1, -2, 2 and infinity:
// d -> B^T d (input), g -> G g (filter), m -> A^T m (output).
template <typename T>
inline void InputRow(const T* d, T* r) {
  r[0] = 4 * d[0] - 5 * d[2] + d[4];
  r[1] = d[3] + d[4] - 4 * (d[1] + d[2]);
  r[2] = 4 * (d[1] - d[2]) - d[3] + d[4];
  r[3] = 2 * (d[3] - d[1]) + d[4] - d[2];
  r[4] = 2 * (d[1] - d[3]) + d[4] - d[2];
  r[5] = 4 * d[1] - 5 * d[3] + d[5];
}

template <typename T>
inline void FilterRow(const T* g, T* u) {
  // Products with the reciprocals, not divisions.
  const T sum = g[0] + g[2], quarter = g[0] * 0.25f + g[2];
  u[0] = g[0] * 0.25f;
  u[1] = -(sum + g[1]) * (1.f / 6);
  u[2] = -(sum - g[1]) * (1.f / 6);
  u[3] = (quarter + g[1] * 0.5f) * (1.f / 6);
  u[4] = (quarter - g[1] * 0.5f) * (1.f / 6);
  u[5] = g[2];
}

inline void OutputRow(const Lanes* m, Lanes* o) {
  const Lanes s12 = m[1] + m[2], d12 = m[1] - m[2], s34 = m[3] + m[4], d34 = m[3] - m[4];
  o[0] = m[0] + s12 + s34;
  o[1] = d12 + 2 * d34;
  o[2] = s12 + 4 * s34;
  o[3] = d12 + 8 * d34 + m[5];
}

struct Tiling {
  int64_t th, tw, per_image, total;
  explicit Tiling(const Conv2dGeom& g)
      : th((g.OH + kOut - 1) / kOut), tw((g.OW + kOut - 1) / kOut), per_image(th * tw), total(g.N * th * tw) {}
};

/*!
 * \brief The transforms B^T d B of the 6x6 input tiles t0 .. t0 + nt of x (laid out by xl),
 *        element e of tile tl and channel block cb stored at V + at(e, tl, cb).
 */
template <typename At>
inline void TransformInput(const Conv2dGeom& g, const Tiling& tg, const float* x, const LaneLayout& xl, int64_t t0,
                           int64_t nt, const At& at, float* V) {
  const int64_t CB = g.C / kLanes;
  for (int64_t tl = 0; tl < nt; ++tl) {
    const int64_t t = t0 + tl, n = t / tg.per_image, r = t % tg.per_image;
    const int64_t h0 = (r / tg.tw) * kOut - g.ph, w0 = (r % tg.tw) * kOut - g.pw;
    const bool inside = h0 >= 0 && w0 >= 0 && h0 + kAlpha <= g.H && w0 + kAlpha <= g.W;
    for (int64_t cb = 0; cb < CB; ++cb) {
      const float* plane = x + xl.At(n, cb, 0, 0);
      Lanes d[kAlpha][kAlpha], tmp[kAlpha][kAlpha];
      for (int64_t i = 0; i < kAlpha; ++i) {
        const int64_t h = h0 + i;
        for (int64_t j = 0; j < kAlpha; ++j) {
          const int64_t w = w0 + j;
          d[i][j] = inside || (h >= 0 && h < g.H && w >= 0 && w < g.W) ? Load(plane + h * xl.h_ + w * xl.w_) : Lanes{};
        }
      }
      // Columns, then rows: tmp = B^T d, V = tmp B.
      for (int64_t j = 0; j < kAlpha; ++j) {
        Lanes col[kAlpha], out[kAlpha];
        for (int64_t i = 0; i < kAlpha; ++i) col[i] = d[i][j];
        InputRow(col, out);
        for (int64_t i = 0; i < kAlpha; ++i) tmp[i][j] = out[i];
      }
      for (int64_t i = 0; i < kAlpha; ++i) {
        Lanes out[kAlpha];
        InputRow(tmp[i], out);
        for (int64_t j = 0; j < kAlpha; ++j) Store(V + at(i * kAlpha + j, tl, cb), out[j]);
      }
    }
  }
}

/*!
 * \brief c[r][0..16) (+)= sum_k a(r, k) * b[k][0..16) for R rows; a(r, k) is a[r * lda + k], or
 *        a[k * lda + r] with kTransA. kAccumulate adds to c instead of overwriting it.
 */
template <int R, bool kTransA, bool kAccumulate>
inline void MicroGemm(const float* a, int64_t lda, const float* b, int64_t K, float* c, int64_t ldc) {
  Lanes acc[R][2];
  for (int r = 0; r < R; ++r) {
    acc[r][0] = kAccumulate ? Load(c + r * ldc) : Lanes{};
    acc[r][1] = kAccumulate ? Load(c + r * ldc + kLanes) : Lanes{};
  }
  for (int64_t k = 0; k < K; ++k) {
    const Lanes b0 = Load(b + k * kCols), b1 = Load(b + k * kCols + kLanes);
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) {
      const Lanes av = Splat(kTransA ? a[k * lda + r] : a[r * lda + k]);
      acc[r][0] = Fma(av, b0, acc[r][0]);
      acc[r][1] = Fma(av, b1, acc[r][1]);
    }
  }
  for (int r = 0; r < R; ++r) {
    Store(c + r * ldc, acc[r][0]);
    Store(c + r * ldc + kLanes, acc[r][1]);
  }
}

template <bool kTransA, bool kAccumulate>
inline void MicroGemmRows(int64_t rows, const float* a, int64_t lda, const float* b, int64_t K, float* c, int64_t ldc) {
  switch (rows) {
    case 6:
      return MicroGemm<6, kTransA, kAccumulate>(a, lda, b, K, c, ldc);
    case 5:
      return MicroGemm<5, kTransA, kAccumulate>(a, lda, b, K, c, ldc);
    case 4:
      return MicroGemm<4, kTransA, kAccumulate>(a, lda, b, K, c, ldc);
    case 3:
      return MicroGemm<3, kTransA, kAccumulate>(a, lda, b, K, c, ldc);
    case 2:
      return MicroGemm<2, kTransA, kAccumulate>(a, lda, b, K, c, ldc);
    default:
      return MicroGemm<1, kTransA, kAccumulate>(a, lda, b, K, c, ldc);
  }
}

}  // namespace kernels
}  // namespace winograd
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_CONV_WINOGRAD_KERNELS_H_
