/*!
 * \file storage.h
 * \brief Device memory for tensors: a process-wide Storage that hands out blocks from a
 *        pool per (device type, device id). Pool policy (Naive, Round, Unpooled) is chosen
 *        per device type by MXNET_<DEV>_MEM_POOL_TYPE; see src/storage/.
 */
#ifndef MXNET_STORAGE_H_
#define MXNET_STORAGE_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "mxnet/base.h"

namespace mxnet {

/*! \brief Counters of one device's manager. Order matters: MXStorageGetStats returns them so. */
struct StorageStats {
  size_t bytes_in_use{0};          // rounded bytes handed out and not yet freed
  size_t bytes_cached{0};          // rounded bytes held in the pool's free lists
  size_t peak_bytes_in_use{0};     // high-water mark of bytes_in_use
  size_t bytes_requested_peak{0};  // high-water mark of requested (unrounded) live bytes
  uint64_t alloc_count{0};         // successful Alloc calls of a non-zero size
  uint64_t pool_hits{0};           // allocations served from the free lists
  uint64_t pool_misses{0};         // allocations that went to the device
  uint64_t free_count{0};          // Free and DirectFree calls of a non-null block
};

/*! \brief Number of values in StorageStats, as the C API returns them. */
constexpr int kStorageStatsCount = 8;

class Storage {
 public:
  /*! \brief A block of device memory. `size` is the requested size, not the rounded one. */
  struct Handle {
    void* dptr{nullptr};
    size_t size{0};
    Context ctx;
    int shared_pid{-1};  // kCPUShared only: process that created the segment
    int shared_id{-1};   // kCPUShared only: segment id (a file descriptor on Linux)
  };

  /*! \brief The process singleton; created on first use, thread-safe. */
  static Storage* Get();
  /*! \brief Shared ownership of the singleton, so objects destroyed at exit can still free. */
  static std::shared_ptr<Storage> _GetSharedRef();

  /*! \brief Allocates `size` bytes on `ctx`. Size 0 gives a null dptr. Throws mxnet::Error on OOM. */
  virtual Handle Alloc(size_t size, Context ctx) = 0;
  /*!
   * \brief Fills handle->dptr for handle->size on handle->ctx. For kCPUShared, a handle whose
   *        shared_pid/shared_id are set attaches to that existing segment instead of creating one.
   */
  virtual void Alloc(Handle* handle) = 0;
  /*! \brief Returns the block to its pool (or to the device when unpooled). Null dptr: no-op. */
  virtual void Free(Handle handle) = 0;
  /*! \brief Returns the block to the device, bypassing the pool. Null dptr: no-op. */
  virtual void DirectFree(Handle handle) = 0;
  /*! \brief kCPUShared only: one more owner of the segment (another process attached). */
  virtual void SharedIncrementRefCount(Handle handle) = 0;
  /*! \brief Gives every cached block of that device back to the device. */
  virtual void ReleaseAll(Context ctx) = 0;
  /*! \brief Counters of that device's manager; zeros for a device never used. */
  virtual StorageStats Stats(Context ctx) = 0;

  /*!
   * \brief Observer of every allocation and free (the profiler installs one). `requested` is
   *        the handle's size, `actual` the rounded size held; `pool_hit` whether it was reused.
   */
  struct AllocHooks {
    void (*on_alloc)(Context ctx, size_t requested, size_t actual, void* ptr, bool pool_hit);
    void (*on_free)(Context ctx, size_t size, void* ptr);
  };
  /*! \brief Installs hooks (the pointer must outlive its use); null removes them. */
  static void SetAllocHooks(const AllocHooks* hooks);

  virtual ~Storage();
};

}  // namespace mxnet

#endif  // MXNET_STORAGE_H_
