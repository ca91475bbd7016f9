// Operator tuning (MXNET_USE_OPERATOR_TUNING) and its element loops: the setting's parsing,
// and that a tuned loop takes threads for costly bodies and stays serial for cheap ones.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <vector>

#include "mxnet/tensor.h"
#include "operator/common/parallel.h"

#if MXNET_USE_OPENMP
#include <omp.h>
#endif

using mxnet::op::TuningSetting;

TEST(OperatorTuning, ParsesOffOnAndDtypeLists) {
  EXPECT_FALSE(TuningSetting("0").Enabled(mxnet::kFloat32));
  EXPECT_FALSE(TuningSetting("0").Enabled(-1));
  EXPECT_TRUE(TuningSetting("1").Enabled(mxnet::kFloat64));
  const TuningSetting list("float32, float16");
  EXPECT_TRUE(list.Enabled(mxnet::kFloat32));
  EXPECT_TRUE(list.Enabled(mxnet::kFloat16));
  EXPECT_FALSE(list.Enabled(mxnet::kFloat64));
  EXPECT_TRUE(list.Enabled(-1));  // loops that do not say their dtype follow "on"
  EXPECT_FALSE(TuningSetting("nonsense").Enabled(mxnet::kFloat32));
}

namespace {
/*!
 * \brief Threads that ran part of the loop, and whether every element was visited once.
 *        Visits are counted with plain stores: an atomic per element would cost more than
 *        the "cheap" body itself and push the timed probe towards the parallel threshold.
 *        Chunks are disjoint by contract, so a double visit shows as a count of 2.
 */
template <typename Body>
int ThreadsUsed(int64_t n, Body cost, bool* each_once) {
  std::vector<int> hits(n, 0);
  std::atomic<int> mask{0};
  volatile double sink = 0;
  mxnet::op::ParallelChunks(n, [&](int64_t b, int64_t e) {
#if MXNET_USE_OPENMP
    mask.fetch_or(1 << omp_get_thread_num());
#endif
    for (int64_t i = b; i < e; ++i) {
      ++hits[i];
      sink = sink + cost(i);
    }
  });
  *each_once = true;
  for (int h : hits) *each_once = *each_once && h == 1;
  return __builtin_popcount(mask.load());
}
}  // namespace

TEST(OperatorTuning, CostlyLoopsGoParallelCheapOnesStaySerial) {
#if MXNET_USE_OPENMP
  if (omp_get_max_threads() < 2) GTEST_SKIP() << "one OpenMP thread";
  if (!mxnet::op::TuningEnabledFor(mxnet::kFloat32)) GTEST_SKIP() << "MXNET_USE_OPERATOR_TUNING is off";
  bool once = false;
  // 4096 cheap elements: far under the 25 us a parallel region must save. The decision
  // is timed, and a preemption inside the ~1 us probe can make one run look costly, so
  // the cheap loop must stay serial in the best of five runs.
  int fewest = 64;
  for (int run = 0; run < 5; ++run) {
    fewest = std::min(fewest, ThreadsUsed(4096, [](int64_t i) { return double(i); }, &once));
    EXPECT_TRUE(once);
  }
  EXPECT_EQ(fewest, 1);
  // 4096 elements of ~200 transcendental calls each: milliseconds of serial work.
  EXPECT_GT(ThreadsUsed(4096,
                        [](int64_t i) {
                          double s = 0;
                          for (int k = 0; k < 200; ++k) s += std::exp(std::sin(double(i + k)));
                          return s;
                        },
                        &once),
            1);
  EXPECT_TRUE(once);
#else
  GTEST_SKIP() << "built without OpenMP";
#endif
}
