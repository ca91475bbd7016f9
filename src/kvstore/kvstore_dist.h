/*!
 * \file kvstore_dist.h
 * \brief Distributed synchronous stores ("dist_sync", "dist_device_sync", "horovod"): the
 *        ranks of an MPI job each keep every value; a push is summed on the rank's devices,
 *        then across ranks by the process's collective group, and every rank applies the same
 *        update to its copy, so all copies stay identical without parameter servers.
 */
#ifndef MXNET_KVSTORE_KVSTORE_DIST_H_
#define MXNET_KVSTORE_KVSTORE_DIST_H_

#include <string>
#include <vector>

#include "kvstore/kvstore_local.h"

namespace mxnet {
namespace kvstore {

class CollectiveGroup;

class KVStoreDist : public KVStoreLocal {
 public:
  explicit KVStoreDist(const std::string& type);
  /*! \brief Waits for this store's work, then (unless disabled) meets the other ranks at a barrier. */
  ~KVStoreDist() override;

  int rank() const override;
  int group_size() const override;
  void Barrier() override;
  int NumDeadNodes() const override;

 protected:
  /*! \brief Stores rank 0's values on every rank. */
  void InitImpl(const std::vector<int>& keys, const std::vector<NDArray>& values) override;
  /*! \brief Sums local_sum across ranks (in a buffer of the store: the user's arrays stay as they were). */
  NDArray Aggregate(int key, const NDArray& local_sum, bool owned, int priority) override;

 private:
  CollectiveGroup* group_;
};

}  // namespace kvstore
}  // namespace mxnet

#endif  // MXNET_KVSTORE_KVSTORE_DIST_H_
