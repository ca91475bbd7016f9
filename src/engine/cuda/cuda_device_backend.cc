// The CUDA accelerator backend: non-blocking streams per worker, device binding per thread.
#include <cuda_runtime_api.h>

#include <mutex>
#include <sstream>

#include "engine/device_backend.h"
#include "mxnet/error.h"

namespace mxnet {
namespace engine {

namespace {

void CheckCuda(cudaError_t err, const char* what, int dev_id) {
  if (err != cudaSuccess) {
    std::ostringstream os;
    os << what << " failed on gpu(" << dev_id << "): " << cudaGetErrorString(err);
    throw Error(os.str());
  }
}

class CudaBackend final : public DeviceBackend {
 public:
  std::string Name() const override { return "CUDA"; }
  int DeviceCount() override {
    // Counted once: the answer cannot change within a process and the call is slow.
    std::call_once(count_once_, [this] {
      int n = 0;
      count_ = cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
    });
    return count_;
  }
  void SetDevice(int dev_id) override { CheckCuda(cudaSetDevice(dev_id), "cudaSetDevice", dev_id); }
  void* CreateStream(int dev_id) override {
    CheckCuda(cudaSetDevice(dev_id), "cudaSetDevice", dev_id);
    cudaStream_t stream = nullptr;
    CheckCuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate", dev_id);
    return stream;
  }
  void DestroyStream(int dev_id, void* stream) override {
    // Errors here mean the driver is shutting down with the process; nothing to recover.
    cudaStreamDestroy(static_cast<cudaStream_t>(stream));
  }
  void SyncStream(void* stream) override {
    CheckCuda(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)), "cudaStreamSynchronize", -1);
  }

 private:
  std::once_flag count_once_;
  int count_{0};
};

}  // namespace

DeviceBackend* DefaultDeviceBackend() {
  static CudaBackend backend;
  return &backend;
}

}  // namespace engine
}  // namespace mxnet
