/*!
 * \file kvstore.cc
 * \brief What every store shares: key kinds, str-key numbering, grouping values by key, and
 *        the choice of implementation by type name.
 */
#include "mxnet/kvstore.h"

#include <algorithm>
#include <cctype>
#include <numeric>

#include "kvstore/gradient_compression.h"
#include "kvstore/kvstore_dist.h"
#include "kvstore/kvstore_local.h"
#include "mxnet/error.h"

namespace mxnet {

namespace {

/*! \brief keys[i] with items[i] -> unique ascending keys, each with its items in the order given. */
template <typename T>
void GroupByKey(const std::vector<int>& keys, const std::vector<T>& items, std::vector<int>* ukeys,
                std::vector<std::vector<T>>* grouped) {
  MX_CHECK_KIND(keys.size() == items.size(), "ValueError")
      << "kvstore: " << keys.size() << " keys but " << items.size() << " arrays";
  std::vector<size_t> order(keys.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return keys[a] < keys[b]; });
  ukeys->clear();
  grouped->clear();
  for (size_t i : order) {
    if (ukeys->empty() || ukeys->back() != keys[i]) {
      ukeys->push_back(keys[i]);
      grouped->emplace_back();
    }
    grouped->back().push_back(items[i]);
  }
}

void CheckNotNone(const std::vector<NDArray>& values, const char* what) {
  for (size_t i = 0; i < values.size(); ++i) {
    MX_CHECK_KIND(!values[i].is_none(), "ValueError") << "kvstore " << what << ": array " << i << " is empty";
  }
}

}  // namespace

KVStore::KVStore(std::string type) : type_(std::move(type)) {}
KVStore::~KVStore() = default;

std::unique_ptr<KVStore> KVStore::Create(const std::string& name) {
  std::string type = name;
  std::transform(type.begin(), type.end(), type.begin(), [](unsigned char c) { return std::tolower(c); });
  MX_CHECK_KIND(!type.empty(), "ValueError") << "kvstore type is empty (use 'local', 'device' or 'dist_sync')";
  if (type.find("dist") != std::string::npos) {
    MX_CHECK_KIND(type.find("async") == std::string::npos, "MXNetError")
        << "kvstore '" << type << "': asynchronous distributed updates are not provided (every rank of an MPI "
        << "job holds the weights and there are no parameter servers to apply pushes out of step; see "
        << "docs/architecture.md). Use 'dist_sync' (or 'dist_device_sync'), which gives every rank the same "
        << "update after each step.";
    return std::make_unique<kvstore::KVStoreDist>(type);
  }
  if (type == "horovod") return std::make_unique<kvstore::KVStoreDist>(type);
  if (type.find("nccl") != std::string::npos) {
    MX_THROW("MXNetError") << "kvstore '" << type << "' sums GPU arrays with NCCL, and this runtime cannot "
                           << "hold arrays on GPUs yet; use 'device' or 'local' (or 'dist_sync' across processes)";
  }
  return std::make_unique<kvstore::KVStoreLocal>(type);
}

void KVStore::CheckKeyKind(KeyKind kind) {
  if (key_kind_ == KeyKind::kUnset) key_kind_ = kind;
  MX_CHECK_KIND(key_kind_ == kind, "MXNetError") << "Mixed key types are not allowed: this kvstore uses "
                              << (key_kind_ == KeyKind::kInt ? "int" : "str") << " keys";
}

std::vector<int> KVStore::StrKeysToInt(const std::vector<std::string>& keys, bool create) {
  CheckKeyKind(KeyKind::kStr);
  std::vector<int> out;
  out.reserve(keys.size());
  for (const auto& k : keys) {
    auto it = str_to_int_.find(k);
    if (it == str_to_int_.end()) {
      MX_CHECK_KIND(create, "MXNetError") << "key " << k << " doesn't exist. Did you init?";
      const int id = static_cast<int>(int_to_str_.size());
      str_to_int_.emplace(k, id);
      int_to_str_.push_back(k);
      out.push_back(id);
    } else {
      out.push_back(it->second);
    }
  }
  return out;
}

std::string KVStore::KeyName(int key) const {
  if (key_kind_ == KeyKind::kStr && key >= 0 && key < static_cast<int>(int_to_str_.size())) {
    return "'" + int_to_str_[key] + "'";
  }
  return std::to_string(key);
}

void KVStore::RunUpdater(int key, const NDArray& recv, NDArray* local) const {
  if (key_kind_ == KeyKind::kStr && str_updater_) {
    str_updater_(int_to_str_.at(key), recv, local);
  } else if (updater_) {
    updater_(key, recv, local);
  } else {
    str_updater_(int_to_str_.at(key), recv, local);
  }
}

void KVStore::Init(const std::vector<int>& keys, const std::vector<NDArray>& values) {
  CheckKeyKind(KeyKind::kInt);
  InitInts(keys, values);
}

void KVStore::InitInts(const std::vector<int>& keys, const std::vector<NDArray>& values) {
  CheckNotNone(values, "init");
  std::vector<int> ukeys;
  std::vector<std::vector<NDArray>> grouped;
  GroupByKey(keys, values, &ukeys, &grouped);
  std::vector<NDArray> first;
  for (size_t i = 0; i < ukeys.size(); ++i) {
    MX_CHECK_KIND(grouped[i].size() == 1, "MXNetError") << "duplicate init of key " << ukeys[i];
    first.push_back(grouped[i][0]);
  }
  InitImpl(ukeys, first);
}

void KVStore::Init(const std::vector<std::string>& keys, const std::vector<NDArray>& values) {
  CheckKeyKind(KeyKind::kStr);
  for (size_t i = 0; i < keys.size(); ++i) {
    MX_CHECK_KIND(str_to_int_.count(keys[i]) == 0, "MXNetError") << "duplicate init of key " << keys[i];
    for (size_t j = 0; j < i; ++j) MX_CHECK_KIND(keys[j] != keys[i], "MXNetError") << "duplicate init of key " << keys[i];
  }
  InitInts(StrKeysToInt(keys, true), values);
}

void KVStore::Push(const std::vector<int>& keys, const std::vector<NDArray>& values, int priority) {
  CheckKeyKind(KeyKind::kInt);
  PushInts(keys, values, priority);
}

void KVStore::PushInts(const std::vector<int>& keys, const std::vector<NDArray>& values, int priority) {
  CheckNotNone(values, "push");
  std::vector<int> ukeys;
  std::vector<std::vector<NDArray>> grouped;
  GroupByKey(keys, values, &ukeys, &grouped);
  PushImpl(ukeys, grouped, priority);
}

void KVStore::Push(const std::vector<std::string>& keys, const std::vector<NDArray>& values, int priority) {
  PushInts(StrKeysToInt(keys, false), values, priority);
}

void KVStore::Pull(const std::vector<int>& keys, const std::vector<NDArray*>& outs, int priority,
                   bool ignore_sparse) {
  CheckKeyKind(KeyKind::kInt);
  PullInts(keys, outs, priority);
}

void KVStore::PullInts(const std::vector<int>& keys, const std::vector<NDArray*>& outs, int priority) {
  for (size_t i = 0; i < outs.size(); ++i) {
    MX_CHECK_KIND(outs[i] != nullptr && !outs[i]->is_none(), "ValueError") << "kvstore pull: out " << i << " is empty";
  }
  std::vector<int> ukeys;
  std::vector<std::vector<NDArray*>> grouped;
  GroupByKey(keys, outs, &ukeys, &grouped);
  PullImpl(ukeys, grouped, priority);
}

void KVStore::Pull(const std::vector<std::string>& keys, const std::vector<NDArray*>& outs, int priority,
                   bool ignore_sparse) {
  PullInts(StrKeysToInt(keys, false), outs, priority);
}

void KVStore::PullRowSparse(const std::vector<int>& keys, const std::vector<NDArray*>& outs,
                            const std::vector<NDArray>& row_ids, int priority) {
  CheckKeyKind(KeyKind::kInt);
  PullRowSparseInts(keys, outs, row_ids, priority);
}

void KVStore::PullRowSparseInts(const std::vector<int>& keys, const std::vector<NDArray*>& outs,
                                const std::vector<NDArray>& row_ids, int priority) {
  MX_CHECK_KIND(row_ids.size() == outs.size(), "ValueError")
      << "row_sparse_pull: " << outs.size() << " outs but " << row_ids.size() << " row_ids";
  CheckNotNone(row_ids, "row_sparse_pull row_ids");
  std::vector<std::pair<NDArray*, NDArray>> pairs;
  for (size_t i = 0; i < outs.size(); ++i) {
    MX_CHECK_KIND(outs[i] != nullptr && !outs[i]->is_none(), "ValueError")
        << "row_sparse_pull: out " << i << " is empty";
    pairs.emplace_back(outs[i], row_ids[i]);
  }
  std::vector<int> ukeys;
  std::vector<std::vector<std::pair<NDArray*, NDArray>>> grouped;
  GroupByKey(keys, pairs, &ukeys, &grouped);
  std::vector<std::vector<NDArray*>> gouts(grouped.size());
  std::vector<std::vector<NDArray>> gids(grouped.size());
  for (size_t i = 0; i < grouped.size(); ++i) {
    for (auto& p : grouped[i]) {
      gouts[i].push_back(p.first);
      gids[i].push_back(p.second);
    }
  }
  PullRowSparseImpl(ukeys, gouts, gids, priority);
}

void KVStore::PullRowSparse(const std::vector<std::string>& keys, const std::vector<NDArray*>& outs,
                            const std::vector<NDArray>& row_ids, int priority) {
  PullRowSparseInts(StrKeysToInt(keys, false), outs, row_ids, priority);
}

void KVStore::PushPull(const std::vector<int>& vkeys, const std::vector<int>& okeys,
                       const std::vector<NDArray>& values, const std::vector<NDArray*>& outs, int priority) {
  CheckKeyKind(KeyKind::kInt);
  PushPullInts(vkeys, okeys, values, outs, priority);
}

void KVStore::PushPull(const std::vector<std::string>& vkeys, const std::vector<std::string>& okeys,
                       const std::vector<NDArray>& values, const std::vector<NDArray*>& outs, int priority) {
  const std::vector<int> vids = StrKeysToInt(vkeys, false);
  PushPullInts(vids, StrKeysToInt(okeys, false), values, outs, priority);
}

void KVStore::PushPullInts(const std::vector<int>& vkeys, const std::vector<int>& okeys,
                           const std::vector<NDArray>& values, const std::vector<NDArray*>& outs, int priority) {
  bool in_place = vkeys == okeys && values.size() == outs.size() && values.size() == vkeys.size();
  for (size_t i = 0; in_place && i < values.size(); ++i) {
    in_place = outs[i] != nullptr && !values[i].is_none() && outs[i]->SameData(values[i]) &&
               outs[i]->shape() == values[i].shape() && outs[i]->dtype() == values[i].dtype();
  }
  if (in_place) {
    std::vector<int> ukeys;
    std::vector<std::vector<NDArray>> grouped;
    GroupByKey(vkeys, values, &ukeys, &grouped);
    std::vector<NDArray> one;
    for (const auto& g : grouped) {
      if (g.size() != 1) break;
      one.push_back(g[0]);
    }
    if (one.size() == ukeys.size() && PushPullInPlaceImpl(ukeys, one, priority)) return;
  }
  PushInts(vkeys, values, priority);
  PullInts(okeys, outs, priority);
}

void KVStore::Broadcast(const std::vector<int>& vkeys, const std::vector<int>& okeys,
                        const std::vector<NDArray>& values, const std::vector<NDArray*>& outs, int priority) {
  Init(vkeys, values);
  Pull(okeys, outs, priority, true);
}

void KVStore::Broadcast(const std::vector<std::string>& vkeys, const std::vector<std::string>& okeys,
                        const std::vector<NDArray>& values, const std::vector<NDArray*>& outs, int priority) {
  Init(vkeys, values);
  Pull(okeys, outs, priority, true);
}

void KVStore::SetGradientCompression(const std::vector<std::pair<std::string, std::string>>& kwargs) {
  MX_CHECK_KIND(type_.find("device") != std::string::npos || type_.find("dist") != std::string::npos ||
           type_ == "horovod", "MXNetError")
      << "Gradient compression is not supported for this type of kvstore ('" << type_
      << "'): use 'device' or a 'dist' type";
  auto gc = std::make_shared<kvstore::GradientCompression>();
  gc->SetParams(kwargs);
  compression_ = std::move(gc);
}

}  // namespace mxnet
