// Builds without CUDA: there is no GPU to allocate on, and pinned memory is plain memory
// (nothing could DMA from it anyway).
#include "mxnet/build_config.h"
#if !MXNET_USE_CUDA

#include "mxnet/base.h"
#include "mxnet/error.h"
#include "storage/cpu_allocator.h"
#include "storage/device_allocators.h"

namespace mxnet {
namespace storage {

int VisibleGpuCount() noexcept { return 0; }

void CheckGpuAvailable(int dev_id) {
  MX_THROW("MXNetError") << Context::GPU(dev_id).ToString()
                         << " is not available: this build of MXNet has no CUDA support (built with USE_CUDA=OFF)";
}

void GpuMemoryInfo(int dev_id, uint64_t* free_bytes, uint64_t* total_bytes) { CheckGpuAvailable(dev_id); }

std::unique_ptr<RawAllocator> MakeGpuAllocator(int dev_id) {
  CheckGpuAvailable(dev_id);
  return nullptr;
}

std::unique_ptr<RawAllocator> MakePinnedAllocator() { return MakeCpuAllocator(); }

}  // namespace storage
}  // namespace mxnet

#endif  // !MXNET_USE_CUDA
