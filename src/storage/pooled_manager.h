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
#include <utility>
#include <vector>

#include "storage/free_lists.h"
#include "storage/spin_lock.h"
#include "storage/storage_manager.h"

namespace mxnet {
namespace storage {

template <typename Policy>
class PooledManager final : public StorageManager {
 public:
  PooledManager(const PoolConfig& config, std::unique_ptr<RawAllocator> allocator)
      : config_(config), policy_(config), allocator_(std::move(allocator)) {}

  ~PooledManager() override { ReleaseAll(); }

  AllocOutcome Alloc(Storage::Handle* handle) override {
    const size_t rounded = policy_.RoundedSize(handle->size);
    {
      std::lock_guard<SpinLock> lock(mu_);
      std::vector<void*>* cached = free_lists_.Find(rounded);
      if (cached != nullptr && !cached->empty()) {
        handle->dptr = cached->back();
        cached->pop_back();
        stats_.OnAlloc(handle->size, rounded, true);
        return {rounded, true};
      }
    }
    // A miss: talk to the device without holding the lock, so other threads' hits and frees
    // never wait behind a cudaMalloc or a large page-faulting allocation.
    KeepReserve(rounded);
    void* ptr = allocator_->Allocate(rounded);
    size_t released = 0;
    if (ptr == nullptr) {
      // Cached blocks of other sizes may be what stands in the way: give them back, retry once.
      released = ReleaseAllAndCount();
      ptr = allocator_->Allocate(rounded);
    }
    std::lock_guard<SpinLock> lock(mu_);
    if (ptr == nullptr) {
      ThrowOutOfMemory(config_, handle->ctx, handle->size, rounded, stats_.s.bytes_in_use, stats_.s.bytes_cached,
                       released);
    }
    handle->dptr = ptr;
    stats_.OnAlloc(handle->size, rounded, false);
    return {rounded, false};
  }

  void Free(const Storage::Handle& handle) override {
    const size_t rounded = policy_.RoundedSize(handle.size);
    std::lock_guard<SpinLock> lock(mu_);
    free_lists_.Get(rounded).push_back(handle.dptr);
    stats_.OnFree(handle.size, rounded, true);
  }

  void DirectFree(const Storage::Handle& handle) override {
    const size_t rounded = policy_.RoundedSize(handle.size);
    allocator_->Deallocate(handle.dptr, rounded);
    std::lock_guard<SpinLock> lock(mu_);
    stats_.OnFree(handle.size, rounded, false);
  }

  void ReleaseAll() override { ReleaseAllAndCount(); }

  StorageStats Stats() override {
    std::lock_guard<SpinLock> lock(mu_);
    return stats_.s;
  }

 private:
  /*! \brief Empties the cache; returns the bytes given back. Stacks keep their capacity. */
  size_t ReleaseAllAndCount() {
    std::vector<std::pair<void*, size_t>> blocks;
    {
      std::lock_guard<SpinLock> lock(mu_);
      free_lists_.ForEach([&](size_t size, std::vector<void*>& stack) {
        for (void* ptr : stack) blocks.emplace_back(ptr, size);
        stack.clear();
      });
      stats_.s.bytes_cached = 0;
    }
    size_t released = 0;
    for (const auto& b : blocks) {
      allocator_->Deallocate(b.first, b.second);
      released += b.second;
    }
    return released;
  }

  /*!
   * \brief Before taking `rounded` more bytes from the device, make sure reserve% of it stays
   *        free for others (kernels, libraries, other processes); if not, give back the cache.
   */
  void KeepReserve(size_t rounded) {
    if (config_.reserve_percent == 0) return;
    {
      // Nothing cached, nothing to give back: skip asking the device.
      std::lock_guard<SpinLock> lock(mu_);
      if (stats_.s.bytes_cached == 0) return;
    }
    size_t free_bytes = 0, total_bytes = 0;
    if (!allocator_->MemInfo(&free_bytes, &total_bytes)) return;
    const size_t reserve = total_bytes * static_cast<size_t>(config_.reserve_percent) / 100;
    const bool fits = free_bytes > rounded && reserve <= free_bytes - rounded;
    if (!fits) ReleaseAllAndCount();
  }

  const PoolConfig config_;
  const Policy policy_;
  std::unique_ptr<RawAllocator> allocator_;
  SpinLock mu_;
  FreeLists free_lists_;
  StatsTracker stats_;
};

}  // namespace storage
}  // namespace mxnet

#endif  // MXNET_STORAGE_POOLED_MANAGER_H_
