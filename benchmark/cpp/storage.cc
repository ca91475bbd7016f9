// Storage benchmarks.
//  - A warm pooled alloc+free pair through Storage::Get() against malloc/free of the same
//    size, in the same run (goal: under 50 ns per pooled pair).
//  - Replay of an allocation trace shaped like ResNet-50 training (batch 32, fp32), for the
//    Naive and Round pools: hit rate and peak bytes held against peak bytes requested.
#include "mxnet/storage.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <vector>

#include "storage/fake_allocator.h"
#include "storage/storage_manager.h"

namespace {

using mxnet::Context;
using mxnet::Storage;

// On a shared machine the median is noisy; the fastest repetition is the code's own cost.
double MinOf(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }

void BM_PooledAllocFree(benchmark::State& state) {
  const size_t size = static_cast<size_t>(state.range(0));
  Storage* storage = Storage::Get();
  storage->Free(storage->Alloc(size, Context::CPU()));  // warm: the block is now cached
  for (auto _ : state) {
    Storage::Handle h = storage->Alloc(size, Context::CPU());
    benchmark::DoNotOptimize(h.dptr);
    storage->Free(h);
  }
}
// The pool alone, without the device look-up and hooks of Storage::Get().
void BM_PoolManagerAllocFree(benchmark::State& state) {
  mxnet::storage::PoolConfig config;
  auto manager =
      mxnet::storage::CreatePoolManager(config, std::make_unique<mxnet::storage::FakeDeviceAllocator>(1 << 30));
  Storage::Handle h;
  h.size = static_cast<size_t>(state.range(0));
  manager->Alloc(&h);
  manager->Free(h);
  for (auto _ : state) {
    manager->Alloc(&h);
    benchmark::DoNotOptimize(h.dptr);
    manager->Free(h);
  }
}
BENCHMARK(BM_PoolManagerAllocFree)->ComputeStatistics("min", MinOf)->Arg(4096);

BENCHMARK(BM_PooledAllocFree)->ComputeStatistics("min", MinOf)->Arg(64)->Arg(4096)->Arg(1 << 20)->Arg(64 << 20);

void BM_MallocFree(benchmark::State& state) {
  const size_t size = static_cast<size_t>(state.range(0));
  for (auto _ : state) {
    void* p = std::malloc(size);
    benchmark::DoNotOptimize(p);
    std::free(p);
  }
}
BENCHMARK(BM_MallocFree)->ComputeStatistics("min", MinOf)->Arg(64)->Arg(4096)->Arg(1 << 20)->Arg(64 << 20);

void BM_AlignedAllocFree(benchmark::State& state) {
  const size_t size = static_cast<size_t>(state.range(0));
  for (auto _ : state) {
    void* p = nullptr;
    if (posix_memalign(&p, 64, size) != 0) state.SkipWithError("posix_memalign failed");
    benchmark::DoNotOptimize(p);
    std::free(p);
  }
}
BENCHMARK(BM_AlignedAllocFree)->ComputeStatistics("min", MinOf)->Arg(64)->Arg(4096)->Arg(1 << 20)->Arg(64 << 20);

// ---- ResNet-50 training trace ----

struct Event {
  bool alloc;
  size_t size;
  int id;  // which live buffer an event refers to
};

/*!
 * \brief One training iteration's allocations: the forward pass keeps every activation
 *        (conv, batch-norm and relu outputs) for the backward pass and takes short-lived
 *        convolution workspaces; the backward pass walks the layers in reverse, allocating
 *        gradients and releasing activations as they are consumed. Batch sizes vary, as with
 *        a last partial batch or bucketing, so sizes do not repeat exactly.
 */
std::vector<Event> ResNet50Trace(int iterations) {
  struct Layer {
    size_t channels, hw;
  };
  std::vector<Layer> layers;
  layers.push_back({64, 112});  // conv1
  const int blocks[] = {3, 4, 6, 3};
  const size_t widths[] = {64, 128, 256, 512};
  const size_t spatial[] = {56, 28, 14, 7};
  for (int s = 0; s < 4; ++s) {
    for (int b = 0; b < blocks[s]; ++b) {
      layers.push_back({widths[s], spatial[s]});                  // 1x1 reduce
      layers.push_back({widths[s], spatial[s]});                  // 3x3
      layers.push_back({widths[s] * 4, spatial[s]});              // 1x1 expand
      if (b == 0) layers.push_back({widths[s] * 4, spatial[s]});  // projection shortcut
    }
  }
  const size_t batches[] = {32, 32, 32, 24, 32, 32, 16, 32};
  std::vector<Event> trace;
  int next_id = 0;
  for (int it = 0; it < iterations; ++it) {
    const size_t batch = batches[it % 8];
    std::vector<std::pair<int, size_t>> kept;
    for (const Layer& l : layers) {
      const size_t act = batch * l.channels * l.hw * l.hw * 4;
      const int ws = next_id++;
      trace.push_back({true, act / 2 + 4096, ws});  // conv workspace
      for (int k = 0; k < 3; ++k) {                 // conv, bn, relu outputs
        kept.push_back({next_id, act});
        trace.push_back({true, act, next_id++});
      }
      trace.push_back({false, act / 2 + 4096, ws});
    }
    for (auto it_kept = kept.rbegin(); it_kept != kept.rend(); ++it_kept) {
      const int grad = next_id++;
      trace.push_back({true, it_kept->second, grad});  // gradient of this activation
      trace.push_back({false, it_kept->second, it_kept->first});
      trace.push_back({false, it_kept->second, grad});
    }
  }
  return trace;
}

void ReplayTrace(benchmark::State& state, mxnet::storage::PoolType type) {
  const std::vector<Event> trace = ResNet50Trace(16);
  double hit_rate = 0, held_peak = 0, requested_peak = 0;
  for (auto _ : state) {
    mxnet::storage::PoolConfig config;
    config.type = type;
    config.reserve_percent = 0;
    config.env_prefix = "MXNET_GPU";
    auto manager = mxnet::storage::CreatePoolManager(
        config, std::make_unique<mxnet::storage::FakeDeviceAllocator>(size_t{1} << 40));
    std::vector<Storage::Handle> live(trace.size());
    size_t held = 0;
    for (const Event& e : trace) {
      if (e.alloc) {
        Storage::Handle& h = live[e.id];
        h.size = e.size;
        h.ctx = Context::GPU(0);
        manager->Alloc(&h);
        mxnet::StorageStats s = manager->Stats();
        if (s.bytes_in_use + s.bytes_cached > held) held = s.bytes_in_use + s.bytes_cached;
      } else {
        manager->Free(live[e.id]);
      }
    }
    mxnet::StorageStats s = manager->Stats();
    hit_rate = static_cast<double>(s.pool_hits) / static_cast<double>(s.alloc_count);
    held_peak = static_cast<double>(held);
    requested_peak = static_cast<double>(s.bytes_requested_peak);
  }
  state.counters["hit_rate"] = hit_rate;
  state.counters["peak_held_MiB"] = held_peak / (1 << 20);
  state.counters["peak_requested_MiB"] = requested_peak / (1 << 20);
  state.counters["held_over_requested"] = held_peak / requested_peak;
  state.counters["events"] = static_cast<double>(trace.size());
}

void BM_ResNet50TraceNaive(benchmark::State& state) { ReplayTrace(state, mxnet::storage::PoolType::kNaive); }
void BM_ResNet50TraceRound(benchmark::State& state) { ReplayTrace(state, mxnet::storage::PoolType::kRound); }
BENCHMARK(BM_ResNet50TraceNaive)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ResNet50TraceRound)->Unit(benchmark::kMillisecond);

}  // namespace
