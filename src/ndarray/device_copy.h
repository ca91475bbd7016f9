/*!
 * \file device_copy.h
 * \brief Copies that involve GPU memory: host<->GPU and GPU<->GPU byte copies, and dtype
 *        conversion within one GPU. CUDA builds define them in cuda/device_copy.cu; other
 *        builds in no_cuda_device_copy.cc, where they throw.
 */
#ifndef MXNET_NDARRAY_DEVICE_COPY_H_
#define MXNET_NDARRAY_DEVICE_COPY_H_

#include "mxnet/tensor.h"

namespace mxnet {
namespace ndarray {

/*!
 * \brief Copies from's bytes into to (same dtype and size; either may be on a GPU, per its ctx_).
 *        Queued on stream, a CUDA stream of the engine worker that runs the copy; with a null
 *        stream the copy has finished when this returns.
 */
void DeviceCopyBytes(const TBlob& from, const TBlob& to, void* stream);

/*! \brief to = from converted to to's dtype, both on the same GPU, queued on stream. */
void DeviceCastCopy(const TBlob& from, const TBlob& to, void* stream);

}  // namespace ndarray
}  // namespace mxnet

#endif  // MXNET_NDARRAY_DEVICE_COPY_H_
