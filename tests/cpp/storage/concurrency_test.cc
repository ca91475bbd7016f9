// Many threads allocating and freeing random sizes at once. Each thread writes a pattern
// into its blocks and checks it before freeing, so two owners of one block would show.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "mxnet/storage.h"
#include "storage/fake_allocator.h"
#include "storage/storage_manager.h"

namespace mxnet {
namespace storage {
namespace {

constexpr int kThreads = 8;
constexpr int kIterations = 3000;

/*! \brief Random alloc/free traffic against `alloc`/`free`; returns blocks whose pattern broke. */
template <typename AllocFn, typename FreeFn>
int Hammer(int seed, AllocFn alloc, FreeFn free) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<size_t> size_dist(1, 1 << 17);
  std::uniform_int_distribution<int> coin(0, 2);
  std::vector<Storage::Handle> live;
  int broken = 0;
  auto release = [&](size_t i) {
    Storage::Handle h = live[i];
    const unsigned char tag = static_cast<unsigned char>(reinterpret_cast<uintptr_t>(h.dptr) >> 6);
    const unsigned char* bytes = static_cast<const unsigned char*>(h.dptr);
    if (bytes[0] != tag || bytes[h.size - 1] != tag || bytes[h.size / 2] != tag) ++broken;
    live[i] = live.back();
    live.pop_back();
    free(h);
  };
  for (int it = 0; it < kIterations; ++it) {
    if (live.empty() || coin(gen) != 0) {
      Storage::Handle h = alloc(size_dist(gen));
      const unsigned char tag = static_cast<unsigned char>(reinterpret_cast<uintptr_t>(h.dptr) >> 6);
      std::memset(h.dptr, tag, h.size);
      live.push_back(h);
      if (live.size() > 32) release(gen() % live.size());
    } else {
      release(gen() % live.size());
    }
  }
  while (!live.empty()) release(live.size() - 1);
  return broken;
}

class ConcurrentPool : public ::testing::TestWithParam<PoolType> {};

TEST_P(ConcurrentPool, RandomSizesFromManyThreads) {
  PoolConfig c;
  c.type = GetParam();
  c.reserve_percent = 5;
  auto fake = std::make_unique<FakeDeviceAllocator>(size_t{1} << 30);
  FakeDeviceAllocator* device = fake.get();
  auto manager = CreatePoolManager(c, std::move(fake));
  std::atomic<int> broken{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      broken += Hammer(
          t + 1,
          [&](size_t size) {
            Storage::Handle h;
            h.size = size;
            h.ctx = Context::GPU(0);
            manager->Alloc(&h);
            return h;
          },
          [&](const Storage::Handle& h) {
            if (h.size % 7 == 0) {
              manager->DirectFree(h);
            } else {
              manager->Free(h);
            }
          });
      if (t % 3 == 0) manager->ReleaseAll();
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(broken.load(), 0);
  StorageStats s = manager->Stats();
  EXPECT_EQ(s.bytes_in_use, 0u);
  EXPECT_EQ(s.alloc_count, s.free_count);
  EXPECT_EQ(s.pool_hits + s.pool_misses, s.alloc_count);
  EXPECT_EQ(s.bytes_cached, device->used());
  manager->ReleaseAll();
  EXPECT_EQ(device->used(), 0u);
}

INSTANTIATE_TEST_SUITE_P(All, ConcurrentPool,
                         ::testing::Values(PoolType::kNaive, PoolType::kRound, PoolType::kUnpooled),
                         [](const ::testing::TestParamInfo<PoolType>& info) { return PoolTypeName(info.param); });

TEST(ConcurrentStorage, ThreadsOnEveryHostDeviceThroughTheSingleton) {
  std::atomic<int> broken{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    // Threads race to create the managers too: cpu(t), cpu_pinned(t % 2).
    Context ctx = t % 2 == 0 ? Context::CPU(t) : Context::CPUPinned(t % 4 == 1 ? 0 : 1);
    threads.emplace_back([&, t, ctx] {
      broken += Hammer(
          100 + t, [&](size_t size) { return Storage::Get()->Alloc(size, ctx); },
          [&](const Storage::Handle& h) { Storage::Get()->Free(h); });
      Storage::Get()->Stats(ctx);
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(broken.load(), 0);
  EXPECT_EQ(Storage::Get()->Stats(Context::CPU()).bytes_in_use, 0u);
  EXPECT_EQ(Storage::Get()->Stats(Context::CPUPinned(0)).bytes_in_use, 0u);
  EXPECT_EQ(Storage::Get()->Stats(Context::CPUPinned(1)).bytes_in_use, 0u);
}

}  // namespace
}  // namespace storage
}  // namespace mxnet
