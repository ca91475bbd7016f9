/*!
 * \file device_values.cuh
 * \brief Small pieces the sampler, pdf and optimizer CUDA kernels share: AssignReq's device twin,
 *        the smallest index a kernel reports (how a kernel finds the first invalid parameter, so
 *        the host raises the CPU kernel's error), a copy back to the host for such an error, and
 *        the value of a (1,)-shaped input read on the device.
 */
#ifndef MXNET_OPERATOR_CUDA_DEVICE_VALUES_CUH_
#define MXNET_OPERATOR_CUDA_DEVICE_VALUES_CUH_

#include <cuda_runtime.h>

#include <cstdint>

#include "operator/cuda/cuda_kernel.cuh"

namespace mxnet {
namespace op {
namespace cuda {

/*!
 * \brief AssignReq (op_context.h) on the device: v converted to DType once, then written (kWriteTo,
 *        kWriteInplace) or added in DType (kAddTo); kNullOp writes nothing.
 */
template <typename DType, typename V>
__device__ __forceinline__ void AssignReqDevice(DType* out, OpReqType req, V v) {
  if (req != kNullOp) StoreReq(out, req, static_cast<DType>(v));
}

/*!
 * \brief A device word holding the smallest index any thread reported (none: -1 on the host).
 *        Set(stream) clears it; Read(stream) waits for the stream and returns it. Used only to
 *        raise the CPU kernel's error for invalid input, so the wait is paid once per call.
 */
struct FirstIndex {
  unsigned long long* word;  // NOLINT(runtime/int): atomicMin's type
  __device__ void Report(int64_t i) const { atomicMin(word, static_cast<unsigned long long>(i)); }  // NOLINT
  void Clear(cudaStream_t stream) const {
    Check(cudaMemsetAsync(word, 0xff, sizeof(*word), stream), "clearing a CUDA index flag");
  }
  int64_t Read(cudaStream_t stream) const {
    unsigned long long h = 0;  // NOLINT(runtime/int)
    Check(cudaMemcpyAsync(&h, word, sizeof(h), cudaMemcpyDeviceToHost, stream), "reading a CUDA index flag");
    Check(cudaStreamSynchronize(stream), "reading a CUDA index flag");
    return h == ~0ull ? -1 : static_cast<int64_t>(h);
  }
};

/*! \brief Copies bytes of device memory to the host and waits for them (error reporting only). */
inline void CopyToHostNow(void* dst, const void* src, size_t bytes, cudaStream_t stream) {
  Check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream), "copying to the host");
  Check(cudaStreamSynchronize(stream), "copying to the host");
}

/*!
 * \brief The value of a (1,)-shaped real input, read on the device as double (what the CPU's
 *        ScalarInput reads on the host). The constructor rejects a non-real dtype as it does.
 */
struct DeviceScalar {
  const void* p;
  int type;
  explicit DeviceScalar(const TBlob& b) : p(b.dptr_), type(b.type_flag_) {
    MXNET_REAL_TYPE_SWITCH(type, DType, {});
  }
  __device__ double operator()() const {
    switch (type) {
      case kFloat32: return static_cast<double>(*static_cast<const float*>(p));
      case kFloat64: return *static_cast<const double*>(p);
      case kFloat16: return static_cast<double>(static_cast<float>(*static_cast<const half_t*>(p)));
      default: return static_cast<double>(static_cast<float>(*static_cast<const bf16_t*>(p)));
    }
  }
};

}  // namespace cuda
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_CUDA_DEVICE_VALUES_CUH_
