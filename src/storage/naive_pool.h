/*!
 * \file naive_pool.h
 * \brief Naive rounding: up to a multiple of the page size, and when that exceeds the large
 *        allocation size, up to a multiple of it (fewer distinct big sizes, less fragmentation
 *        in the device driver). Free blocks are kept per exact rounded size.
 */
#ifndef MXNET_STORAGE_NAIVE_POOL_H_
#define MXNET_STORAGE_NAIVE_POOL_H_

#include <cstddef>

#include "storage/pool_config.h"

namespace mxnet {
namespace storage {

inline size_t RoundUpToMultiple(size_t size, size_t multiple) { return (size + multiple - 1) / multiple * multiple; }

class NaivePolicy {
 public:
  explicit NaivePolicy(const PoolConfig& c) : page_(c.page_size), large_(c.large_alloc_round) {}

  size_t RoundedSize(size_t size) const {
    size_t r = RoundUpToMultiple(size, page_);
    return r > large_ ? RoundUpToMultiple(r, large_) : r;
  }

 private:
  size_t page_;
  size_t large_;
};

}  // namespace storage
}  // namespace mxnet

#endif  // MXNET_STORAGE_NAIVE_POOL_H_
