// Errors thrown inside ops: captured on the vars written, rethrown once at the next wait
// naming the op, inherited (and the fn skipped) by dependents, and nothing else affected.
#include <atomic>
#include <stdexcept>

#include "engine_test_util.h"
#include "mxnet/error.h"

namespace mxnet {
namespace engine {
namespace test {
namespace {

class ExceptionTest : public EngineTest {
 protected:
  bool naive() const { return !GetParam().threaded(); }
  /*! \brief Runs push; NaiveEngine throws there, the others at wait(). Returns the message. */
  template <typename Push, typename Wait>
  std::string ErrorOf(Push push, Wait wait, const char** kind = nullptr) {
    try {
      push();
      wait();
    } catch (const Error& e) {
      if (kind) *kind = e.kind();
      return e.what();
    }
    return "";
  }
};

TEST_P(ExceptionTest, SurfacesAtWaitNamingTheOp) {
  VarHandle v = engine_->NewVariable();
  std::string msg = ErrorOf(
      [&] {
        engine_->PushSync([](RunContext) { throw std::runtime_error("boom"); }, Context::CPU(), {}, {v},
                          FnProperty::kNormal, 0, "my_bad_op");
      },
      [&] { engine_->WaitForVar(v); });
  EXPECT_NE(msg.find("my_bad_op"), std::string::npos) << msg;
  EXPECT_NE(msg.find("boom"), std::string::npos) << msg;
  // Surfaced once: the next wait is clean.
  engine_->WaitForVar(v);
  engine_->WaitForAll();
}

TEST_P(ExceptionTest, KindOfMxnetErrorIsKept) {
  VarHandle v = engine_->NewVariable();
  const char* kind = nullptr;
  std::string msg = ErrorOf(
      [&] {
        engine_->PushAsync(
            [](RunContext, CallbackOnComplete done) {
              done(std::make_exception_ptr(Error("scale must be positive", "ValueError")));
            },
            Context::CPU(), {}, {v}, FnProperty::kNormal, 0, "random_normal");
      },
      [&] { engine_->WaitForVar(v); }, &kind);
  ASSERT_NE(kind, nullptr);
  EXPECT_STREQ(kind, "ValueError");
  EXPECT_NE(msg.find("random_normal"), std::string::npos) << msg;
}

TEST_P(ExceptionTest, DependentsAreSkippedAndInheritTheError) {
  if (naive()) GTEST_SKIP() << "NaiveEngine throws at the failing push";
  VarHandle a = engine_->NewVariable(), b = engine_->NewVariable(), c = engine_->NewVariable();
  std::atomic<bool> dependent_ran{false}, unrelated_ran{false}, noskip_ran{false};
  engine_->PushSync([](RunContext) { throw std::runtime_error("first failure"); }, Context::CPU(), {}, {a},
                    FnProperty::kNormal, 0, "producer");
  engine_->PushSync([&](RunContext) { dependent_ran = true; }, Context::CPU(), {a}, {b}, FnProperty::kNormal, 0,
                    "consumer");
  engine_->PushSync([&](RunContext) { noskip_ran = true; }, Context::CPU(), {a}, {}, FnProperty::kNoSkip);
  engine_->PushSync([&](RunContext) { unrelated_ran = true; }, Context::CPU(), {}, {c});
  engine_->WaitForVar(c);  // unrelated var: no error
  std::string msg = ErrorOf([] {}, [&] { engine_->WaitForVar(b); });
  EXPECT_NE(msg.find("producer"), std::string::npos) << msg;
  EXPECT_NE(msg.find("first failure"), std::string::npos) << msg;
  engine_->WaitForAll();  // the shared error was cleared by the wait above
  EXPECT_FALSE(dependent_ran.load());
  EXPECT_TRUE(noskip_ran.load());
  EXPECT_TRUE(unrelated_ran.load());
  // The error was cleared for `a` too: the engine and the var are usable again.
  std::atomic<int> value{0};
  engine_->PushSync([&](RunContext) { value = 7; }, Context::CPU(), {a}, {b});
  engine_->WaitForVar(b);
  EXPECT_EQ(value.load(), 7);
}

TEST_P(ExceptionTest, FailureAtStepKOfAThousandSurfacesOnce) {
  VarHandle v = engine_->NewVariable();
  const int k = 537;
  std::atomic<int> ran{0};
  int failures = 0;
  for (int i = 0; i < 1000; ++i) {
    try {
      engine_->PushSync(
          [&ran, i](RunContext) {
            if (i == k) throw std::runtime_error("step " + std::to_string(i));
            ++ran;
          },
          Context::CPU(), {}, {v}, FnProperty::kNormal, 0, "step_op");
    } catch (const Error&) {
      ++failures;  // NaiveEngine
    }
  }
  for (int round = 0; round < 3; ++round) {
    try {
      engine_->WaitForVar(v);
    } catch (const Error& e) {
      ++failures;
      EXPECT_NE(std::string(e.what()).find("step 537"), std::string::npos) << e.what();
    }
  }
  EXPECT_NO_THROW(engine_->WaitForAll());
  EXPECT_EQ(failures, 1);
  // Threaded engines skip everything after the failure; NaiveEngine threw and went on.
  EXPECT_EQ(ran.load(), naive() ? 999 : k);
}

TEST_P(ExceptionTest, WaitForAllThrowsOnceThenNot) {
  VarHandle v = engine_->NewVariable(), w = engine_->NewVariable();
  int thrown = 0;
  try {
    engine_->PushSync([](RunContext) { throw std::runtime_error("x"); }, Context::CPU(), {}, {v});
    engine_->PushSync([](RunContext) { throw std::runtime_error("y"); }, Context::CPU(), {}, {w});
  } catch (const Error&) {
    ++thrown;
  }
  try {
    engine_->WaitForAll();
  } catch (const Error&) {
    ++thrown;
  }
  EXPECT_NO_THROW(engine_->WaitForAll());
  EXPECT_NO_THROW(engine_->WaitForVar(v));
  EXPECT_NO_THROW(engine_->WaitForVar(w));
  EXPECT_EQ(thrown, 1);
}

TEST_P(ExceptionTest, ErrorInsideABulkNamesTheFailingOp) {
  VarHandle v = engine_->NewVariable();
  std::atomic<int> ran{0};
  std::string msg = ErrorOf(
      [&] {
        int prev = engine_->set_bulk_size(8);
        engine_->PushSync([&](RunContext) { ++ran; }, Context::CPU(), {}, {v}, FnProperty::kNormal, 0, "ok_op");
        engine_->PushSync([](RunContext) { throw Error("bad shape", "ValueError"); }, Context::CPU(), {}, {v},
                          FnProperty::kNormal, 0, "reshape");
        engine_->PushSync([&](RunContext) { ++ran; }, Context::CPU(), {}, {v}, FnProperty::kNormal, 0, "ok_op");
        engine_->set_bulk_size(prev);
      },
      [&] { engine_->WaitForVar(v); });
  EXPECT_NE(msg.find("reshape"), std::string::npos) << msg;
  EXPECT_NE(msg.find("bad shape"), std::string::npos) << msg;
}

INSTANTIATE_TEST_SUITE_P(AllEngines, ExceptionTest, testing::ValuesIn(AllEngines()), ParamName);

}  // namespace
}  // namespace test
}  // namespace engine
}  // namespace mxnet
