/*!
 * \file fc_gemv_test.cc
 * \brief FCGemv against a double-precision reference: 1 and 2 rows, weight row counts off its
 *        4-row blocks, lengths off the vector width, with and without bias, overwrite and add;
 *        FCGemvSparseInput the same on inputs with zeros (from the transposed weight), with
 *        nonzero counts off its 4-row blocks, none at all, and every input nonzero.
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

class FCGemvSparseInputTest : public ::testing::TestWithParam<std::tuple<int64_t, int64_t, int, bool, bool>> {};

TEST_P(FCGemvSparseInputTest, MatchesDenseReference) {
  const auto [K, H, zero_every, with_bias, add] = GetParam();
  std::vector<float> x = Values(K, 1.f, 5);
  // zero_every: 0 keeps every input, 1 zeroes all, n zeroes each n-th (and ReLU-like negatives).
  for (int64_t k = 0; k < K; ++k)
    if (zero_every == 1 || (zero_every > 1 && (k % zero_every == 0 || x[k] < -0.5f))) x[k] = 0.f;
  const std::vector<float> w = Values(H * K, 0.5f, 6), b = Values(H, 1.f, 7), start = Values(H, 2.f, 8);
  std::vector<float> wt(H * K);
  for (int64_t h = 0; h < H; ++h)
    for (int64_t k = 0; k < K; ++k) wt[k * H + h] = w[h * K + k];
  std::vector<int64_t> nz;
  const int64_t n = op::NonzeroIndices(x.data(), K, &nz);
  int64_t want_n = 0;
  for (int64_t k = 0; k < K; ++k) want_n += x[k] != 0.f;
  ASSERT_EQ(n, want_n);
  ASSERT_EQ(static_cast<int64_t>(nz.size()), n);
  std::vector<float> y = start;
  op::FCGemvSparseInput(x.data(), wt.data(), nz, with_bias ? b.data() : nullptr, y.data(), H, add);
  for (int64_t h = 0; h < H; ++h) {
    double want = with_bias ? b[h] : 0.0;
    for (int64_t k = 0; k < K; ++k) want += static_cast<double>(x[k]) * w[h * K + k];
    if (add) want += start[h];
    EXPECT_NEAR(y[h], want, 1e-4 * (1.0 + std::fabs(want))) << "h=" << h;
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, FCGemvSparseInputTest,
                         ::testing::Combine(::testing::Values(1, 7, 301), ::testing::Values(1, 5, 4099),
                                            ::testing::Values(0, 1, 2, 3), ::testing::Bool(), ::testing::Bool()));

}  // namespace
}  // namespace mxnet
