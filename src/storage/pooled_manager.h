/*!
 * \file pooled_manager.h
 * \brief A caching manager: freed blocks wait in per-size free lists and are handed out
 *        again (last in, first out: the most recently touched block is likeliest to be warm
 *        in cache). Policy decides the rounded size, which is also the free list's key.
 */
#ifndef MXNET_STORAGE_POOLED_MANAGER_H_
#define MXNET_STORAGE_POOLED_MANAGER_H_

#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "storage/storage_manager.h"

namespace mxnet {
namespace storage {

template <typename Policy>
class PooledManager final : public StorageManager {
 public:
  PooledManager(const PoolConfig& config, std::unique_ptr<RawAllocator> allocator)
      : config_(config), policy_(config), allocator_(std::move(allocator)) {}

  ~PooledManager() override {
    std::lock_guard<std::mutex> lock(mu_);
    ReleaseAllLocked();
  }

  AllocOutcome Alloc(Storage::Handle* handle) override {
    const size_t rounded = policy_.RoundedSize(handle->size);
    std::lock_guard<std::mutex> lock(mu_);
    auto it = free_lists_.find(rounded);
    if (it != free_lists_.end() && !it->second.empty()) {
      handle->dptr = it->second.back();
      it->second.pop_back();
      stats_.OnAlloc(handle->size, rounded, true);
      return {rounded, true};
    }
    KeepReserveLocked(rounded);
    void* ptr = allocator_->Allocate(rounded);
    if (ptr == nullptr) {
      // Cached blocks of other sizes may be what stands in the way: give them back, retry once.
      const size_t released = ReleaseAllLocked();
      ptr = allocator_->Allocate(rounded);
      if (ptr == nullptr) {
        ThrowOutOfMemory(config_, handle->ctx, handle->size, rounded, stats_.s.bytes_in_use, stats_.s.bytes_cached,
                         released);
      }
    }
    handle->dptr = ptr;
    stats_.OnAlloc(handle->size, rounded, false);
    return {rounded, false};
  }

  void Free(const Storage::Handle& handle) override {
    const size_t rounded = policy_.RoundedSize(handle.size);
    std::lock_guard<std::mutex> lock(mu_);
    free_lists_[rounded].push_back(handle.dptr);
    stats_.OnFree(handle.size, rounded, true);
  }

  void DirectFree(const Storage::Handle& handle) override {
    const size_t rounded = policy_.RoundedSize(handle.size);
    std::lock_guard<std::mutex> lock(mu_);
    allocator_->Deallocate(handle.dptr, rounded);
    stats_.OnFree(handle.size, rounded, false);
  }

  void ReleaseAll() override {
    std::lock_guard<std::mutex> lock(mu_);
    ReleaseAllLocked();
  }

  StorageStats Stats() override {
    std::lock_guard<std::mutex> lock(mu_);
    return stats_.s;
  }

 private:
  /*! \brief Returns the bytes given back. Lists keep their capacity so Free stays allocation-free. */
  size_t ReleaseAllLocked() {
    size_t released = 0;
    for (auto& entry : free_lists_) {
      for (void* ptr : entry.second) allocator_->Deallocate(ptr, entry.first);
      released += entry.first * entry.second.size();
      entry.second.clear();
    }
    stats_.s.bytes_cached -= released;
    return released;
  }

  /*!
   * \brief Before taking `rounded` more bytes from the device, make sure reserve% of it stays
   *        free for others (kernels, libraries, other processes); if not, give back the cache.
   */
  void KeepReserveLocked(size_t rounded) {
    if (config_.reserve_percent == 0 || stats_.s.bytes_cached == 0) return;
    size_t free_bytes = 0, total_bytes = 0;
    if (!allocator_->MemInfo(&free_bytes, &total_bytes)) return;
    const size_t reserve = total_bytes * static_cast<size_t>(config_.reserve_percent) / 100;
    const bool fits = free_bytes > rounded && reserve <= free_bytes - rounded;
    if (!fits) ReleaseAllLocked();
  }

  const PoolConfig config_;
  const Policy policy_;
  std::unique_ptr<RawAllocator> allocator_;
  std::mutex mu_;
  std::unordered_map<size_t, std::vector<void*>> free_lists_;
  StatsTracker stats_;
};

}  // namespace storage
}  // namespace mxnet

#endif  // MXNET_STORAGE_POOLED_MANAGER_H_
