/*!
 * \file kvstore_dist.cc
 * \brief Synchronous distributed stores over the collective group.
 */
#include "kvstore/kvstore_dist.h"

#include <exception>
#include <string>
#include <vector>

#include "common/logging.h"
#include "kvstore/collective_group.h"
#include "mxnet/engine.h"
#include "mxnet/error.h"

namespace mxnet {
namespace kvstore {

namespace {
// Buffer slot (see KVStoreLocal::Buffer) holding the sum across ranks; below the per-value
// slots of the local sum's compression.
constexpr int kAllreduceSlot = -1;

CollectiveDesc Describe(CollectiveKind kind, int key, const NDArray& a) {
  CollectiveDesc d;
  d.kind = kind;
  d.key = key;
  d.count = a.Size();
  d.dtype = a.dtype();
  return d;
}
}  // namespace

KVStoreDist::KVStoreDist(const std::string& type) : KVStoreLocal(type), group_(ProcessCollectiveGroup()) {}

KVStoreDist::~KVStoreDist() {
  try {
    WaitForStore();
    if (barrier_before_exit() && group_->error().empty()) Barrier();
  } catch (const std::exception& e) {
    common::LogWarning("kvstore '" + type() + "' closing: " + e.what());
  }
}

int KVStoreDist::rank() const { return group_->rank(); }
int KVStoreDist::group_size() const { return group_->size(); }
int KVStoreDist::NumDeadNodes() const { return group_->error().empty() ? 0 : 1; }

void KVStoreDist::Barrier() {
  CollectiveDesc d;
  d.kind = CollectiveKind::kBarrier;
  d.key = -1;
  group_->RunBlocking(d, nullptr);
}

void KVStoreDist::InitImpl(const std::vector<int>& keys, const std::vector<NDArray>& values) {
  KVStoreLocal::InitImpl(keys, values);
  for (int key : keys) {
    NDArray& stored = Stored(key);
    stored.WaitToWrite();
    group_->RunBlocking(Describe(CollectiveKind::kBroadcast, key, stored), stored.data().dptr_);
    stored.BumpVersion();
  }
}

NDArray KVStoreDist::Aggregate(int key, const NDArray& local_sum, bool owned, int priority) {
  // The allreduce runs in place, so it needs the store's own buffer, never the user's gradient.
  NDArray total = Buffer(key, kAllreduceSlot, local_sum.shape(), local_sum.dtype(), Context::CPU(0));
  CopyFromTo(local_sum, total, priority);
  // Announced now, in program order, so every rank runs its collectives in the same order
  // whatever order the engine finishes the gradients in.
  const uint64_t seq = group_->Announce(Describe(CollectiveKind::kAllreduceSum, key, total));
  CollectiveGroup* group = group_;
  total.BumpVersion();
  Engine::Get()->PushAsync(
      [group, seq, total](RunContext, engine::CallbackOnComplete on_complete) {
        group->Start(seq, total.data().dptr_, [on_complete](const std::string& error) {
          if (error.empty()) {
            on_complete();
          } else {
            on_complete(std::make_exception_ptr(Error(error)));
          }
        });
      },
      total.ctx(), {}, {total.var()}, FnProperty::kAsync, priority, "KVStoreAllreduce");
  return total;
}

}  // namespace kvstore
}  // namespace mxnet
