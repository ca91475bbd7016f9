// POSIX shared-memory segments for cpu_shared arrays.
#include "storage/shared_memory_allocator.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <new>
#include <random>
#include <sstream>

#include "mxnet/error.h"

namespace mxnet {
namespace storage {

namespace {

constexpr int kCreateTries = 10;

std::atomic<int>* RefCountOf(void* dptr) {
  return reinterpret_cast<std::atomic<int>*>(static_cast<char*>(dptr) - kSharedHeaderBytes);
}

int RandomSegmentId() {
  thread_local std::mt19937 gen(std::random_device{}());
  return std::uniform_int_distribution<int>(0, 0x7fffffff)(gen);
}

}  // namespace

static_assert(sizeof(std::atomic<int>) <= kSharedHeaderBytes, "reference count must fit the header");

std::string SharedMemoryName(int pid, int id) {
  std::ostringstream name;
  name << "/mx_" << std::hex << pid << "_" << std::hex << id;
  return name.str();
}

void* SharedMemoryManager::Create(Storage::Handle* handle) {
  const size_t bytes = handle->size + kSharedHeaderBytes;
  const int pid = static_cast<int>(getpid());
  std::string name;
  int fd = -1;
  for (int i = 0; i < kCreateTries && fd < 0; ++i) {
    name = SharedMemoryName(pid, RandomSegmentId());
    fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0666);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) {
    MX_THROW("MemoryError") << "cannot create shared memory for " << handle->ctx.ToString() << " (" << handle->size
                            << " bytes): shm_open failed: " << std::strerror(errno);
  }
  // The descriptor is the handle from now on; the name is only needed to open it.
  shm_unlink(name.c_str());
  // fallocate, not just ftruncate: on a full /dev/shm a sparse segment would SIGBUS on first
  // touch; reserving the pages turns that into an error here.
  int err = posix_fallocate(fd, 0, static_cast<off_t>(bytes));
  if (err == EINVAL || err == EOPNOTSUPP) err = ftruncate(fd, static_cast<off_t>(bytes)) == 0 ? 0 : errno;
  void* base = err == 0 ? mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
  if (base == MAP_FAILED) {
    if (err == 0) err = errno;
    close(fd);
    MX_THROW("MemoryError") << "cannot allocate " << handle->size << " bytes of shared memory for "
                            << handle->ctx.ToString() << ": " << std::strerror(err)
                            << " (is /dev/shm large enough? containers often limit it; see --shm-size)";
  }
  new (base) std::atomic<int>(1);
  handle->shared_pid = pid;
  handle->shared_id = fd;
  return static_cast<char*>(base) + kSharedHeaderBytes;
}

void* SharedMemoryManager::Attach(Storage::Handle* handle) {
  const size_t bytes = handle->size + kSharedHeaderBytes;
  struct stat st;
  MX_CHECK_KIND(handle->shared_id >= 0 && fstat(handle->shared_id, &st) == 0, "ValueError")
      << "cannot attach shared memory (pid " << handle->shared_pid << ", id " << handle->shared_id
      << "): the id is not an open file descriptor in this process";
  MX_CHECK_KIND(static_cast<size_t>(st.st_size) >= bytes, "ValueError")
      << "cannot attach shared memory (pid " << handle->shared_pid << ", id " << handle->shared_id << "): segment has "
      << st.st_size << " bytes, " << bytes << " needed for " << handle->size << " bytes of data";
  void* base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, handle->shared_id, 0);
  if (base == MAP_FAILED) {
    MX_THROW("MemoryError") << "cannot map shared memory (pid " << handle->shared_pid << ", id " << handle->shared_id
                            << "): " << std::strerror(errno);
  }
  return static_cast<char*>(base) + kSharedHeaderBytes;
}

AllocOutcome SharedMemoryManager::Alloc(Storage::Handle* handle) {
  const bool create = handle->shared_pid == -1 && handle->shared_id == -1;
  handle->dptr = create ? Create(handle) : Attach(handle);
  std::lock_guard<std::mutex> lock(mu_);
  stats_.OnAlloc(handle->size, handle->size + kSharedHeaderBytes, false);
  return {handle->size + kSharedHeaderBytes, false};
}

void SharedMemoryManager::Free(const Storage::Handle& handle) {
  const size_t bytes = handle.size + kSharedHeaderBytes;
  RefCountOf(handle.dptr)->fetch_sub(1);
  munmap(static_cast<char*>(handle.dptr) - kSharedHeaderBytes, bytes);
  if (handle.shared_id >= 0) close(handle.shared_id);
  std::lock_guard<std::mutex> lock(mu_);
  stats_.OnFree(handle.size, bytes, false);
}

void SharedMemoryManager::SharedIncrementRefCount(const Storage::Handle& handle) {
  MX_CHECK_KIND(handle.dptr != nullptr, "ValueError") << "SharedIncrementRefCount on an empty handle";
  RefCountOf(handle.dptr)->fetch_add(1);
}

int SharedMemoryManager::RefCount(const Storage::Handle& handle) { return RefCountOf(handle.dptr)->load(); }

StorageStats SharedMemoryManager::Stats() {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_.s;
}

}  // namespace storage
}  // namespace mxnet
