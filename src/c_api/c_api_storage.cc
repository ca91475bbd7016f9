// C API of the storage managers: emptying caches, GPU memory figures, statistics.
#include <climits>

#include "c_api/api_guard.h"
#include "mxnet/c_api.h"
#include "mxnet/error.h"
#include "mxnet/storage.h"
#include "storage/device_allocators.h"

int MXStorageEmptyCache(int dev_type, int dev_id) {
  API_BEGIN();
  mxnet::Storage::Get()->ReleaseAll(mxnet::Context::Create(dev_type, dev_id));
  API_END();
}

int MXGetGPUMemoryInformation64(int dev, uint64_t* free_mem, uint64_t* total_mem) {
  API_BEGIN();
  MX_CHECK_KIND(free_mem != nullptr && total_mem != nullptr, "ValueError")
      << "MXGetGPUMemoryInformation64: output pointers must not be NULL";
  mxnet::storage::GpuMemoryInfo(dev, free_mem, total_mem);
  API_END();
}

int MXGetGPUMemoryInformation(int dev, int* free_mem, int* total_mem) {
  API_BEGIN();
  MX_CHECK_KIND(free_mem != nullptr && total_mem != nullptr, "ValueError")
      << "MXGetGPUMemoryInformation: output pointers must not be NULL";
  uint64_t free64 = 0, total64 = 0;
  mxnet::storage::GpuMemoryInfo(dev, &free64, &total64);
  // Clamped rather than wrapped: a GPU has more than 2 GiB, and a negative size helps no one.
  *free_mem = free64 > INT_MAX ? INT_MAX : static_cast<int>(free64);
  *total_mem = total64 > INT_MAX ? INT_MAX : static_cast<int>(total64);
  API_END();
}

int MXStorageGetStats(int dev_type, int dev_id, uint64_t* out_stats) {
  API_BEGIN();
  MX_CHECK_KIND(out_stats != nullptr, "ValueError") << "MXStorageGetStats: out_stats must not be NULL";
  mxnet::StorageStats s = mxnet::Storage::Get()->Stats(mxnet::Context::Create(dev_type, dev_id));
  const uint64_t values[mxnet::kStorageStatsCount] = {s.bytes_in_use,         s.bytes_cached, s.peak_bytes_in_use,
                                                      s.bytes_requested_peak, s.alloc_count,  s.pool_hits,
                                                      s.pool_misses,          s.free_count};
  for (int i = 0; i < mxnet::kStorageStatsCount; ++i) out_stats[i] = values[i];
  API_END();
}
