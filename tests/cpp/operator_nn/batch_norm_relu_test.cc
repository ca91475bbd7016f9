// BatchNormWithReLU: the oneDNN forward (fuse_norm_relu) equals the plain BatchNorm + ReLU; its
// backward reads the mask the training forward left in the workspace (a cleared mask zeroes
// every gradient), and a workspace without a matching tag makes it mask with the output.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "op_runner.h"

namespace mxnet {
namespace test {
namespace {

const Params kParams{{"fix_gamma", "False"}, {"eps", "1e-5"}};

std::vector<HostTensor> Forward(int path, const HostTensor& x) {
  PathScope scope(path);
  const int64_t c = x.shape[1];
  std::vector<HostTensor> in{x, Random({c}, 2, 0.5, 1.5), Random({c}, 3), HostTensor({c}, 0.0), HostTensor({c}, 1.0)};
  return RunOp("_contrib_BatchNormWithReLU", kParams, &in, kFloat32, /*is_train=*/true);
}

std::vector<HostTensor> Backward(int path, const HostTensor& x, const std::vector<HostTensor>& fwd,
                                 const HostTensor& workspace) {
  PathScope scope(path);
  const int64_t c = x.shape[1];
  std::vector<HostTensor> in{Random(x.shape, 4), x, Random({c}, 2, 0.5, 1.5), fwd[1], fwd[2], fwd[0], workspace,
                             HostTensor({c}, 0.0), HostTensor({c}, 1.0)};  // moving statistics, updated
  return RunOp("_backward_BatchNormWithReLU", kParams, &in, kFloat32, /*is_train=*/true,
               {kFloat32, kFloat32, kFloat32, kFloat32, kFloat32, kFloat32, kUint8, kFloat32, kFloat32});
}

TEST(BatchNormWithReLU, OneDNNForwardEqualsPlainBatchNormThenReLU) {
  const HostTensor x = Random({4, 8, 3, 5}, 1, -2, 2);
  const auto plain = Forward(0, x);
  const auto fused = Forward(1, x);
  for (int i = 0; i < 3; ++i) ExpectNear(fused[i], plain[i], 1e-4, 1e-5, "output " + std::to_string(i));
  int zeros = 0;
  for (double v : fused[0].v) zeros += v == 0.0;
  EXPECT_GT(zeros, 0);  // the ReLU clipped something
  EXPECT_LT(zeros, static_cast<int>(fused[0].v.size()));
}

TEST(BatchNormWithReLU, BackwardReadsTheForwardsMaskOrMasksWithTheOutput) {
#if MXNET_USE_ONEDNN
  const HostTensor x = Random({4, 8, 3, 5}, 1, -2, 2);
  const auto fused = Forward(1, x);
  const HostTensor& workspace = fused[3];
  const auto want = Backward(0, x, Forward(0, x), Forward(0, x)[3]);  // plain: masks with y
  const auto got = Backward(1, x, fused, workspace);
  for (int i = 0; i < 3; ++i) ExpectNear(got[i], want[i], 1e-4, 1e-5, "gradient " + std::to_string(i));
  // The oneDNN backward takes its mask from the workspace: cleared, every gradient is 0.
  HostTensor cleared = workspace;
  for (int64_t i = 0; i < x.Size(); ++i) cleared.v[i] = 0;
  for (const auto& g : Backward(1, x, fused, cleared))
    for (double v : g.v) ASSERT_EQ(v, 0.0);
  // Without the tag it cannot trust the mask and masks with the output instead.
  HostTensor untagged = cleared;
  for (int64_t i = x.Size(); i < untagged.Size(); ++i) untagged.v[i] = 0;
  const auto from_output = Backward(1, x, fused, untagged);
  for (int i = 0; i < 3; ++i) ExpectNear(from_output[i], want[i], 1e-4, 1e-5, "untagged " + std::to_string(i));
#else
  GTEST_SKIP() << "built without oneDNN";
#endif
}

}  // namespace
}  // namespace test
}  // namespace mxnet
