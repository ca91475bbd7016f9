/*!
 * \file base.h
 * \brief Types shared by every layer: version, index types, device context.
 */
#ifndef MXNET_BASE_H_
#define MXNET_BASE_H_

#include <cstdint>
#include <string>

/*! \brief MXNet API version this runtime answers to (1.9.1), as 1.x scripts check it. */
#define MXNET_MAJOR 1
#define MXNET_MINOR 9
#define MXNET_PATCH 1
#define MXNET_VERSION (MXNET_MAJOR * 10000 + MXNET_MINOR * 100 + MXNET_PATCH)

/*! \brief This project's own release, reported beside the compatible version. */
#define MXNET_RUNTIME_VERSION_STRING "0.1.0"

namespace mxnet {

/*! \brief Sizes and indices are 64-bit everywhere. */
using index_t = int64_t;
using dim_t = int64_t;

/*! \brief A device: its kind and ordinal. Device type values match MXNet's C API. */
struct Context {
  enum DeviceType : int32_t { kCPU = 1, kGPU = 2, kCPUPinned = 3, kCPUShared = 5 };
  DeviceType dev_type{kCPU};
  int32_t dev_id{0};

  static Context CPU(int32_t id = 0) { return {kCPU, id}; }
  static Context GPU(int32_t id = 0) { return {kGPU, id}; }
  static Context CPUPinned(int32_t id = 0) { return {kCPUPinned, id}; }
  static Context CPUShared(int32_t id = 0) { return {kCPUShared, id}; }

  /*! \brief Device kinds whose memory the CPU addresses directly. */
  bool IsHostMemory() const { return dev_type != kGPU; }
  bool operator==(const Context& o) const { return dev_type == o.dev_type && dev_id == o.dev_id; }
  bool operator!=(const Context& o) const { return !(*this == o); }
  bool operator<(const Context& o) const {
    return dev_type != o.dev_type ? dev_type < o.dev_type : dev_id < o.dev_id;
  }
  /*! \brief "cpu(0)", "gpu(1)", as Python prints it. */
  std::string ToString() const;
  /*! \brief Validates a device type integer from the C API; throws on an unknown one. */
  static Context Create(int dev_type, int dev_id);
};

}  // namespace mxnet

#endif  // MXNET_BASE_H_
