// Direct allocation, with the same statistics and out-of-memory error as the pools.
#include "storage/unpooled_manager.h"

#include <utility>

namespace mxnet {
namespace storage {

UnpooledManager::UnpooledManager(const PoolConfig& config, std::unique_ptr<RawAllocator> allocator)
    : config_(config), allocator_(std::move(allocator)) {}

AllocOutcome UnpooledManager::Alloc(Storage::Handle* handle) {
  void* ptr = allocator_->Allocate(handle->size);
  std::lock_guard<std::mutex> lock(mu_);
  if (ptr == nullptr) {
    ThrowOutOfMemory(config_, handle->ctx, handle->size, handle->size, stats_.s.bytes_in_use, 0, 0);
  }
  handle->dptr = ptr;
  stats_.OnAlloc(handle->size, handle->size, false);
  return {handle->size, false};
}

void UnpooledManager::Free(const Storage::Handle& handle) { DirectFree(handle); }

void UnpooledManager::DirectFree(const Storage::Handle& handle) {
  allocator_->Deallocate(handle.dptr, handle.size);
  std::lock_guard<std::mutex> lock(mu_);
  stats_.OnFree(handle.size, handle.size, false);
}

StorageStats UnpooledManager::Stats() {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_.s;
}

}  // namespace storage
}  // namespace mxnet
