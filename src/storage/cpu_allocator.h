/*!
 * \file cpu_allocator.h
 * \brief Host memory from the C library, 64-byte aligned so AVX-512 loads never split a line.
 */
#ifndef MXNET_STORAGE_CPU_ALLOCATOR_H_
#define MXNET_STORAGE_CPU_ALLOCATOR_H_

#include <chrono>
#include <memory>
#include <mutex>

#include "storage/raw_allocator.h"

namespace mxnet {
namespace storage {

constexpr size_t kCpuAlignment = 64;

/*!
 * \brief Reads MemAvailable and MemTotal from /proc/meminfo. MemAvailable, not MemFree:
 *        page cache the kernel can reclaim counts as free, else the pool would be flushed
 *        on every miss of a machine that has read a lot of files.
 */
bool ReadHostMemInfo(size_t* available_bytes, size_t* total_bytes) noexcept;

class CpuAllocator final : public RawAllocator {
 public:
  void* Allocate(size_t bytes) noexcept override;
  void Deallocate(void* ptr, size_t bytes) noexcept override;
  bool MemInfo(size_t* free_bytes, size_t* total_bytes) noexcept override;
  size_t alignment() const noexcept override { return kCpuAlignment; }

 private:
  // /proc/meminfo costs tens of microseconds; pools ask on every miss, so a reading is
  // reused for a short while, corrected by what this allocator itself took or gave back.
  std::mutex mu_;
  std::chrono::steady_clock::time_point read_at_{};
  bool have_reading_{false};
  bool reading_ok_{false};
  size_t available_{0}, total_{0};
  long long net_since_read_{0};  // bytes allocated minus bytes freed since the reading
};

std::unique_ptr<RawAllocator> MakeCpuAllocator();

}  // namespace storage
}  // namespace mxnet

#endif  // MXNET_STORAGE_CPU_ALLOCATOR_H_
