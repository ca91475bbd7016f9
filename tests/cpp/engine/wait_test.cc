// WaitForVar / WaitForAll, alone and under concurrent pushes from many threads.
#include <atomic>
#include <stdexcept>

#include "engine_test_util.h"
#include "mxnet/error.h"

namespace mxnet {
namespace engine {
namespace test {
namespace {

using WaitTest = EngineTest;

TEST_P(WaitTest, FreshVarReturnsImmediately) {
  VarHandle v = engine_->NewVariable();
  engine_->WaitForVar(v);
  engine_->WaitForAll();
}

TEST_P(WaitTest, WaitForVarWaitsForPendingWrite) {
  VarHandle v = engine_->NewVariable();
  std::atomic<bool> done{false};
  engine_->PushSync([&](RunContext) { SleepMs(30), done = true; }, Context::CPU(), {}, {v}, FnProperty::kCopyFromGPU);
  engine_->WaitForVar(v);
  EXPECT_TRUE(done.load());
}

TEST_P(WaitTest, WaitForVarDoesNotWaitForReaders) {
  if (!GetParam().threaded()) GTEST_SKIP() << "NaiveEngine runs the reader inside the push";
  VarHandle v = engine_->NewVariable();
  Gate gate;
  std::atomic<bool> reader_done{false};
  engine_->PushSync([&](RunContext) { gate.Wait(), reader_done = true; }, Context::CPU(), {v}, {});
  engine_->WaitForVar(v);
  EXPECT_FALSE(reader_done.load());
  gate.Open();
  engine_->WaitForAll();
  EXPECT_TRUE(reader_done.load());
}

TEST_P(WaitTest, WaitToWriteWaitsForPendingReadersAndWriters) {
  VarHandle v = engine_->NewVariable();
  std::atomic<int> done{0};
  engine_->PushSync([&](RunContext) { SleepMs(20), ++done; }, Context::CPU(), {}, {v});
  engine_->PushSync([&](RunContext) { SleepMs(20), ++done; }, Context::CPU(), {v}, {});
  engine_->WaitToWrite(v);
  EXPECT_EQ(done.load(), 2);
}

TEST_P(WaitTest, WaitToWriteOfAnIdleVarDoesNotQueueBehindOtherWork) {
  if (!GetParam().threaded()) GTEST_SKIP() << "NaiveEngine runs every op inside its push";
  // The worker is held by an op on another var: a wait routed through the workers would
  // never return before the gate opens.
  VarHandle busy = engine_->NewVariable(), idle = engine_->NewVariable();
  Gate gate;
  std::atomic<bool> busy_done{false};
  engine_->PushSync([&](RunContext) { gate.Wait(), busy_done = true; }, Context::CPU(), {}, {busy});
  engine_->WaitToWrite(idle);
  EXPECT_FALSE(busy_done.load());
  gate.Open();
  engine_->WaitToWrite(busy);
  EXPECT_TRUE(busy_done.load());
}

TEST_P(WaitTest, WaitToWriteRethrowsTheVarsError) {
  if (!GetParam().threaded()) GTEST_SKIP() << "NaiveEngine throws at the failing push";
  VarHandle v = engine_->NewVariable();
  engine_->PushSync([](RunContext) { throw std::runtime_error("write failed"); }, Context::CPU(), {}, {v});
  EXPECT_THROW(engine_->WaitToWrite(v), Error);
  VarHandle w = engine_->NewVariable();
  engine_->PushSync([](RunContext) { throw std::runtime_error("write failed"); }, Context::CPU(), {}, {w});
  SleepMs(50);  // most likely done by now: the idle path must throw too
  EXPECT_THROW(engine_->WaitToWrite(w), Error);
}

TEST_P(WaitTest, WaitFromInsideAnOpIsRejected) {
  if (!GetParam().threaded()) GTEST_SKIP() << "NaiveEngine waits are no-ops";
  VarHandle v = engine_->NewVariable(), w = engine_->NewVariable();
  std::atomic<int> rejected{0};
  engine_->PushSync(
      [&](RunContext) {
        try {
          engine_->WaitForVar(w);
        } catch (const Error&) {
          ++rejected;
        }
        try {
          engine_->WaitForAll();
        } catch (const Error&) {
          ++rejected;
        }
      },
      Context::CPU(), {}, {v});
  engine_->WaitForAll();
  EXPECT_EQ(rejected.load(), 2);
}

TEST_P(WaitTest, EightPushingThreadsAndAWaitForAllThread) {
  const int kThreads = 8, kOpsPerThread = 10000, kVarsPerThread = 4;
  std::atomic<bool> stop{false};
  std::atomic<int> failures{0};
  std::thread waiter([&] {
    while (!stop.load()) {
      engine_->WaitForAll();
      std::this_thread::yield();
    }
  });
  std::vector<std::thread> pushers;
  std::vector<std::vector<int64_t>> counters(kThreads, std::vector<int64_t>(kVarsPerThread, 0));
  for (int t = 0; t < kThreads; ++t) {
    pushers.emplace_back([&, t] {
      std::vector<VarHandle> vars(kVarsPerThread);
      for (auto& v : vars) v = engine_->NewVariable();
      auto& count = counters[t];
      for (int i = 0; i < kOpsPerThread; ++i) {
        int k = i % kVarsPerThread;
        // Each op reads the next var and writes its own: a chain through all four.
        int reads = (k + 1) % kVarsPerThread;
        engine_->PushSync([&count, k](RunContext) { ++count[k]; }, Context::CPU(), {vars[reads]}, {vars[k]});
        if (i % 1000 == 999) {
          engine_->WaitForVar(vars[k]);
          if (count[k] != (i / kVarsPerThread) + 1) ++failures;
        }
      }
      for (auto* v : vars) engine_->WaitForVar(v);
      for (int k = 0; k < kVarsPerThread; ++k) {
        if (count[k] != kOpsPerThread / kVarsPerThread) ++failures;
      }
      for (auto* v : vars) engine_->DeleteVariable(nullptr, Context::CPU(), v);
    });
  }
  for (auto& p : pushers) p.join();
  stop = true;
  waiter.join();
  engine_->WaitForAll();
  EXPECT_EQ(failures.load(), 0);
}

TEST_P(WaitTest, ConcurrentWaitersOnOneVar) {
  VarHandle v = engine_->NewVariable();
  std::atomic<int> value{0};
  for (int i = 0; i < 50; ++i) engine_->PushSync([&](RunContext) { ++value; }, Context::CPU(), {}, {v});
  std::vector<std::thread> waiters;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t) {
    waiters.emplace_back([&] {
      engine_->WaitForVar(v);
      if (value.load() != 50) ++wrong;
    });
  }
  for (auto& w : waiters) w.join();
  EXPECT_EQ(wrong.load(), 0);
}

INSTANTIATE_TEST_SUITE_P(AllEngines, WaitTest, testing::ValuesIn(AllEngines()), ParamName);

}  // namespace
}  // namespace test
}  // namespace engine
}  // namespace mxnet
