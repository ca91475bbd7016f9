// LayerNorm, InstanceNorm, GroupNorm, LRN, L2Normalization, Embedding, UpSampling and
// BilinearResize2D: forward against definitions, gradients against finite differences.
#include <cmath>
#include <string>
#include <vector>

#include "op_runner.h"

namespace mxnet {
namespace test {
namespace {

void GradCheck(const std::string& op, const Params& p, const std::vector<HostTensor>& in,
               const std::vector<int>& bwd_from,  // >=0: forward input i; -1-k: forward output k
               size_t n_grads, double tol = 1e-5) {
  PathScope plain(0);
  std::vector<HostTensor> fin = in;
  const auto fwd = RunOp(op, p, &fin, kFloat64, true);
  const HostTensor head = Random(fwd[0].shape, 31);
  std::vector<HostTensor> bin{head};
  for (int k : bwd_from) bin.push_back(k >= 0 ? in[k] : fwd[-1 - k]);
  const auto g = RunOp("_backward_" + op, p, &bin, kFloat64, true);
  for (size_t i = 0; i < n_grads; ++i)
    ExpectNear(g[i], NumericGrad(op, p, in, i, head), tol, tol, op + " gradient " + std::to_string(i));
}

TEST(NormLayers, LayerNormForwardBothPathsAndGradients) {
  const HostTensor x = Random({3, 4, 6}, 1, -2, 2), g = Random({6}, 2), b = Random({6}, 3);
  HostTensor ref(x.shape);
  for (int64_t r = 0; r < 12; ++r) {
    double m = 0, v = 0;
    for (int k = 0; k < 6; ++k) m += x.v[r * 6 + k] / 6;
    for (int k = 0; k < 6; ++k) v += std::pow(x.v[r * 6 + k] - m, 2) / 6;
    for (int k = 0; k < 6; ++k) ref.v[r * 6 + k] = (x.v[r * 6 + k] - m) / std::sqrt(v + 1e-5) * g.v[k] + b.v[k];
  }
  for (int path : {0, 1}) {
    PathScope s(path);
    std::vector<HostTensor> in{x, g, b};
    ExpectNear(RunOp("LayerNorm", {}, &in)[0], ref, 1e-4, 1e-4, "LayerNorm path " + std::to_string(path));
  }
  GradCheck("LayerNorm", {}, {x, g, b}, {0, 1, -2, -3}, 3);
  GradCheck("LayerNorm", {{"axis", "1"}}, {x, Random({4}, 4), Random({4}, 5)}, {0, 1, -2, -3}, 3);
  // oneDNN backward equals the plain one.
  std::vector<HostTensor> in{x, g, b};
  const auto f = RunOp("LayerNorm", {}, &in);
  std::vector<HostTensor> bin{Random(x.shape, 6), x, g, f[1], f[2]};
  PathScope p0(0);
  const auto gp = RunOp("_backward_LayerNorm", {}, &bin);
  PathScope p1(1);
  const auto gd = RunOp("_backward_LayerNorm", {}, &bin);
  for (int i = 0; i < 3; ++i) ExpectNear(gd[i], gp[i], 1e-4, 1e-4, "LayerNorm oneDNN backward");
}

TEST(NormLayers, InstanceAndGroupNormGradients) {
  const HostTensor x = Random({2, 4, 3, 2}, 7, -2, 2);
  GradCheck("InstanceNorm", {}, {x, Random({4}, 8), Random({4}, 9)}, {0, 1, -2, -3}, 3);
  GradCheck("GroupNorm", {{"num_groups", "2"}}, {x, Random({2}, 10), Random({2}, 11)}, {0, 1, -2, -3}, 3);
  // GroupNorm with one group per channel equals InstanceNorm with matching gamma.
  const HostTensor g{TShape{4}, {1, 2, 3, 4}}, b{TShape{4}, {0, 1, 0, 1}};
  std::vector<HostTensor> a{x, g, b}, c{x, g, b};
  ExpectNear(RunOp("GroupNorm", {{"num_groups", "4"}, {"eps", "0.001"}}, &a)[0], RunOp("InstanceNorm", {}, &c)[0],
             1e-5, 1e-5, "GroupNorm(C groups) == InstanceNorm");
}

TEST(LRN, ForwardBothPathsAndGradient) {
  const HostTensor x = Random({2, 5, 3, 3}, 12);
  const Params p{{"nsize", "3"}, {"alpha", "0.01"}, {"beta", "0.75"}, {"knorm", "2"}};
  HostTensor ref(x.shape);
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t c = 0; c < 5; ++c)
      for (int64_t i = 0; i < 9; ++i) {
        double s = 0;
        for (int64_t j = std::max<int64_t>(0, c - 1); j <= std::min<int64_t>(4, c + 1); ++j)
          s += std::pow(x.v[(n * 5 + j) * 9 + i], 2);
        ref.v[(n * 5 + c) * 9 + i] = x.v[(n * 5 + c) * 9 + i] * std::pow(2 + 0.01 / 3 * s, -0.75);
      }
  for (int path : {0, 1}) {
    PathScope s(path);
    std::vector<HostTensor> in{x};
    ExpectNear(RunOp("LRN", p, &in)[0], ref, 1e-5, 1e-5, "LRN path " + std::to_string(path));
  }
  GradCheck("LRN", p, {x}, {0}, 1);
  std::vector<HostTensor> bin{Random(x.shape, 13), x};
  PathScope p0(0);
  const auto gp = RunOp("_backward_LRN", p, &bin);
  PathScope p1(1);
  ExpectNear(RunOp("_backward_LRN", p, &bin)[0], gp[0], 1e-4, 1e-4, "LRN oneDNN backward");
}

TEST(L2Normalization, ModesForwardAndGradient) {
  const HostTensor x = Random({2, 3, 4}, 14);
  for (std::string mode : {"instance", "channel", "spatial"}) {
    const Params p{{"mode", mode}};
    std::vector<HostTensor> in{x};
    const auto out = RunOp("L2Normalization", p, &in, kFloat64);
    // Every normalized group has unit norm.
    const int64_t O = mode == "spatial" ? 6 : 2, L = mode == "instance" ? 12 : mode == "channel" ? 3 : 4,
                  I = mode == "channel" ? 4 : 1;
    for (int64_t r = 0; r < O * I; ++r) {
      double s = 0;
      for (int64_t l = 0; l < L; ++l) s += std::pow(out[0].v[(r / I) * L * I + r % I + l * I], 2);
      EXPECT_NEAR(s, 1.0, 1e-8) << mode;
    }
    GradCheck("L2Normalization", p, {x}, {-1, -2}, 1);
  }
}

TEST(Embedding, LookupClipsAndGradientScatters) {
  const HostTensor w = Random({5, 3}, 15);
  const HostTensor idx{TShape{2, 2}, {0, 4, 7, -1}};  // 7 -> 4, -1 -> 0
  std::vector<HostTensor> in{idx, w};
  const auto out = RunOp("Embedding", {{"input_dim", "5"}, {"output_dim", "3"}}, &in);
  const int rows[4] = {0, 4, 4, 0};
  for (int r = 0; r < 4; ++r)
    for (int d = 0; d < 3; ++d) EXPECT_NEAR(out[0].v[r * 3 + d], w.v[rows[r] * 3 + d], 1e-6);
  const HostTensor dy = Random({2, 2, 3}, 16);
  std::vector<HostTensor> bin{dy, idx};
  const auto g = RunOp("_backward_Embedding", {{"input_dim", "5"}, {"output_dim", "3"}}, &bin);
  for (int d = 0; d < 3; ++d) {
    EXPECT_NEAR(g[1].v[0 * 3 + d], dy.v[0 * 3 + d] + dy.v[3 * 3 + d], 1e-5);
    EXPECT_NEAR(g[1].v[4 * 3 + d], dy.v[1 * 3 + d] + dy.v[2 * 3 + d], 1e-5);
    EXPECT_EQ(g[1].v[2 * 3 + d], 0.0);
  }
}

TEST(Resize, UpSamplingNearestAndBilinearResize2D) {
  const HostTensor x = Random({1, 2, 2, 3}, 17);
  std::vector<HostTensor> in{x};
  const Params up{{"scale", "2"}, {"sample_type", "nearest"}, {"num_args", "1"}};
  const auto y = RunOp("UpSampling", up, &in);
  ASSERT_EQ(y[0].shape, TShape({1, 2, 4, 6}));
  for (int64_t c = 0; c < 2; ++c)
    for (int64_t h = 0; h < 4; ++h)
      for (int64_t w = 0; w < 6; ++w) EXPECT_EQ(y[0].v[(c * 4 + h) * 6 + w], static_cast<float>(x.v[(c * 2 + h / 2) * 3 + w / 2]));
  GradCheck("UpSampling", up, {x}, {0}, 1);
  // Two inputs concatenated: the second is scaled to the first's output size.
  std::vector<HostTensor> two{x, Random({1, 1, 2, 3}, 18)};
  const auto y2 = RunOp("UpSampling", {{"scale", "2"}, {"sample_type", "nearest"}, {"num_args", "2"}}, &two);
  EXPECT_EQ(y2[0].shape, TShape({1, 3, 4, 6}));
  for (bool align : {true, false}) {
    const Params p{{"height", "5"}, {"width", "4"}, {"align_corners", align ? "True" : "False"}};
    std::vector<HostTensor> r{x};
    const auto o = RunOp("BilinearResize2D", p, &r, kFloat64);
    ASSERT_EQ(o[0].shape, TShape({1, 2, 5, 4}));
    if (align) {  // corners map exactly onto corners
      EXPECT_NEAR(o[0].v[0], x.v[0], 1e-12);
      EXPECT_NEAR(o[0].v[19], x.v[5], 1e-12);
    }
    GradCheck("BilinearResize2D", p, {x}, {0}, 1);
  }
}

}  // namespace
}  // namespace test
}  // namespace mxnet
