// `_sg_onednn_conv` with BatchNorm (with_bn), a residual (with_sum, either side, broadcast) and
// an activation equals Convolution -> BatchNorm (inference) -> add -> Activation, on the oneDNN
// and the plain path; its folded weights are computed once per parameter value and again after
// any write to a source; `_sg_onednn_fully_connected` equals FullyConnected -> Activation.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "mxnet/imperative.h"
#include "mxnet/ndarray.h"
#include "ndarray_patterns.h"
#include "op_runner.h"
#include "operator/nn/conv_fused_attrs.h"
#if MXNET_USE_ONEDNN
#include "operator/onednn/onednn_layout.h"
#endif

namespace mxnet {
namespace test {
namespace {

const Params kConv{{"kernel", "(3, 3)"}, {"num_filter", "6"}, {"pad", "(1, 1)"}, {"num_group", "2"}};
const Params kBN{{"eps", "1e-4"}, {"fix_gamma", "False"}};

struct Case {
  HostTensor x, w, b, gamma, beta, mean, var, sum;
};

Case MakeCase(const TShape& sum_shape) {
  const int64_t F = 6;
  return Case{Random({2, 4, 5, 5}, 1), Random({F, 2, 3, 3}, 2, -0.5, 0.5), Random({F}, 3), Random({F}, 4, 0.5, 1.5),
              Random({F}, 5), Random({F}, 6), Random({F}, 7, 0.5, 2), Random(sum_shape, 8)};
}

/*! \brief The unfused ops, in double. */
HostTensor Reference(const Case& c, bool sum_first, const std::string& act) {
  std::vector<HostTensor> conv_in{c.x, c.w, c.b};
  HostTensor y = RunOp("Convolution", kConv, &conv_in, kFloat64)[0];
  std::vector<HostTensor> bn_in{y, c.gamma, c.beta, c.mean, c.var};
  y = RunOp("BatchNorm", kBN, &bn_in, kFloat64)[0];
  std::vector<HostTensor> add_in = sum_first ? std::vector<HostTensor>{c.sum, y} : std::vector<HostTensor>{y, c.sum};
  y = RunOp("broadcast_add", {}, &add_in, kFloat64)[0];
  std::vector<HostTensor> act_in{y};
  return RunOp("Activation", {{"act_type", act}}, &act_in, kFloat64)[0];
}

HostTensor Fused(const Case& c, bool sum_first, const std::string& act, int dtype) {
  Params p = kConv;
  p.insert(kBN.begin(), kBN.end());
  p["with_bn"] = "True";
  p["with_sum"] = "True";
  p["act_type"] = act;
  if (sum_first) p["sum_first"] = "True";
  std::vector<HostTensor> in{c.x, c.w, c.b, c.gamma, c.beta, c.mean, c.var};
  if (sum_first) in.insert(in.begin(), c.sum);
  else in.push_back(c.sum);
  return RunOp("_sg_onednn_conv", p, &in, dtype)[0];
}

TEST(ConvFused, BatchNormSumActivationEqualTheUnfusedOps) {
  for (const TShape& sum_shape : {TShape{2, 6, 5, 5}, TShape{1, 6, 1, 1}}) {
    const Case c = MakeCase(sum_shape);
    for (bool sum_first : {false, true}) {
      for (const char* act : {"relu", "tanh", "softsign"}) {
        const HostTensor want = Reference(c, sum_first, act);
        const std::string what = std::string(act) + (sum_first ? " sum first " : " sum last ");
        for (int path : {0, 1}) {
          PathScope scope(path);
          ExpectNear(Fused(c, sum_first, act, kFloat32), want, 1e-4, 1e-4, what + "float32 path " + std::to_string(path));
        }
        ExpectNear(Fused(c, sum_first, act, kFloat64), want, 1e-10, 1e-10, what + "float64");
      }
    }
  }
}

TEST(ConvFused, BadAttributesAreClearErrors) {
  const auto parse = [](Params p) {
    p["kernel"] = "(3, 3)";
    p["num_filter"] = "2";
    op::MakeAttrs(op::Op::Get("_sg_onednn_conv"), p);
  };
  const auto expect_error = [&](const Params& p, const std::string& text) {
    try {
      parse(p);
      ADD_FAILURE() << "no error for " << text;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    }
  };
  expect_error({}, "nothing to fuse");
  expect_error({{"act_type", "gelu"}}, "act_type must be one of");
  expect_error({{"with_act", "True"}}, "with_act=True needs an act_type");
  expect_error({{"with_bn", "True"}, {"sum_first", "True"}}, "sum_first needs with_sum");
  EXPECT_NO_THROW(parse({{"with_bn", "True"}}));
}

TEST(FCFused, EqualsFullyConnectedThenActivation) {
  for (int64_t rows : {1, 7}) {
    std::vector<HostTensor> in{Random({rows, 10}, 1), Random({5, 10}, 2), Random({5}, 3)};
    std::vector<HostTensor> fc_in = in;
    std::vector<HostTensor> act_in{RunOp("FullyConnected", {{"num_hidden", "5"}}, &fc_in, kFloat64)[0]};
    for (const char* act : {"relu", "sigmoid", "softrelu"}) {
      std::vector<HostTensor> a = act_in;
      const HostTensor want = RunOp("Activation", {{"act_type", act}}, &a, kFloat64)[0];
      for (int path : {0, 1}) {
        PathScope scope(path);
        std::vector<HostTensor> f = in;
        const HostTensor got = RunOp("_sg_onednn_fully_connected", {{"num_hidden", "5"}, {"act_type", act}}, &f)[0];
        ExpectNear(got, want, 1e-5, 1e-5, std::string(act) + " rows " + std::to_string(rows));
      }
    }
  }
}

/*! \brief The fused op through the engine on arrays, with one attrs object (one node) throughout. */
class FoldCache : public ::testing::Test {
 protected:
  void SetUp() override {
    Params p = kConv;
    p.insert(kBN.begin(), kBN.end());
    p["with_bn"] = "True";
    p["act_type"] = "relu";
    attrs_ = op::MakeAttrs(op::Op::Get("_sg_onednn_conv"), p, "fused");
    arrays_ = {Pattern({2, 4, 5, 5}, 1.f), Pattern({6, 2, 3, 3}, 0.5f, 1), Pattern({6}, 0.5f, 2), Pattern({6}, 0.5f, 3),
               Pattern({6}, 0.5f, 4), Pattern({6}, 0.5f, 5), Pattern({6}, 0.5f, 6)};
    std::vector<float> var{0.5f, 1.f, 1.5f, 2.f, 0.7f, 1.2f};
    arrays_[6].SyncCopyFromCPU(var.data(), var.size());
  }
  std::vector<float> Run() {
    std::vector<NDArray*> ins;
    for (NDArray& a : arrays_) ins.push_back(&a);
    NDArray out;
    std::vector<NDArray*> outs{&out};
    imperative::Invoke(Context::CPU(), attrs_, ins, outs);
    return Host(out);
  }
  /*! \brief A fresh folding (no arrays, so no cache), in double. */
  std::vector<float> Unfused() {
    std::vector<HostTensor> in;
    for (const NDArray& a : arrays_) {
      const std::vector<float> h = Host(a);
      in.emplace_back(a.shape(), std::vector<double>(h.begin(), h.end()));
    }
    Params p = kConv;
    p.insert(kBN.begin(), kBN.end());
    p["with_bn"] = "True";
    p["act_type"] = "relu";
    const HostTensor y = RunOp("_sg_onednn_conv", p, &in, kFloat64)[0];
    return std::vector<float>(y.v.begin(), y.v.end());
  }
  uint64_t Folds() const { return op::ConvFusedOf(attrs_).fold->folds(); }
  static void ExpectClose(const std::vector<float>& a, const std::vector<float>& b) {
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], 1e-4 + 1e-4 * std::fabs(b[i])) << i;
  }
  op::NodeAttrs attrs_;
  std::vector<NDArray> arrays_;  // data, weight, bias, gamma, beta, moving_mean, moving_var
};

TEST_F(FoldCache, FoldsOncePerParameterValueAndAgainAfterAnyWrite) {
  const uint64_t start = Folds();
  EXPECT_EQ(start, 0u);
  const std::vector<float> first = Run();
  ExpectClose(first, Unfused());
  EXPECT_EQ(Folds(), start + 1);
  ExpectClose(Run(), first);
  EXPECT_EQ(Folds(), start + 1);  // reused
  // Writing the data is no reason to fold again; writing any source is.
  arrays_[0] = Pattern({2, 4, 5, 5}, 1.f, 9);
  Run();
  EXPECT_EQ(Folds(), start + 1);
  for (size_t i = 1; i < arrays_.size(); ++i) {
    std::vector<float> h = Host(arrays_[i]);
    for (float& v : h) v *= 1.25f;
    arrays_[i].SyncCopyFromCPU(h.data(), h.size());
    const uint64_t before = Folds();
    const std::vector<float> got = Run();
    EXPECT_EQ(Folds(), before + 1) << "source " << i;
    ExpectClose(got, Unfused());
  }
  // Another array in a source's place (same values) folds again too.
  NDArray copy(arrays_[6].shape(), Context::CPU());
  CopyFromTo(arrays_[6], copy);
  arrays_[6] = copy;
  const uint64_t before = Folds();
  Run();
  EXPECT_EQ(Folds(), before + 1);
  // A write pushed through the engine (an op writing the array) counts as well.
  NDArray var = arrays_[6];
  std::vector<NDArray*> ins{&var}, outs{&arrays_[6]};
  imperative::Invoke(Context::CPU(), op::MakeAttrs(op::Op::Get("_mul_scalar"), {{"scalar", "2"}}), ins, outs);
  const std::vector<float> got = Run();
  EXPECT_EQ(Folds(), before + 2);
  ExpectClose(got, Unfused());
}

#if MXNET_USE_ONEDNN
TEST(FoldCacheOneDNN, TheFoldedWeightKeepsItsReorderedCopyLikeAnyWeight) {
  // 3x3 stride 1, 8 -> 16 channels, 16x16: the Winograd kernels, whose transformed weights are a
  // cached copy of input 1 (here the folded weight).
  PathScope scope(1);
  const Params p{{"kernel", "(3, 3)"}, {"num_filter", "16"}, {"pad", "(1, 1)"}, {"with_bn", "True"},
                 {"fix_gamma", "False"}, {"act_type", "relu"}};
  const op::NodeAttrs attrs = op::MakeAttrs(op::Op::Get("_sg_onednn_conv"), p, "fused");
  std::vector<NDArray> arrays{Pattern({2, 8, 16, 16}, 1.f), Pattern({16, 8, 3, 3}, 0.3f, 1), Pattern({16}, 0.5f, 2),
                              Pattern({16}, 0.5f, 3), Pattern({16}, 0.5f, 4), Pattern({16}, 0.5f, 5),
                              Pattern({16}, 0.2f, 6)};
  std::vector<float> ones(16, 1.f);
  const auto run = [&] {
    std::vector<NDArray*> ins;
    for (NDArray& a : arrays) ins.push_back(&a);
    NDArray out;
    std::vector<NDArray*> outs{&out};
    imperative::Invoke(Context::CPU(), attrs, ins, outs);
    return Host(out);
  };
  const auto fresh = [&] {
    std::vector<HostTensor> in;
    for (const NDArray& a : arrays) {
      const std::vector<float> h = Host(a);
      in.emplace_back(a.shape(), std::vector<double>(h.begin(), h.end()));
    }
    const HostTensor y = RunOp("_sg_onednn_conv", p, &in, kFloat64)[0];
    return std::vector<float>(y.v.begin(), y.v.end());
  };
  const auto expect_close = [](const std::vector<float>& a, const std::vector<float>& b) {
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], 1e-4 + 1e-4 * std::fabs(b[i])) << i;
  };
  arrays[6].SyncCopyFromCPU(ones.data(), ones.size());  // moving_var
  const uint64_t copies = op::onednn::CachedInputsMade();
  expect_close(run(), fresh());
  EXPECT_EQ(op::onednn::CachedInputsMade(), copies + 1);
  expect_close(run(), fresh());
  EXPECT_EQ(op::onednn::CachedInputsMade(), copies + 1);  // the same folded weight, the same copy
  std::vector<float> var(16, 2.f);
  arrays[6].SyncCopyFromCPU(var.data(), var.size());
  expect_close(run(), fresh());
  EXPECT_EQ(op::onednn::CachedInputsMade(), copies + 2);  // refolded: a new copy
}
#endif

}  // namespace
}  // namespace test
}  // namespace mxnet
