// Per-var ordering: read-after-write, write-after-read, write-after-write, parallel reads.
#include <atomic>

#include "engine_test_util.h"

namespace mxnet {
namespace engine {
namespace test {
namespace {

using OrderingTest = EngineTest;

TEST_P(OrderingTest, ReadSeesPrecedingWrite) {
  VarHandle v = engine_->NewVariable();
  int value = 0;
  std::atomic<int> seen{-1};
  engine_->PushSync([&](RunContext) { SleepMs(20), value = 42; }, Context::CPU(), {}, {v});
  engine_->PushSync([&](RunContext) { seen = value; }, Context::CPU(), {v}, {});
  engine_->WaitForAll();
  EXPECT_EQ(seen.load(), 42);
}

TEST_P(OrderingTest, WriteWaitsForPrecedingReads) {
  VarHandle v = engine_->NewVariable();
  int value = 1;
  std::atomic<int> sum{0};
  for (int i = 0; i < 8; ++i) {
    engine_->PushSync([&](RunContext) { SleepMs(2), sum += value; }, Context::CPU(), {v}, {});
  }
  engine_->PushSync([&](RunContext) { value = 100; }, Context::CPU(), {}, {v});
  engine_->WaitForAll();
  EXPECT_EQ(sum.load(), 8);
  EXPECT_EQ(value, 100);
}

TEST_P(OrderingTest, WritesRunInPushOrder) {
  VarHandle v = engine_->NewVariable();
  std::vector<int> order;
  for (int i = 0; i < 1000; ++i) {
    engine_->PushSync([&order, i](RunContext) { order.push_back(i); }, Context::CPU(), {}, {v});
  }
  engine_->WaitForVar(v);
  ASSERT_EQ(order.size(), 1000u);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(order[i], i);
  EXPECT_EQ(VarVersion(v), 1000u);
}

TEST_P(OrderingTest, ReadersRunInParallel) {
  VarHandle v = engine_->NewVariable();
  std::atomic<int> active{0}, max_active{0};
  const int readers = 4;
  for (int i = 0; i < readers; ++i) {
    engine_->PushSync(
        [&](RunContext) {
          int now = ++active;
          int prev = max_active.load();
          while (now > prev && !max_active.compare_exchange_weak(prev, now)) {
          }
          // Long enough for the other readers to start when there are threads for them.
          Eventually([&] { return max_active.load() >= std::min(readers, GetParam().parallelism()); }, 2);
          --active;
        },
        Context::CPU(), {v}, {});
  }
  engine_->WaitForAll();
  EXPECT_EQ(max_active.load(), std::min(readers, GetParam().parallelism()));
}

TEST_P(OrderingTest, VarVersionCountsWritesOnly) {
  VarHandle v = engine_->NewVariable();
  for (int i = 0; i < 10; ++i) engine_->PushSync([](RunContext) {}, Context::CPU(), {v}, {});
  engine_->WaitForAll();
  EXPECT_EQ(VarVersion(v), 0u);
  for (int i = 0; i < 10; ++i) engine_->PushSync([](RunContext) {}, Context::CPU(), {}, {v});
  engine_->WaitForAll();
  EXPECT_EQ(VarVersion(v), 10u);
}

TEST_P(OrderingTest, VarListedAsReadAndWriteCountsAsWrite) {
  VarHandle v = engine_->NewVariable();
  int value = 0;
  for (int i = 0; i < 100; ++i) {
    engine_->PushSync([&](RunContext) { value += 1; }, Context::CPU(), {v, v}, {v, v});
  }
  engine_->WaitForVar(v);
  EXPECT_EQ(value, 100);
  EXPECT_EQ(VarVersion(v), 100u);
}

TEST_P(OrderingTest, ExecContextReachesTheOp) {
  VarHandle v = engine_->NewVariable();
  Context seen;
  engine_->PushSync([&](RunContext rctx) { seen = rctx.ctx; }, Context::CPU(1), {}, {v});
  engine_->WaitForVar(v);
  EXPECT_EQ(seen, Context::CPU(1));
}

INSTANTIATE_TEST_SUITE_P(AllEngines, OrderingTest, testing::ValuesIn(AllEngines()), ParamName);

TEST(PriorityTest, CPUPriorityPoolPopsHighestFirst) {
  EngineConfig c = TestConfig({"ThreadedEnginePerDevice", 1});
  c.cpu_priority_threads = 1;
  auto engine = CreateEngine("ThreadedEnginePerDevice", c);
  Gate gate;
  std::atomic<bool> blocked{false};
  VarHandle gate_var = engine->NewVariable();
  engine->PushSync([&](RunContext) { blocked = true, gate.Wait(); }, Context::CPU(), {}, {gate_var},
                   FnProperty::kCPUPrioritized);
  ASSERT_TRUE(Eventually([&] { return blocked.load(); }));
  std::mutex mu;
  std::vector<int> order;
  std::vector<VarHandle> vars;
  for (int p : {3, -1, 7, 0, 5}) {
    vars.push_back(engine->NewVariable());
    engine->PushSync(
        [&, p](RunContext) {
          std::lock_guard<std::mutex> lock(mu);
          order.push_back(p);
        },
        Context::CPU(), {}, {vars.back()}, FnProperty::kCPUPrioritized, p);
  }
  gate.Open();
  engine->WaitForAll();
  EXPECT_EQ(order, (std::vector<int>{7, 5, 3, 0, -1}));
}

}  // namespace
}  // namespace test
}  // namespace engine
}  // namespace mxnet
