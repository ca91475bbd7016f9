// The caller-facing side of the collective group: announce, start, wait, shut down. The
// communication thread lives in collective_group_thread.cc.
#include "kvstore/collective_group.h"

#include <atomic>
#include <chrono>
#include <condition_variable>

#include "kvstore/collective_group_impl.h"
#include "kvstore/collective_sum.h"
#include "mxnet/error.h"
#include "mxnet/tensor.h"

namespace mxnet {
namespace kvstore {

CollectiveGroup::Impl::Impl(std::unique_ptr<Transport> t, double timeout, size_t fusion)
    : owner_pid(getpid()), transport(std::move(t)), timeout_sec(timeout), fusion_bytes(fusion) {}

std::string CollectiveGroup::Impl::ForkedChildError() const {
  return "the distributed kvstore cannot be used in a forked child process: its communication thread and MPI "
         "belong to the parent (pid " +
         std::to_string(owner_pid) + ")";
}

bool CollectiveGroup::Impl::OnOwnThread() const {
  // A forked child has no such thread, and must not take the lock: a parent thread may have
  // held it at the fork.
  if (InForkedChild()) return false;
  // Compared only while the thread runs: once it has exited, the system may give its id to a
  // new thread, which must not be mistaken for it.
  std::lock_guard<std::mutex> lock(mu);
  return !thread_exited && std::this_thread::get_id() == thread_id;
}

CollectiveGroup::CollectiveGroup(std::unique_ptr<Transport> transport, double timeout_sec, size_t fusion_bytes)
    : impl_(std::make_unique<Impl>(std::move(transport), timeout_sec, fusion_bytes)) {
  MX_CHECK(impl_->transport) << "a collective group needs a transport";
  MX_CHECK_KIND(timeout_sec > 0, "ValueError") << "the kvstore timeout must be positive, got " << timeout_sec;
  Impl* impl = impl_.get();
  impl->thread = std::thread([impl] { impl->Run(); });
  std::unique_lock<std::mutex> lock(impl->mu);
  impl->thread_id = impl->thread.get_id();
  // MPI_Init returns only once every rank of the job has called it.
  const auto limit = std::chrono::duration<double>(timeout_sec + kPlanGraceSec);
  if (!impl->state_cv.wait_for(lock, limit, [impl] { return impl->init_done; })) {
    // The thread stays blocked in Init: it and its state are left to the process's end.
    impl->init_abandoned = true;
    impl->thread.detach();
    lock.unlock();
    (void)impl_.release();
    MX_THROW("MXNetError") << "the distributed kvstore's transport did not start within " << timeout_sec + kPlanGraceSec
                           << " s: every rank of the job must create its distributed kvstore (MPI_Init waits for "
                              "all of them); MXNET_KVSTORE_TIMEOUT sets the limit";
  }
  if (!impl->init_error.empty()) {
    const std::string message = impl->init_error;
    lock.unlock();
    impl->thread.join();
    MX_THROW("MXNetError") << "the distributed kvstore's transport failed to start: " << message;
  }
}

CollectiveGroup::~CollectiveGroup() {
  if (!impl_) return;
  if (impl_->InForkedChild()) {
    (void)impl_.release();  // its thread object names a thread of the parent: never join it
    return;
  }
  Shutdown();
  if (impl_->thread.joinable()) impl_->thread.join();
}

int CollectiveGroup::rank() const { return impl_->rank.load(); }
int CollectiveGroup::size() const { return impl_->size.load(); }

uint64_t CollectiveGroup::Announce(const CollectiveDesc& desc) {
  // Before any lock: the parent's communication thread may have held it at the fork.
  if (impl_->InForkedChild()) MX_THROW("MXNetError") << impl_->ForkedChildError();
  switch (desc.kind) {
    case CollectiveKind::kAllreduceSum:
      MX_CHECK_KIND(SummableDType(desc.dtype), "TypeError")
          << "the distributed allreduce sums float32, float64, float16, bfloat16, int32, int64, uint8 and int8, not "
          << DTypeName(desc.dtype) << " (key " << desc.key << ")";
      break;
    case CollectiveKind::kBroadcast:
      (void)DTypeSize(desc.dtype);  // throws for an unknown dtype
      break;
    case CollectiveKind::kAllgather:
      // The buffer holds every rank's part: its size must fit.
      MX_CHECK_KIND(desc.count <= INT64_MAX / static_cast<int64_t>(DTypeSize(desc.dtype)) / size(), "ValueError")
          << "an allgather of " << desc.count << " " << DTypeName(desc.dtype) << " per rank over " << size()
          << " ranks is too large for one buffer (key " << desc.key << ")";
      break;
    case CollectiveKind::kBarrier:
      break;
    default:
      MX_THROW("ValueError") << "unknown collective kind " << static_cast<int>(desc.kind);
  }
  MX_CHECK_KIND(desc.count >= 0, "ValueError") << "negative element count " << desc.count << " for key " << desc.key;
  std::lock_guard<std::mutex> lock(impl_->mu);
  Slot slot;
  slot.desc = desc;
  if (desc.kind == CollectiveKind::kBarrier) slot.desc.count = 0, slot.desc.dtype = 0;
  // After a failure or shutdown nothing runs any more: the slot is not kept and Start fails.
  if (impl_->error.empty() && !impl_->shutdown_requested) {
    impl_->slots.push_back(std::move(slot));
    impl_->wake = true;  // rank 0 checks announcements against the peers' reports
  }
  return impl_->next_announce++;
}

void CollectiveGroup::Start(uint64_t seq, void* data, CollectiveDone done) {
  Impl* impl = impl_.get();
  if (impl->InForkedChild()) {
    CallDone(done, impl->ForkedChildError());
    return;
  }
  std::unique_lock<std::mutex> lock(impl->mu);
  MX_CHECK(seq < impl->next_announce) << "collective #" << seq << " was never announced";
  std::string refusal;
  if (!impl->error.empty()) {
    refusal = impl->error;
  } else if (impl->shutdown_requested) {
    refusal = "collective #" + std::to_string(seq) + " was started after the distributed kvstore shut down";
  } else if (seq < impl->slots_base) {
    MX_THROW("MXNetError") << "collective #" << seq << " was started twice";
  } else {
    Slot& slot = impl->slots.at(seq - impl->slots_base);
    MX_CHECK(!slot.started) << "collective #" << seq << " was started twice";
    MX_CHECK(data != nullptr || slot.desc.count == 0) << "collective #" << seq << " started without data";
    slot.started = true;
    slot.data = data;
    slot.done = std::move(done);
    impl->wake = true;
    lock.unlock();
    impl->wake_cv.notify_one();
    return;
  }
  if (impl->thread_exited) {
    lock.unlock();
    CallDone(done, refusal);  // no communication thread any more
    return;
  }
  impl->late_dones.emplace_back(std::move(done), refusal);
  impl->wake = true;
  lock.unlock();
  impl->wake_cv.notify_one();
}

void CollectiveGroup::RunBlocking(const CollectiveDesc& desc, void* data) {
  MX_CHECK(!impl_->OnOwnThread())
      << "RunBlocking called from the collective group's own thread (a done callback) would wait for ever";
  struct Result {
    std::atomic<bool> ready{false};
    std::mutex mu;
    std::condition_variable cv;
    std::string error;
  };
  auto result = std::make_shared<Result>();
  Start(Announce(desc), data, [result](const std::string& e) {
    std::lock_guard<std::mutex> lock(result->mu);
    result->error = e;
    result->ready.store(true, std::memory_order_release);
    result->cv.notify_all();
  });
  std::unique_lock<std::mutex> lock(result->mu);
  result->cv.wait(lock, [&] { return result->ready.load(std::memory_order_acquire); });
  if (!result->error.empty()) MX_THROW("MXNetError") << result->error;
}

std::string CollectiveGroup::error() const {
  if (impl_->InForkedChild()) return impl_->ForkedChildError();
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->error;
}

void CollectiveGroup::Shutdown() {
  Impl* impl = impl_.get();
  if (impl->InForkedChild()) return;
  MX_CHECK(!impl->OnOwnThread()) << "the collective group cannot be shut down from its own thread (a done callback)";
  {
    std::unique_lock<std::mutex> lock(impl->mu);
    if (!impl->shutdown_requested) {
      impl->shutdown_requested = true;
      if (impl->error.empty()) {
        for (Slot& slot : impl->slots) slot.abandoned = !slot.started;
        // A last barrier: the transport is finalized only once every rank got here, so the
        // finalize cannot wait for a rank that is still working (or gone).
        Slot last;
        last.desc.kind = CollectiveKind::kBarrier;
        last.desc.key = protocol::kShutdownKey;
        last.started = true;
        last.done = [](const std::string&) {};
        impl->slots.push_back(std::move(last));
        ++impl->next_announce;
      }
      impl->wake = true;
    }
    impl->wake_cv.notify_one();
    impl->state_cv.wait(lock, [impl] { return impl->thread_exited; });
  }
  if (impl->thread.joinable()) impl->thread.join();
}

void CollectiveGroup::AbortJob(int code) {
  if (impl_->InForkedChild()) return;
  Shutdown();  // the transport is then called from this thread alone
  impl_->transport->Abort(code);
}

}  // namespace kvstore
}  // namespace mxnet
