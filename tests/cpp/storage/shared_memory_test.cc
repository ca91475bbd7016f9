// cpu_shared memory: creation, the header, attaching from a forked process, and bad ids.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

#include "mxnet/error.h"
#include "mxnet/storage.h"
#include "storage/shared_memory_allocator.h"

namespace mxnet {
namespace storage {
namespace {

TEST(SharedMemory, NameFollowsMXNet) { EXPECT_EQ(SharedMemoryName(0x1a2b, 255), "/mx_1a2b_ff"); }

TEST(SharedMemory, CreateSetsPidAndIdAndCountsOneOwner) {
  Storage::Handle h = Storage::Get()->Alloc(1000, Context::CPUShared(0));
  ASSERT_NE(h.dptr, nullptr);
  EXPECT_EQ(h.shared_pid, static_cast<int>(getpid()));
  EXPECT_GE(h.shared_id, 0);
  EXPECT_EQ(SharedMemoryManager::RefCount(h), 1);
  std::memset(h.dptr, 7, 1000);
  Storage::Get()->SharedIncrementRefCount(h);
  EXPECT_EQ(SharedMemoryManager::RefCount(h), 2);
  StorageStats s = Storage::Get()->Stats(Context::CPUShared(0));
  EXPECT_GE(s.bytes_in_use, 1000u + kSharedHeaderBytes);
  Storage::Get()->Free(h);
}

TEST(SharedMemory, AnotherProcessSeesAndChangesTheSameBytes) {
  Storage::Handle h = Storage::Get()->Alloc(4096, Context::CPUShared(0));
  std::memset(h.dptr, 'p', 4096);
  Storage::Get()->SharedIncrementRefCount(h);  // the child's reference
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The child inherited the descriptor, as a DataLoader worker receives it over a socket.
    int status = 0;
    try {
      Storage::Handle mine;
      mine.size = 4096;
      mine.ctx = Context::CPUShared(0);
      mine.shared_pid = h.shared_pid;
      mine.shared_id = h.shared_id;
      Storage::Get()->Alloc(&mine);
      const char* bytes = static_cast<const char*>(mine.dptr);
      if (bytes[0] != 'p' || bytes[4095] != 'p') status = 2;
      std::memset(mine.dptr, 'c', 4096);
      Storage::Get()->Free(mine);
    } catch (...) {
      status = 3;
    }
    _exit(status);
  }
  int status = -1;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(static_cast<const char*>(h.dptr)[0], 'c');
  EXPECT_EQ(static_cast<const char*>(h.dptr)[4095], 'c');
  EXPECT_EQ(SharedMemoryManager::RefCount(h), 1);  // the child dropped its reference
  Storage::Get()->Free(h);
}

TEST(SharedMemory, AttachingToSomethingElseIsAnError) {
  Storage::Handle h;
  h.size = 100;
  h.ctx = Context::CPUShared(0);
  h.shared_pid = 1;
  h.shared_id = 1 << 20;  // not an open descriptor
  EXPECT_THROW(Storage::Get()->Alloc(&h), Error);

  // A real segment that is too small for the size asked.
  Storage::Handle small = Storage::Get()->Alloc(16, Context::CPUShared(0));
  Storage::Handle big;
  big.size = 1 << 20;
  big.ctx = Context::CPUShared(0);
  big.shared_pid = small.shared_pid;
  big.shared_id = small.shared_id;
  try {
    Storage::Get()->Alloc(&big);
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.kind(), "ValueError");
  }
  Storage::Get()->Free(small);
}

TEST(SharedMemory, IncrementOnOtherDevicesIsRejected) {
  Storage::Handle h = Storage::Get()->Alloc(64, Context::CPU());
  EXPECT_THROW(Storage::Get()->SharedIncrementRefCount(h), Error);
  Storage::Get()->Free(h);
}

}  // namespace
}  // namespace storage
}  // namespace mxnet
