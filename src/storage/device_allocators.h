/*!
 * \file device_allocators.h
 * \brief Allocators that need the CUDA toolkit, and the GPU facts storage asks about.
 *        CUDA builds define them in cuda/; other builds in no_cuda_allocators.cc.
 */
#ifndef MXNET_STORAGE_DEVICE_ALLOCATORS_H_
#define MXNET_STORAGE_DEVICE_ALLOCATORS_H_

#include <cstdint>
#include <memory>

#include "storage/raw_allocator.h"

namespace mxnet {
namespace storage {

constexpr size_t kGpuAlignment = 256;

/*! \brief GPUs the CUDA runtime sees; 0 without CUDA, without a driver or without a device. */
int VisibleGpuCount() noexcept;
/*! \brief Throws mxnet::Error naming gpu(dev_id) when it does not exist or this build has no CUDA. */
void CheckGpuAvailable(int dev_id);
/*! \brief cudaMemGetInfo on that GPU; throws like CheckGpuAvailable. */
void GpuMemoryInfo(int dev_id, uint64_t* free_bytes, uint64_t* total_bytes);

/*! \brief cudaMalloc on dev_id. Call CheckGpuAvailable first. */
std::unique_ptr<RawAllocator> MakeGpuAllocator(int dev_id);
/*! \brief Page-locked host memory (cudaHostAlloc, portable); plain CPU memory without a GPU. */
std::unique_ptr<RawAllocator> MakePinnedAllocator();

}  // namespace storage
}  // namespace mxnet

#endif  // MXNET_STORAGE_DEVICE_ALLOCATORS_H_
