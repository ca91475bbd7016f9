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

#include "kvstore/collective_group.h"
#include "kvstore/kvstore_local.h"

namespace mxnet {
namespace kvstore {

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
  bool CompressesEachValue() const override { return false; }
  /*!
   * \brief Without an updater or compression, sums each value across ranks in place (no copy
   *        on the way in or out) and keeps the result as the stored value by reference.
   */
  bool PushPullInPlaceImpl(const std::vector<int>& keys, const std::vector<NDArray>& values, int priority) override;

 private:
  /*!
   * \brief The compressed path: this rank's sum is quantized (with its residual), the packed
   *        words of every rank are gathered, and each rank decodes and adds them in rank order,
   *        so the wire carries 1/16 (2bit) or 1/32 (1bit) of the values.
   */
  NDArray AggregateCompressed(int key, const NDArray& local_sum, int priority);
  /*! \brief Announces a collective on data now and starts it when the engine reaches it. */
  void PushCollective(const CollectiveDesc& desc, const NDArray& data, int priority);

  CollectiveGroup* group_;
};

}  // namespace kvstore
}  // namespace mxnet

#endif  // MXNET_KVSTORE_KVSTORE_DIST_H_
