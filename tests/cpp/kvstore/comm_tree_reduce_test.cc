// Tree reduction and broadcast of NDArrays over cpu(i) contexts (which stand in for devices):
// sums match a float64 sum computed here, inputs stay untouched, big arrays are sliced over
// all trees, and buffers reused across steps keep each step's result.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kvstore/comm_tree.h"
#include "kvstore/comm_tree_reduce.h"
#include "mxnet/error.h"
#include "mxnet/ndarray.h"

namespace mxnet {
namespace kvstore {
namespace {

std::vector<Context> Cpus(int n) {
  std::vector<Context> c;
  for (int i = 0; i < n; ++i) c.push_back(Context::CPU(i));
  return c;
}

std::vector<ReductionTree> Trees(const std::vector<Context>& devices) {
  return BuildReductionTrees(DeviceLinkMatrix(devices), TreeOptions{});
}

TreeReduceOptions Bound(int64_t elements) {
  TreeReduceOptions o;
  o.array_bound = elements;
  return o;
}

/*! \brief An array of dtype on ctx holding values (converted to dtype). */
NDArray Make(const TShape& shape, Context ctx, int dtype, const std::vector<double>& values) {
  NDArray a(shape, ctx, false, dtype);
  MXNET_TYPE_SWITCH(dtype, DType, {
    std::unique_ptr<DType[]> v(new DType[values.size()]);  // not vector: vector<bool> has no data()
    for (size_t i = 0; i < values.size(); ++i) v[i] = static_cast<DType>(values[i]);
    a.SyncCopyFromCPU(v.get(), values.size());
  });
  return a;
}

std::vector<double> Read(const NDArray& a) {
  std::vector<double> out(a.Size());
  MXNET_TYPE_SWITCH(a.dtype(), DType, {
    std::unique_ptr<DType[]> v(new DType[out.size()]);
    a.SyncCopyToCPU(v.get(), out.size());
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<double>(v[i]);
  });
  return out;
}

/*! \brief Values as the dtype stores them (so the expected sum starts from what the arrays hold). */
std::vector<double> Stored(const std::vector<double>& values, int dtype) {
  std::vector<double> out(values.size());
  MXNET_TYPE_SWITCH(dtype, DType, {
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<double>(static_cast<DType>(values[i]));
  });
  return out;
}

/*! \brief One input per device: random values in [-1, 1], or small integers when integral. */
struct Inputs {
  std::vector<NDArray> arrays;
  std::vector<std::vector<double>> values;  // as stored
  std::vector<double> sum;                  // float64 sum of the stored values
};
Inputs MakeInputs(const std::vector<Context>& devices, const TShape& shape, int dtype, bool integral,
                  unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::uniform_int_distribution<int> whole(-8, 8);
  Inputs in;
  in.sum.assign(shape.Size(), 0.0);
  for (const Context& ctx : devices) {
    std::vector<double> v(shape.Size());
    for (double& x : v) x = integral ? whole(rng) / (dtype == kFloat16 ? 4.0 : 1.0) : real(rng);
    v = Stored(v, dtype);
    for (size_t i = 0; i < v.size(); ++i) in.sum[i] += v[i];
    in.arrays.push_back(Make(shape, ctx, dtype, v));
    in.values.push_back(v);
  }
  return in;
}

void ExpectValues(const std::vector<double>& got, const std::vector<double>& want, double tol,
                  const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    if (tol == 0) {
      ASSERT_EQ(got[i], want[i]) << what << " element " << i;
    } else {
      ASSERT_NEAR(got[i], want[i], tol) << what << " element " << i;
    }
  }
}

void ExpectInputsUntouched(const Inputs& in) {
  for (size_t d = 0; d < in.arrays.size(); ++d) ExpectValues(Read(in.arrays[d]), in.values[d], 0, "input " + std::to_string(d));
}

TEST(TreeReduce, SumsOnTwoToFourDevices) {
  for (int n = 2; n <= 4; ++n) {
    const auto devices = Cpus(n);
    const auto trees = Trees(devices);
    for (int root = 0; root < n; ++root) {
      SCOPED_TRACE("n=" + std::to_string(n) + " root=" + std::to_string(root));
      const TShape shape({5, 3});
      const Inputs in = MakeInputs(devices, shape, kFloat32, false, 10 * n + root);
      TreeReducer reducer(devices, trees, shape, kFloat32, root, TreeReduceOptions{});
      EXPECT_EQ(reducer.num_slices(), 1);
      const NDArray& total = reducer.Reduce(in.arrays);
      EXPECT_EQ(total.ctx(), devices[root]);
      ExpectValues(Read(total), in.sum, 1e-5, "sum");
      ExpectInputsUntouched(in);
      for (const NDArray& a : in.arrays) EXPECT_FALSE(total.SameChunk(a));
    }
  }
}

TEST(TreeReduce, IntegerValuesSumExactly) {
  for (int dtype : {kFloat32, kFloat64, kInt32}) {
    const auto devices = Cpus(4);
    const TShape shape({7});
    const Inputs in = MakeInputs(devices, shape, dtype, true, 3);
    TreeReducer reducer(devices, Trees(devices), shape, dtype, 2, TreeReduceOptions{});
    ExpectValues(Read(reducer.Reduce(in.arrays)), in.sum, 0, DTypeName(dtype));
  }
}

TEST(TreeReduce, Float16) {
  const auto devices = Cpus(4);
  const TShape shape({6, 4});
  // Quarters in [-2, 2]: every partial sum is exact in float16.
  const Inputs exact = MakeInputs(devices, shape, kFloat16, true, 5);
  TreeReducer reducer(devices, Trees(devices), shape, kFloat16, 1, TreeReduceOptions{});
  ExpectValues(Read(reducer.Reduce(exact.arrays)), exact.sum, 0, "exact float16");
  // General values: the root's total went through at most three float16 roundings of sums
  // below 4 in magnitude, each off by at most half a unit (2^-10).
  const Inputs rough = MakeInputs(devices, shape, kFloat16, false, 6);
  ExpectValues(Read(reducer.Reduce(rough.arrays)), rough.sum, 3 * std::ldexp(1.0, -10), "float16");
  ExpectInputsUntouched(rough);
}

TEST(TreeReduce, SliceCount) {
  EXPECT_EQ(TreeSliceCount(TShape({8, 2}), 4, 16), 4);
  EXPECT_EQ(TreeSliceCount(TShape({7, 100}), 4, 16), 1);  // fewer than 2 rows per device
  EXPECT_EQ(TreeSliceCount(TShape({8, 1}), 4, 16), 1);    // below the bound
  EXPECT_EQ(TreeSliceCount(TShape({100}), 1, 16), 1);     // one device
  EXPECT_EQ(TreeSliceCount(TShape(std::vector<dim_t>{}), 4, 1), 1);  // a scalar
  // The bound comes from MXNET_KVSTORE_TREE_ARRAY_BOUND, read once at load (so tests pass it
  // in TreeReduceOptions instead of setting the variable).
  EXPECT_EQ(TreeReduceOptions::FromEnv().array_bound, 10000000);
}

TEST(TreeReduce, BigArraysAreSlicedOverAllTrees) {
  for (int n : {2, 3, 4}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    const auto devices = Cpus(n);
    const TShape shape({4 * n + 1, 5});
    const Inputs in = MakeInputs(devices, shape, kFloat32, false, 40 + n);
    TreeReducer reducer(devices, Trees(devices), shape, kFloat32, 0, Bound(16));
    ASSERT_EQ(reducer.num_slices(), n);
    EXPECT_EQ(reducer.slice_begin(0), 0);
    EXPECT_EQ(reducer.slice_end(n - 1), shape[0]);
    for (int s = 1; s < n; ++s) EXPECT_EQ(reducer.slice_begin(s), reducer.slice_end(s - 1));

    const std::vector<NDArray> parts = reducer.ReduceToRoots(in.arrays);
    ASSERT_EQ(static_cast<int>(parts.size()), n);
    for (int s = 0; s < n; ++s) {
      EXPECT_EQ(parts[s].ctx(), devices[s]) << "slice " << s << " is reduced on its own root";
      const int64_t row = shape[1];
      std::vector<double> want(in.sum.begin() + reducer.slice_begin(s) * row,
                               in.sum.begin() + reducer.slice_end(s) * row);
      ExpectValues(Read(parts[s]), want, 1e-5, "slice " + std::to_string(s));
    }

    std::vector<NDArray> outs;
    for (const Context& c : devices) outs.emplace_back(shape, c, true, kFloat32);
    reducer.BroadcastFromRoots(parts, outs);
    for (int d = 0; d < n; ++d) ExpectValues(Read(outs[d]), in.sum, 1e-5, "broadcast to " + std::to_string(d));

    const NDArray& total = reducer.Reduce(in.arrays);
    EXPECT_EQ(total.ctx(), devices[0]);
    ExpectValues(Read(total), in.sum, 1e-5, "gathered sum");
    ExpectInputsUntouched(in);

    const NDArray src = Make(shape, devices[n - 1], kFloat32, in.values[0]);
    reducer.Broadcast(src, outs);
    for (int d = 0; d < n; ++d) ExpectValues(Read(outs[d]), in.values[0], 0, "broadcast of src to " + std::to_string(d));
  }
}

TEST(TreeReduce, CubeMeshTreesOnEightContexts) {
  // The trees a DGX-1 would get, run on eight host contexts, sliced and not.
  LinkMatrix m(8, std::vector<float>(8, 0.0f));
  const int links[][3] = {{0, 1, 1}, {0, 2, 1}, {0, 3, 2}, {0, 4, 2}, {1, 2, 2}, {1, 3, 1}, {1, 5, 2}, {2, 3, 2},
                          {2, 6, 1}, {3, 7, 1}, {4, 5, 1}, {4, 6, 1}, {4, 7, 2}, {5, 6, 2}, {5, 7, 1}, {6, 7, 2}};
  for (const auto& l : links) m[l[0]][l[1]] = m[l[1]][l[0]] = static_cast<float>(l[2]);
  const auto devices = Cpus(8);
  const auto trees = BuildReductionTrees(m, TreeOptions{});
  for (int64_t bound : {int64_t{1}, int64_t{1} << 40}) {
    const TShape shape({19, 3});
    const Inputs in = MakeInputs(devices, shape, kFloat64, false, 8);
    TreeReducer reducer(devices, trees, shape, kFloat64, 5, Bound(bound));
    EXPECT_EQ(reducer.num_slices(), bound == 1 ? 8 : 1);
    ExpectValues(Read(reducer.Reduce(in.arrays)), in.sum, 1e-12, "sum");
  }
}

TEST(TreeReduce, ReusedBuffersKeepEachStep) {
  // Steps pushed back to back without waiting: the engine must finish reading one step's
  // result before the next step overwrites the buffers.
  for (int64_t bound : {int64_t{16}, int64_t{10000000}}) {
    const auto devices = Cpus(3);
    const TShape shape({12, 4});
    TreeReducer reducer(devices, Trees(devices), shape, kFloat32, 1, Bound(bound));
    std::vector<Inputs> steps;
    std::vector<NDArray> kept;
    for (int step = 0; step < 4; ++step) {
      steps.push_back(MakeInputs(devices, shape, kFloat32, true, 100 + step));
      kept.emplace_back(shape, Context::CPU(0), true, kFloat32);
      CopyFromTo(reducer.Reduce(steps.back().arrays), kept.back());
    }
    for (int step = 0; step < 4; ++step) ExpectValues(Read(kept[step]), steps[step].sum, 0, "step " + std::to_string(step));
  }
}

TEST(TreeReduce, SingleDevice) {
  const auto devices = Cpus(1);
  const TShape shape({3});
  const Inputs in = MakeInputs(devices, shape, kFloat32, false, 1);
  TreeReducer reducer(devices, Trees(devices), shape, kFloat32, 0, Bound(1));
  EXPECT_EQ(reducer.num_slices(), 1);
  const NDArray& total = reducer.Reduce(in.arrays);
  EXPECT_FALSE(total.SameChunk(in.arrays[0]));
  ExpectValues(Read(total), in.sum, 0, "sum");
  std::vector<NDArray> outs{NDArray(shape, devices[0], true, kFloat32)};
  reducer.Broadcast(total, outs);
  ExpectValues(Read(outs[0]), in.sum, 0, "broadcast");
}

TEST(TreeReduce, BroadcastFromAnywhere) {
  const auto devices = Cpus(4);
  const TShape shape({2, 3});
  const Inputs in = MakeInputs(devices, shape, kFloat32, false, 2);
  TreeReducer reducer(devices, Trees(devices), shape, kFloat32, 2, TreeReduceOptions{});
  std::vector<NDArray> outs;
  for (const Context& c : devices) outs.emplace_back(shape, c, true, kFloat32);
  reducer.Broadcast(in.arrays[0], outs);  // src on another device than the root
  for (int d = 0; d < 4; ++d) ExpectValues(Read(outs[d]), in.values[0], 0, "out " + std::to_string(d));
  reducer.Broadcast(outs[2], outs);  // src is the root's own output
  for (int d = 0; d < 4; ++d) ExpectValues(Read(outs[d]), in.values[0], 0, "out " + std::to_string(d));
}

TEST(TreeReduce, RejectsMismatchedArrays) {
  const auto devices = Cpus(2);
  const auto trees = Trees(devices);
  const TShape shape({4});
  TreeReducer reducer(devices, trees, shape, kFloat32, 0, TreeReduceOptions{});
  const Inputs in = MakeInputs(devices, shape, kFloat32, false, 9);
  EXPECT_THROW(reducer.Reduce({in.arrays[0]}), Error);                          // one array short
  EXPECT_THROW(reducer.Reduce({in.arrays[1], in.arrays[0]}), Error);            // wrong devices
  EXPECT_THROW(reducer.Reduce({in.arrays[0], NDArray(TShape({5}), devices[1])}), Error);  // shape
  EXPECT_THROW(reducer.Reduce({in.arrays[0], NDArray(shape, devices[1], false, kFloat64)}), Error);  // dtype
  EXPECT_THROW(reducer.Broadcast(NDArray(TShape({5}), devices[0]), in.arrays), Error);
  EXPECT_THROW(TreeReducer(devices, {trees[0]}, shape, kFloat32, 0, TreeReduceOptions{}), Error);
  EXPECT_THROW(TreeReducer(devices, {trees[1], trees[0]}, shape, kFloat32, 0, TreeReduceOptions{}), Error);
  EXPECT_THROW(TreeReducer(devices, trees, shape, kFloat32, 2, TreeReduceOptions{}), Error);
  try {
    reducer.Reduce({in.arrays[1], in.arrays[0]});
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("array 0 is on cpu(1), expected cpu(0)"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kvstore
}  // namespace mxnet
