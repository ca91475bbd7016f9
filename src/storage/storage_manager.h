/*!
 * \file storage_manager.h
 * \brief One device's manager: a pool policy (or none) over a raw allocator. Storage keeps
 *        one per (device type, device id) and routes each handle to it.
 */
#ifndef MXNET_STORAGE_STORAGE_MANAGER_H_
#define MXNET_STORAGE_STORAGE_MANAGER_H_

#include <memory>

#include "mxnet/storage.h"
#include "storage/pool_config.h"
#include "storage/raw_allocator.h"

namespace mxnet {
namespace storage {

/*! \brief What an allocation cost: the bytes actually held and whether the pool served it. */
struct AllocOutcome {
  size_t actual;
  bool pool_hit;
};

class StorageManager {
 public:
  virtual ~StorageManager() = default;
  /*! \brief handle->size > 0. Fills handle->dptr or throws mxnet::Error (MemoryError on OOM). */
  virtual AllocOutcome Alloc(Storage::Handle* handle) = 0;
  virtual void Free(const Storage::Handle& handle) = 0;
  virtual void DirectFree(const Storage::Handle& handle) = 0;
  virtual void ReleaseAll() = 0;
  virtual StorageStats Stats() = 0;
  virtual void SharedIncrementRefCount(const Storage::Handle& handle);
};

/*! \brief The manager config.type asks for, allocating from `allocator`. */
std::unique_ptr<StorageManager> CreatePoolManager(const PoolConfig& config, std::unique_ptr<RawAllocator> allocator);

/*! \brief Bookkeeping shared by every manager; the caller serialises access. */
struct StatsTracker {
  StorageStats s;
  size_t requested_live{0};

  void OnAlloc(size_t requested, size_t actual, bool hit) {
    if (hit) {
      s.bytes_cached -= actual;
      ++s.pool_hits;
    } else {
      ++s.pool_misses;
    }
    s.bytes_in_use += actual;
    if (s.bytes_in_use > s.peak_bytes_in_use) s.peak_bytes_in_use = s.bytes_in_use;
    requested_live += requested;
    if (requested_live > s.bytes_requested_peak) s.bytes_requested_peak = requested_live;
    ++s.alloc_count;
  }
  /*! \brief A live block leaves use: into the cache, or back to the device. */
  void OnFree(size_t requested, size_t actual, bool cached) {
    s.bytes_in_use -= actual;
    if (cached) s.bytes_cached += actual;
    requested_live -= requested;
    ++s.free_count;
  }
};

/*!
 * \brief The out-of-memory error, after the cache was released and the allocation retried:
 *        names the device, the sizes, the pool's state and the variables that control it.
 */
[[noreturn]] void ThrowOutOfMemory(const PoolConfig& config, Context ctx, size_t requested, size_t rounded,
                                   size_t bytes_in_use, size_t bytes_cached, size_t bytes_released);

}  // namespace storage
}  // namespace mxnet

#endif  // MXNET_STORAGE_STORAGE_MANAGER_H_
