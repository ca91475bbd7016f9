/*!
 * \file kvstore_local.h
 * \brief The single-process stores: "local" sums in host memory; "device" sums where the
 *        values live (the least-loaded of their devices holds a key's sum) and can compress.
 */
#ifndef MXNET_KVSTORE_KVSTORE_LOCAL_H_
#define MXNET_KVSTORE_KVSTORE_LOCAL_H_

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "mxnet/kvstore.h"

namespace mxnet {
namespace kvstore {

class TreeReducer;
struct ReductionTree;

class KVStoreLocal : public KVStore {
 public:
  explicit KVStoreLocal(const std::string& type);
  ~KVStoreLocal() override;

 protected:
  void InitImpl(const std::vector<int>& keys, const std::vector<NDArray>& values) override;
  void PushImpl(const std::vector<int>& keys, const std::vector<std::vector<NDArray>>& values,
                int priority) override;
  void PullImpl(const std::vector<int>& keys, const std::vector<std::vector<NDArray*>>& outs, int priority) override;
  void PullRowSparseImpl(const std::vector<int>& keys, const std::vector<std::vector<NDArray*>>& outs,
                         const std::vector<std::vector<NDArray>>& row_ids, int priority) override;

  /*!
   * \brief The sum of this process's values of key; may be values[0] itself (never write to
   *        the result unless owned_result says it is the store's own buffer).
   */
  NDArray ReduceLocal(int key, const std::vector<NDArray>& values, int priority, bool* owned_result);
  /*!
   * \brief What the stored value is updated from, given this process's sum. Distributed stores
   *        sum it across ranks here.
   */
  virtual NDArray Aggregate(int key, const NDArray& local_sum, bool owned, int priority);
  /*!
   * \brief Whether compression applies to each pushed value before the local sum (device
   *        stores, 1.x's per-device residuals); distributed stores compress the local sum once.
   */
  virtual bool CompressesEachValue() const { return true; }
  /*! \brief The stored value of key, or a clear error when it was never initialized. */
  NDArray& Stored(int key);
  /*!
   * \brief Makes value the stored value of key without a copy (1.x keeps a single value pushed
   *        without an updater by reference). The store never writes into it: the next write to
   *        the key first gives the store its own array again.
   */
  void AliasStored(int key, const NDArray& value);
  /*! \brief Stored(key), first replaced by the store's own array if it is an alias (copying
   *         the value when keep_value). */
  NDArray& StoredForWrite(int key, bool keep_value, int priority);
  bool IsStored(int key) const { return store_.count(key) != 0; }
  /*! \brief An array the store owns, one per (key, slot), made (zero-filled) at first use. */
  NDArray& Buffer(int key, int slot, const TShape& shape, int dtype, Context ctx);
  /*! \brief Waits for every engine operation that touches the store's own arrays. */
  void WaitForStore();

 private:
  Context MergeContext(int key, const std::vector<NDArray>& values);
  NDArray Compressed(int key, const std::vector<NDArray>& values, int priority);
  /*!
   * \brief With MXNET_KVSTORE_USETREE, a device store sums values on distinct devices along
   *        reduction trees of their links (comm_tree.h); none when that does not apply.
   */
  NDArray TreeSum(int key, const std::vector<NDArray>& values, int priority);

  std::unordered_map<int, NDArray> store_;
  std::unordered_map<int, bool> aliased_;
  // Per-key buffers: slot 0 = the merged sum; 1.. = compression residuals and scratch.
  std::map<std::pair<int, int>, NDArray> buffers_;
  std::unordered_map<int, Context> merge_ctx_;
  std::map<Context, size_t> merge_load_;
  std::map<std::vector<Context>, std::vector<ReductionTree>> trees_;
  struct KeyTree {
    std::vector<Context> devices;
    TShape shape;
    int dtype{-1};
    std::shared_ptr<TreeReducer> reducer;
  };
  std::unordered_map<int, KeyTree> tree_reducers_;
};

}  // namespace kvstore
}  // namespace mxnet

#endif  // MXNET_KVSTORE_KVSTORE_LOCAL_H_
