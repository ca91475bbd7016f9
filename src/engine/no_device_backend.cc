// The accelerator backend of a build without CUDA: no devices, so every GPU context is
// rejected when an op is pushed (the stream calls are never reached).
#include "engine/device_backend.h"
#include "mxnet/error.h"
#include "mxnet/build_config.h"

#if !MXNET_USE_CUDA
namespace mxnet {
namespace engine {

namespace {
class NoDeviceBackend final : public DeviceBackend {
 public:
  std::string Name() const override { return "none (built without USE_CUDA)"; }
  int DeviceCount() override { return 0; }
  void SetDevice(int dev_id) override { Unavailable(); }
  void* CreateStream(int dev_id) override { Unavailable(); }
  void DestroyStream(int dev_id, void* stream) override {}
  void SyncStream(void* stream) override {}

 private:
  [[noreturn]] static void Unavailable() {
    throw Error("This build has no GPU support (USE_CUDA=OFF); rebuild with -DUSE_CUDA=ON to use gpu contexts.");
  }
};
}  // namespace

DeviceBackend* DefaultDeviceBackend() {
  static NoDeviceBackend backend;
  return &backend;
}

}  // namespace engine
}  // namespace mxnet
#endif  // !MXNET_USE_CUDA
