/*!
 * \file pool_config.h
 * \brief What a device's pool is: its policy and the numbers the policy rounds with,
 *        read once from the MXNET_<DEV>_MEM_* variables when the device's manager is made.
 */
#ifndef MXNET_STORAGE_POOL_CONFIG_H_
#define MXNET_STORAGE_POOL_CONFIG_H_

#include <cstddef>
#include <string>

#include "mxnet/base.h"

namespace mxnet {
namespace storage {

enum class PoolType { kNaive, kRound, kUnpooled };

struct PoolConfig {
  PoolType type{PoolType::kNaive};
  size_t page_size{4096};
  size_t large_alloc_round{2097152};
  int linear_cutoff{24};
  int reserve_percent{5};
  // "MXNET_CPU", "MXNET_GPU", "MXNET_CPU_PINNED": names the variables in error messages.
  std::string env_prefix{"MXNET_CPU"};
  // Set when MXNET_USE_NAIVE_STORAGE_MANAGERS turned pooling off, so errors can say so.
  bool forced_unpooled{false};
};

const char* PoolTypeName(PoolType type);

/*! \brief The pool a device type gets from the registry. Throws ValueError on inconsistent values. */
PoolConfig PoolConfigFromEnv(Context::DeviceType dev_type);

/*!
 * \brief Rules that involve more than one variable (each alone is range-checked by the
 *        registry): Round needs a power-of-two page and a cutoff >= log2(page size).
 */
void ValidatePoolConfig(const PoolConfig& config);

}  // namespace storage
}  // namespace mxnet

#endif  // MXNET_STORAGE_POOL_CONFIG_H_
