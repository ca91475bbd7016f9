// Per-thread imperative bulking and the profiler hooks.
#include <atomic>
#include <map>

#include "engine_test_util.h"
#include "mxnet/error.h"

namespace mxnet {
namespace engine {
namespace test {
namespace {

class BulkTest : public EngineTest {
 protected:
  void SetUp() override {
    EngineTest::SetUp();
    if (!GetParam().threaded()) GTEST_SKIP() << "NaiveEngine does not bulk";
  }
};

TEST_P(BulkTest, SetBulkSizeReturnsThePreviousSizePerThread) {
  EXPECT_EQ(engine_->set_bulk_size(5), 0);
  EXPECT_EQ(engine_->bulk_size(), 5);
  std::thread other([&] { EXPECT_EQ(engine_->bulk_size(), 0); });
  other.join();
  EXPECT_EQ(engine_->set_bulk_size(0), 5);
  EXPECT_THROW(engine_->set_bulk_size(-1), Error);
}

TEST_P(BulkTest, OpsWaitInTheBulkUntilAWaitFlushesThem) {
  VarHandle v = engine_->NewVariable();
  std::atomic<int> ran{0};
  engine_->set_bulk_size(100);
  for (int i = 0; i < 5; ++i) engine_->PushSync([&](RunContext) { ++ran; }, Context::CPU(), {}, {v});
  SleepMs(20);
  EXPECT_EQ(ran.load(), 0);
  engine_->WaitForVar(v);
  EXPECT_EQ(ran.load(), 5);
  EXPECT_EQ(VarVersion(v), 1u);  // one engine op for the five
  engine_->set_bulk_size(0);
}

TEST_P(BulkTest, FullBulkAndSizeChangeAndOtherOpsFlush) {
  VarHandle v = engine_->NewVariable(), w = engine_->NewVariable();
  std::atomic<int> ran{0};
  engine_->set_bulk_size(4);
  for (int i = 0; i < 4; ++i) engine_->PushSync([&](RunContext) { ++ran; }, Context::CPU(), {}, {v});
  EXPECT_TRUE(Eventually([&] { return ran.load() == 4; }));  // full: pushed without a wait
  engine_->PushSync([&](RunContext) { ++ran; }, Context::CPU(), {}, {v});
  engine_->set_bulk_size(1);  // count (1) >= new size: flushed
  EXPECT_TRUE(Eventually([&] { return ran.load() == 5; }));
  engine_->set_bulk_size(10);
  engine_->PushSync([&](RunContext) { ++ran; }, Context::CPU(), {}, {v});
  engine_->PushAsync(  // a non-bulkable push flushes what came before
      [&](RunContext, CallbackOnComplete done) { ++ran, done(); }, Context::CPU(), {}, {w});
  EXPECT_TRUE(Eventually([&] { return ran.load() == 7; }));
  engine_->PushSync([&](RunContext) { ++ran; }, Context::CPU(), {}, {v});
  engine_->PushSync([&](RunContext) { ++ran; }, Context::CPU(1), {}, {w});  // other ctx flushes
  EXPECT_TRUE(Eventually([&] { return ran.load() == 8; }));
  engine_->set_bulk_size(0);
  engine_->WaitForAll();
  EXPECT_EQ(ran.load(), 9);
}

TEST_P(BulkTest, BulkedReadsAndWritesKeepTheirOrder) {
  VarHandle a = engine_->NewVariable(), b = engine_->NewVariable();
  int x = 1, y = 0;
  engine_->set_bulk_size(8);
  // x*=2; x+=1; y = x; x+=1 -> x = 4, y = 3 (MXNet's test_bulk, in vars)
  engine_->PushSync([&](RunContext) { x *= 2; }, Context::CPU(), {}, {a});
  engine_->PushSync([&](RunContext) { x += 1; }, Context::CPU(), {}, {a});
  engine_->PushSync([&](RunContext) { y = x; }, Context::CPU(), {a}, {b});
  engine_->WaitForVar(b);
  engine_->PushSync([&](RunContext) { x += 1; }, Context::CPU(), {}, {a});
  for (int i = 0; i < 100; ++i) engine_->PushSync([&](RunContext) { x += 1; }, Context::CPU(), {}, {a});
  engine_->set_bulk_size(0);
  engine_->WaitForAll();
  EXPECT_EQ(y, 3);
  EXPECT_EQ(x, 104);
}

TEST_P(BulkTest, BulkLeftByAnEndingThreadIsPushed) {
  VarHandle v = engine_->NewVariable();
  std::atomic<int> ran{0};
  std::thread t([&] {
    engine_->set_bulk_size(50);
    for (int i = 0; i < 3; ++i) engine_->PushSync([&](RunContext) { ++ran; }, Context::CPU(), {}, {v});
  });
  t.join();
  engine_->WaitForAll();
  EXPECT_EQ(ran.load(), 3);
}

INSTANTIATE_TEST_SUITE_P(AllEngines, BulkTest, testing::ValuesIn(AllEngines()), ParamName);

// ---- profiler hooks

std::mutex g_hook_mu;
std::map<std::string, int> g_starts, g_ends;

void OnStart(const char* name, Context, int, bool) {
  std::lock_guard<std::mutex> lock(g_hook_mu);
  ++g_starts[name];
}
void OnEnd(const char* name, Context, int, bool) {
  std::lock_guard<std::mutex> lock(g_hook_mu);
  ++g_ends[name];
}

using HooksTest = EngineTest;

TEST_P(HooksTest, StartAndEndReportedPerOp) {
  static const Engine::OprHooks hooks{&OnStart, &OnEnd};
  {
    std::lock_guard<std::mutex> lock(g_hook_mu);
    g_starts.clear();
    g_ends.clear();
  }
  Engine::SetOprHooks(&hooks);
  VarHandle v = engine_->NewVariable();
  for (int i = 0; i < 10; ++i) {
    engine_->PushSync([](RunContext) {}, Context::CPU(), {}, {v}, FnProperty::kNormal, 0, "hooked_op");
  }
  engine_->WaitForAll();
  Engine::SetOprHooks(nullptr);
  engine_->PushSync([](RunContext) {}, Context::CPU(), {}, {v}, FnProperty::kNormal, 0, "hooked_op");
  engine_->WaitForAll();
  std::lock_guard<std::mutex> lock(g_hook_mu);
  EXPECT_EQ(g_starts["hooked_op"], 10);
  EXPECT_EQ(g_ends["hooked_op"], 10);
}

INSTANTIATE_TEST_SUITE_P(AllEngines, HooksTest, testing::ValuesIn(AllEngines()), ParamName);

}  // namespace
}  // namespace test
}  // namespace engine
}  // namespace mxnet
