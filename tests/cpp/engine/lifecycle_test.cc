// Deleting vars and ops with work pending, shutdown with work pending, stop/start, and
// fork() with work pending (the child must be able to compute, OpenMP included).
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>

#include "engine_test_util.h"
#include "mxnet/c_api.h"
#include "mxnet/env.h"

#if MXNET_USE_OPENMP
#include <omp.h>
#endif

namespace mxnet {
namespace engine {
namespace test {
namespace {

using LifecycleTest = EngineTest;

TEST_P(LifecycleTest, DeleteVariableWaitsForPendingOps) {
  VarHandle v = engine_->NewVariable();
  std::atomic<int> done{0};
  std::atomic<int> done_at_delete{-1};
  for (int i = 0; i < 20; ++i) {
    engine_->PushSync([&](RunContext) { SleepMs(1), ++done; }, Context::CPU(), {}, {v});
    engine_->PushSync([&](RunContext) { ++done; }, Context::CPU(), {v}, {});
  }
  engine_->DeleteVariable([&](RunContext) { done_at_delete = done.load(); }, Context::CPU(), v);
  engine_->WaitForAll();
  EXPECT_EQ(done_at_delete.load(), 40);
}

TEST_P(LifecycleTest, DeleteOperatorAfterPendingPushes) {
  VarHandle v = engine_->NewVariable();
  std::atomic<int> runs{0};
  OprHandle op = engine_->NewOperator(
      [&](RunContext, CallbackOnComplete done) {
        ++runs;
        done();
      },
      {}, {v}, FnProperty::kNormal, "reused");
  for (int i = 0; i < 100; ++i) engine_->Push(op, Context::CPU());
  engine_->DeleteOperator(op);
  engine_->WaitForAll();
  EXPECT_EQ(runs.load(), 100);
  EXPECT_EQ(VarVersion(v), 100u + (GetParam().threaded() ? 1u : 0u));  // the deletion writes v
}

TEST_P(LifecycleTest, ShutdownSkipsPendingOpsButRunsDeletions) {
  VarHandle v = engine_->NewVariable(), blocker = engine_->NewVariable();
  Gate gate;
  std::atomic<int> ran{0};
  std::atomic<bool> deleted{false}, blocked{false};
  if (GetParam().threaded()) {
    // Hold every op behind one that waits for the gate.
    engine_->PushSync([&](RunContext) { blocked = true, gate.Wait(); }, Context::CPU(), {}, {blocker});
    ASSERT_TRUE(Eventually([&] { return blocked.load(); }));
  }
  for (int i = 0; i < 100; ++i) engine_->PushSync([&](RunContext) { ++ran; }, Context::CPU(), {blocker}, {v});
  int ran_before = ran.load();
  engine_->NotifyShutdown();
  engine_->DeleteVariable([&](RunContext) { deleted = true; }, Context::CPU(), v);
  engine_->PushSync([&](RunContext) { ++ran; }, Context::CPU(), {}, {blocker});
  gate.Open();
  engine_->WaitForAll();
  EXPECT_EQ(ran.load(), ran_before);  // 0 when threaded, 100 when naive (ran at push)
  EXPECT_TRUE(deleted.load());
}

TEST_P(LifecycleTest, StopThenStartKeepsWorking) {
  VarHandle v = engine_->NewVariable();
  std::atomic<int> n{0};
  for (int i = 0; i < 50; ++i) engine_->PushSync([&](RunContext) { ++n; }, Context::CPU(), {}, {v});
  engine_->Stop();
  EXPECT_EQ(n.load(), 50);  // Stop drains first
  engine_->Start();
  for (int i = 0; i < 50; ++i) engine_->PushSync([&](RunContext) { ++n; }, Context::CPU(), {}, {v});
  engine_->WaitForVar(v);
  EXPECT_EQ(n.load(), 100);
}

/*! \brief A parallel reduction; with OpenMP it uses the calling thread's team. */
int64_t ParallelSum(int n) {
  int64_t sum = 0;
#if MXNET_USE_OPENMP
#pragma omp parallel for reduction(+ : sum)
#endif
  for (int i = 0; i < n; ++i) sum += i;
  return sum;
}

TEST_P(LifecycleTest, ForkWithPendingOpsChildComputes) {
  // The parent has used OpenMP (GNU libgomp keeps a thread pool that fork does not copy).
  ASSERT_EQ(ParallelSum(100000), int64_t(100000) * 99999 / 2);
  VarHandle v = engine_->NewVariable();
  std::atomic<int> done{0};
  for (int i = 0; i < 200; ++i) {
    engine_->PushSync([&](RunContext) { std::this_thread::sleep_for(std::chrono::microseconds(50)), ++done; },
                      Context::CPU(), {}, {v});
  }
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // Child: every op pushed before the fork completed (workers drained before fork).
    int code = done.load() == 200 ? 0 : 10;
    std::atomic<int64_t> sum{0};
    for (int i = 0; i < 20; ++i) {
      engine_->PushSync([&](RunContext) { sum += ParallelSum(10000); }, Context::CPU(), {}, {v});
    }
    try {
      engine_->WaitForVar(v);
    } catch (...) {
      code = 11;
    }
    if (code == 0 && sum.load() != 20 * (int64_t(10000) * 9999 / 2)) code = 12;
    _exit(code);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "child crashed (signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0) << ")";
  EXPECT_EQ(WEXITSTATUS(status), 0);
  // The parent keeps working after the fork.
  for (int i = 0; i < 10; ++i) engine_->PushSync([&](RunContext) { ++done; }, Context::CPU(), {}, {v});
  engine_->WaitForVar(v);
  EXPECT_EQ(done.load(), 210);
}

INSTANTIATE_TEST_SUITE_P(AllEngines, LifecycleTest, testing::ValuesIn(AllEngines()), ParamName);

/*! \brief Runs body in a forked child; returns its exit status (or 128+signal). */
template <typename Body>
int InChild(Body body) {
  pid_t pid = fork();
  if (pid == 0) {
    int code = body();
    exit(code);  // a normal exit: atexit handlers and static destructors run
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(ProcessEngineTest, ExitWithPendingOpsDoesNotCrash) {
  EXPECT_EQ(InChild([] {
              Engine* e = Engine::Get();
              VarHandle v = e->NewVariable();
              for (int i = 0; i < 1000; ++i) {
                e->PushSync([](RunContext) { SleepMs(1); }, Context::CPU(), {}, {v});
              }
              return 0;  // exit with ~1 s of work pending
            }),
            0);
}

TEST(ProcessEngineTest, NotifyShutdownWithPendingOps) {
  EXPECT_EQ(InChild([] {
              Engine* e = Engine::Get();
              VarHandle v = e->NewVariable();
              std::atomic<int> ran{0};
              for (int i = 0; i < 1000; ++i) {
                e->PushSync([&](RunContext) { SleepMs(1), ++ran; }, Context::CPU(), {}, {v});
              }
              if (MXNotifyShutdown() != 0) return 1;
              // Most of the second of work was skipped.
              return ran.load() < 500 ? 0 : 2;
            }),
            0);
}

TEST(ProcessEngineTest, RecordsRuntimeInfo) {
  Engine::Get();
  EXPECT_EQ(InChild([] {
              mx_uint n = 0;
              const char** keys = nullptr;
              const char** values = nullptr;
              if (MXGetRuntimeInfo(&n, &keys, &values) != 0) return 1;
              bool type = false, workers = false, omp = false;
              for (mx_uint i = 0; i < n; ++i) {
                std::string k = keys[i];
                type |= k == "engine_type" && std::string(values[i]) == env::GetString(env::Var::MXNET_ENGINE_TYPE);
                workers |= k == "engine_cpu_worker_threads";
                omp |= k == "omp_threads_per_worker";
              }
              return type && workers && omp ? 0 : 2;
            }),
            0);
}

}  // namespace
}  // namespace test
}  // namespace engine
}  // namespace mxnet
