/*!
 * \file raw_allocator.h
 * \brief The device side of storage: get bytes from a device and give them back. Pool
 *        policies sit on top of this interface, so they can be tested on a fake device.
 */
#ifndef MXNET_STORAGE_RAW_ALLOCATOR_H_
#define MXNET_STORAGE_RAW_ALLOCATOR_H_

#include <cstddef>

namespace mxnet {
namespace storage {

class RawAllocator {
 public:
  virtual ~RawAllocator() = default;
  /*! \brief `bytes` (> 0) aligned to alignment(); nullptr when the device is out of memory. */
  virtual void* Allocate(size_t bytes) noexcept = 0;
  /*! \brief Gives back a block from Allocate; `bytes` is the size it was allocated with. */
  virtual void Deallocate(void* ptr, size_t bytes) noexcept = 0;
  /*! \brief Free and total bytes of the device; false when unknown (no reserve is kept then). */
  virtual bool MemInfo(size_t* free_bytes, size_t* total_bytes) noexcept = 0;
  virtual size_t alignment() const noexcept = 0;
};

}  // namespace storage
}  // namespace mxnet

#endif  // MXNET_STORAGE_RAW_ALLOCATOR_H_
