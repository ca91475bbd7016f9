// Engine overhead: independent no-op throughput, dependent-chain latency and a realistic
// mix, for each engine type, next to a plain std::thread + mutex queue doing the same.
// "per_op" is the amortised time per op (push to completion).
#include "mxnet/engine.h"

#include <benchmark/benchmark.h>

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <random>
#include <thread>

#include "engine/engine_config.h"

namespace {

using mxnet::Context;
using mxnet::Engine;
using mxnet::RunContext;
using mxnet::engine::VarHandle;

constexpr int kOps = 1000;

struct EngineCase {
  const char* type;
  int threads;
};
const EngineCase kCases[] = {
    {"NaiveEngine", 1}, {"ThreadedEngine", 16}, {"ThreadedEnginePerDevice", 1}, {"ThreadedEnginePerDevice", 2}};

std::unique_ptr<Engine> Make(const EngineCase& c) {
  mxnet::engine::EngineConfig config;
  config.cpu_worker_threads = c.threads;
  config.pooled_worker_threads = c.threads;
  config.omp_threads_per_worker = 1;
  return mxnet::engine::CreateEngine(c.type, config);
}

void PerOp(benchmark::State& state) {
  state.counters["per_op"] =
      benchmark::Counter(kOps, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void Independent(benchmark::State& state, EngineCase c) {
  auto engine = Make(c);
  std::vector<VarHandle> vars(kOps);
  for (auto& v : vars) v = engine->NewVariable();
  for (auto _ : state) {
    for (int i = 0; i < kOps; ++i) engine->PushSync([](RunContext) {}, Context::CPU(), {}, {vars[i]});
    engine->WaitForAll();
  }
  PerOp(state);
}

void Chain(benchmark::State& state, EngineCase c) {
  auto engine = Make(c);
  VarHandle v = engine->NewVariable();
  for (auto _ : state) {
    for (int i = 0; i < kOps; ++i) engine->PushSync([](RunContext) {}, Context::CPU(), {}, {v});
    engine->WaitForVar(v);
  }
  PerOp(state);
}

/*! \brief ~1 us of arithmetic, like a small element-wise kernel. */
void SmallWork() {
  volatile double x = 1;
  for (int i = 0; i < 300; ++i) x = x * 1.0000001 + 0.5;
}

void Mix(benchmark::State& state, EngineCase c) {
  auto engine = Make(c);
  std::vector<VarHandle> vars(64);
  for (auto& v : vars) v = engine->NewVariable();
  std::mt19937 rng(1);
  struct Op {
    std::vector<VarHandle> reads, writes;
  };
  std::vector<Op> ops(kOps);
  for (auto& op : ops) {
    int r = rng() % 3;
    VarHandle w = vars[rng() % vars.size()];
    op.writes = {w};
    for (int k = 0; k < r; ++k) {
      VarHandle x = vars[rng() % vars.size()];
      if (x != w) op.reads.push_back(x);
    }
  }
  for (auto _ : state) {
    for (auto& op : ops) engine->PushSync([](RunContext) { SmallWork(); }, Context::CPU(), op.reads, op.writes);
    engine->WaitForAll();
  }
  PerOp(state);
}

/*! \brief The baseline: one worker thread, a mutex-protected deque and a condition variable. */
class MutexQueue {
 public:
  MutexQueue() : worker_([this] { Loop(); }) {}
  ~MutexQueue() {
    Push(nullptr);
    worker_.join();
  }
  void Push(std::function<void()> fn) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      queue_.push_back(std::move(fn));
      ++pushed_;
    }
    cv_.notify_one();
  }
  void WaitAll() {
    std::unique_lock<std::mutex> lock(mu_);
    done_cv_.wait(lock, [this] { return done_ == pushed_; });
  }

 private:
  void Loop() {
    for (;;) {
      std::function<void()> fn;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [this] { return !queue_.empty(); });
        fn = std::move(queue_.front());
        queue_.pop_front();
      }
      if (!fn) return;
      fn();
      std::lock_guard<std::mutex> lock(mu_);
      if (++done_ == pushed_) done_cv_.notify_all();
    }
  }
  std::mutex mu_;
  std::condition_variable cv_, done_cv_;
  std::deque<std::function<void()>> queue_;
  long pushed_{0}, done_{0};
  std::thread worker_;
};

void BaselineNoop(benchmark::State& state) {
  MutexQueue q;
  for (auto _ : state) {
    for (int i = 0; i < kOps; ++i) q.Push([] {});
    q.WaitAll();
  }
  PerOp(state);
}

void BaselineMix(benchmark::State& state) {
  MutexQueue q;
  for (auto _ : state) {
    for (int i = 0; i < kOps; ++i) q.Push([] { SmallWork(); });
    q.WaitAll();
  }
  PerOp(state);
}

void SerialMix(benchmark::State& state) {
  for (auto _ : state) {
    for (int i = 0; i < kOps; ++i) SmallWork();
  }
  PerOp(state);
}

const bool kRegistered = [] {
  for (const auto& c : kCases) {
    std::string name = std::string(c.type) + "/" + std::to_string(c.threads);
    benchmark::RegisterBenchmark(("Independent/" + name).c_str(), Independent, c)->UseRealTime();
    benchmark::RegisterBenchmark(("Chain/" + name).c_str(), Chain, c)->UseRealTime();
    benchmark::RegisterBenchmark(("Mix/" + name).c_str(), Mix, c)->UseRealTime();
  }
  benchmark::RegisterBenchmark("Independent/Baseline_thread_mutex_queue", BaselineNoop)->UseRealTime();
  benchmark::RegisterBenchmark("Chain/Baseline_thread_mutex_queue", BaselineNoop)->UseRealTime();
  benchmark::RegisterBenchmark("Mix/Baseline_thread_mutex_queue", BaselineMix)->UseRealTime();
  benchmark::RegisterBenchmark("Mix/Serial_no_engine", SerialMix)->UseRealTime();
  return true;
}();

}  // namespace
