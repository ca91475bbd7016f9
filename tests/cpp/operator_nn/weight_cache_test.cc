/*!
 * \file weight_cache_test.cc
 * \brief Inference (de)convolution and FullyConnected keep their weights reordered into the
 *        primitive's format: one copy per weight value, made again after a write, none in
 *        training; results equal those of fresh weights every time (training's to rounding).
 */
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <unordered_map>
#include <vector>

#include "mxnet/imperative.h"
#include "mxnet/ndarray.h"
#include "ndarray_patterns.h"
#if MXNET_USE_ONEDNN
#include "operator/onednn/onednn_layout.h"
#endif

namespace mxnet {
namespace {

#if MXNET_USE_ONEDNN

using test::Host;
using test::Pattern;

struct OpCase {
  const char* op;
  TShape x, w;
  std::unordered_map<std::string, std::string> params;
};

class WeightCache : public ::testing::TestWithParam<OpCase> {
 protected:
  void SetUp() override { op::onednn::SetEnabledOverride(1); }
  void TearDown() override {
    op::onednn::SetEnabledOverride(-1);
    imperative::SetIsTraining(false);
  }
  NDArray Run(const NDArray& x, const NDArray& w) {
    NDArray y = imperative::InvokeByName(GetParam().op, {x, w}, GetParam().params)[0];
    y.WaitToRead();
    return y;
  }
};

TEST_P(WeightCache, OneCopyPerWeightValueInInferenceNoneInTraining) {
  const OpCase& c = GetParam();
  const NDArray x = Pattern(c.x, 1.f, 0);
  NDArray w = Pattern(c.w, 0.3f, 1);
  const NDArray w2 = Pattern(c.w, 0.2f, 5);
  const uint64_t start = op::onednn::CachedInputsMade();
  const std::vector<float> first = Host(Run(x, w));
  const uint64_t made = op::onednn::CachedInputsMade() - start;
  // Whether the primitive wants a non-plain weight format is oneDNN's choice.
  if (made == 0) GTEST_SKIP() << c.op << ": oneDNN reads the plain weight format here";
  EXPECT_EQ(made, 1u);
  EXPECT_EQ(Host(Run(x, w)), first);
  EXPECT_EQ(Host(Run(x, w)), first);
  EXPECT_EQ(op::onednn::CachedInputsMade() - start, 1u);

  CopyFromTo(w2, w);  // a write: the next call reorders the new value once
  const std::vector<float> fresh = Host(Run(x, w2.Detach()));
  EXPECT_EQ(Host(Run(x, w)), fresh);
  EXPECT_EQ(Host(Run(x, w)), fresh);
  EXPECT_EQ(op::onednn::CachedInputsMade() - start, 3u);  // w2 got its own copy, w one more

  // Training may run another primitive (oneDNN's forward_training kernels sum in another
  // order on some CPUs), so its values match to rounding, not bit for bit.
  imperative::SetIsTraining(true);
  const std::vector<float> trained = Host(Run(x, w));
  ASSERT_EQ(trained.size(), fresh.size());
  for (size_t i = 0; i < fresh.size(); ++i) EXPECT_NEAR(trained[i], fresh[i], 1e-5f * (1.f + std::fabs(fresh[i]))) << i;
  EXPECT_EQ(op::onednn::CachedInputsMade() - start, 3u);
}

INSTANTIATE_TEST_SUITE_P(
    Ops, WeightCache,
    ::testing::Values(OpCase{"FullyConnected", {8, 64}, {128, 64}, {{"num_hidden", "128"}, {"no_bias", "True"}}},
                      OpCase{"Convolution",
                             {2, 16, 8, 8},
                             {32, 16, 3, 3},
                             {{"kernel", "(3, 3)"}, {"pad", "(1, 1)"}, {"num_filter", "32"}, {"no_bias", "True"}}},
                      OpCase{"Deconvolution",
                             {2, 16, 5, 5},
                             {16, 32, 3, 3},
                             {{"kernel", "(3, 3)"}, {"stride", "(2, 2)"}, {"num_filter", "32"}, {"no_bias", "True"}}}),
    [](const ::testing::TestParamInfo<OpCase>& i) { return std::string(i.param.op); });

#endif  // MXNET_USE_ONEDNN

}  // namespace
}  // namespace mxnet
