// Tree reduction and broadcast of one key's arrays as engine operations: copies over the tree
// edges (CopyFromTo) and element-wise adds on the receiving device.
#include "kvstore/comm_tree_reduce.h"

#include <cstdint>
#include <type_traits>
#include <vector>

#include "mxnet/engine.h"
#include "mxnet/env.h"
#include "mxnet/error.h"

namespace mxnet {
namespace kvstore {

namespace {

/*! \brief Type the two addends are added in: float for 16-bit floats, wide integers for integers. */
template <typename DType>
using AddType = std::conditional_t<std::is_same<DType, double>::value, double,
                                   std::conditional_t<std::is_integral<DType>::value, int64_t, float>>;

/*! \brief out = a + b element-wise; out may be a (in place). */
void AddBlobs(const TBlob& a, const TBlob& b, const TBlob& out) {
  const int64_t n = out.Size();
  MXNET_TYPE_SWITCH(out.type_flag_, DType, {
    using Acc = AddType<DType>;
    const DType* x = static_cast<const DType*>(a.dptr_);
    const DType* y = static_cast<const DType*>(b.dptr_);
    DType* z = static_cast<DType*>(out.dptr_);
    for (int64_t i = 0; i < n; ++i) z[i] = static_cast<DType>(static_cast<Acc>(x[i]) + static_cast<Acc>(y[i]));
  });
}

/*! \brief Pushes out := a + b on out's device. */
void PushAdd(const NDArray& a, const NDArray& b, const NDArray& out, int priority) {
  MX_CHECK_KIND(out.ctx().IsHostMemory(), "ValueError")
      << "kvstore tree reduction adds on host-memory contexts only in this build, not on " << out.ctx().ToString();
  out.CheckAndAlloc();
  std::vector<engine::VarHandle> reads{b.var()};
  if (!a.SameChunk(out) && !a.SameChunk(b)) reads.push_back(a.var());
  out.BumpVersion();
  Engine::Get()->PushSync([a, b, out](RunContext) { AddBlobs(a.data_for_read(), b.data_for_read(), out.data()); },
                          out.ctx(), reads, {out.var()}, FnProperty::kCompute, priority, "TreeReduceAdd");
}

}  // namespace

TreeReduceOptions TreeReduceOptions::FromEnv() {
  TreeReduceOptions o;
  o.array_bound = env::GetInt(env::Var::MXNET_KVSTORE_TREE_ARRAY_BOUND);
  return o;
}

int TreeSliceCount(const TShape& shape, int num_devices, int64_t array_bound) {
  if (num_devices < 2 || shape.ndim() < 1) return 1;
  if (shape.Size() < array_bound || shape[0] < 2 * static_cast<int64_t>(num_devices)) return 1;
  return num_devices;
}

TreeReducer::TreeReducer(const std::vector<Context>& devices, const std::vector<ReductionTree>& trees,
                         const TShape& shape, int dtype, int root, const TreeReduceOptions& options)
    : devices_(devices), trees_(trees), shape_(shape), dtype_(dtype), root_(root) {
  const int n = static_cast<int>(devices_.size());
  MX_CHECK_KIND(n > 0, "ValueError") << "kvstore tree reduction needs at least one device";
  MX_CHECK_KIND(static_cast<int>(trees_.size()) == n, "ValueError")
      << "kvstore tree reduction over " << n << " devices needs " << n << " trees, got " << trees_.size();
  for (int i = 0; i < n; ++i) {
    ValidateReductionTree(trees_[i], n);
    MX_CHECK_KIND(trees_[i].root == i, "ValueError")
        << "kvstore tree reduction: tree " << i << " must be rooted at slot " << i << ", not " << trees_[i].root;
  }
  MX_CHECK_KIND(0 <= root && root < n, "ValueError")
      << "kvstore tree reduction root " << root << " is not a device slot in [0, " << n << ")";
  MX_CHECK_KIND(shape_.IsKnown(), "ValueError") << "kvstore tree reduction needs a known shape, got " << shape_;
  DTypeSize(dtype_);  // throws on an unknown dtype

  const int num_slices = TreeSliceCount(shape_, n, options.array_bound);
  const int64_t rows = shape_.ndim() >= 1 ? shape_[0] : 0;
  for (int s = 0; s < num_slices; ++s) {
    Slice slice;
    slice.tree = num_slices == 1 ? root_ : s;
    if (num_slices == 1) {
      slice.shape = shape_;
      slice.row_end = rows;
    } else {
      slice.row_begin = rows * s / num_slices;
      slice.row_end = rows * (s + 1) / num_slices;
      std::vector<dim_t> dims = shape_.dims();
      dims[0] = slice.row_end - slice.row_begin;
      slice.shape = TShape(dims);
    }
    // Buffers are made where sums arrive: on every parent, and on the root (which holds the
    // total even when it receives nothing, i.e. with a single device).
    const ReductionTree& tree = trees_[slice.tree];
    slice.sum.resize(n);
    slice.recv.resize(n);
    auto buffer = [&](int slot) { return NDArray(slice.shape, devices_[slot], true, dtype_); };
    slice.sum[tree.root] = buffer(tree.root);
    for (const auto& level : tree.levels) {
      for (const TreeEdge& e : level) {
        if (slice.sum[e.parent].is_none()) slice.sum[e.parent] = buffer(e.parent);
        if (slice.recv[e.parent].is_none()) slice.recv[e.parent] = buffer(e.parent);
      }
    }
    parts_.push_back(slice.sum[tree.root]);
    slices_.push_back(std::move(slice));
  }
  if (num_slices > 1) merged_ = NDArray(shape_, devices_[root_], true, dtype_);
}

NDArray TreeReducer::SliceOf(const NDArray& whole, const Slice& s) const {
  return slices_.size() == 1 ? whole : whole.Slice(s.row_begin, s.row_end);
}

void TreeReducer::CheckArrays(const std::vector<NDArray>& arrays, const char* what) const {
  MX_CHECK_KIND(arrays.size() == devices_.size(), "ValueError")
      << "kvstore tree " << what << ": expected one array per device (" << devices_.size() << "), got "
      << arrays.size();
  for (size_t i = 0; i < arrays.size(); ++i) {
    const NDArray& a = arrays[i];
    MX_CHECK_KIND(!a.is_none(), "ValueError") << "kvstore tree " << what << ": array " << i << " is none";
    MX_CHECK_KIND(a.shape() == shape_, "ValueError")
        << "kvstore tree " << what << ": array " << i << " has shape " << a.shape() << ", expected " << shape_;
    MX_CHECK_KIND(a.dtype() == dtype_, "TypeError") << "kvstore tree " << what << ": array " << i << " is "
                                                    << DTypeName(a.dtype()) << ", expected " << DTypeName(dtype_);
    MX_CHECK_KIND(a.ctx() == devices_[i], "ValueError")
        << "kvstore tree " << what << ": array " << i << " is on " << a.ctx().ToString() << ", expected "
        << devices_[i].ToString();
  }
}

const std::vector<NDArray>& TreeReducer::ReduceToRoots(const std::vector<NDArray>& inputs, int priority) {
  CheckArrays(inputs, "reduce");
  const int n = static_cast<int>(devices_.size());
  for (const Slice& s : slices_) {
    const ReductionTree& tree = trees_[s.tree];
    // partial[d]: what device d holds of this slice's sum so far; its own input at first.
    std::vector<NDArray> partial(n);
    for (int d = 0; d < n; ++d) partial[d] = SliceOf(inputs[d], s);
    for (const auto& level : tree.levels) {
      for (const TreeEdge& e : level) {
        CopyFromTo(partial[e.child], s.recv[e.parent], priority);
        PushAdd(partial[e.parent], s.recv[e.parent], s.sum[e.parent], priority);
        partial[e.parent] = s.sum[e.parent];
      }
    }
    // The root's sum buffer already holds the total unless the root received nothing (a single
    // device): then the total is its input, copied so that the result never aliases an input.
    CopyFromTo(partial[tree.root], s.sum[tree.root], priority);
  }
  return parts_;
}

const NDArray& TreeReducer::Reduce(const std::vector<NDArray>& inputs, int priority) {
  const std::vector<NDArray>& parts = ReduceToRoots(inputs, priority);
  if (slices_.size() == 1) return parts[0];
  for (size_t s = 0; s < slices_.size(); ++s) CopyFromTo(parts[s], SliceOf(merged_, slices_[s]), priority);
  return merged_;
}

void TreeReducer::Broadcast(const NDArray& src, const std::vector<NDArray>& outputs, int priority) {
  MX_CHECK_KIND(!src.is_none() && src.shape() == shape_ && src.dtype() == dtype_, "ValueError")
      << "kvstore tree broadcast: source must be a " << DTypeName(dtype_) << " array of shape " << shape_ << ", got "
      << (src.is_none() ? std::string("none") : DTypeName(src.dtype()) + std::string(" ") + src.shape().ToString());
  std::vector<NDArray> parts;
  for (const Slice& s : slices_) parts.push_back(SliceOf(src, s));
  BroadcastFromRoots(parts, outputs, priority);
}

void TreeReducer::BroadcastFromRoots(const std::vector<NDArray>& parts, const std::vector<NDArray>& outputs,
                                     int priority) {
  CheckArrays(outputs, "broadcast");
  MX_CHECK_KIND(parts.size() == slices_.size(), "ValueError")
      << "kvstore tree broadcast: expected " << slices_.size() << " parts, got " << parts.size();
  const int n = static_cast<int>(devices_.size());
  for (size_t k = 0; k < slices_.size(); ++k) {
    const Slice& s = slices_[k];
    MX_CHECK_KIND(!parts[k].is_none() && parts[k].Size() == s.shape.Size() && parts[k].dtype() == dtype_,
                  "ValueError")
        << "kvstore tree broadcast: part " << k << " must be a " << DTypeName(dtype_) << " array of shape "
        << s.shape;
    const ReductionTree& tree = trees_[s.tree];
    std::vector<NDArray> view(n);
    for (int d = 0; d < n; ++d) view[d] = SliceOf(outputs[d], s);
    CopyFromTo(parts[k], view[tree.root], priority);  // nothing to do when the part is that output
    // Down the tree: the reduction's levels in reverse, each edge from parent to child.
    for (auto level = tree.levels.rbegin(); level != tree.levels.rend(); ++level) {
      for (const TreeEdge& e : *level) CopyFromTo(view[e.parent], view[e.child], priority);
    }
  }
}

}  // namespace kvstore
}  // namespace mxnet
