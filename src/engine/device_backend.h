/*!
 * \file device_backend.h
 * \brief What the engine needs from an accelerator: count devices, bind a thread to one,
 *        make and sync streams. CUDA provides one (cuda/); tests provide a fake so the
 *        per-device scheduling runs on machines without a GPU.
 */
#ifndef MXNET_ENGINE_DEVICE_BACKEND_H_
#define MXNET_ENGINE_DEVICE_BACKEND_H_

#include <string>

namespace mxnet {
namespace engine {

class DeviceBackend {
 public:
  virtual ~DeviceBackend() = default;
  /*! \brief Short name for messages ("CUDA"). */
  virtual std::string Name() const = 0;
  virtual int DeviceCount() = 0;
  /*! \brief Binds the calling thread to the device. */
  virtual void SetDevice(int dev_id) = 0;
  virtual void* CreateStream(int dev_id) = 0;
  virtual void DestroyStream(int dev_id, void* stream) = 0;
  /*! \brief Blocks until the work queued on the stream has finished. */
  virtual void SyncStream(void* stream) = 0;
};

/*! \brief CUDA when built with USE_CUDA, otherwise a backend with no devices. */
DeviceBackend* DefaultDeviceBackend();

}  // namespace engine
}  // namespace mxnet

#endif  // MXNET_ENGINE_DEVICE_BACKEND_H_
