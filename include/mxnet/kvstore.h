/*!
 * \file kvstore.h
 * \brief Key-value store for data-parallel training (MXNet's KVStore).
 *
 * Values pushed under one key (one per device) are summed, then either stored or handed to
 * an updater (the optimizer) together with the stored value. Pulls copy the stored value out.
 * Every transfer and sum is an engine operation on the arrays' vars, so pushes overlap with
 * the backward pass that produces the gradients and pulls with the next forward pass.
 *
 * Types: "local" (sums on the CPU), "device" (sums where the values live), and the
 * distributed ones, "dist_sync", "dist_device_sync" and "horovod", whose ranks are the
 * processes of an MPI job: each push is summed across ranks by a deterministic allreduce and
 * every rank applies the same update. See docs/architecture.md (Distributed kvstore).
 */
#ifndef MXNET_KVSTORE_H_
#define MXNET_KVSTORE_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "mxnet/ndarray.h"

namespace mxnet {

namespace kvstore {
class GradientCompression;
}

class KVStore {
 public:
  /*! \brief Updates local in place from recv (the summed push). */
  using Updater = std::function<void(int key, const NDArray& recv, NDArray* local)>;
  using StrUpdater = std::function<void(const std::string& key, const NDArray& recv, NDArray* local)>;

  /*! \brief Creates a store by type name (lower-cased); throws naming unknown or unbuilt types. */
  static std::unique_ptr<KVStore> Create(const std::string& type);
  virtual ~KVStore();

  const std::string& type() const { return type_; }

  // Keys are all int or all str for the lifetime of a store ("Mixed key types are not allowed").
  // A key may appear several times in one call: its values are one per device.
  void Init(const std::vector<int>& keys, const std::vector<NDArray>& values);
  void Init(const std::vector<std::string>& keys, const std::vector<NDArray>& values);
  void Push(const std::vector<int>& keys, const std::vector<NDArray>& values, int priority);
  void Push(const std::vector<std::string>& keys, const std::vector<NDArray>& values, int priority);
  void Pull(const std::vector<int>& keys, const std::vector<NDArray*>& outs, int priority, bool ignore_sparse);
  void Pull(const std::vector<std::string>& keys, const std::vector<NDArray*>& outs, int priority,
            bool ignore_sparse);
  /*! \brief Dense form of row_sparse_pull: each out gets the stored rows in its row_ids, other rows 0. */
  void PullRowSparse(const std::vector<int>& keys, const std::vector<NDArray*>& outs,
                     const std::vector<NDArray>& row_ids, int priority);
  void PullRowSparse(const std::vector<std::string>& keys, const std::vector<NDArray*>& outs,
                     const std::vector<NDArray>& row_ids, int priority);
  void PushPull(const std::vector<int>& vkeys, const std::vector<int>& okeys, const std::vector<NDArray>& values,
                const std::vector<NDArray*>& outs, int priority);
  void PushPull(const std::vector<std::string>& vkeys, const std::vector<std::string>& okeys,
                const std::vector<NDArray>& values, const std::vector<NDArray*>& outs, int priority);
  /*! \brief init(vkeys, values) then pull(okeys, outs). */
  void Broadcast(const std::vector<int>& vkeys, const std::vector<int>& okeys, const std::vector<NDArray>& values,
                 const std::vector<NDArray*>& outs, int priority);
  void Broadcast(const std::vector<std::string>& vkeys, const std::vector<std::string>& okeys,
                 const std::vector<NDArray>& values, const std::vector<NDArray*>& outs, int priority);

  void set_updater(Updater updater) { updater_ = std::move(updater); }
  void set_str_updater(StrUpdater updater) { str_updater_ = std::move(updater); }
  /*! \brief {"type": "2bit"|"1bit", "threshold": t}; only device and distributed types compress. */
  virtual void SetGradientCompression(const std::vector<std::pair<std::string, std::string>>& kwargs);

  virtual int rank() const { return 0; }
  virtual int group_size() const { return 1; }
  /*! \brief Returns when every rank has reached it (at once for single-process stores). */
  virtual void Barrier() {}
  /*! \brief Ranks known to have failed. */
  virtual int NumDeadNodes() const { return 0; }
  void set_barrier_before_exit(bool v) { barrier_before_exit_ = v; }

 protected:
  explicit KVStore(std::string type);
  // The implementations see int keys (str keys are numbered in order of first init), grouped:
  // keys ascending and unique, values[i] holding every array given for keys[i].
  virtual void InitImpl(const std::vector<int>& keys, const std::vector<NDArray>& values) = 0;
  virtual void PushImpl(const std::vector<int>& keys, const std::vector<std::vector<NDArray>>& values,
                        int priority) = 0;
  virtual void PullImpl(const std::vector<int>& keys, const std::vector<std::vector<NDArray*>>& outs,
                        int priority) = 0;
  virtual void PullRowSparseImpl(const std::vector<int>& keys, const std::vector<std::vector<NDArray*>>& outs,
                                 const std::vector<std::vector<NDArray>>& row_ids, int priority) = 0;
  /*!
   * \brief pushpull(keys, values) with every value its own out, one value per key (keys
   *        ascending, unique): a store may sum in place instead of pushing then pulling.
   *        Returns false to get the push + pull.
   */
  virtual bool PushPullInPlaceImpl(const std::vector<int>& keys, const std::vector<NDArray>& values, int priority) {
    return false;
  }

  bool has_updater() const { return static_cast<bool>(updater_) || static_cast<bool>(str_updater_); }
  /*! \brief Calls the updater with the key as the user gave it (int or str). */
  void RunUpdater(int key, const NDArray& recv, NDArray* local) const;
  /*! \brief "3" or "'weight'" for messages. */
  std::string KeyName(int key) const;
  std::shared_ptr<kvstore::GradientCompression> compression() const { return compression_; }
  bool barrier_before_exit() const { return barrier_before_exit_; }

 private:
  enum class KeyKind { kUnset, kInt, kStr };
  void CheckKeyKind(KeyKind kind);
  // The calls once keys are ints, whichever kind the user gave.
  void InitInts(const std::vector<int>& keys, const std::vector<NDArray>& values);
  void PushInts(const std::vector<int>& keys, const std::vector<NDArray>& values, int priority);
  void PullInts(const std::vector<int>& keys, const std::vector<NDArray*>& outs, int priority);
  void PullRowSparseInts(const std::vector<int>& keys, const std::vector<NDArray*>& outs,
                         const std::vector<NDArray>& row_ids, int priority);
  void PushPullInts(const std::vector<int>& vkeys, const std::vector<int>& okeys, const std::vector<NDArray>& values,
                    const std::vector<NDArray*>& outs, int priority);
  std::vector<int> StrKeysToInt(const std::vector<std::string>& keys, bool create);

  std::string type_;
  KeyKind key_kind_{KeyKind::kUnset};
  std::map<std::string, int> str_to_int_;
  std::vector<std::string> int_to_str_;
  Updater updater_;
  StrUpdater str_updater_;
  std::shared_ptr<kvstore::GradientCompression> compression_;
  bool barrier_before_exit_{true};
};

}  // namespace mxnet

#endif  // MXNET_KVSTORE_H_
