// FewChannelWeightGrad against a double-precision reference on plain NCHW data, for strides,
// paddings, dilations, kernels wider than its 4-column groups and output channels that leave
// lanes of the last 8-channel block unused. Those lanes hold NaN here: none may reach dw or db.
#include "operator/nn/conv_wgrad_few_channels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "conv2d_geometry.h"

namespace mxnet {
namespace op {
namespace {

using test::Geom;

void Check(const Conv2dGeom& g, bool with_bias) {
  const int64_t L = kFewChannelLanes, Fb = (g.F + L - 1) / L;
  std::mt19937 gen(static_cast<unsigned>(g.N * 1000 + g.C * 100 + g.F * 10 + g.kh));
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> x(g.N * g.C * g.H * g.W), dy(g.N * g.F * g.OH * g.OW);
  for (auto& v : x) v = u(gen);
  for (auto& v : dy) v = u(gen);
  std::vector<float> dy8(g.N * Fb * g.OH * g.OW * L, std::numeric_limits<float>::quiet_NaN());
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t f = 0; f < g.F; ++f)
      for (int64_t i = 0; i < g.OH * g.OW; ++i)
        dy8[((n * Fb + f / L) * g.OH * g.OW + i) * L + f % L] = dy[(n * g.F + f) * g.OH * g.OW + i];

  std::vector<double> rw(g.F * g.C * g.kh * g.kw, 0.0), rb(g.F, 0.0);
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t f = 0; f < g.F; ++f)
      for (int64_t oh = 0; oh < g.OH; ++oh)
        for (int64_t ow = 0; ow < g.OW; ++ow) {
          const double d = dy[((n * g.F + f) * g.OH + oh) * g.OW + ow];
          rb[f] += d;
          for (int64_t c = 0; c < g.C; ++c)
            for (int64_t i = 0; i < g.kh; ++i)
              for (int64_t j = 0; j < g.kw; ++j) {
                const int64_t h = oh * g.sh - g.ph + i * g.dh, w = ow * g.sw - g.pw + j * g.dw;
                if (h < 0 || h >= g.H || w < 0 || w >= g.W) continue;
                rw[((f * g.C + c) * g.kh + i) * g.kw + j] += d * x[((n * g.C + c) * g.H + h) * g.W + w];
              }
        }

  std::vector<float> dw(rw.size(), -7.f), db(g.F, -7.f);
  FewChannelWeightGrad(g, x.data(), dy8.data(), dw.data(), with_bias ? db.data() : nullptr);
  const double tol = 1e-4 * g.N * g.OH * g.OW;
  for (size_t i = 0; i < rw.size(); ++i) ASSERT_NEAR(dw[i], rw[i], tol) << "dw[" << i << "]";
  for (int64_t f = 0; f < g.F; ++f) {
    if (with_bias)
      ASSERT_NEAR(db[f], rb[f], tol) << "db[" << f << "]";
    else
      ASSERT_EQ(db[f], -7.f) << "db written without a bias";
  }
}

TEST(FewChannelWeightGrad, MatchesReferenceOverGeometries) {
  // N, C, F, H, W, kh, kw, stride (h, w), pad, dilation
  Check(Geom(4, 1, 20, 28, 28, 5, 5, 1, 1, 0, 1), true);  // LeNet's first layer, 3 blocks
  Check(Geom(3, 3, 16, 19, 17, 7, 7, 2, 2, 3, 1), true);  // ImageNet-style stem, 2 full blocks
  Check(Geom(2, 2, 9, 11, 12, 3, 3, 1, 2, 1, 2), true);   // dilated, 1 lane used in block 2
  Check(Geom(5, 7, 3, 6, 6, 1, 1, 1, 1, 0, 1), false);    // 1x1, no bias, one partial block
  Check(Geom(2, 1, 25, 10, 9, 2, 6, 3, 1, 2, 1), true);   // wide kernel, stride 3, 4 blocks
}

TEST(FewChannelWeightGrad, SingleImageAndSingleOutputPixel) {
  Check(Geom(1, 1, 1, 5, 5, 5, 5, 1, 1, 0, 1), true);
  Check(Geom(1, 2, 8, 3, 3, 3, 3, 1, 1, 1, 1), true);
}

}  // namespace
}  // namespace op
}  // namespace mxnet
