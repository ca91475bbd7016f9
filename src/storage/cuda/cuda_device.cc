// GPU presence and memory figures from the CUDA runtime.
#include <cuda_runtime_api.h>

#include <mutex>
#include <string>

#include "common/logging.h"
#include "mxnet/base.h"
#include "mxnet/env.h"
#include "mxnet/error.h"
#include "storage/device_allocators.h"

namespace mxnet {
namespace storage {

namespace {
/*!
 * \brief MXNET_CUDA_LIB_CHECKING: once per process, at the first question about GPUs, warn when
 *        the CUDA runtime this library was built with cannot work here (no driver, a driver
 *        older than the runtime, no device), so a missing GPU is explained before it is used.
 */
void CheckCudaLibrariesOnce(cudaError_t count_error) {
  static std::once_flag once;
  std::call_once(once, [count_error] {
    if (!env::GetBool(env::Var::MXNET_CUDA_LIB_CHECKING)) return;
    int runtime = 0, driver = 0;
    cudaRuntimeGetVersion(&runtime);
    cudaDriverGetVersion(&driver);
    auto version = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
    if (driver == 0) {
      common::LogWarning("CUDA: no NVIDIA driver found; this build (CUDA runtime " + version(runtime) +
                         ") runs on the CPU only. Set MXNET_CUDA_LIB_CHECKING=0 to silence this check.");
    } else if (driver < runtime) {
      common::LogWarning("CUDA: the NVIDIA driver supports CUDA " + version(driver) + ", older than the CUDA runtime " +
                         version(runtime) + " this library was built with; GPUs will not be usable. Update the driver.");
    } else if (count_error != cudaSuccess) {
      common::LogWarning(std::string("CUDA: no usable GPU: ") + cudaGetErrorString(count_error));
    }
  });
}
}  // namespace

int VisibleGpuCount() noexcept {
  int count = 0;
  // No driver or no device both mean "no GPU here"; clear the sticky error they leave.
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) cudaGetLastError();
  try {
    CheckCudaLibrariesOnce(err);
  } catch (...) {  // a warning that cannot be written is no reason to fail
  }
  return err == cudaSuccess ? count : 0;
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
