/*!
 * \file comm_tree_reduce.h
 * \brief Sums one array per device along the reduction trees of comm_tree.h, and copies a
 *        value back down them, as engine operations.
 *
 * A TreeReducer serves one kvstore key: its shape, dtype and device list are fixed, so the
 * temporary buffers are made once and reused every step (the engine orders each reuse after
 * the reads of the previous step).
 *
 * Slicing. An array with at least array_bound elements and at least 2 rows per device is cut by
 * rows into n near-equal slices; slice s is reduced over trees[s] (rooted at device s), so all
 * n trees, and the different links they favour, work at the same time. Smaller arrays use the
 * single tree of the reducer's root. Slices are not cut further into pipelined chunks
 * (MXNET_KVSTORE_SLICE_THRESHOLD): with every tree running at once the links are already busy,
 * and chunks of its 40000 elements would multiply the engine operations per key (31 times for
 * a 10M-element array over 8 devices) for little gain.
 *
 * Not thread-safe: one caller at a time per reducer (the store's operations on its key).
 *
 * Order of additions (float results depend on it). In each tree a device's partial sum is its
 * own value, then plus each child's partial sum in level order: p = ((x_p + s_c1) + s_c2) + ...,
 * every intermediate rounded to the array's dtype (float16: computed in float, stored in
 * float16). The order is fixed by the trees, so results repeat exactly from run to run; they
 * differ from a left-to-right sum over the devices only by rounding.
 */
#ifndef MXNET_KVSTORE_COMM_TREE_REDUCE_H_
#define MXNET_KVSTORE_COMM_TREE_REDUCE_H_

#include <cstdint>
#include <vector>

#include "kvstore/comm_tree.h"
#include "mxnet/ndarray.h"

namespace mxnet {
namespace kvstore {

struct TreeReduceOptions {
  /*! \brief Elements from which an array is sliced over all trees (MXNET_KVSTORE_TREE_ARRAY_BOUND). */
  int64_t array_bound{10000000};
  static TreeReduceOptions FromEnv();
};

/*! \brief Slices an array of this shape is reduced in over num_devices devices: num_devices when
 *         it has at least array_bound elements and shape[0] >= 2 * num_devices, else 1. */
int TreeSliceCount(const TShape& shape, int num_devices, int64_t array_bound);

class TreeReducer {
 public:
  /*!
   * \param devices one context per slot, in the order of the link matrix the trees came from
   * \param trees   BuildReductionTrees' result: trees[i] rooted at slot i (validated)
   * \param shape, dtype  of every array of the key
   * \param root    slot whose tree reduces unsliced arrays and where Reduce leaves the total
   */
  TreeReducer(const std::vector<Context>& devices, const std::vector<ReductionTree>& trees, const TShape& shape,
              int dtype, int root, const TreeReduceOptions& options);

  int num_slices() const { return static_cast<int>(slices_.size()); }
  int root() const { return root_; }
  /*! \brief Rows [begin, end) of slice s (the whole first axis when not sliced). */
  int64_t slice_begin(int s) const { return slices_[s].row_begin; }
  int64_t slice_end(int s) const { return slices_[s].row_end; }

  /*!
   * \brief Pushes the sum of inputs (inputs[i] on devices[i]; never written) and returns the
   *        total: a buffer on devices[root] owned by the reducer, valid until the next Reduce.
   *        Sliced arrays are reduced on every root, then their slices are gathered there.
   */
  const NDArray& Reduce(const std::vector<NDArray>& inputs, int priority = 0);

  /*!
   * \brief As Reduce without the gather: part s (rows slice_begin(s)..slice_end(s)) of the
   *        total stays on the root of its tree, devices[s] when sliced (devices[root] when not).
   *        With BroadcastFromRoots it avoids moving every slice through one device.
   */
  const std::vector<NDArray>& ReduceToRoots(const std::vector<NDArray>& inputs, int priority = 0);

  /*! \brief Pushes copies of src (whole array, any host or device context) into every
   *         outputs[i] (on devices[i]), each slice flowing from its tree's root down the tree. */
  void Broadcast(const NDArray& src, const std::vector<NDArray>& outputs, int priority = 0);

  /*! \brief As Broadcast from parts laid out like ReduceToRoots' result. */
  void BroadcastFromRoots(const std::vector<NDArray>& parts, const std::vector<NDArray>& outputs, int priority = 0);

 private:
  /*! \brief One slice and the buffers its tree needs. */
  struct Slice {
    int tree{0};
    int64_t row_begin{0}, row_end{0};
    TShape shape;
    std::vector<NDArray> sum;   // per slot: the partial sum (slots that receive, and the root)
    std::vector<NDArray> recv;  // per slot: where a child's partial sum lands (slots that receive)
  };

  NDArray SliceOf(const NDArray& whole, const Slice& s) const;
  void CheckArrays(const std::vector<NDArray>& arrays, const char* what) const;

  std::vector<Context> devices_;
  std::vector<ReductionTree> trees_;
  TShape shape_;
  int dtype_;
  int root_;
  std::vector<Slice> slices_;
  std::vector<NDArray> parts_;  // ReduceToRoots' result: slices_[s].sum at its tree's root
  NDArray merged_;              // Reduce's gathered total when sliced
};

}  // namespace kvstore
}  // namespace mxnet

#endif  // MXNET_KVSTORE_COMM_TREE_REDUCE_H_
