// Kernel lists through the real call path (imperative::InvokeByName): order, the first that
// accepts wins, strict forcing, exclusion by name and tag, tag switches, the choice cache, traces.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "mxnet/imperative.h"
#include "operator/kernel_dispatch.h"

using namespace mxnet;
using namespace mxnet::op;

namespace {

// y = x * factor, where each implementation has its own factor, so results show which ran.
void Scale(const TBlob& x, const TBlob& y, float factor) {
  for (int64_t i = 0; i < x.Size(); ++i) y.dptr<float>()[i] = x.dptr<float>()[i] * factor;
}

std::atomic<int> costly_asked{0};
std::atomic<bool> big_switch_on{true};

MXNET_REGISTER_OP(_test_kernel_list)
    .describe("Kernel-list test op: y = x * (which kernel ran).")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "x")
    .set_infer_shape(ElemwiseShape)
    .set_infer_type(ElemwiseType)
    .set_compute(Context::kCPU, [](const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                                   const std::vector<OpReqType>&, const std::vector<TBlob>& out) { Scale(in[0], out[0], 1); });

// Registered out of order: the list sorts by rank.
MXNET_REGISTER_KERNEL(_test_kernel_list, kCPU, small_only)
    .set_rank(20)
    .set_accepts([](const KernelProblem& p) { return p.inputs[0].Size() <= 4; }, /*cheap=*/true)
    .set_compute([](const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in, const std::vector<OpReqType>&,
                    const std::vector<TBlob>& out) { Scale(in[0], out[0], 3); });
MXNET_REGISTER_KERNEL(_test_kernel_list, kCPU, big_only)
    .set_rank(10)
    .add_tag("bigtag")
    .set_accepts([](const KernelProblem& p) {
      ++costly_asked;
      return p.inputs[0].Size() > 4;
    })
    .set_compute([](const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in, const std::vector<OpReqType>&,
                    const std::vector<TBlob>& out) { Scale(in[0], out[0], 2); });

const bool switch_registered [[maybe_unused]] = [] {
  RegisterKernelTagSwitch("bigtag", [] { return big_switch_on.load(); });
  return true;
}();

float RunOn(int64_t n) {
  NDArray x(TShape{n}, Context::CPU());
  std::vector<float> ones(n, 1.f);
  x.SyncCopyFromCPU(ones.data(), ones.size());
  std::vector<NDArray> out = imperative::InvokeByName("_test_kernel_list", {x}, {});
  std::vector<float> y(n);
  out[0].SyncCopyToCPU(y.data(), y.size());
  return y[0];
}

struct RulesReset {
  ~RulesReset() {
    SetKernelRules("", "");
    big_switch_on = true;
  }
};

TEST(KernelList, RankOrderWithTheReferenceLast) {
  std::vector<std::string> names;
  for (const KernelImpl* k : Op::Get("_test_kernel_list")->Kernels(Context::kCPU).impls) names.push_back(k->name);
  EXPECT_EQ(names, (std::vector<std::string>{"big_only", "small_only", "reference"}));
  EXPECT_TRUE(Op::Get("_test_kernel_list")->Kernels(Context::kGPU).impls.empty());
}

TEST(KernelList, FirstThatAcceptsRuns) {
  RulesReset reset;
  EXPECT_EQ(RunOn(8), 2.f);
  EXPECT_EQ(RunOn(2), 3.f);
}

TEST(KernelList, ExclusionByNameTagAndOpQualifiedName) {
  RulesReset reset;
  SetKernelRules("", "big_only");
  EXPECT_EQ(RunOn(8), 1.f);  // small_only declines 8 elements: the reference runs
  SetKernelRules("", "bigtag");
  EXPECT_EQ(RunOn(8), 1.f);
  SetKernelRules("", "_test_kernel_list:small_only");
  EXPECT_EQ(RunOn(2), 1.f);
  EXPECT_EQ(RunOn(8), 2.f);
  EXPECT_THROW(SetKernelRules("", "reference"), Error);
  EXPECT_THROW(SetKernelRules("", "_test_kernel_list:reference"), Error);
}

TEST(KernelList, ForcingIsStrictAndWinsOverExclusion) {
  RulesReset reset;
  SetKernelRules("_test_kernel_list:reference", "");
  EXPECT_EQ(RunOn(8), 1.f);
  SetKernelRules("_test_kernel_list:big_only", "bigtag");
  EXPECT_EQ(RunOn(8), 2.f);
  try {
    RunOn(2);
    FAIL() << "a forced kernel that declines the call must fail it";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("forced kernel 'big_only' does not accept"), std::string::npos) << e.what();
  }
  SetKernelRules("_test_kernel_list:nosuch", "");
  try {
    RunOn(2);
    FAIL() << "forcing an unknown implementation must fail";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("big_only, small_only, reference"), std::string::npos) << e.what();
  }
  EXPECT_THROW(SetKernelRules("no_such_op:reference", ""), Error);
  SetKernelRules("small_only", "");  // a bare name forces it wherever present
  EXPECT_EQ(RunOn(2), 3.f);
}

TEST(KernelList, TagSwitchExcludesWhileOff) {
  RulesReset reset;
  big_switch_on = false;
  EXPECT_EQ(RunOn(8), 1.f);
  big_switch_on = true;
  EXPECT_EQ(RunOn(8), 2.f);
}

TEST(KernelList, CostlyChoicesAreCachedPerCallSignature) {
  RulesReset reset;
  SetKernelRules("", "");  // a fresh generation: an empty cache
  costly_asked = 0;
  for (int i = 0; i < 5; ++i) RunOn(16);
  EXPECT_EQ(costly_asked.load(), 1);
  for (int i = 0; i < 3; ++i) RunOn(32);  // another shape: asked again, once
  EXPECT_EQ(costly_asked.load(), 2);
  for (int i = 0; i < 4; ++i) RunOn(3);  // big_only declines once (cached), small_only asked
  EXPECT_EQ(costly_asked.load(), 3);
}

TEST(KernelList, TraceRecordsEachRun) {
  RulesReset reset;
  StartKernelTrace();
  RunOn(8);
  RunOn(2);
  auto records = StopKernelTrace();
  std::vector<std::string> ran;
  for (auto& r : records)
    if (r.first == "_test_kernel_list") ran.push_back(r.second);
  EXPECT_EQ(ran, (std::vector<std::string>{"big_only", "small_only"}));
  RunOn(8);
  EXPECT_TRUE(StopKernelTrace().empty());
}

}  // namespace
