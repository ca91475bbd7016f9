/*!
 * \file cpu_load.cc
 * \brief Load sampling from /proc/stat (all cores' busy time) minus this process's own CPU
 *        time (CLOCK_PROCESS_CPUTIME_ID, which counts our spinning OpenMP threads too).
 */
#include "engine/cpu_load.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <mutex>

#include "engine/thread_policy.h"
#include "mxnet/env.h"

namespace mxnet {
namespace engine {
namespace {

constexpr int64_t kSampleNs = 100 * 1000 * 1000;

struct Sample {
  int64_t wall_ns{0};
  double busy_s{0};  // all processes, summed over cores
  double own_s{0};   // this process
};

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

bool ReadSample(Sample* s) {
  std::FILE* f = std::fopen("/proc/stat", "r");
  if (!f) return false;
  unsigned long long v[10] = {0};
  const int n = std::fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                            &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]);
  std::fclose(f);
  if (n < 4) return false;
  // user nice system idle iowait irq softirq steal guest guest_nice: busy = all but idle/iowait
  // (guest time is already inside user).
  const unsigned long long busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
  static const double hz = static_cast<double>(sysconf(_SC_CLK_TCK));
  timespec ts{};
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return false;
  s->wall_ns = NowNs();
  s->busy_s = static_cast<double>(busy) / hz;
  s->own_s = static_cast<double>(ts.tv_sec) + ts.tv_nsec * 1e-9;
  return true;
}

std::mutex sample_mu;
Sample last;
std::atomic<int64_t> next_sample_ns{0};
std::atomic<int> others_x100{0};  // cores busy with other processes, times 100
std::atomic<bool> readable{true};
// The affinity mask, re-read with each load sample: sched_getaffinity is a system call, too
// dear for every operation (a tiny op's whole budget is a few microseconds).
std::atomic<int> cores_available{0};

void MaybeResample() {
  const int64_t now = NowNs();
  if (now < next_sample_ns.load(std::memory_order_relaxed)) return;
  std::unique_lock<std::mutex> lk(sample_mu, std::try_to_lock);
  if (!lk.owns_lock()) return;  // another thread samples
  cores_available.store(NumCores(), std::memory_order_relaxed);
  Sample s;
  if (!ReadSample(&s)) {
    readable.store(false);
    next_sample_ns.store(now + 100 * kSampleNs);
    return;
  }
  if (last.wall_ns > 0 && s.wall_ns > last.wall_ns) {
    const double wall = (s.wall_ns - last.wall_ns) * 1e-9;
    // /proc/stat ticks are coarse (10 ms): over 100 ms that is +-0.1 core, fine for a decision.
    const double others = std::max(0.0, ((s.busy_s - last.busy_s) - (s.own_s - last.own_s)) / wall);
    // Sustained load only: the smaller of the last two samples, so a burst (another process's
    // threads spinning down after their work, a short-lived tool) does not halve our threads.
    static double previous = 1e9;  // the first reading counts whole: a process starting under load adapts at once
    const double sustained = std::min(others, previous);
    previous = others;
    others_x100.store(static_cast<int>(std::lround(sustained * 100)), std::memory_order_relaxed);
  }
  last = s;
  next_sample_ns.store(now + kSampleNs, std::memory_order_relaxed);
}

}  // namespace

int AdaptiveOmpThreads(int configured, int workers) {
  const int64_t cap = env::GetInt(env::Var::MXNET_USE_NUM_CORES_OPERATOR_TUNING);
  if (cap > 0) configured = std::min<int>(configured, static_cast<int>(cap));
  if (configured <= 1 || !env::GetBool(env::Var::MXNET_CPU_LOAD_ADAPTIVE) || !readable.load(std::memory_order_relaxed))
    return configured;
  MaybeResample();
  int cores = cores_available.load(std::memory_order_relaxed);
  if (cores <= 0) cores = NumCores();  // another thread is taking the first sample
  const double free_cores = cores - others_x100.load(std::memory_order_relaxed) / 100.0;
  // Round to nearest: a light background load (under half a core) keeps every thread.
  const int want = static_cast<int>(std::floor(free_cores / std::max(1, workers) + 0.5));
  return std::max(1, std::min(configured, want));
}

double OtherProcessesBusyCores() {
  MaybeResample();
  return others_x100.load() / 100.0;
}

void ApplyAdaptiveOmpThreads(int configured, int workers) {
  thread_local int applied = -1;
  const int want = AdaptiveOmpThreads(configured, workers);
  if (want != applied) {
    SetOmpThreadsForThisThread(want);
    applied = want;
  }
}

}  // namespace engine
}  // namespace mxnet
