// ChannelLastBackwardData against a double-precision direct loop on channel-last data, for
// strides, paddings, dilations, non-square kernels and channel counts below, between and
// above vector widths; batches that leave a partial last column block; and dx filled with
// NaN beforehand, which must be overwritten everywhere (pixels no tap reaches get zero).
#if MXNET_USE_ONEDNN

#include "operator/nn/conv_bwd_data_channel_last.h"

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

void Check(const Conv2dGeom& g) {
  std::mt19937 gen(static_cast<unsigned>(g.N * 1000 + g.C * 100 + g.F * 10 + g.kh));
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> dy(g.N * g.OH * g.OW * g.F), w(g.F * g.C * g.kh * g.kw);
  for (auto& v : dy) v = u(gen);
  for (auto& v : w) v = u(gen);
  std::vector<double> want(g.N * g.H * g.W * g.C, 0.0);
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t oh = 0; oh < g.OH; ++oh)
      for (int64_t ow = 0; ow < g.OW; ++ow)
        for (int64_t i = 0; i < g.kh; ++i)
          for (int64_t j = 0; j < g.kw; ++j) {
            const int64_t ih = oh * g.sh - g.ph + i * g.dh, iw = ow * g.sw - g.pw + j * g.dw;
            if (ih < 0 || ih >= g.H || iw < 0 || iw >= g.W) continue;
            for (int64_t f = 0; f < g.F; ++f) {
              const double d = dy[((n * g.OH + oh) * g.OW + ow) * g.F + f];
              for (int64_t c = 0; c < g.C; ++c)
                want[((n * g.H + ih) * g.W + iw) * g.C + c] += d * w[((f * g.C + c) * g.kh + i) * g.kw + j];
            }
          }
  std::vector<float> dx(want.size(), std::numeric_limits<float>::quiet_NaN());
  ChannelLastBackwardData(g, dy.data(), w.data(), dx.data());
  for (size_t k = 0; k < want.size(); ++k)
    ASSERT_NEAR(dx[k], want[k], 1e-4 * (1.0 + std::fabs(want[k])))
        << "element " << k << " (pixel-major, C=" << g.C << ")";
}

TEST(ChannelLastBackwardData, LeNetSecondConv) { Check(Geom(64, 20, 50, 12, 12, 5, 5, 1, 1, 0, 1)); }

TEST(ChannelLastBackwardData, StridesPaddingAndDilation) {
  Check(Geom(3, 13, 7, 11, 9, 3, 3, 2, 1, 1, 1));
  Check(Geom(2, 20, 24, 10, 10, 3, 3, 1, 1, 2, 2));
  Check(Geom(5, 4, 9, 8, 13, 3, 5, 2, 3, 2, 1));
}

TEST(ChannelLastBackwardData, OneChannelAndWideChannels) {
  Check(Geom(4, 1, 20, 28, 28, 5, 5, 1, 1, 0, 1));
  Check(Geom(2, 36, 17, 7, 7, 3, 3, 1, 1, 1, 1));
}

TEST(ChannelLastBackwardData, BatchesSplitIntoColumnBlocks) {
  // 150 KB of columns per image: three images per 512 KB block, the last block holds one.
  Check(Geom(7, 30, 11, 20, 20, 5, 5, 1, 1, 2, 1));
  Check(Geom(1, 30, 11, 20, 20, 5, 5, 1, 1, 2, 1));
}

TEST(ChannelLastBackwardData, StrideLargerThanKernelLeavesPixelsAtZero) {
  Check(Geom(2, 6, 5, 9, 9, 1, 1, 3, 3, 0, 1));
}

TEST(ChannelLastBackwardData, OnlyChannelCountsOffTheVectorWidthAndModestImagesUseIt) {
  EXPECT_TRUE(UseChannelLastBackwardData(Geom(64, 20, 50, 12, 12, 5, 5, 1, 1, 0, 1)));
  EXPECT_TRUE(UseChannelLastBackwardData(Geom(8, 1, 20, 28, 28, 5, 5, 1, 1, 0, 1)));
  EXPECT_FALSE(UseChannelLastBackwardData(Geom(64, 24, 50, 12, 12, 5, 5, 1, 1, 0, 1)));
  EXPECT_FALSE(UseChannelLastBackwardData(Geom(64, 64, 64, 12, 12, 3, 3, 1, 1, 1, 1)));
  // 224x224 outputs of a 3x3 conv over 20 channels: 36 MB of columns per image
  EXPECT_FALSE(UseChannelLastBackwardData(Geom(2, 20, 24, 224, 224, 3, 3, 1, 1, 1, 1)));
}

}  // namespace
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_USE_ONEDNN
