// Cost of the profiler on the engine's hottest path: pushing no-op ops. Three cases:
// no hook ever installed, profiler started then stopped (hooks removed again), profiler
// running (every op recorded into the thread buffers). Writing the trace happens at dump
// time, off the push path: it is timed separately by BM_DumpTrace (ops drained per second).
#include "profiler/profiler.h"

#include <benchmark/benchmark.h>

#include "mxnet/engine.h"
#include "profiler/clock.h"
#include "profiler/config.h"
#include "profiler/recorder.h"
#include "profiler/thread_buffer.h"

namespace {
using mxnet::profiler::Profiler;
constexpr int kBatch = 10000;

enum class Mode { kNoHook, kStopped, kRunning };

void Configure() {
  Profiler::Get()->SetConfig(mxnet::profiler::ParseConfig(
      {"filename", "continuous_dump", "profile_api", "profile_memory"}, {"/dev/null", "False", "False", "False"}));
}

void PushNoops(benchmark::State& state, Mode mode) {
  mxnet::Engine* engine = mxnet::Engine::Get();
  if (mode != Mode::kNoHook) {
    Configure();
    Profiler::Get()->SetRunning(true);
    if (mode == Mode::kStopped) Profiler::Get()->SetRunning(false);
  }
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i) {
      engine->PushSync([](mxnet::RunContext) {}, mxnet::Context::CPU(), {}, {}, mxnet::FnProperty::kNormal, 0, "noop");
    }
    engine->WaitForAll();
    if (mode == Mode::kRunning) {
      state.PauseTiming();  // drain, so buffers do not grow without bound; timed below
      Profiler::Get()->Dump(false);
      state.ResumeTiming();
    }
  }
  if (mode == Mode::kRunning) {
    Profiler::Get()->SetRunning(false);
    Profiler::Get()->Dump(true);
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}

// Collecting and formatting kBatch recorded ops (two trace events each) into the file.
void BM_DumpTrace(benchmark::State& state) {
  mxnet::Engine* engine = mxnet::Engine::Get();
  Configure();
  for (auto _ : state) {
    state.PauseTiming();
    Profiler::Get()->SetRunning(true);
    for (int i = 0; i < kBatch; ++i) {
      engine->PushSync([](mxnet::RunContext) {}, mxnet::Context::CPU(), {}, {}, mxnet::FnProperty::kNormal, 0, "noop");
    }
    engine->WaitForAll();
    Profiler::Get()->SetRunning(false);
    state.ResumeTiming();
    Profiler::Get()->Dump(false);
  }
  Profiler::Get()->Dump(true);
  state.SetItemsProcessed(state.iterations() * kBatch);
}

// The recording work one engine op costs while running (two clock reads, one record),
// without the engine around it.
void BM_RecordOperator(benchmark::State& state) {
  int64_t n = 0;
  for (auto _ : state) {
    const int64_t start = mxnet::profiler::NowTicks();
    mxnet::profiler::RecordDuration(mxnet::profiler::RecordKind::kOperator, 0, 0, "noop", start,
                                    mxnet::profiler::NowTicks());
    if (++n % kBatch == 0) {
      state.PauseTiming();
      mxnet::profiler::DrainAllBuffers([](const mxnet::profiler::Record&) {});
      state.ResumeTiming();
    }
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_PushNoop_NoHook(benchmark::State& s) { PushNoops(s, Mode::kNoHook); }
void BM_PushNoop_ProfilerStopped(benchmark::State& s) { PushNoops(s, Mode::kStopped); }
void BM_PushNoop_ProfilerRunning(benchmark::State& s) { PushNoops(s, Mode::kRunning); }
void BM_PushNoop_NoHookAgain(benchmark::State& s) { PushNoops(s, Mode::kNoHook); }

// Registration order is run order: the first case runs before any hook was ever installed.
BENCHMARK(BM_PushNoop_NoHook)->UseRealTime()->MinTime(1.0);
BENCHMARK(BM_PushNoop_ProfilerStopped)->UseRealTime()->MinTime(1.0);
BENCHMARK(BM_PushNoop_ProfilerRunning)->UseRealTime()->MinTime(1.0);
BENCHMARK(BM_PushNoop_NoHookAgain)->UseRealTime()->MinTime(1.0);
BENCHMARK(BM_DumpTrace)->UseRealTime()->MinTime(1.0);
BENCHMARK(BM_RecordOperator);
}  // namespace
