#include "mxnet/base.h"
#include "mxnet/error.h"

namespace mxnet {

std::string Context::ToString() const {
  const char* kind = dev_type == kCPU         ? "cpu"
                     : dev_type == kGPU       ? "gpu"
                     : dev_type == kCPUPinned ? "cpu_pinned"
                                              : "cpu_shared";
  return std::string(kind) + "(" + std::to_string(dev_id) + ")";
}

Context Context::Create(int dev_type, int dev_id) {
  MX_CHECK_KIND(dev_type == kCPU || dev_type == kGPU || dev_type == kCPUPinned || dev_type == kCPUShared,
                "ValueError")
      << "Unknown device type " << dev_type << ": expected 1 (cpu), 2 (gpu), 3 (cpu_pinned) or 5 (cpu_shared).";
  MX_CHECK_KIND(dev_id >= 0, "ValueError") << "Device id must be >= 0, got " << dev_id << ".";
  return Context{static_cast<DeviceType>(dev_type), dev_id};
}

}  // namespace mxnet
