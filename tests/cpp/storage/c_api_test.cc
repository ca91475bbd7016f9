// The storage entries of the C API.
#include "mxnet/c_api.h"

#include <gtest/gtest.h>

#include <string>

#include "mxnet/storage.h"
#include "storage/device_allocators.h"

namespace mxnet {
namespace {

TEST(StorageCApi, StatsFollowTheStructOrder) {
  Storage::Get()->ReleaseAll(Context::CPU());
  Storage::Handle h = Storage::Get()->Alloc(3000, Context::CPU());
  uint64_t v[kStorageStatsCount] = {};
  ASSERT_EQ(MXStorageGetStats(1, 0, v), 0) << MXGetLastError();
  StorageStats s = Storage::Get()->Stats(Context::CPU());
  EXPECT_EQ(v[0], s.bytes_in_use);
  EXPECT_EQ(v[1], s.bytes_cached);
  EXPECT_EQ(v[2], s.peak_bytes_in_use);
  EXPECT_EQ(v[3], s.bytes_requested_peak);
  EXPECT_EQ(v[4], s.alloc_count);
  EXPECT_EQ(v[5], s.pool_hits);
  EXPECT_EQ(v[6], s.pool_misses);
  EXPECT_EQ(v[7], s.free_count);
  EXPECT_GE(v[0], 3000u);
  Storage::Get()->Free(h);
}

TEST(StorageCApi, EmptyCacheReleasesTheDevicesCache) {
  Storage::Get()->Free(Storage::Get()->Alloc(50000, Context::CPU()));
  uint64_t v[kStorageStatsCount] = {};
  ASSERT_EQ(MXStorageGetStats(1, 0, v), 0);
  EXPECT_GT(v[1], 0u);
  ASSERT_EQ(MXStorageEmptyCache(1, 0), 0) << MXGetLastError();
  ASSERT_EQ(MXStorageGetStats(1, 0, v), 0);
  EXPECT_EQ(v[1], 0u);
}

TEST(StorageCApi, BadArgumentsFailCleanly) {
  uint64_t v[kStorageStatsCount] = {};
  EXPECT_EQ(MXStorageEmptyCache(4, 0), -1);
  EXPECT_NE(std::string(MXGetLastError()).find("Unknown device type 4"), std::string::npos) << MXGetLastError();
  EXPECT_EQ(MXStorageGetStats(1, -1, v), -1);
  EXPECT_EQ(MXStorageGetStats(1, 0, nullptr), -1);
  EXPECT_EQ(MXGetGPUMemoryInformation64(0, nullptr, nullptr), -1);
}

TEST(StorageCApi, GpuMemoryInformation) {
  uint64_t free64 = 0, total64 = 0;
  int free32 = 0, total32 = 0;
  if (storage::VisibleGpuCount() == 0) {
    EXPECT_EQ(MXGetGPUMemoryInformation64(0, &free64, &total64), -1);
    EXPECT_NE(std::string(MXGetLastError()).find("gpu(0)"), std::string::npos) << MXGetLastError();
    EXPECT_EQ(MXGetGPUMemoryInformation(0, &free32, &total32), -1);
    return;
  }
  ASSERT_EQ(MXGetGPUMemoryInformation64(0, &free64, &total64), 0) << MXGetLastError();
  EXPECT_GT(total64, 0u);
  EXPECT_LE(free64, total64);
  ASSERT_EQ(MXGetGPUMemoryInformation(0, &free32, &total32), 0);
  EXPECT_GT(total32, 0);
  EXPECT_EQ(MXGetGPUMemoryInformation64(1 << 20, &free64, &total64), -1);
}

}  // namespace
}  // namespace mxnet
