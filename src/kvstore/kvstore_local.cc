/*!
 * \file kvstore_local.cc
 * \brief Single-process stores: per-key stored values in host memory, sums of the values
 *        pushed for a key (optionally through 2-bit/1-bit compression), updater calls.
 */
#include "kvstore/kvstore_local.h"

#include <algorithm>
#include <vector>

#include "kvstore/comm_tree.h"
#include "kvstore/comm_tree_reduce.h"
#include "kvstore/gradient_compression.h"
#include "kvstore/reduce_cpu.h"
#include "mxnet/env.h"
#include "mxnet/error.h"

namespace mxnet {
namespace kvstore {

namespace {
// Buffer slots per key: the merged sum, then per pushed value a residual, its compressed form
// and its decompressed form.
constexpr int kMergedSlot = 0;
constexpr int kSlotsPerValue = 3;
}  // namespace

KVStoreLocal::KVStoreLocal(const std::string& type) : KVStore(type) {}

KVStoreLocal::~KVStoreLocal() = default;

NDArray& KVStoreLocal::Stored(int key) {
  auto it = store_.find(key);
  MX_CHECK_KIND(it != store_.end(), "MXNetError") << "key " << KeyName(key) << " has not been inited";
  return it->second;
}

void KVStoreLocal::AliasStored(int key, const NDArray& value) {
  Stored(key) = value;
  aliased_[key] = true;
}

NDArray& KVStoreLocal::StoredForWrite(int key, bool keep_value, int priority) {
  NDArray& stored = Stored(key);
  auto it = aliased_.find(key);
  if (it != aliased_.end() && it->second) {
    NDArray own(stored.shape(), stored.ctx(), false, stored.dtype());
    if (keep_value) CopyFromTo(stored, own, priority);
    stored = own;
    it->second = false;
  }
  return stored;
}

NDArray& KVStoreLocal::Buffer(int key, int slot, const TShape& shape, int dtype, Context ctx) {
  auto& buf = buffers_[{key, slot}];
  if (buf.is_none() || buf.shape() != shape || buf.dtype() != dtype || !(buf.ctx() == ctx)) {
    buf = NDArray(shape, ctx, false, dtype);
    const std::vector<char> zeros(static_cast<size_t>(buf.Size()) * DTypeSize(dtype), 0);
    buf.SyncCopyFromCPU(zeros.data(), static_cast<size_t>(buf.Size()));
  }
  return buf;
}

void KVStoreLocal::WaitForStore() {
  for (auto& kv : store_) kv.second.WaitToWrite();
  for (auto& kv : buffers_) kv.second.WaitToWrite();
}

Context KVStoreLocal::MergeContext(int key, const std::vector<NDArray>& values) {
  auto it = merge_ctx_.find(key);
  if (it != merge_ctx_.end()) return it->second;
  Context ctx = Context::CPU(0);
  if (type().find("device") != std::string::npos) {
    // Spread the sums over the values' devices: this key goes to the least loaded so far.
    size_t best = SIZE_MAX;
    for (const auto& v : values) {
      const size_t load = merge_load_[v.ctx()];
      if (load < best) {
        best = load;
        ctx = v.ctx();
      }
    }
  }
  merge_load_[ctx] += static_cast<size_t>(values[0].Size()) * DTypeSize(values[0].dtype());
  merge_ctx_.emplace(key, ctx);
  return ctx;
}

NDArray KVStoreLocal::Compressed(int key, const std::vector<NDArray>& values, int priority) {
  const GradientCompression& gc = *compression();
  std::vector<NDArray> decoded;
  for (size_t j = 0; j < values.size(); ++j) {
    const NDArray& v = values[j];
    MX_CHECK_KIND(v.dtype() == kFloat32, "TypeError")
        << "gradient compression works on float32 values; key " << KeyName(key) << " got " << DTypeName(v.dtype());
    const int base = 1 + kSlotsPerValue * static_cast<int>(j);
    NDArray& residual = Buffer(key, base, v.shape(), kFloat32, v.ctx());
    NDArray& packed = Buffer(key, base + 1, TShape({gc.CompressedSize(v.Size())}), kFloat32, v.ctx());
    NDArray& unpacked = Buffer(key, base + 2, v.shape(), kFloat32, v.ctx());
    gc.Quantize(v, &packed, &residual, priority);
    gc.Dequantize(packed, &unpacked, priority);
    decoded.push_back(unpacked);
  }
  if (decoded.size() == 1) return decoded[0];
  NDArray& merged = Buffer(key, kMergedSlot, values[0].shape(), kFloat32, MergeContext(key, values));
  PushSum(decoded, merged, KeyName(key), priority);
  return merged;
}

NDArray KVStoreLocal::ReduceLocal(int key, const std::vector<NDArray>& values, int priority, bool* owned_result) {
  *owned_result = true;
  if (compression() && compression()->active() && CompressesEachValue()) return Compressed(key, values, priority);
  if (values.size() == 1) {
    *owned_result = false;
    return values[0];
  }
  NDArray tree_sum = TreeSum(key, values, priority);
  if (!tree_sum.is_none()) return tree_sum;
  NDArray& merged = Buffer(key, kMergedSlot, values[0].shape(), values[0].dtype(), MergeContext(key, values));
  PushSum(values, merged, KeyName(key), priority);
  return merged;
}

NDArray KVStoreLocal::TreeSum(int key, const std::vector<NDArray>& values, int priority) {
  if (type().find("device") == std::string::npos || !env::GetBool(env::Var::MXNET_KVSTORE_USETREE)) return NDArray();
  std::vector<Context> devices;
  for (const auto& v : values) {
    if (std::find(devices.begin(), devices.end(), v.ctx()) != devices.end()) return NDArray();  // trees need one value per device
    devices.push_back(v.ctx());
  }
  KeyTree& tree = tree_reducers_[key];
  if (!tree.reducer || tree.devices != devices || tree.shape != values[0].shape() || tree.dtype != values[0].dtype()) {
    auto it = trees_.find(devices);
    if (it == trees_.end()) it = trees_.emplace(devices, BuildDeviceTrees(devices)).first;
    const Context home = MergeContext(key, values);
    const auto pos = std::find(devices.begin(), devices.end(), home);
    const int root = pos == devices.end() ? 0 : static_cast<int>(pos - devices.begin());
    tree = KeyTree{devices, values[0].shape(), values[0].dtype(),
                   std::make_shared<TreeReducer>(devices, it->second, values[0].shape(), values[0].dtype(), root,
                                                 TreeReduceOptions::FromEnv())};
  }
  return tree.reducer->Reduce(values, priority);
}

NDArray KVStoreLocal::Aggregate(int key, const NDArray& local_sum, bool owned, int priority) { return local_sum; }

void KVStoreLocal::InitImpl(const std::vector<int>& keys, const std::vector<NDArray>& values) {
  for (size_t i = 0; i < keys.size(); ++i) MX_CHECK_KIND(!IsStored(keys[i]), "MXNetError") << "duplicate init of key " << KeyName(keys[i]);
  for (size_t i = 0; i < keys.size(); ++i) {
    NDArray stored(values[i].shape(), Context::CPU(0), false, values[i].dtype());
    CopyFromTo(values[i], stored);
    store_.emplace(keys[i], stored);
  }
}

void KVStoreLocal::PushImpl(const std::vector<int>& keys, const std::vector<std::vector<NDArray>>& values,
                            int priority) {
  // Everything is checked before anything is queued, so a bad call changes nothing.
  for (size_t i = 0; i < keys.size(); ++i) {
    for (const auto& v : values[i]) {
      MX_CHECK_KIND(v.Size() == Stored(keys[i]).Size(), "ValueError")
          << "kvstore push: key " << KeyName(keys[i]) << " holds shape " << Stored(keys[i]).shape()
          << " but a value of shape " << v.shape() << " was pushed";
    }
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    const int key = keys[i];
    bool owned = false;
    const NDArray local_sum = ReduceLocal(key, values[i], priority, &owned);
    const NDArray recv = Aggregate(key, local_sum, owned, priority);
    NDArray& stored = StoredForWrite(key, has_updater(), priority);
    if (has_updater()) {
      if (!(stored.ctx() == recv.ctx())) {
        // The update runs where the sum is: the stored value moves there once and stays.
        NDArray moved(stored.shape(), recv.ctx(), false, stored.dtype());
        CopyFromTo(stored, moved, priority);
        stored = moved;
      }
      RunUpdater(key, recv, &stored);
    } else {
      CopyFromTo(recv, stored, priority);
    }
  }
}

void KVStoreLocal::PullImpl(const std::vector<int>& keys, const std::vector<std::vector<NDArray*>>& outs,
                            int priority) {
  for (int key : keys) Stored(key);
  for (size_t i = 0; i < keys.size(); ++i) {
    const NDArray& stored = Stored(keys[i]);
    for (NDArray* out : outs[i]) {
      MX_CHECK_KIND(out->Size() == stored.Size(), "ValueError")
          << "kvstore pull: key " << KeyName(keys[i]) << " holds shape " << stored.shape()
          << " but the out has shape " << out->shape();
      CopyFromTo(stored, *out, priority);
    }
  }
}

void KVStoreLocal::PullRowSparseImpl(const std::vector<int>& keys, const std::vector<std::vector<NDArray*>>& outs,
                                     const std::vector<std::vector<NDArray>>& row_ids, int priority) {
  for (int key : keys) Stored(key);
  for (size_t i = 0; i < keys.size(); ++i) {
    for (size_t j = 0; j < outs[i].size(); ++j) {
      PushRowSparsePull(Stored(keys[i]), row_ids[i][j], *outs[i][j], KeyName(keys[i]), priority);
    }
  }
}

}  // namespace kvstore
}  // namespace mxnet
