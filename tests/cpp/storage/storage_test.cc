// The process-wide Storage: MXNet's basic tests, device routing, alignment, hooks, and
// GPU behaviour (run when a GPU is visible, otherwise its absence is checked).
#include "mxnet/storage.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "mxnet/env.h"
#include "mxnet/error.h"
#include "storage/device_allocators.h"
#include "storage/storage_manager.h"

namespace mxnet {
namespace {

TEST(Storage, BasicCpu) {
  Storage* s = Storage::Get();
  Storage::Handle h = s->Alloc(1024, Context::CPU());
  EXPECT_EQ(h.ctx, Context::CPU());
  EXPECT_EQ(h.size, 1024u);
  EXPECT_NE(h.dptr, nullptr);
  std::memset(h.dptr, 1, 1024);
  s->Free(h);
  h = s->Alloc(1024, Context::CPU());
  EXPECT_NE(h.dptr, nullptr);
  s->Free(h);
  Storage::Handle empty = s->Alloc(0, Context::CPU());
  EXPECT_EQ(empty.dptr, nullptr);
  s->Free(empty);
  s->DirectFree(empty);
}

TEST(Storage, SingletonAndSharedRefAgree) {
  EXPECT_EQ(Storage::Get(), Storage::_GetSharedRef().get());
  EXPECT_EQ(Storage::Get(), Storage::Get());
}

TEST(Storage, CpuMemoryIs64ByteAligned) {
  std::mt19937 gen(7);
  std::uniform_int_distribution<size_t> size(1, 1 << 16);
  for (Context ctx : {Context::CPU(), Context::CPUPinned()}) {
    for (int i = 0; i < 50; ++i) {
      Storage::Handle h = Storage::Get()->Alloc(size(gen), ctx);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(h.dptr) % 64, 0u) << ctx.ToString() << " " << h.size;
      Storage::Get()->Free(h);
    }
  }
}

TEST(Storage, EveryCpuSharesOneManager) {
  Storage* s = Storage::Get();
  s->ReleaseAll(Context::CPU());
  StorageStats before = s->Stats(Context::CPU());
  Storage::Handle a = s->Alloc(777, Context::CPU(3));
  EXPECT_EQ(a.ctx, Context::CPU(3));  // the handle keeps the context it was asked for
  s->Free(a);
  Storage::Handle b = s->Alloc(777, Context::CPU(0));
  EXPECT_EQ(b.dptr, a.dptr);  // default Naive pool: cpu(3)'s block serves cpu(0)
  s->Free(b);
  StorageStats after = s->Stats(Context::CPU(5));
  EXPECT_EQ(after.alloc_count, before.alloc_count + 2);
  EXPECT_EQ(after.pool_hits, before.pool_hits + 1);
}

TEST(Storage, ReleaseAllEmptiesTheCache) {
  Storage* s = Storage::Get();
  Storage::Handle h = s->Alloc(100000, Context::CPU());
  s->Free(h);
  EXPECT_GE(s->Stats(Context::CPU()).bytes_cached, 100000u);
  s->ReleaseAll(Context::CPU());
  EXPECT_EQ(s->Stats(Context::CPU()).bytes_cached, 0u);
}

TEST(Storage, DirectFreeBypassesThePool) {
  Storage* s = Storage::Get();
  s->ReleaseAll(Context::CPU());
  Storage::Handle h = s->Alloc(5000, Context::CPU());
  s->DirectFree(h);
  EXPECT_EQ(s->Stats(Context::CPU()).bytes_cached, 0u);
}

TEST(Storage, UnusedDeviceHasZeroStatsAndNothingToRelease) {
  Storage* s = Storage::Get();
  StorageStats st = s->Stats(Context::CPUPinned(7));
  EXPECT_EQ(st.alloc_count, 0u);
  EXPECT_EQ(st.bytes_in_use, 0u);
  EXPECT_NO_THROW(s->ReleaseAll(Context::CPUPinned(7)));
}

TEST(Storage, BadRequestsAreErrorsNotCrashes) {
  Storage* s = Storage::Get();
  EXPECT_THROW(s->Alloc(16, Context{static_cast<Context::DeviceType>(4), 0}), Error);
  EXPECT_THROW(s->Alloc(16, Context{Context::kCPUPinned, -1}), Error);
  EXPECT_THROW(s->Alloc(16, Context{Context::kCPUPinned, 1000}), Error);
  try {
    s->Alloc(size_t{1} << 62, Context::CPU());
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.kind(), "MemoryError");
  }
  Storage::Handle stray;
  stray.dptr = &stray;
  stray.size = 8;
  stray.ctx = Context::CPUPinned(9);  // never allocated there
  EXPECT_THROW(s->Free(stray), Error);
}

// Records what the hooks saw.
struct HookLog {
  std::vector<std::string> events;
};
HookLog* g_log = nullptr;

void OnAlloc(Context ctx, size_t requested, size_t actual, void* ptr, bool hit) {
  g_log->events.push_back("alloc " + ctx.ToString() + " " + std::to_string(requested) + " " + std::to_string(actual) +
                          (hit ? " hit" : " miss"));
}
void OnFree(Context ctx, size_t size, void* ptr) {
  g_log->events.push_back("free " + ctx.ToString() + " " + std::to_string(size));
}

TEST(Storage, HooksSeeEveryAllocationAndFree) {
  HookLog log;
  g_log = &log;
  static const Storage::AllocHooks hooks{OnAlloc, OnFree};
  Storage* s = Storage::Get();
  s->ReleaseAll(Context::CPU());
  Storage::SetAllocHooks(&hooks);
  Storage::Handle h = s->Alloc(100, Context::CPU());
  s->Free(h);
  h = s->Alloc(200, Context::CPU(1));
  s->DirectFree(h);
  s->Free(s->Alloc(0, Context::CPU()));  // nothing to report
  Storage::SetAllocHooks(nullptr);
  s->Free(s->Alloc(100, Context::CPU()));  // not reported once removed
  g_log = nullptr;
  std::vector<std::string> expected = {"alloc cpu(0) 100 4096 miss", "free cpu(0) 100", "alloc cpu(1) 200 4096 hit",
                                       "free cpu(1) 200"};
  if (env::GetString(env::Var::MXNET_CPU_MEM_POOL_TYPE) == "Naive" &&
      env::GetInt(env::Var::MXNET_USE_NAIVE_STORAGE_MANAGERS) == 0) {
    EXPECT_EQ(log.events, expected);
  } else {
    EXPECT_EQ(log.events.size(), expected.size());
  }
}

bool HaveGpu() { return storage::VisibleGpuCount() > 0; }

TEST(StorageGpu, AbsentGpuIsAnErrorNamingTheDevice) {
  if (HaveGpu()) GTEST_SKIP() << "a GPU is visible";
  try {
    Storage::Get()->Alloc(1024, Context::GPU(0));
    FAIL() << "allocated on a GPU that does not exist";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("gpu(0)"), std::string::npos) << e.what();
  }
  uint64_t free_b = 0, total_b = 0;
  EXPECT_THROW(storage::GpuMemoryInfo(0, &free_b, &total_b), Error);
  // The failed attempt left nothing behind: statistics stay empty and CPU still works.
  EXPECT_EQ(Storage::Get()->Stats(Context::GPU(0)).alloc_count, 0u);
  Storage::Get()->Free(Storage::Get()->Alloc(8, Context::CPU()));
}

TEST(StorageGpu, NaivePoolReusesTheSameBlock) {
  if (!HaveGpu()) GTEST_SKIP() << "no GPU visible";
  Storage* s = Storage::Get();
  Storage::Handle h = s->Alloc(1024, Context::GPU(0));
  EXPECT_EQ(h.ctx, Context::GPU(0));
  EXPECT_EQ(h.size, 1024u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(h.dptr) % 256, 0u);
  void* p = h.dptr;
  s->Free(h);
  h = s->Alloc(1024, Context::GPU(0));
  if (env::GetString(env::Var::MXNET_GPU_MEM_POOL_TYPE) == "Naive") EXPECT_EQ(h.dptr, p);
  s->Free(h);
  s->ReleaseAll(Context::GPU(0));
  uint64_t free_b = 0, total_b = 0;
  storage::GpuMemoryInfo(0, &free_b, &total_b);
  EXPECT_GT(total_b, 0u);
  EXPECT_LE(free_b, total_b);
}

TEST(StorageGpu, RoundPoolOnARealGpu) {
  if (!HaveGpu()) GTEST_SKIP() << "no GPU visible";
  storage::PoolConfig c;
  c.type = storage::PoolType::kRound;
  c.linear_cutoff = 20;
  c.env_prefix = "MXNET_GPU";
  auto manager = storage::CreatePoolManager(c, storage::MakeGpuAllocator(0));
  auto alloc = [&](size_t size) {
    Storage::Handle h;
    h.size = size;
    h.ctx = Context::GPU(0);
    manager->Alloc(&h);
    return h;
  };
  Storage::Handle a = alloc(32), b = alloc(2097153);
  manager->Free(a);
  manager->Free(b);
  Storage::Handle small = alloc(4095), large = alloc(3145728);
  EXPECT_EQ(small.dptr, a.dptr);
  EXPECT_EQ(large.dptr, b.dptr);
  manager->Free(small);
  manager->Free(large);
}

}  // namespace
}  // namespace mxnet
