// GPU presence and memory figures from the CUDA runtime.
#include <cuda_runtime_api.h>

#include "mxnet/base.h"
#include "mxnet/error.h"
#include "storage/device_allocators.h"

namespace mxnet {
namespace storage {

int VisibleGpuCount() noexcept {
  int count = 0;
  // No driver or no device both mean "no GPU here"; clear the sticky error they leave.
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

void CheckGpuAvailable(int dev_id) {
  int count = VisibleGpuCount();
  MX_CHECK_KIND(dev_id >= 0 && dev_id < count, "MXNetError")
      << Context::GPU(dev_id).ToString() << " is not available: "
      << (count == 0 ? std::string("no GPU is visible to the CUDA runtime")
                     : std::to_string(count) + " GPU(s) visible, ids 0.." + std::to_string(count - 1));
}

void GpuMemoryInfo(int dev_id, uint64_t* free_bytes, uint64_t* total_bytes) {
  CheckGpuAvailable(dev_id);
  int prev = 0;
  cudaGetDevice(&prev);
  cudaError_t err = cudaSetDevice(dev_id);
  size_t free_b = 0, total_b = 0;
  if (err == cudaSuccess) err = cudaMemGetInfo(&free_b, &total_b);
  cudaSetDevice(prev);
  if (err != cudaSuccess) {
    cudaGetLastError();
    MX_THROW("MXNetError") << "cannot query memory of " << Context::GPU(dev_id).ToString() << ": "
                           << cudaGetErrorString(err);
  }
  *free_bytes = free_b;
  *total_bytes = total_b;
}

}  // namespace storage
}  // namespace mxnet
