/*!
 * \file shared_memory_allocator.h
 * \brief cpu_shared memory: POSIX shared-memory segments that another process can map, so
 *        data-loading workers hand arrays to the parent without a copy.
 *
 * Layout and naming follow MXNet: the segment is named "/mx_<pid hex>_<id hex>", holds
 * 16 header bytes (an atomic reference count, 1 at creation) before the data, and dptr points
 * past the header. On Linux the name is unlinked right away and the file descriptor is the
 * handle's shared_id: whoever holds a descriptor (passed over a socket or inherited across
 * fork) can attach, and the kernel frees the segment when the last one is closed and unmapped.
 */
#ifndef MXNET_STORAGE_SHARED_MEMORY_ALLOCATOR_H_
#define MXNET_STORAGE_SHARED_MEMORY_ALLOCATOR_H_

#include <mutex>
#include <string>

#include "storage/storage_manager.h"

namespace mxnet {
namespace storage {

constexpr size_t kSharedHeaderBytes = 16;

/*! \brief "/mx_<pid hex>_<id hex>", the segment name MXNet uses. */
std::string SharedMemoryName(int pid, int id);

class SharedMemoryManager final : public StorageManager {
 public:
  /*!
   * \brief With shared_pid and shared_id both -1, creates a segment and sets them; otherwise
   *        attaches to the segment whose descriptor shared_id is (valid in this process).
   */
  AllocOutcome Alloc(Storage::Handle* handle) override;
  /*! \brief Drops this process's reference: count - 1, unmap, close the descriptor. */
  void Free(const Storage::Handle& handle) override;
  void DirectFree(const Storage::Handle& handle) override { Free(handle); }
  void ReleaseAll() override {}
  StorageStats Stats() override;
  void SharedIncrementRefCount(const Storage::Handle& handle) override;
  /*! \brief The reference count in the segment's header (for tests and debugging). */
  static int RefCount(const Storage::Handle& handle);

 private:
  void* Create(Storage::Handle* handle);
  void* Attach(Storage::Handle* handle);

  std::mutex mu_;
  StatsTracker stats_;
};

}  // namespace storage
}  // namespace mxnet

#endif  // MXNET_STORAGE_SHARED_MEMORY_ALLOCATOR_H_
