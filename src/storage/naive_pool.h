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

/*! \brief Rounds up to a multiple of a fixed number; a mask instead of a division for powers of two. */
class RoundUp {
 public:
  explicit RoundUp(size_t multiple) : multiple_(multiple), mask_((multiple & (multiple - 1)) == 0 ? multiple - 1 : 0) {}
  size_t operator()(size_t size) const {
    if (mask_ != 0 || multiple_ == 1) return (size + mask_) & ~mask_;
    return (size + multiple_ - 1) / multiple_ * multiple_;
  }

 private:
  size_t multiple_;
  size_t mask_;  // multiple - 1 when it is a power of two, else 0
};

class NaivePolicy {
 public:
  explicit NaivePolicy(const PoolConfig& c)
      : large_(c.large_alloc_round), to_page_(c.page_size), to_large_(c.large_alloc_round) {}

  size_t RoundedSize(size_t size) const {
    const size_t r = to_page_(size);
    return r > large_ ? to_large_(r) : r;
  }

 private:
  size_t large_;
  RoundUp to_page_;
  RoundUp to_large_;
};

}  // namespace storage
}  // namespace mxnet

#endif  // MXNET_STORAGE_NAIVE_POOL_H_
