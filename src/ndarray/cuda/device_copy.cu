// Copies involving GPU memory on the engine worker's stream (see device_copy.h).
#include "ndarray/device_copy.h"
#include "operator/cuda/cuda_kernel.cuh"

namespace mxnet {
namespace ndarray {

void DeviceCopyBytes(const TBlob& from, const TBlob& to, void* stream) {
  MX_CHECK(from.type_flag_ == to.type_flag_ && from.Size() == to.Size())
      << "DeviceCopyBytes: dtype or size differ";
  const size_t bytes = to.Bytes();
  if (bytes == 0 || from.dptr_ == to.dptr_) return;
  // Unified addressing: the runtime tells host from device memory by the pointers.
  auto s = static_cast<cudaStream_t>(stream);
  const std::string what = "copy from " + from.ctx_.ToString() + " to " + to.ctx_.ToString();
  if (from.ctx_.dev_type == Context::kGPU && to.ctx_.dev_type == Context::kGPU && from.ctx_.dev_id != to.ctx_.dev_id) {
    op::cuda::Check(cudaMemcpyPeerAsync(to.dptr_, to.ctx_.dev_id, from.dptr_, from.ctx_.dev_id, bytes, s), what.c_str());
  } else {
    op::cuda::Check(cudaMemcpyAsync(to.dptr_, from.dptr_, bytes, cudaMemcpyDefault, s), what.c_str());
  }
  if (s == nullptr) op::cuda::Check(cudaStreamSynchronize(nullptr), what.c_str());
}

void DeviceCastCopy(const TBlob& from, const TBlob& to, void* stream) {
  if (from.type_flag_ == to.type_flag_) return DeviceCopyBytes(from, to, stream);
  MX_CHECK(from.Size() == to.Size()) << "DeviceCastCopy: sizes differ";
  MXNET_TYPE_SWITCH(from.type_flag_, SType, {
    MXNET_TYPE_SWITCH(to.type_flag_, DType, {
      const SType* s = static_cast<const SType*>(from.dptr_);
      DType* d = static_cast<DType*>(to.dptr_);
      // Through double, as the CPU copy converts: exact for every supported dtype's values.
      op::cuda::ForEach(static_cast<cudaStream_t>(stream), to.Size(), [=] __device__(int64_t i) {
        d[i] = static_cast<DType>(static_cast<double>(s[i]));
      });
    });
  });
  if (stream == nullptr) op::cuda::Check(cudaStreamSynchronize(nullptr), "dtype conversion on GPU");
}

}  // namespace ndarray
}  // namespace mxnet
