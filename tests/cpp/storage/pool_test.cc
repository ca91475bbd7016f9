// Pool behaviour on a fake device: reuse, statistics, reserve, release, and the
// out-of-memory path.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>

#include "mxnet/error.h"
#include "storage/fake_allocator.h"
#include "storage/storage_manager.h"

namespace mxnet {
namespace storage {
namespace {

Storage::Handle HandleOf(size_t size, Context ctx = Context::GPU(0)) {
  Storage::Handle h;
  h.size = size;
  h.ctx = ctx;
  return h;
}

/*! \brief A pool of the given type over a fake device; keeps a pointer to the device for inspection. */
struct FakePool {
  FakePool(PoolType type, size_t capacity, int reserve_percent = 0, int cutoff = 24) {
    PoolConfig c;
    c.type = type;
    c.reserve_percent = reserve_percent;
    c.linear_cutoff = cutoff;
    c.env_prefix = "MXNET_GPU";
    auto fake = std::make_unique<FakeDeviceAllocator>(capacity);
    device = fake.get();
    manager = CreatePoolManager(c, std::move(fake));
  }
  Storage::Handle Alloc(size_t size) {
    Storage::Handle h = HandleOf(size);
    manager->Alloc(&h);
    return h;
  }
  FakeDeviceAllocator* device;
  std::unique_ptr<StorageManager> manager;
};

class PoolTypes : public ::testing::TestWithParam<PoolType> {};

TEST_P(PoolTypes, StatsAddUp) {
  FakePool pool(GetParam(), 1 << 30);
  Storage::Handle a = pool.Alloc(1000), b = pool.Alloc(5000), c = pool.Alloc(1 << 20);
  StorageStats s = pool.manager->Stats();
  EXPECT_EQ(s.alloc_count, 3u);
  EXPECT_EQ(s.pool_misses, 3u);
  EXPECT_EQ(s.pool_hits, 0u);
  EXPECT_EQ(s.bytes_in_use, pool.device->used());
  EXPECT_EQ(s.bytes_requested_peak, 1000u + 5000u + (1u << 20));
  EXPECT_GE(s.bytes_in_use, s.bytes_requested_peak);
  const size_t peak = s.bytes_in_use;
  EXPECT_EQ(s.peak_bytes_in_use, peak);
  pool.manager->Free(a);
  pool.manager->Free(b);
  s = pool.manager->Stats();
  EXPECT_EQ(s.free_count, 2u);
  EXPECT_EQ(s.bytes_in_use + s.bytes_cached, pool.device->used());
  EXPECT_EQ(s.peak_bytes_in_use, peak);
  Storage::Handle d = pool.Alloc(1000);  // a hit for the pools
  s = pool.manager->Stats();
  EXPECT_EQ(s.pool_hits + s.pool_misses, s.alloc_count);
  EXPECT_EQ(s.pool_hits, GetParam() == PoolType::kUnpooled ? 0u : 1u);
  pool.manager->DirectFree(c);
  pool.manager->Free(d);
  pool.manager->ReleaseAll();
  s = pool.manager->Stats();
  EXPECT_EQ(s.bytes_in_use, 0u);
  EXPECT_EQ(s.bytes_cached, 0u);
  EXPECT_EQ(pool.device->used(), 0u);
  EXPECT_EQ(s.free_count, 4u);
}

TEST_P(PoolTypes, MemoryIsWritableAndAligned) {
  FakePool pool(GetParam(), 1 << 30);
  for (size_t size : {1, 63, 64, 65, 4096, 100000}) {
    Storage::Handle h = pool.Alloc(size);
    ASSERT_NE(h.dptr, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(h.dptr) % 256, 0u) << size;
    std::memset(h.dptr, 0xab, size);
    pool.manager->Free(h);
  }
}

INSTANTIATE_TEST_SUITE_P(All, PoolTypes, ::testing::Values(PoolType::kNaive, PoolType::kRound, PoolType::kUnpooled),
                         [](const ::testing::TestParamInfo<PoolType>& info) { return PoolTypeName(info.param); });

TEST(NaivePool, FreedBlockIsReusedForTheSameRoundedSize) {
  FakePool pool(PoolType::kNaive, 1 << 30);
  Storage::Handle a = pool.Alloc(1024);
  void* p = a.dptr;
  pool.manager->Free(a);
  Storage::Handle b = pool.Alloc(4000);  // same 4096 bucket
  EXPECT_EQ(b.dptr, p);
  EXPECT_EQ(b.size, 4000u);
  Storage::Handle c = pool.Alloc(4097);  // another bucket: new block
  EXPECT_NE(c.dptr, p);
  EXPECT_EQ(pool.device->device_allocs(), 2u);
  StorageStats s = pool.manager->Stats();
  EXPECT_EQ(s.pool_hits, 1u);
  EXPECT_EQ(s.bytes_in_use, 4096u + 8192u);
  pool.manager->Free(b);
  pool.manager->Free(c);
}

TEST(NaivePool, LastFreedIsFirstReused) {
  FakePool pool(PoolType::kNaive, 1 << 30);
  Storage::Handle a = pool.Alloc(100), b = pool.Alloc(100);
  pool.manager->Free(a);
  pool.manager->Free(b);
  Storage::Handle first = pool.Alloc(100), second = pool.Alloc(100);
  EXPECT_EQ(first.dptr, b.dptr);
  EXPECT_EQ(second.dptr, a.dptr);
  pool.manager->Free(first);
  pool.manager->Free(second);
}

TEST(RoundPool, MXNetStorageTestSequence) {
  FakePool pool(PoolType::kRound, 1 << 30, 0, 20);
  Storage::Handle a = pool.Alloc(32), b = pool.Alloc(2097153);
  void *pa = a.dptr, *pb = b.dptr;
  pool.manager->Free(a);
  pool.manager->Free(b);
  Storage::Handle c = pool.Alloc(4095);
  EXPECT_EQ(c.dptr, pa);
  Storage::Handle d = pool.Alloc(3145728);
  EXPECT_EQ(d.dptr, pb);
  EXPECT_EQ(pool.manager->Stats().bytes_in_use, 4096u + 3145728u);
  pool.manager->Free(c);
  pool.manager->Free(d);
}

TEST(UnpooledPool, FreeGoesBackToTheDevice) {
  FakePool pool(PoolType::kUnpooled, 1 << 30);
  Storage::Handle a = pool.Alloc(1000);
  EXPECT_EQ(pool.device->used(), 1000u);  // exact size, no rounding
  pool.manager->Free(a);
  EXPECT_EQ(pool.device->used(), 0u);
  EXPECT_EQ(pool.manager->Stats().bytes_cached, 0u);
}

TEST(PooledOom, CacheIsReleasedAndTheRetrySucceeds) {
  FakePool pool(PoolType::kNaive, 64 * 4096);
  // Fill the device with cached 4 KiB blocks.
  std::vector<Storage::Handle> small;
  for (int i = 0; i < 64; ++i) small.push_back(pool.Alloc(4096));
  for (auto& h : small) pool.manager->Free(h);
  EXPECT_EQ(pool.manager->Stats().bytes_cached, 64u * 4096u);
  // A bigger size misses the cache and does not fit beside it: the cache must go.
  Storage::Handle big = pool.Alloc(32 * 4096);
  ASSERT_NE(big.dptr, nullptr);
  StorageStats s = pool.manager->Stats();
  EXPECT_EQ(s.bytes_cached, 0u);
  EXPECT_EQ(s.bytes_in_use, 32u * 4096u);
  EXPECT_EQ(pool.device->used(), 32u * 4096u);
  pool.manager->Free(big);
}

TEST(PooledOom, SecondFailureNamesTheNumbersAndThePoolStaysUsable) {
  FakePool pool(PoolType::kNaive, 16 * 4096);
  Storage::Handle held = pool.Alloc(8 * 4096);
  Storage::Handle cached = pool.Alloc(4 * 4096);
  pool.manager->Free(cached);
  try {
    pool.Alloc(10 * 4096 - 7);
    FAIL() << "allocation beyond capacity succeeded";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_STREQ(e.kind(), "MemoryError");
    EXPECT_NE(msg.find("gpu(0)"), std::string::npos) << msg;
    EXPECT_NE(msg.find(std::to_string(10 * 4096 - 7) + " bytes"), std::string::npos) << msg;
    EXPECT_NE(msg.find(std::to_string(10 * 4096) + " after rounding"), std::string::npos) << msg;
    EXPECT_NE(msg.find(std::to_string(8 * 4096) + " bytes in use"), std::string::npos) << msg;
    EXPECT_NE(msg.find("0 bytes cached"), std::string::npos) << msg;
    EXPECT_NE(msg.find(std::to_string(4 * 4096) + " cached bytes were released"), std::string::npos) << msg;
    EXPECT_NE(msg.find("MXNET_GPU_MEM_POOL_TYPE"), std::string::npos) << msg;
  }
  // Nothing leaked or double counted; the pool keeps working.
  StorageStats s = pool.manager->Stats();
  EXPECT_EQ(s.bytes_in_use, 8u * 4096u);
  EXPECT_EQ(s.bytes_cached, 0u);
  Storage::Handle fits = pool.Alloc(8 * 4096);
  EXPECT_NE(fits.dptr, nullptr);
  pool.manager->Free(fits);
  pool.manager->Free(held);
  EXPECT_EQ(pool.manager->Stats().bytes_in_use, 0u);
}

TEST(UnpooledOom, ErrorNamesTheVariable) {
  FakePool pool(PoolType::kUnpooled, 1000);
  try {
    pool.Alloc(1001);
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.kind(), "MemoryError");
    EXPECT_NE(std::string(e.what()).find("MXNET_GPU_MEM_POOL_TYPE"), std::string::npos) << e.what();
  }
  Storage::Handle fits = pool.Alloc(1000);
  EXPECT_NE(fits.dptr, nullptr);
  pool.manager->Free(fits);
}

TEST(Reserve, CacheIsReleasedWhenANewBlockWouldEatTheReserve) {
  // 100 pages, 10% reserve: at most 90 pages may be taken before the cache is given back.
  FakePool pool(PoolType::kNaive, 100 * 4096, 10);
  std::vector<Storage::Handle> blocks;
  for (int i = 0; i < 80; ++i) blocks.push_back(pool.Alloc(4096));
  pool.manager->Free(blocks.back());  // 1 page cached, 79 in use, 20 free
  blocks.pop_back();
  Storage::Handle fits = pool.Alloc(2 * 4096);  // 18 free after: above the 10-page reserve
  EXPECT_EQ(pool.manager->Stats().bytes_cached, 4096u);
  Storage::Handle eats = pool.Alloc(9 * 4096);  // 9 free after: below the reserve -> release cache
  EXPECT_EQ(pool.manager->Stats().bytes_cached, 0u);
  EXPECT_EQ(pool.device->used(), (79u + 2u + 9u) * 4096u);
  for (auto& h : blocks) pool.manager->Free(h);
  pool.manager->Free(fits);
  pool.manager->Free(eats);
}

TEST(Reserve, SomeoneElsesMemoryCounts) {
  FakePool pool(PoolType::kNaive, 100 * 4096, 5);
  Storage::Handle a = pool.Alloc(4096);
  pool.manager->Free(a);
  pool.device->set_foreign_usage(90 * 4096);  // another process took most of the device
  Storage::Handle b = pool.Alloc(8 * 4096);   // 1 page free afterwards < 5 page reserve
  EXPECT_EQ(pool.manager->Stats().bytes_cached, 0u);
  pool.manager->Free(b);
}

}  // namespace
}  // namespace storage
}  // namespace mxnet
