// Choosing a manager for a pool config, and the out-of-memory message all managers share.
#include "storage/storage_manager.h"

#include <sstream>

#include "mxnet/error.h"
#include "storage/naive_pool.h"
#include "storage/pooled_manager.h"
#include "storage/round_pool.h"
#include "storage/unpooled_manager.h"

namespace mxnet {
namespace storage {

void StorageManager::SharedIncrementRefCount(const Storage::Handle& handle) {
  MX_THROW("ValueError") << "SharedIncrementRefCount applies to cpu_shared memory only, not " << handle.ctx.ToString()
                         << ".";
}

std::unique_ptr<StorageManager> CreatePoolManager(const PoolConfig& config, std::unique_ptr<RawAllocator> allocator) {
  ValidatePoolConfig(config);
  switch (config.type) {
    case PoolType::kNaive:
      return std::make_unique<PooledManager<NaivePolicy>>(config, std::move(allocator));
    case PoolType::kRound:
      return std::make_unique<PooledManager<RoundPolicy>>(config, std::move(allocator));
    case PoolType::kUnpooled:
      return std::make_unique<UnpooledManager>(config, std::move(allocator));
  }
  MX_THROW("ValueError") << "unknown pool type";
  return nullptr;
}

void ThrowOutOfMemory(const PoolConfig& config, Context ctx, size_t requested, size_t rounded, size_t bytes_in_use,
                      size_t bytes_cached, size_t bytes_released) {
  std::ostringstream err;
  err << "Out of memory on " << ctx.ToString() << ": cannot allocate " << requested << " bytes";
  if (rounded != requested) err << " (" << rounded << " after rounding)";
  err << "; " << bytes_in_use << " bytes in use, " << bytes_cached << " bytes cached";
  if (config.type != PoolType::kUnpooled) {
    err << " (" << bytes_released << " cached bytes were released and the allocation retried)";
  }
  err << ". The pool is " << PoolTypeName(config.type);
  if (config.forced_unpooled) {
    err << ", set by MXNET_USE_NAIVE_STORAGE_MANAGERS";
  } else {
    err << ", chosen by " << config.env_prefix << "_MEM_POOL_TYPE";
  }
  err << "; " << config.env_prefix << "_MEM_POOL_RESERVE keeps " << config.reserve_percent
      << "% of the device free. Free arrays you no longer need, or use smaller batches.";
  MX_THROW("MemoryError") << err.str();
  __builtin_unreachable();  // the thrower above always throws when it goes out of scope
}

}  // namespace storage
}  // namespace mxnet
