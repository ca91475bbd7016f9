// Load-adaptive OpenMP threads (MXNET_CPU_LOAD_ADAPTIVE): busy processes beside us take cores
// away from our operators; with the variable off every configured thread is used.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>
#include <vector>

#include "engine/cpu_load.h"
#include "engine/thread_policy.h"
#include "mxnet/env.h"

using namespace mxnet;

namespace {
std::vector<pid_t> SpinChildren(int n) {
  std::vector<pid_t> kids;
  for (int i = 0; i < n; ++i) {
    const pid_t p = fork();
    if (p == 0) {
      volatile unsigned long x = 0;
      for (;;) x = x + 1;  // killed by the parent
    }
    kids.push_back(p);
  }
  return kids;
}
void Stop(const std::vector<pid_t>& kids) {
  for (pid_t p : kids) kill(p, SIGKILL);
  for (pid_t p : kids) waitpid(p, nullptr, 0);
}
}  // namespace

TEST(CpuLoad, BusyNeighboursTakeThreadsAway) {
  const int cores = engine::NumCores();
  if (cores < 2) GTEST_SKIP() << "one core";
  if (!std::ifstream("/proc/stat").good()) GTEST_SKIP() << "no /proc/stat to sample";
  auto kids = SpinChildren(cores);
  double busy = 0;
  int threads = cores;
  for (int i = 0; i < 6; ++i) {  // a few samples, 100 ms apart
    std::this_thread::sleep_for(std::chrono::milliseconds(120));
    threads = engine::AdaptiveOmpThreads(cores, 1);
    busy = engine::OtherProcessesBusyCores();
  }
  Stop(kids);
  EXPECT_GE(busy, 0.5 * cores);
  EXPECT_LT(threads, cores);
  env::Set("MXNET_CPU_LOAD_ADAPTIVE", "0");
  EXPECT_EQ(engine::AdaptiveOmpThreads(cores, 1), cores);
  env::Unset("MXNET_CPU_LOAD_ADAPTIVE");
}

TEST(CpuLoad, NumCoresSettingCapsThreads) {
  // Fixed at process start, so only its default (0: no cap) is seen here.
  EXPECT_EQ(env::GetInt(env::Var::MXNET_USE_NUM_CORES_OPERATOR_TUNING), 0);
  EXPECT_EQ(engine::AdaptiveOmpThreads(1, 1), 1);
}
