// Page-locked host memory for fast, asynchronous host<->device copies. Without a visible
// GPU, cudaHostAlloc cannot work, so plain (64-byte aligned) CPU memory stands in.
#include <cuda_runtime_api.h>

#include "storage/cpu_allocator.h"
#include "storage/device_allocators.h"

namespace mxnet {
namespace storage {

namespace {

class PinnedAllocator final : public RawAllocator {
 public:
  void* Allocate(size_t bytes) noexcept override {
    void* ptr = nullptr;
    // Portable: pinned for every GPU context, not just the current one.
    if (cudaHostAlloc(&ptr, bytes, cudaHostAllocPortable) != cudaSuccess) {
      cudaGetLastError();
      return nullptr;
    }
    return ptr;
  }

  void Deallocate(void* ptr, size_t bytes) noexcept override {
    if (cudaFreeHost(ptr) != cudaSuccess) cudaGetLastError();
  }

  // Pinned memory is host memory: the host's availability is what the reserve protects.
  bool MemInfo(size_t* free_bytes, size_t* total_bytes) noexcept override {
    return ReadHostMemInfo(free_bytes, total_bytes);
  }

  // cudaHostAlloc returns page-aligned memory.
  size_t alignment() const noexcept override { return kCpuAlignment; }
};

}  // namespace

std::unique_ptr<RawAllocator> MakePinnedAllocator() {
  if (VisibleGpuCount() == 0) return MakeCpuAllocator();
  return std::make_unique<PinnedAllocator>();
}

}  // namespace storage
}  // namespace mxnet
