/*!
 * \file round_pool.h
 * \brief Round rounding: a power of two (at least the page size) up to 2^cutoff; above it,
 *        a multiple of 2^cutoff. Fewer buckets than Naive, so more reuse across sizes, at the
 *        cost of up to 2x internal waste below the cutoff.
 */
#ifndef MXNET_STORAGE_ROUND_POOL_H_
#define MXNET_STORAGE_ROUND_POOL_H_

#include <algorithm>
#include <cstddef>

#include "storage/pool_config.h"

namespace mxnet {
namespace storage {

class RoundPolicy {
 public:
  explicit RoundPolicy(const PoolConfig& c) : cutoff_(c.linear_cutoff) {
    while ((size_t{1} << page_log2_) < c.page_size) ++page_log2_;
  }

  size_t RoundedSize(size_t size) const {
    // Bit length of size-1 is ceil(log2(size)) for size >= 2, and 0 for size 1.
    const int bits = size <= 1 ? 0 : 64 - __builtin_clzll(static_cast<unsigned long long>(size - 1));
    if (bits > cutoff_) {
      const size_t step = size_t{1} << cutoff_;
      return (size + step - 1) >> cutoff_ << cutoff_;
    }
    return size_t{1} << std::max(bits, page_log2_);
  }

 private:
  int cutoff_;
  int page_log2_{0};
};

}  // namespace storage
}  // namespace mxnet

#endif  // MXNET_STORAGE_ROUND_POOL_H_
