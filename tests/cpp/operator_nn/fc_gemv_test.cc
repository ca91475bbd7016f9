/*!
 * \file fc_gemv_test.cc
 * \brief FCGemv against a double-precision reference: 1 and 2 rows, weight row counts off its
 *        4-row blocks, lengths off the vector width, with and without bias, overwrite and add.
 */
#include "operator/nn/fc_gemv.h"

#include <gtest/gtest.h>

#include <cmath>
#include <tuple>
#include <vector>

namespace mxnet {
namespace {

std::vector<float> Values(size_t n, float scale, int seed) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = scale * static_cast<float>(((i * 7919 + seed * 104729) % 2003) / 1001.5 - 1.0);
  return v;
}

class FCGemvTest : public ::testing::TestWithParam<std::tuple<int64_t, int64_t, int64_t, bool, bool>> {};

TEST_P(FCGemvTest, MatchesReference) {
  const auto [M, K, H, with_bias, add] = GetParam();
  const std::vector<float> x = Values(M * K, 1.f, 1), w = Values(H * K, 0.5f, 2), b = Values(H, 1.f, 3);
  const std::vector<float> start = Values(M * H, 2.f, 4);
  std::vector<float> y = start;
  op::FCGemv(x.data(), w.data(), with_bias ? b.data() : nullptr, y.data(), M, K, H, add);
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t h = 0; h < H; ++h) {
      double want = with_bias ? b[h] : 0.0;
      for (int64_t k = 0; k < K; ++k) want += static_cast<double>(x[m * K + k]) * w[h * K + k];
      if (add) want += start[m * H + h];
      EXPECT_NEAR(y[m * H + h], want, 1e-4 * (1.0 + std::fabs(want))) << "m=" << m << " h=" << h;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, FCGemvTest,
                         ::testing::Combine(::testing::Values(1, 2), ::testing::Values(1, 17, 300),
                                            ::testing::Values(1, 4, 10, 4099), ::testing::Bool(), ::testing::Bool()));

}  // namespace
}  // namespace mxnet
