/*!
 * \file blocked_layout_test.cc
 * \brief Blocked oneDNN layouts kept between ops, through the imperative layer and the engine:
 *        chains produce blocked outputs and the same values as plain-input runs, and many
 *        readers of one blocked array (oneDNN ones reading the layout, plain ones converting
 *        it) all see the same data.
 */
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <unordered_map>
#include <vector>

#include "mxnet/imperative.h"
#include "mxnet/ndarray.h"
#if MXNET_USE_ONEDNN
#include "operator/nn/onednn/onednn_layout.h"
#endif

namespace mxnet {
namespace {

#if MXNET_USE_ONEDNN

NDArray Pattern(const TShape& s, float scale) {
  NDArray a(s, Context::CPU());
  std::vector<float> h(s.Size());
  for (size_t i = 0; i < h.size(); ++i) h[i] = scale * static_cast<float>(static_cast<int>(i * 7 % 23) - 11) / 11.f;
  a.SyncCopyFromCPU(h.data(), h.size());
  return a;
}

std::vector<float> Host(const NDArray& a) {
  std::vector<float> h(a.Size());
  a.SyncCopyToCPU(h.data(), h.size());
  return h;
}

const std::unordered_map<std::string, std::string> kConv{
    {"kernel", "(3, 3)"}, {"pad", "(1, 1)"}, {"num_filter", "32"}, {"no_bias", "True"}};

class BlockedLayout : public ::testing::Test {
 protected:
  void SetUp() override { op::onednn::SetEnabledOverride(1); }
  void TearDown() override { op::onednn::SetEnabledOverride(-1); }
};

TEST_F(BlockedLayout, ChainLeavesBlockedOutputsAndMatchesPlainInputRun) {
  const NDArray x = Pattern({2, 16, 8, 8}, 1.f), w = Pattern({32, 16, 3, 3}, 0.2f);
  const uint64_t before = op::onednn::BlockedOutputsMade();
  NDArray h = imperative::InvokeByName("Convolution", {x, w}, kConv)[0];
  NDArray r = imperative::InvokeByName("Activation", {h}, {{"act_type", "relu"}})[0];
  NDArray p = imperative::InvokeByName("Pooling", {r}, {{"kernel", "(2, 2)"}, {"stride", "(2, 2)"}})[0];
  p.WaitToRead();
  // Whether conv prefers a non-plain format is oneDNN's choice; on AVX-512 CPUs it does.
  const uint64_t made = op::onednn::BlockedOutputsMade() - before;
  EXPECT_EQ(made, 3u);
  const std::vector<float> blocked = Host(p);

  // Same chain with every intermediate read plainly first (each op then gets plain input).
  NDArray h2 = imperative::InvokeByName("Convolution", {x, w}, kConv)[0];
  Host(h2);
  NDArray r2 = imperative::InvokeByName("Activation", {h2}, {{"act_type", "relu"}})[0];
  Host(r2);
  NDArray p2 = imperative::InvokeByName("Pooling", {r2}, {{"kernel", "(2, 2)"}, {"stride", "(2, 2)"}})[0];
  EXPECT_EQ(blocked, Host(p2));
  EXPECT_EQ(Host(h), Host(h2));
  EXPECT_EQ(Host(r), Host(r2));
}

TEST_F(BlockedLayout, BatchNormInferenceReadsAndLeavesBlockedData) {
  const NDArray x = Pattern({2, 16, 6, 6}, 1.f), w = Pattern({32, 16, 3, 3}, 0.2f);
  const NDArray g = Pattern({32}, 1.f), b = Pattern({32}, 0.5f), m = Pattern({32}, 0.1f);
  NDArray v({32}, Context::CPU());
  std::vector<float> ones(32, 1.5f);
  v.SyncCopyFromCPU(ones.data(), ones.size());
  const std::unordered_map<std::string, std::string> bn{{"fix_gamma", "False"}};
  const uint64_t before = op::onednn::BlockedOutputsMade();
  NDArray h = imperative::InvokeByName("Convolution", {x, w}, kConv)[0];
  NDArray y = imperative::InvokeByName("BatchNorm", {h, g, b, m, v}, bn)[0];
  y.WaitToRead();
  EXPECT_EQ(op::onednn::BlockedOutputsMade() - before, 2u);
  NDArray h2 = imperative::InvokeByName("Convolution", {x, w}, kConv)[0];
  Host(h2);
  NDArray y2 = imperative::InvokeByName("BatchNorm", {h2, g, b, m, v}, bn)[0];
  // Same math; the blocked kernel may round the last bit differently.
  const std::vector<float> a = Host(y), c = Host(y2);
  ASSERT_EQ(a.size(), c.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], c[i], 1e-5f * (1.f + std::fabs(c[i])));
}

TEST_F(BlockedLayout, ManyReadersOfOneBlockedArraySeeTheSameData) {
  const NDArray x = Pattern({1, 16, 6, 6}, 1.f), w = Pattern({32, 16, 3, 3}, 0.3f);
  NDArray plain_h = imperative::InvokeByName("Convolution", {x, w}, kConv)[0];
  const std::vector<float> want = Host(plain_h);
  std::vector<float> want_relu(want);
  for (float& v : want_relu) v = v > 0 ? v : 0;
  for (int round = 0; round < 4; ++round) {
    NDArray h = imperative::InvokeByName("Convolution", {x, w}, kConv)[0];
    std::vector<NDArray> relus, copies;
    for (int i = 0; i < 6; ++i) {  // readers of the layout interleaved with readers converting it
      relus.push_back(imperative::InvokeByName("Activation", {h}, {{"act_type", "relu"}})[0]);
      copies.push_back(imperative::InvokeByName("_copy", {h})[0]);
    }
    for (const NDArray& c : copies) EXPECT_EQ(Host(c), want);
    for (const NDArray& r : relus) EXPECT_EQ(Host(r), want_relu);
    EXPECT_EQ(Host(h), want);
  }
}

TEST_F(BlockedLayout, ViewsAndPlainReadersOfABlockedArraySeePlainData) {
  const NDArray x = Pattern({2, 16, 5, 5}, 1.f), w = Pattern({32, 16, 3, 3}, 0.1f);
  NDArray ref = imperative::InvokeByName("Convolution", {x, w}, kConv)[0];
  const std::vector<float> want = Host(ref);
  NDArray h = imperative::InvokeByName("Convolution", {x, w}, kConv)[0];
  NDArray row = h.At(1);  // a view: converts the whole chunk
  const std::vector<float> got_row = Host(row);
  EXPECT_EQ(got_row, std::vector<float>(want.begin() + want.size() / 2, want.end()));
  NDArray h3 = imperative::InvokeByName("Convolution", {x, w}, kConv)[0];
  NDArray out = imperative::InvokeByName("elemwise_add", {h3, h3})[0];  // plain reader of both inputs
  std::vector<float> twice(want);
  for (float& v : twice) v *= 2;
  EXPECT_EQ(Host(out), twice);
}

#endif  // MXNET_USE_ONEDNN

}  // namespace
}  // namespace mxnet
