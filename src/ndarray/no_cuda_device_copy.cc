// Builds without CUDA: no array can be on a GPU (creating one already failed), so these are
// reached only through a logic error; they say so instead of touching memory.
#include "mxnet/build_config.h"
#include "ndarray/device_copy.h"

#if !MXNET_USE_CUDA
namespace mxnet {
namespace ndarray {

void DeviceCopyBytes(const TBlob& from, const TBlob& to, void*) {
  MX_THROW("MXNetError") << "copy from " << from.ctx_.ToString() << " to " << to.ctx_.ToString()
                         << ": this build of MXNet has no CUDA support (built with USE_CUDA=OFF)";
}

void DeviceCastCopy(const TBlob& from, const TBlob& to, void* stream) { DeviceCopyBytes(from, to, stream); }

}  // namespace ndarray
}  // namespace mxnet
#endif  // !MXNET_USE_CUDA
