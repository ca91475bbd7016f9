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
#include "kvstore/gradient_compression.h"
#include "mxnet/engine.h"
#include "mxnet/error.h"

namespace mxnet {
namespace kvstore {

namespace {
// Buffer slot (see KVStoreLocal::Buffer) holding the sum across ranks; below the per-value
// slots of the local sum's compression.
constexpr int kAllreduceSlot = -1;
constexpr int kResidualSlot = -2;
constexpr int kGatherSlot = -3;

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

void KVStoreDist::PushCollective(const CollectiveDesc& desc, const NDArray& data, int priority) {
  // Announced now, in program order, so every rank runs its collectives in the same order
  // whatever order the engine finishes the gradients in.
  const uint64_t seq = group_->Announce(desc);
  CollectiveGroup* group = group_;
  data.BumpVersion();
  Engine::Get()->PushAsync(
      [group, seq, data](RunContext, engine::CallbackOnComplete on_complete) {
        group->Start(seq, data.data().dptr_, [on_complete](const std::string& error) {
          if (error.empty()) {
            on_complete();
          } else {
            on_complete(std::make_exception_ptr(Error(error)));
          }
        });
      },
      data.ctx(), {}, {data.var()}, FnProperty::kAsync, priority, "KVStoreCollective");
}

NDArray KVStoreDist::Aggregate(int key, const NDArray& local_sum, bool owned, int priority) {
  if (compression() && compression()->active()) return AggregateCompressed(key, local_sum, priority);
  // The allreduce runs in place, so it needs the store's own buffer, never the user's gradient.
  NDArray total = Buffer(key, kAllreduceSlot, local_sum.shape(), local_sum.dtype(), Context::CPU(0));
  CopyFromTo(local_sum, total, priority);
  PushCollective(Describe(CollectiveKind::kAllreduceSum, key, total), total, priority);
  return total;
}

bool KVStoreDist::PushPullInPlaceImpl(const std::vector<int>& keys, const std::vector<NDArray>& values,
                                      int priority) {
  if (has_updater() || (compression() && compression()->active())) return false;
  for (size_t i = 0; i < keys.size(); ++i) {
    const NDArray& stored = Stored(keys[i]);
    if (stored.shape() != values[i].shape() || stored.dtype() != values[i].dtype() ||
        !values[i].ctx().IsHostMemory()) {
      return false;
    }
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    PushCollective(Describe(CollectiveKind::kAllreduceSum, keys[i], values[i]), values[i], priority);
    AliasStored(keys[i], values[i]);
  }
  return true;
}

NDArray KVStoreDist::AggregateCompressed(int key, const NDArray& local_sum, int priority) {
  MX_CHECK_KIND(local_sum.dtype() == kFloat32, "TypeError")
      << "gradient compression works on float32 values; key " << KeyName(key) << " got "
      << DTypeName(local_sum.dtype());
  const GradientCompression gc = *compression();  // the engine ops keep this copy
  const int64_t n = local_sum.Size();
  const int64_t words = gc.CompressedSize(n);
  const int ranks = group_->size();
  NDArray& residual = Buffer(key, kResidualSlot, local_sum.shape(), kFloat32, Context::CPU(0));
  NDArray gathered = Buffer(key, kGatherSlot, TShape({words * ranks}), kFloat32, Context::CPU(0));
  NDArray mine = gathered.Slice(words * group_->rank(), words * (group_->rank() + 1));
  gc.Quantize(local_sum, &mine, &residual, priority);
  CollectiveDesc desc;
  desc.kind = CollectiveKind::kAllgather;
  desc.key = key;
  desc.count = words;
  desc.dtype = kFloat32;
  PushCollective(desc, gathered, priority);

  NDArray total = Buffer(key, kAllreduceSlot, local_sum.shape(), kFloat32, Context::CPU(0));
  total.BumpVersion();
  Engine::Get()->PushSync(
      [gc, gathered, total, n, words, ranks](RunContext) {
        const float* packed = static_cast<const float*>(gathered.data().dptr_);
        float* out = static_cast<float*>(total.data().dptr_);
        gc.DequantizeRaw(packed, out, n);
        std::vector<float> part(static_cast<size_t>(n));
        // Every rank adds the decoded parts in rank order: identical sums everywhere.
        for (int r = 1; r < ranks; ++r) {
          gc.DequantizeRaw(packed + r * words, part.data(), n);
          for (int64_t i = 0; i < n; ++i) out[i] += part[i];
        }
      },
      total.ctx(), {gathered.var()}, {total.var()}, FnProperty::kCompute, priority, "KVStoreDecodeSum");
  return total;
}

}  // namespace kvstore
}  // namespace mxnet
