// cudaMalloc/cudaFree on one GPU. cudaMalloc already returns 256-byte aligned blocks.
#include <cuda_runtime_api.h>

#include "storage/device_allocators.h"

namespace mxnet {
namespace storage {

namespace {

/*! \brief Makes a device current for one call and restores the caller's afterwards. */
class DeviceScope {
 public:
  explicit DeviceScope(int dev_id) {
    cudaGetDevice(&prev_);
    if (prev_ != dev_id) cudaSetDevice(dev_id);
    switched_ = prev_ != dev_id;
  }
  ~DeviceScope() {
    if (switched_) cudaSetDevice(prev_);
  }

 private:
  int prev_{0};
  bool switched_{false};
};

class GpuAllocator final : public RawAllocator {
 public:
  explicit GpuAllocator(int dev_id) : dev_id_(dev_id) {}

  void* Allocate(size_t bytes) noexcept override {
    DeviceScope scope(dev_id_);
    void* ptr = nullptr;
    if (cudaMalloc(&ptr, bytes) != cudaSuccess) {
      cudaGetLastError();  // out of memory is not sticky; clear it so later calls are not blamed
      return nullptr;
    }
    return ptr;
  }

  void Deallocate(void* ptr, size_t bytes) noexcept override {
    DeviceScope scope(dev_id_);
    // At process exit the runtime may already be unloading; the memory goes with it then.
    if (cudaFree(ptr) != cudaSuccess) cudaGetLastError();
  }

  bool MemInfo(size_t* free_bytes, size_t* total_bytes) noexcept override {
    DeviceScope scope(dev_id_);
    if (cudaMemGetInfo(free_bytes, total_bytes) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    return true;
  }

  size_t alignment() const noexcept override { return kGpuAlignment; }

 private:
  const int dev_id_;
};

}  // namespace

std::unique_ptr<RawAllocator> MakeGpuAllocator(int dev_id) {
  CheckGpuAvailable(dev_id);
  return std::make_unique<GpuAllocator>(dev_id);
}

}  // namespace storage
}  // namespace mxnet
