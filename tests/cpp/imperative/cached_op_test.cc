// CachedOp from C++: one op shared by many threads gives every thread its own right answer
// (run under ThreadSanitizer by tools/ci_checks.sh), plans are bounded, flags are checked.
#include <gtest/gtest.h>

#include <thread>

#include "graph/symbol.h"
#include "imperative/cached_op.h"
#include "mxnet/imperative.h"

using namespace mxnet;

namespace {

graph::Symbol Mlp() {
  auto data = graph::Symbol::CreateVariable("data");
  auto fc1 = graph::Symbol::CreateAtomic(op::Op::Get("FullyConnected"), {{"num_hidden", "6"}});
  fc1.Compose({data}, {}, "fc1");
  auto act = graph::Symbol::CreateAtomic(op::Op::Get("Activation"), {{"act_type", "tanh"}});
  act.Compose({fc1}, {}, "act");
  auto fc2 = graph::Symbol::CreateAtomic(op::Op::Get("FullyConnected"), {{"num_hidden", "3"}});
  fc2.Compose({act}, {}, "fc2");
  return fc2;
}

NDArray Filled(const TShape& shape, float seed) {
  NDArray a(shape, Context::CPU());
  std::vector<float> v(a.Size());
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(((i * 37 + static_cast<size_t>(seed * 101)) % 17) / 17.0 - 0.4);
  a.SyncCopyFromCPU(v.data(), v.size());
  return a;
}

std::vector<float> Read(const NDArray& a) {
  std::vector<float> v(a.Size());
  a.SyncCopyToCPU(v.data(), v.size());
  return v;
}

// Inputs in list_inputs order: data, fc1_weight, fc1_bias, fc2_weight, fc2_bias.
std::vector<NDArray> Inputs(float seed, int batch) {
  return {Filled(TShape{batch, 5}, seed), Filled(TShape{6, 5}, 1), Filled(TShape{6}, 2), Filled(TShape{3, 6}, 3),
          Filled(TShape{3}, 4)};
}

std::vector<float> RunOp(imperative::CachedOp* op, std::vector<NDArray> in) {
  std::vector<NDArray*> ip;
  for (auto& a : in) ip.push_back(&a);
  NDArray out;
  op->Forward(ip, {&out});
  return Read(out);
}

}  // namespace

TEST(CachedOp, ManyThreadsShareOneOp) {
  for (bool static_alloc : {false, true}) {
    auto op = std::make_shared<imperative::CachedOp>(
        Mlp(), imperative::CachedOpConfig::Parse({{"static_alloc", static_alloc ? "True" : "False"}}));
    std::vector<std::vector<float>> expected;
    for (int t = 0; t < 8; ++t) expected.push_back(RunOp(op.get(), Inputs(static_cast<float>(t), 2 + t % 3)));
    std::vector<std::vector<float>> got(8);
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t)
      threads.emplace_back([&, t] {
        for (int i = 0; i < 10; ++i) got[t] = RunOp(op.get(), Inputs(static_cast<float>(t), 2 + t % 3));
      });
    for (auto& th : threads) th.join();
    for (int t = 0; t < 8; ++t) EXPECT_EQ(got[t], expected[t]) << "thread " << t << " static_alloc " << static_alloc;
    EXPECT_LE(op->num_plans(), 4u);
  }
}

TEST(CachedOp, FlagsAreChecked) {
  EXPECT_THROW(imperative::CachedOpConfig::Parse({{"static_shape", "True"}}), Error);
  EXPECT_THROW(imperative::CachedOpConfig::Parse({{"static_aloc", "True"}}), Error);
  EXPECT_THROW(imperative::CachedOpConfig::Parse({{"inline_limit", "-1"}}), Error);
  EXPECT_THROW(imperative::CachedOpConfig::Parse({{"static_alloc", "maybe"}}), Error);
  EXPECT_THROW(imperative::CachedOp(Mlp(), imperative::CachedOpConfig::Parse({{"data_indices", "[0]"},
                                                                              {"param_indices", "[1, 2, 3]"}})),
               Error);
  auto op = std::make_shared<imperative::CachedOp>(Mlp(), imperative::CachedOpConfig());
  std::vector<NDArray> in = Inputs(0, 2);
  in.pop_back();
  std::vector<NDArray*> ip;
  for (auto& a : in) ip.push_back(&a);
  NDArray out;
  EXPECT_THROW(op->Forward(ip, {&out}), Error);
}
