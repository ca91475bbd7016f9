// ThreadedEnginePerDevice with run_idle_cpu_ops_inline (MXNET_ENGINE_INLINE_WHEN_IDLE): an
// operator computation (FnProperty::kCompute) that is ready with nothing else in flight runs
// inside its push on the pushing thread; everything else keeps the asynchronous contract.
#include <atomic>
#include <stdexcept>
#include <thread>

#include "engine_test_util.h"
#include "mxnet/error.h"

namespace mxnet {
namespace engine {
namespace test {
namespace {

std::unique_ptr<Engine> InlineEngine(bool inline_when_idle) {
  EngineConfig c = TestConfig({"ThreadedEnginePerDevice", 1});
  c.run_idle_cpu_ops_inline = inline_when_idle;
  return CreateEngine("ThreadedEnginePerDevice", c);
}

TEST(InlineWhenIdle, AReadyComputationRunsInsideItsPushOnThePushingThread) {
  auto engine = InlineEngine(true);
  VarHandle v = engine->NewVariable();
  std::thread::id ran_on;
  engine->PushSync([&](RunContext) { ran_on = std::this_thread::get_id(); }, Context::CPU(), {}, {v},
                   FnProperty::kCompute);
  EXPECT_EQ(ran_on, std::this_thread::get_id());  // finished before the push returned
  engine->WaitForAll();
}

TEST(InlineWhenIdle, AComputationPushedWhileAnotherOpRunsIsQueued) {
  auto engine = InlineEngine(true);
  VarHandle busy = engine->NewVariable(), v = engine->NewVariable();
  Gate gate;
  engine->PushSync([&](RunContext) { gate.Wait(); }, Context::CPU(), {}, {busy}, FnProperty::kNormal);
  std::atomic<bool> ran{false};
  std::thread::id ran_on;
  engine->PushSync(
      [&](RunContext) {
        ran_on = std::this_thread::get_id();
        ran = true;
      },
      Context::CPU(), {}, {v}, FnProperty::kCompute);
  EXPECT_FALSE(ran.load());  // behind the gated op on the single worker
  gate.Open();
  engine->WaitForVar(v);
  EXPECT_TRUE(ran.load());
  EXPECT_NE(ran_on, std::this_thread::get_id());
}

TEST(InlineWhenIdle, AComputationWaitingForItsInputIsQueued) {
  auto engine = InlineEngine(true);
  VarHandle v = engine->NewVariable();
  Gate gate;
  engine->PushSync([&](RunContext) { gate.Wait(); }, Context::CPU(), {}, {v}, FnProperty::kNormal);
  std::atomic<bool> ran{false};
  engine->PushSync([&](RunContext) { ran = true; }, Context::CPU(), {v}, {}, FnProperty::kCompute);
  EXPECT_FALSE(ran.load());
  gate.Open();
  engine->WaitForAll();
  EXPECT_TRUE(ran.load());
}

TEST(InlineWhenIdle, OtherOpsAndTheSwitchedOffEngineStayAsynchronous) {
  for (bool inline_when_idle : {true, false}) {
    auto engine = InlineEngine(inline_when_idle);
    const FnProperty prop = inline_when_idle ? FnProperty::kNormal : FnProperty::kCompute;
    VarHandle v = engine->NewVariable();
    Gate gate;
    std::atomic<bool> ran{false};
    // Would never return if it ran inside the push.
    engine->PushSync(
        [&](RunContext) {
          gate.Wait();
          ran = true;
        },
        Context::CPU(), {}, {v}, prop);
    EXPECT_FALSE(ran.load()) << "inline " << inline_when_idle;
    gate.Open();
    engine->WaitForVar(v);
    EXPECT_TRUE(ran.load());
  }
}

TEST(InlineWhenIdle, AnErrorSurfacesAtTheWaitNotThePush) {
  auto engine = InlineEngine(true);
  VarHandle v = engine->NewVariable();
  EXPECT_NO_THROW(engine->PushSync([](RunContext) { throw std::runtime_error("kernel failed"); }, Context::CPU(), {},
                                   {v}, FnProperty::kCompute));
  try {
    engine->WaitForVar(v);
    FAIL() << "the op's error was lost";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("kernel failed"), std::string::npos) << e.what();
  }
}

TEST(InlineWhenIdle, WaitingFromInsideAnInlineOpIsRejectedAsOnAWorker) {
  auto engine = InlineEngine(true);
  VarHandle v = engine->NewVariable(), w = engine->NewVariable();
  engine->PushSync([&](RunContext) { engine->WaitForVar(w); }, Context::CPU(), {}, {v}, FnProperty::kCompute);
  EXPECT_THROW(engine->WaitForVar(v), mxnet::Error);
  // The pushing thread itself may wait again afterwards.
  EXPECT_NO_THROW(engine->WaitForVar(w));
}

}  // namespace
}  // namespace test
}  // namespace engine
}  // namespace mxnet
