// Capacity accounting of the fake device; the bytes themselves are real host memory so
// tests can write to them and sanitizers see misuse.
#include "storage/fake_allocator.h"

#include <cstdlib>

namespace mxnet {
namespace storage {

FakeDeviceAllocator::~FakeDeviceAllocator() = default;

void* FakeDeviceAllocator::Allocate(size_t bytes) noexcept {
  size_t used = used_.load();
  do {
    if (bytes > capacity_ || used + foreign_.load() > capacity_ - bytes) return nullptr;
  } while (!used_.compare_exchange_weak(used, used + bytes));
  void* ptr = nullptr;
  if (posix_memalign(&ptr, alignment_, bytes) != 0) {
    used_.fetch_sub(bytes);
    return nullptr;
  }
  device_allocs_.fetch_add(1);
  return ptr;
}

void FakeDeviceAllocator::Deallocate(void* ptr, size_t bytes) noexcept {
  std::free(ptr);
  used_.fetch_sub(bytes);
  device_frees_.fetch_add(1);
}

bool FakeDeviceAllocator::MemInfo(size_t* free_bytes, size_t* total_bytes) noexcept {
  size_t taken = used_.load() + foreign_.load();
  *free_bytes = taken < capacity_ ? capacity_ - taken : 0;
  *total_bytes = capacity_;
  return true;
}

}  // namespace storage
}  // namespace mxnet
