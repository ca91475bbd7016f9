/*!
 * \file unpooled_manager.h
 * \brief No cache: every Alloc goes to the device and every Free comes straight back
 *        (MXNET_<DEV>_MEM_POOL_TYPE=Unpooled or MXNET_USE_NAIVE_STORAGE_MANAGERS=1).
 */
#ifndef MXNET_STORAGE_UNPOOLED_MANAGER_H_
#define MXNET_STORAGE_UNPOOLED_MANAGER_H_

#include <memory>
#include <mutex>

#include "storage/storage_manager.h"

namespace mxnet {
namespace storage {

class UnpooledManager final : public StorageManager {
 public:
  UnpooledManager(const PoolConfig& config, std::unique_ptr<RawAllocator> allocator);
  AllocOutcome Alloc(Storage::Handle* handle) override;
  void Free(const Storage::Handle& handle) override;
  void DirectFree(const Storage::Handle& handle) override;
  void ReleaseAll() override {}
  StorageStats Stats() override;

 private:
  const PoolConfig config_;
  std::unique_ptr<RawAllocator> allocator_;
  std::mutex mu_;  // guards stats_ only; the allocator is thread-safe
  StatsTracker stats_;
};

}  // namespace storage
}  // namespace mxnet

#endif  // MXNET_STORAGE_UNPOOLED_MANAGER_H_
