// Ops pushed under InlineWhenIdleScope run on the pushing thread exactly when the engine has
// nothing else queued or running (MXNET_ENGINE_INLINE_WHEN_IDLE), and behave there as on a
// worker: dependencies, errors surfacing at the next wait, waits from inside refused.
#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>

#include "engine_test_util.h"
#include "mxnet/env.h"
#include "mxnet/error.h"

namespace mxnet {
namespace engine {
namespace test {
namespace {

class InlineTest : public EngineTest {
 protected:
  void SetUp() override {
    if (!GetParam().threaded()) GTEST_SKIP() << "NaiveEngine runs every op on the pusher";
    EngineTest::SetUp();
  }
  void TearDown() override {
    env::Set("MXNET_ENGINE_INLINE_WHEN_IDLE", "1");
    if (engine_) EngineTest::TearDown();
  }
  /*! \brief The thread a CPU op pushed now runs on (waited for). */
  std::thread::id RunsOn(bool scoped) {
    VarHandle v = engine_->NewVariable();
    std::thread::id ran;
    auto push = [&] {
      engine_->PushSync([&](RunContext) { ran = std::this_thread::get_id(); }, Context::CPU(), {}, {v});
    };
    if (scoped) {
      InlineWhenIdleScope scope;
      push();
    } else {
      push();
    }
    engine_->WaitForVar(v);
    return ran;
  }
};

TEST_P(InlineTest, IdleEngineRunsAScopedOpOnThePusher) {
  EXPECT_EQ(RunsOn(true), std::this_thread::get_id());
  EXPECT_NE(RunsOn(false), std::this_thread::get_id());
  env::Set("MXNET_ENGINE_INLINE_WHEN_IDLE", "0");
  EXPECT_NE(RunsOn(true), std::this_thread::get_id());
}

TEST_P(InlineTest, BusyEngineQueuesTheOpBehindTheWork) {
  VarHandle busy = engine_->NewVariable(), v = engine_->NewVariable();
  Gate gate;
  std::atomic<bool> ran{false};
  engine_->PushSync([&](RunContext) { gate.Wait(); }, Context::CPU(), {}, {busy});
  {
    InlineWhenIdleScope scope;
    // Independent of the gated op, but pushed while it is pending: a worker runs it (the
    // push returns at once even with one worker held by the gate).
    engine_->PushSync([&](RunContext) { ran = true; }, Context::CPU(), {}, {v});
  }
  gate.Open();
  engine_->WaitForVar(v);
  EXPECT_TRUE(ran.load());
  engine_->WaitForVar(busy);
}

TEST_P(InlineTest, OrderOfDependentScopedOpsIsKept) {
  VarHandle v = engine_->NewVariable();
  std::string trace;
  {
    InlineWhenIdleScope scope;
    for (char c : std::string("abcdef"))
      engine_->PushSync([&trace, c](RunContext) { trace += c; }, Context::CPU(), {}, {v});
  }
  engine_->WaitForVar(v);
  EXPECT_EQ(trace, "abcdef");
}

TEST_P(InlineTest, ErrorSurfacesAtTheNextWaitNotAtThePush) {
  VarHandle v = engine_->NewVariable();
  {
    InlineWhenIdleScope scope;
    EXPECT_NO_THROW(
        engine_->PushSync([](RunContext) { throw std::runtime_error("inline failure"); }, Context::CPU(), {}, {v}));
  }
  EXPECT_THROW(engine_->WaitForVar(v), Error);
}

TEST_P(InlineTest, WaitFromInsideAnInlineOpIsRefused) {
  VarHandle v = engine_->NewVariable(), other = engine_->NewVariable();
  std::string message;
  {
    InlineWhenIdleScope scope;
    engine_->PushSync(
        [&](RunContext) {
          try {
            engine_->WaitForVar(other);
          } catch (const Error& e) {
            message = e.what();
          }
        },
        Context::CPU(), {}, {v});
  }
  engine_->WaitForVar(v);
  EXPECT_NE(message.find("inside an engine operation"), std::string::npos) << message;
}

INSTANTIATE_TEST_SUITE_P(AllEngines, InlineTest, testing::ValuesIn(AllEngines()), ParamName);

}  // namespace
}  // namespace test
}  // namespace engine
}  // namespace mxnet
