// FewChannelConvForward against a double-precision reference on plain NCHW data: strides,
// paddings, dilations, widths that leave a partial group of 4 output columns, output channels
// that leave lanes of the last 8-channel block unused (they must be written as 0), with and
// without bias and ReLU.
#include "operator/nn/conv_fwd_few_channels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "conv2d_geometry.h"

namespace mxnet {
namespace op {
namespace {

void Check(int64_t N, int64_t C, int64_t F, int64_t H, int64_t W, int64_t k, int64_t s, int64_t p, int64_t d,
           bool with_bias, bool relu) {
  const Conv2dGeom g = test::Geom(N, C, F, H, W, k, k, s, s, p, d);
  const int64_t L = kFewChannelLanes, Fb = (F + L - 1) / L;
  std::mt19937 gen(static_cast<unsigned>(N * 1000 + C * 100 + F * 10 + k));
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> x(N * C * H * W), w(F * C * k * k), b(F);
  for (auto& v : x) v = u(gen);
  for (auto& v : w) v = u(gen);
  for (auto& v : b) v = u(gen);
  std::vector<float> y8(N * Fb * g.OH * g.OW * L, std::numeric_limits<float>::quiet_NaN());
  FewChannelConvForward(g, x.data(), w.data(), with_bias ? b.data() : nullptr, relu, y8.data());
  for (int64_t n = 0; n < N; ++n)
    for (int64_t f = 0; f < Fb * L; ++f)
      for (int64_t oh = 0; oh < g.OH; ++oh)
        for (int64_t ow = 0; ow < g.OW; ++ow) {
          const float got = y8[(((n * Fb + f / L) * g.OH + oh) * g.OW + ow) * L + f % L];
          if (f >= F) {
            ASSERT_EQ(got, 0.f) << "padded lane " << f;
            continue;
          }
          double want = with_bias ? b[f] : 0.0;
          for (int64_t c = 0; c < C; ++c)
            for (int64_t i = 0; i < k; ++i)
              for (int64_t j = 0; j < k; ++j) {
                const int64_t h = oh * s - p + i * d, ww = ow * s - p + j * d;
                if (h < 0 || h >= H || ww < 0 || ww >= W) continue;
                want += static_cast<double>(w[((f * C + c) * k + i) * k + j]) * x[((n * C + c) * H + h) * W + ww];
              }
          if (relu) want = std::max(want, 0.0);
          ASSERT_NEAR(got, want, 1e-4 * (1 + C * k * k)) << "n " << n << " f " << f << " oh " << oh << " ow " << ow;
        }
}

TEST(FewChannelConvForward, MatchesReferenceOverGeometries) {
  // N, C, F, H, W, kernel, stride, pad, dilation, bias, relu
  Check(2, 3, 64, 35, 35, 11, 4, 2, 1, true, true);  // AlexNet's first layer, 8 full blocks
  Check(1, 3, 20, 17, 19, 7, 2, 3, 1, true, false);  // partial last block, odd widths
  Check(3, 1, 9, 12, 10, 3, 1, 1, 2, false, true);   // dilated, 1 lane used in block 2
  Check(1, 2, 8, 5, 6, 1, 1, 0, 1, false, false);    // 1x1, one block
  Check(2, 7, 25, 9, 9, 5, 3, 2, 1, true, true);     // 7 channels, 4 blocks, stride 3
}

}  // namespace
}  // namespace op
}  // namespace mxnet
