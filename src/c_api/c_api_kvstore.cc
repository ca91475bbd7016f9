/*!
 * \file c_api_kvstore.cc
 * \brief The kvstore C API: MXNet's MXKVStore* calls over mxnet::KVStore.
 */
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "c_api/api_guard.h"
#include "mxnet/c_api.h"
#include "mxnet/kvstore.h"

using mxnet::KVStore;
using mxnet::NDArray;

namespace {

struct TypeTag {};

KVStore* Store(KVStoreHandle h) {
  MX_CHECK_KIND(h != nullptr, "ValueError") << "kvstore handle is NULL";
  return static_cast<KVStore*>(h);
}

std::vector<int> IntKeys(uint32_t num, const int* keys) {
  MX_CHECK_KIND(num == 0 || keys != nullptr, "ValueError") << "kvstore: keys is NULL";
  return std::vector<int>(keys, keys + num);
}

std::vector<std::string> StrKeys(uint32_t num, const char** keys) {
  MX_CHECK_KIND(num == 0 || keys != nullptr, "ValueError") << "kvstore: keys is NULL";
  std::vector<std::string> out;
  for (uint32_t i = 0; i < num; ++i) {
    MX_CHECK_KIND(keys[i] != nullptr, "ValueError") << "kvstore: key " << i << " is NULL";
    out.emplace_back(keys[i]);
  }
  return out;
}

std::vector<NDArray> Values(uint32_t num, NDArrayHandle* vals) {
  MX_CHECK_KIND(num == 0 || vals != nullptr, "ValueError") << "kvstore: arrays are NULL";
  std::vector<NDArray> out;
  for (uint32_t i = 0; i < num; ++i) {
    MX_CHECK_KIND(vals[i] != nullptr, "ValueError") << "kvstore: array " << i << " is NULL";
    out.push_back(*static_cast<NDArray*>(vals[i]));
  }
  return out;
}

std::vector<NDArray*> Outs(uint32_t num, NDArrayHandle* vals) {
  MX_CHECK_KIND(num == 0 || vals != nullptr, "ValueError") << "kvstore: out arrays are NULL";
  std::vector<NDArray*> out;
  for (uint32_t i = 0; i < num; ++i) {
    MX_CHECK_KIND(vals[i] != nullptr, "ValueError") << "kvstore: out array " << i << " is NULL";
    out.push_back(static_cast<NDArray*>(vals[i]));
  }
  return out;
}

std::vector<NDArray> RowIds(uint32_t num, const NDArrayHandle* ids) {
  MX_CHECK_KIND(num == 0 || ids != nullptr, "ValueError") << "row_sparse_pull: row_ids are NULL";
  std::vector<NDArray> out;
  for (uint32_t i = 0; i < num; ++i) {
    MX_CHECK_KIND(ids[i] != nullptr, "ValueError") << "row_sparse_pull: row_ids " << i << " is NULL";
    out.push_back(*static_cast<const NDArray*>(ids[i]));
  }
  return out;
}

bool EnvRoleIs(const char* role) {
  const char* v = std::getenv("DMLC_ROLE");
  return v != nullptr && std::string(v) == role;
}

}  // namespace

int MXKVStoreCreate(const char* type, KVStoreHandle* out) {
  API_BEGIN();
  MX_CHECK_KIND(type != nullptr && out != nullptr, "ValueError") << "MXKVStoreCreate: NULL argument";
  *out = KVStore::Create(type).release();
  API_END();
}

int MXKVStoreFree(KVStoreHandle handle) {
  API_BEGIN();
  delete static_cast<KVStore*>(handle);
  API_END();
}

int MXKVStoreInit(KVStoreHandle handle, uint32_t num, const int* keys, NDArrayHandle* vals) {
  API_BEGIN();
  Store(handle)->Init(IntKeys(num, keys), Values(num, vals));
  API_END();
}

int MXKVStoreInitEx(KVStoreHandle handle, uint32_t num, const char** keys, NDArrayHandle* vals) {
  API_BEGIN();
  Store(handle)->Init(StrKeys(num, keys), Values(num, vals));
  API_END();
}

int MXKVStorePush(KVStoreHandle handle, uint32_t num, const int* keys, NDArrayHandle* vals, int priority) {
  API_BEGIN();
  Store(handle)->Push(IntKeys(num, keys), Values(num, vals), priority);
  API_END();
}

int MXKVStorePushEx(KVStoreHandle handle, uint32_t num, const char** keys, NDArrayHandle* vals, int priority) {
  API_BEGIN();
  Store(handle)->Push(StrKeys(num, keys), Values(num, vals), priority);
  API_END();
}

int MXKVStorePull(KVStoreHandle handle, uint32_t num, const int* keys, NDArrayHandle* vals, int priority) {
  return MXKVStorePullWithSparse(handle, num, keys, vals, priority, true);
}

int MXKVStorePullEx(KVStoreHandle handle, uint32_t num, const char** keys, NDArrayHandle* vals, int priority) {
  return MXKVStorePullWithSparseEx(handle, num, keys, vals, priority, true);
}

int MXKVStorePullWithSparse(KVStoreHandle handle, uint32_t num, const int* keys, NDArrayHandle* vals, int priority,
                            bool ignore_sparse) {
  API_BEGIN();
  Store(handle)->Pull(IntKeys(num, keys), Outs(num, vals), priority, ignore_sparse);
  API_END();
}

int MXKVStorePullWithSparseEx(KVStoreHandle handle, uint32_t num, const char** keys, NDArrayHandle* vals,
                              int priority, bool ignore_sparse) {
  API_BEGIN();
  Store(handle)->Pull(StrKeys(num, keys), Outs(num, vals), priority, ignore_sparse);
  API_END();
}

int MXKVStorePullRowSparse(KVStoreHandle handle, uint32_t num, const int* keys, NDArrayHandle* vals,
                           const NDArrayHandle* row_ids, int priority) {
  API_BEGIN();
  Store(handle)->PullRowSparse(IntKeys(num, keys), Outs(num, vals), RowIds(num, row_ids), priority);
  API_END();
}

int MXKVStorePullRowSparseEx(KVStoreHandle handle, uint32_t num, const char** keys, NDArrayHandle* vals,
                             const NDArrayHandle* row_ids, int priority) {
  API_BEGIN();
  Store(handle)->PullRowSparse(StrKeys(num, keys), Outs(num, vals), RowIds(num, row_ids), priority);
  API_END();
}

int MXKVStorePushPull(KVStoreHandle handle, uint32_t vnum, const int* vkeys, uint32_t onum, const int* okeys,
                      NDArrayHandle* vals, NDArrayHandle* outs, int priority) {
  API_BEGIN();
  Store(handle)->PushPull(IntKeys(vnum, vkeys), IntKeys(onum, okeys), Values(vnum, vals), Outs(onum, outs), priority);
  API_END();
}

int MXKVStorePushPullEx(KVStoreHandle handle, uint32_t vnum, const char** vkeys, uint32_t onum, const char** okeys,
                        NDArrayHandle* vals, NDArrayHandle* outs, int priority) {
  API_BEGIN();
  Store(handle)->PushPull(StrKeys(vnum, vkeys), StrKeys(onum, okeys), Values(vnum, vals), Outs(onum, outs), priority);
  API_END();
}

int MXKVStoreBroadcast(KVStoreHandle handle, uint32_t vnum, const int* vkeys, uint32_t onum, const int* okeys,
                       NDArrayHandle* vals, NDArrayHandle* outs, int priority) {
  API_BEGIN();
  Store(handle)->Broadcast(IntKeys(vnum, vkeys), IntKeys(onum, okeys), Values(vnum, vals), Outs(onum, outs),
                           priority);
  API_END();
}

int MXKVStoreBroadcastEx(KVStoreHandle handle, uint32_t vnum, const char** vkeys, uint32_t onum, const char** okeys,
                         NDArrayHandle* vals, NDArrayHandle* outs, int priority) {
  API_BEGIN();
  Store(handle)->Broadcast(StrKeys(vnum, vkeys), StrKeys(onum, okeys), Values(vnum, vals), Outs(onum, outs),
                           priority);
  API_END();
}

int MXKVStoreSetUpdater(KVStoreHandle handle, MXKVStoreUpdater updater, void* updater_handle) {
  return MXKVStoreSetUpdaterEx(handle, updater, nullptr, updater_handle);
}

int MXKVStoreSetUpdaterEx(KVStoreHandle handle, MXKVStoreUpdater updater, MXKVStoreStrUpdater str_updater,
                          void* updater_handle) {
  API_BEGIN();
  KVStore* kv = Store(handle);
  // The callee owns the handles it receives; local shares the stored value's memory.
  if (updater != nullptr) {
    kv->set_updater([updater, updater_handle](int key, const NDArray& recv, NDArray* local) {
      updater(key, new NDArray(recv), new NDArray(*local), updater_handle);
    });
  }
  if (str_updater != nullptr) {
    kv->set_str_updater([str_updater, updater_handle](const std::string& key, const NDArray& recv, NDArray* local) {
      str_updater(key.c_str(), new NDArray(recv), new NDArray(*local), updater_handle);
    });
  }
  API_END();
}

int MXKVStoreSetGradientCompression(KVStoreHandle handle, uint32_t num_params, const char** keys,
                                    const char** vals) {
  API_BEGIN();
  std::vector<std::pair<std::string, std::string>> kwargs;
  for (uint32_t i = 0; i < num_params; ++i) {
    MX_CHECK_KIND(keys[i] != nullptr && vals[i] != nullptr, "ValueError")
        << "set_gradient_compression: parameter " << i << " is NULL";
    kwargs.emplace_back(keys[i], vals[i]);
  }
  Store(handle)->SetGradientCompression(kwargs);
  API_END();
}

int MXKVStoreGetType(KVStoreHandle handle, const char** type) {
  API_BEGIN();
  auto& s = mxnet::capi::ThreadLocalReturn<TypeTag, std::string>();
  s = Store(handle)->type();
  *type = s.c_str();
  API_END();
}

int MXKVStoreGetRank(KVStoreHandle handle, int* ret) {
  API_BEGIN();
  *ret = Store(handle)->rank();
  API_END();
}

int MXKVStoreGetGroupSize(KVStoreHandle handle, int* ret) {
  API_BEGIN();
  *ret = Store(handle)->group_size();
  API_END();
}

int MXKVStoreBarrier(KVStoreHandle handle) {
  API_BEGIN();
  Store(handle)->Barrier();
  API_END();
}

int MXKVStoreSetBarrierBeforeExit(KVStoreHandle handle, const int barrier_before_exit) {
  API_BEGIN();
  Store(handle)->set_barrier_before_exit(barrier_before_exit != 0);
  API_END();
}

int MXKVStoreIsWorkerNode(int* ret) {
  API_BEGIN();
  *ret = !EnvRoleIs("server") && !EnvRoleIs("scheduler");
  API_END();
}

int MXKVStoreIsServerNode(int* ret) {
  API_BEGIN();
  *ret = EnvRoleIs("server");
  API_END();
}

int MXKVStoreIsSchedulerNode(int* ret) {
  API_BEGIN();
  *ret = EnvRoleIs("scheduler");
  API_END();
}

int MXKVStoreRunServer(KVStoreHandle handle, MXKVStoreServerController controller, void* controller_handle) {
  API_BEGIN();
  Store(handle);
  API_END();
}

int MXKVStoreSendCommmandToServers(KVStoreHandle handle, int cmd_id, const char* cmd_body) {
  API_BEGIN();
  Store(handle);
  API_END();
}

int MXKVStoreGetNumDeadNode(KVStoreHandle handle, const int node_id, int* number, const int timeout_sec) {
  API_BEGIN();
  *number = Store(handle)->NumDeadNodes();
  API_END();
}
