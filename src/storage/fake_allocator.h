/*!
 * \file fake_allocator.h
 * \brief A device of fixed capacity backed by host memory, for testing pool policies,
 *        the reserve rule and the out-of-memory path without a GPU.
 */
#ifndef MXNET_STORAGE_FAKE_ALLOCATOR_H_
#define MXNET_STORAGE_FAKE_ALLOCATOR_H_

#include <atomic>
#include <memory>

#include "storage/raw_allocator.h"

namespace mxnet {
namespace storage {

class FakeDeviceAllocator final : public RawAllocator {
 public:
  explicit FakeDeviceAllocator(size_t capacity_bytes, size_t alignment = 256)
      : capacity_(capacity_bytes), alignment_(alignment) {}
  ~FakeDeviceAllocator() override;

  void* Allocate(size_t bytes) noexcept override;
  void Deallocate(void* ptr, size_t bytes) noexcept override;
  bool MemInfo(size_t* free_bytes, size_t* total_bytes) noexcept override;
  size_t alignment() const noexcept override { return alignment_; }

  size_t used() const { return used_.load(); }
  uint64_t device_allocs() const { return device_allocs_.load(); }
  uint64_t device_frees() const { return device_frees_.load(); }
  /*! \brief Pretends someone else holds this many bytes (shrinks what is free). */
  void set_foreign_usage(size_t bytes) { foreign_.store(bytes); }

 private:
  const size_t capacity_;
  const size_t alignment_;
  std::atomic<size_t> used_{0};
  std::atomic<size_t> foreign_{0};
  std::atomic<uint64_t> device_allocs_{0};
  std::atomic<uint64_t> device_frees_{0};
};

}  // namespace storage
}  // namespace mxnet

#endif  // MXNET_STORAGE_FAKE_ALLOCATOR_H_
