// The Winograd F(4x4, 3x3) kernels against double-precision direct sums on nChw8c and
// channel-last data: the
// forward with paddings 0-2, sizes that leave partial 4x4 tiles, enough tiles for several
// chunks per thread, bias and ReLU; the data gradient through the flipped, transposed weights;
// the weight gradient summed in the transform domain; the weight transform's inverse; and the
// shapes the kernels refuse.
#include "operator/nn/conv_winograd.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "conv2d_geometry.h"

namespace mxnet {
namespace op {
namespace {

constexpr int64_t L = 8;

std::vector<float> Random(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> v(n);
  for (auto& x : v) x = u(gen);
  return v;
}

/*! \brief How a test lays out an activation: nChw8c, or channel-last. */
enum class Lay { kBlocked8, kChannelLast };

winograd::LaneLayout LayoutOf(Lay lay, int64_t C, int64_t H, int64_t W) {
  return lay == Lay::kBlocked8 ? winograd::LaneLayout::Blocked8(C, H, W) : winograd::LaneLayout::ChannelLast(C, H, W);
}

/*! \brief Offset of element (n, c, h, w) of an (N, C, H, W) activation laid out as lay. */
int64_t Offset(Lay lay, int64_t C, int64_t H, int64_t W, int64_t n, int64_t c, int64_t h, int64_t w) {
  return LayoutOf(lay, C, H, W).At(n, c / L, h, w) + c % L;
}

/*! \brief (N, C, H, W) -> lay. */
std::vector<float> Arrange(Lay lay, const std::vector<float>& x, int64_t N, int64_t C, int64_t H, int64_t W) {
  std::vector<float> out(x.size());
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t w = 0; w < W; ++w) out[Offset(lay, C, H, W, n, c, h, w)] = x[((n * C + c) * H + h) * W + w];
  return out;
}

const char* Name(Lay lay) { return lay == Lay::kBlocked8 ? "nChw8c" : "channel-last"; }

// Rounding of the transforms grows with the sum of the absolute products; 2e-5 of it is about
// 100 float32 ulps, while a wrong tap or tile is off by a whole product.
constexpr double kRelTol = 2e-5;

void CheckForward(Lay lay, int64_t N, int64_t C, int64_t F, int64_t H, int64_t W, int64_t p, bool with_bias,
                  bool relu) {
  SCOPED_TRACE(Name(lay));
  const Conv2dGeom g = test::Geom(N, C, F, H, W, 3, 3, 1, 1, p, 1);
  ASSERT_TRUE(winograd::Fits(g));
  const unsigned seed = static_cast<unsigned>(N * 1000 + C * 100 + F * 10 + H + p);
  const std::vector<float> x = Random(N * C * H * W, seed), w = Random(F * C * 9, seed + 1), b = Random(F, seed + 2);
  std::vector<float> u(winograd::PackedWeightFloats(g));
  winograd::PackWeights(g, w.data(), false, u.data());
  std::vector<float> y8(N * F * g.OH * g.OW, std::numeric_limits<float>::quiet_NaN());
  winograd::Forward(g, Arrange(lay, x, N, C, H, W).data(), LayoutOf(lay, C, H, W), u.data(),
                    with_bias ? b.data() : nullptr, relu, y8.data(), LayoutOf(lay, F, g.OH, g.OW));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t f = 0; f < F; ++f)
      for (int64_t oh = 0; oh < g.OH; ++oh)
        for (int64_t ow = 0; ow < g.OW; ++ow) {
          double want = with_bias ? b[f] : 0.0, mag = 0;
          for (int64_t c = 0; c < C; ++c)
            for (int64_t i = 0; i < 3; ++i)
              for (int64_t j = 0; j < 3; ++j) {
                const int64_t h = oh - p + i, ww = ow - p + j;
                if (h < 0 || h >= H || ww < 0 || ww >= W) continue;
                const double t =
                    static_cast<double>(w[((f * C + c) * 3 + i) * 3 + j]) * x[((n * C + c) * H + h) * W + ww];
                want += t;
                mag += std::fabs(t);
              }
          if (relu) want = std::max(want, 0.0);
          ASSERT_NEAR(y8[Offset(lay, F, g.OH, g.OW, n, f, oh, ow)], want, kRelTol * (1 + mag))
              << "n " << n << " f " << f << " oh " << oh << " ow " << ow;
        }
}

TEST(WinogradConv, ForwardMatchesDirectSum) {
  for (Lay lay : {Lay::kBlocked8, Lay::kChannelLast}) {
    // N, C, F, H, W, pad, bias, relu
    CheckForward(lay, 2, 16, 32, 8, 8, 1, true, true);     // whole tiles
    CheckForward(lay, 3, 8, 16, 7, 9, 1, false, false);    // partial tiles on both edges
    CheckForward(lay, 1, 24, 16, 10, 6, 0, true, false);   // no padding: 8x4 output
    CheckForward(lay, 2, 8, 48, 5, 5, 2, false, true);     // padding 2: 7x7 output
    CheckForward(lay, 4, 16, 16, 30, 26, 1, true, true);   // 224 tiles: a chunk per thread
    CheckForward(lay, 8, 16, 16, 64, 64, 1, true, false);  // 2048 tiles: several chunks per thread
    CheckForward(lay, 1, 64, 64, 14, 14, 1, true, false);  // ResNet's 14x14 stage at batch 1
  }
}

class WinogradLayouts : public ::testing::TestWithParam<Lay> {};

TEST_P(WinogradLayouts, DataGradientMatchesDirectSum) {
  const Lay lay = GetParam();
  // The forward convolution (C -> F, pad p) whose dx the kernels compute from dy.
  const int64_t N = 2, C = 16, F = 24, H = 9, W = 11, p = 1;
  const Conv2dGeom g = test::Geom(N, C, F, H, W, 3, 3, 1, 1, p, 1);
  const Conv2dGeom dg{N, F, C, g.OH, g.OW, H, W, 3, 3, 1, 1, 2 - p, 2 - p, 1, 1};
  ASSERT_TRUE(winograd::Fits(dg));
  const std::vector<float> dy = Random(N * F * g.OH * g.OW, 7), w = Random(F * C * 9, 8);
  std::vector<float> u(winograd::PackedWeightFloats(dg));
  winograd::PackWeights(dg, w.data(), true, u.data());
  std::vector<float> dx8(N * C * H * W, std::numeric_limits<float>::quiet_NaN());
  winograd::Forward(dg, Arrange(lay, dy, N, F, g.OH, g.OW).data(), LayoutOf(lay, F, g.OH, g.OW), u.data(), nullptr,
                    false, dx8.data(), LayoutOf(lay, C, H, W));
  // dx[n][c][h][w] = sum over f, i, j of w[f][c][i][j] dy[n][f][h + p - i][w + p - j].
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t ww = 0; ww < W; ++ww) {
          double want = 0, mag = 0;
          for (int64_t f = 0; f < F; ++f)
            for (int64_t i = 0; i < 3; ++i)
              for (int64_t j = 0; j < 3; ++j) {
                const int64_t oh = h + p - i, ow = ww + p - j;
                if (oh < 0 || oh >= g.OH || ow < 0 || ow >= g.OW) continue;
                const double t =
                    static_cast<double>(w[((f * C + c) * 3 + i) * 3 + j]) * dy[((n * F + f) * g.OH + oh) * g.OW + ow];
                want += t;
                mag += std::fabs(t);
              }
          ASSERT_NEAR(dx8[Offset(lay, C, H, W, n, c, h, ww)], want, kRelTol * (1 + mag))
              << "n " << n << " c " << c << " h " << h << " w " << ww;
        }
}

void CheckWeightGrad(Lay x_lay, Lay dy_lay, int64_t N, int64_t C, int64_t F, int64_t H, int64_t W, int64_t p) {
  SCOPED_TRACE(std::string("x ") + Name(x_lay) + ", dy " + Name(dy_lay));
  const Conv2dGeom g = test::Geom(N, C, F, H, W, 3, 3, 1, 1, p, 1);
  ASSERT_TRUE(winograd::WeightGradFits(g));
  const unsigned seed = static_cast<unsigned>(N * 1000 + C * 100 + F * 10 + H + p);
  const std::vector<float> x = Random(N * C * H * W, seed), dy = Random(N * F * g.OH * g.OW, seed + 1);
  std::vector<float> dw(F * C * 9, std::numeric_limits<float>::quiet_NaN()),
      db(F, std::numeric_limits<float>::quiet_NaN());
  winograd::WeightGrad(g, Arrange(x_lay, x, N, C, H, W).data(), LayoutOf(x_lay, C, H, W),
                       Arrange(dy_lay, dy, N, F, g.OH, g.OW).data(), LayoutOf(dy_lay, F, g.OH, g.OW), dw.data(),
                       db.data());
  for (int64_t f = 0; f < F; ++f) {
    double want_b = 0, mag_b = 0;
    for (int64_t n = 0; n < N; ++n)
      for (int64_t i = 0; i < g.OH * g.OW; ++i) {
        want_b += dy[(n * F + f) * g.OH * g.OW + i];
        mag_b += std::fabs(dy[(n * F + f) * g.OH * g.OW + i]);
      }
    ASSERT_NEAR(db[f], want_b, 1e-6 * (1 + mag_b)) << "f " << f;
    for (int64_t c = 0; c < C; ++c)
      for (int64_t i = 0; i < 3; ++i)
        for (int64_t j = 0; j < 3; ++j) {
          double want = 0, mag = 0;
          for (int64_t n = 0; n < N; ++n)
            for (int64_t oh = 0; oh < g.OH; ++oh)
              for (int64_t ow = 0; ow < g.OW; ++ow) {
                const int64_t h = oh - p + i, ww = ow - p + j;
                if (h < 0 || h >= H || ww < 0 || ww >= W) continue;
                const double t =
                    static_cast<double>(dy[((n * F + f) * g.OH + oh) * g.OW + ow]) * x[((n * C + c) * H + h) * W + ww];
                want += t;
                mag += std::fabs(t);
              }
          ASSERT_NEAR(dw[((f * C + c) * 3 + i) * 3 + j], want, kRelTol * (1 + mag))
              << "f " << f << " c " << c << " i " << i << " j " << j;
        }
  }
}

TEST_P(WinogradLayouts, WeightGradientMatchesDirectSum) {
  const Lay lay = GetParam(), other = lay == Lay::kBlocked8 ? Lay::kChannelLast : Lay::kBlocked8;
  // N, C, F, H, W, pad
  CheckWeightGrad(lay, lay, 2, 16, 8, 8, 8, 1);     // whole tiles; F one block, fewer than 6 GEMM rows
  CheckWeightGrad(lay, lay, 3, 32, 24, 7, 9, 1);    // partial tiles on both edges
  CheckWeightGrad(lay, lay, 1, 16, 16, 10, 6, 0);   // no padding
  CheckWeightGrad(lay, lay, 2, 16, 40, 5, 5, 2);    // padding 2
  CheckWeightGrad(lay, lay, 4, 16, 16, 40, 36, 1);  // 360 tiles: one shared chunk
  CheckWeightGrad(lay, lay, 8, 16, 16, 64, 64, 1);  // 2048 tiles: two chunks, the second adding to the sums
  CheckWeightGrad(lay, other, 2, 32, 24, 9, 7, 1);  // x and dy in different layouts
}

INSTANTIATE_TEST_SUITE_P(Both, WinogradLayouts, ::testing::Values(Lay::kBlocked8, Lay::kChannelLast),
                         [](const ::testing::TestParamInfo<Lay>& info) {
                           return info.param == Lay::kBlocked8 ? std::string("Blocked8") : std::string("ChannelLast");
                         });

TEST(WinogradConv, UnpackInvertsPack) {
  const Conv2dGeom g = test::Geom(1, 24, 32, 6, 6, 3, 3, 1, 1, 1, 1);
  const std::vector<float> w = Random(32 * 24 * 9, 3);
  std::vector<float> u(winograd::PackedWeightFloats(g)), back(w.size(), std::numeric_limits<float>::quiet_NaN());
  winograd::PackWeights(g, w.data(), false, u.data());
  winograd::UnpackWeights(g, u.data(), back.data());
  for (size_t i = 0; i < w.size(); ++i) ASSERT_NEAR(back[i], w[i], 1e-6) << "element " << i;
}

TEST(WinogradConv, RefusesOtherShapes) {
  EXPECT_FALSE(winograd::Fits(test::Geom(1, 16, 16, 8, 8, 3, 3, 2, 2, 1, 1)));  // stride 2
  EXPECT_FALSE(winograd::Fits(test::Geom(1, 16, 16, 8, 8, 5, 5, 1, 1, 2, 1)));  // 5x5
  EXPECT_FALSE(winograd::Fits(test::Geom(1, 16, 16, 8, 8, 3, 3, 1, 1, 2, 2)));  // dilation 2
  EXPECT_FALSE(winograd::Fits(test::Geom(1, 12, 16, 8, 8, 3, 3, 1, 1, 1, 1)));  // C not whole blocks
  EXPECT_FALSE(winograd::Fits(test::Geom(1, 16, 24, 8, 8, 3, 3, 1, 1, 1, 1)));  // F not whole 16s
  EXPECT_FALSE(winograd::Fits(test::Geom(1, 16, 16, 8, 8, 3, 3, 1, 1, 3, 1)));  // padding 3
  EXPECT_TRUE(winograd::Fits(test::Geom(1, 16, 16, 8, 8, 3, 3, 1, 1, 0, 1)));
  EXPECT_FALSE(winograd::WeightGradFits(test::Geom(1, 8, 16, 8, 8, 3, 3, 1, 1, 1, 1)));  // C not whole 16s
  EXPECT_TRUE(winograd::WeightGradFits(test::Geom(1, 16, 8, 8, 8, 3, 3, 1, 1, 1, 1)));
}

}  // namespace
}  // namespace op
}  // namespace mxnet
