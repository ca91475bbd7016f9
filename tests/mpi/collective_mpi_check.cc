// The distributed kvstore's collectives over real MPI processes (run under mpirun by ctest):
//   collective_mpi_check basic   allreduce (several sizes and dtypes), fused small keys,
//                                broadcast, allgather and barrier through
//                                ProcessCollectiveGroup; exit 0
//   collective_mpi_check killed    rank 1 kills itself after a barrier; every survivor must get
//                                  an error naming rank 1 within a few seconds, print it and
//                                  exit (the group then aborts the job: mpirun exits non-zero)
//   collective_mpi_check mismatch  rank 2 allreduces another key than the others; every rank
//                                  must get an error naming rank 2 and both keys
// In both failure modes each rank prints "REPORT rank R after S s: <error>" and exits 3.
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "kvstore/collective_group.h"
#include "mxnet/tensor.h"

using namespace mxnet;
using namespace mxnet::kvstore;

namespace {

CollectiveDesc Desc(CollectiveKind kind, int64_t key, int64_t count, int dtype) {
  CollectiveDesc d;
  d.kind = kind;
  d.key = key;
  d.count = count;
  d.dtype = dtype;
  return d;
}

float Value(int r, int64_t i) { return static_cast<float>((i * 7919 + r * 104729) % 1000) * 0.001f - 0.5f; }

int failures = 0;
void Expect(bool ok, const std::string& what, int rank) {
  if (!ok) {
    std::printf("rank %d: FAILED %s\n", rank, what.c_str());
    ++failures;
  }
}

int Basic(CollectiveGroup* g) {
  const int me = g->rank(), n = g->size();
  for (int64_t count : {1, 1000, 300000, 5000000}) {
    std::vector<float> data(count);
    for (int64_t i = 0; i < count; ++i) data[i] = Value(me, i);
    g->RunBlocking(Desc(CollectiveKind::kAllreduceSum, count, count, kFloat32), data.data());
    bool ok = true;
    for (int64_t i = 0; i < count && ok; ++i) {
      float expected = Value(0, i);
      for (int r = 1; r < n; ++r) expected += Value(r, i);
      ok = std::memcmp(&expected, &data[i], 4) == 0;
    }
    Expect(ok, "float32 allreduce of " + std::to_string(count), me);
  }
  {
    std::vector<half_t> h(1001, half_t(0.5f * (me + 1)));
    g->RunBlocking(Desc(CollectiveKind::kAllreduceSum, 20, h.size(), kFloat16), h.data());
    Expect(static_cast<float>(h[1000]) == 0.5f * n * (n + 1) / 2, "float16 allreduce", me);
    std::vector<int64_t> l(77, me + 1);
    g->RunBlocking(Desc(CollectiveKind::kAllreduceSum, 21, l.size(), kInt64), l.data());
    Expect(l[76] == n * (n + 1) / 2, "int64 allreduce", me);
  }
  {
    // Many small keys started at once: fused by rank 0's plan.
    const int keys = 200;
    std::vector<std::vector<double>> data(keys);
    std::vector<uint64_t> seqs;
    std::vector<std::promise<std::string>> done(keys);
    for (int k = 0; k < keys; ++k) {
      data[k].assign(1 + k % 13, me + k);
      seqs.push_back(g->Announce(Desc(CollectiveKind::kAllreduceSum, 100 + k, data[k].size(), kFloat64)));
    }
    for (int k = keys - 1; k >= 0; --k) {
      g->Start(seqs[k], data[k].data(), [&done, k](const std::string& e) { done[k].set_value(e); });
    }
    for (int k = 0; k < keys; ++k) {
      const std::string e = done[k].get_future().get();
      Expect(e.empty(), "fused key " + std::to_string(k) + ": " + e, me);
      Expect(data[k][0] == n * (n - 1) / 2.0 + n * k, "fused key value " + std::to_string(k), me);
    }
  }
  {
    std::vector<int32_t> b(123457, me == 0 ? 7 : -1);
    g->RunBlocking(Desc(CollectiveKind::kBroadcast, 30, b.size(), kInt32), b.data());
    Expect(b[0] == 7 && b[123456] == 7, "broadcast", me);
  }
  {
    // Parts of 3 chunks each, every rank's placed by its rank.
    const int64_t count = 700001;
    std::vector<float> a(n * count, -1.0f);
    for (int64_t i = 0; i < count; ++i) a[me * count + i] = Value(me, i);
    g->RunBlocking(Desc(CollectiveKind::kAllgather, 40, count, kFloat32), a.data());
    bool ok = true;
    for (int r = 0; r < n && ok; ++r) {
      for (int64_t i = 0; i < count && ok; ++i) ok = a[r * count + i] == Value(r, i);
    }
    Expect(ok, "allgather", me);
  }
  g->RunBlocking(Desc(CollectiveKind::kBarrier, -1, 0, 0), nullptr);
  Expect(g->error().empty(), "healthy group: " + g->error(), me);
  std::printf("rank %d of %d: %s\n", me, n, failures ? "FAILED" : "ok");
  return failures ? 1 : 0;
}

int Failure(CollectiveGroup* g, bool kill_rank_1) {
  const int me = g->rank();
  g->RunBlocking(Desc(CollectiveKind::kBarrier, -1, 0, 0), nullptr);
  if (kill_rank_1 && me == 1) raise(SIGKILL);
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<float> data(1 << 20, 1.0f);
  const int64_t key = !kill_rank_1 && me == 2 ? 7 : 5;
  std::string error;
  try {
    g->RunBlocking(Desc(CollectiveKind::kAllreduceSum, key, data.size(), kFloat32), data.data());
  } catch (const std::exception& e) {
    error = e.what();
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("REPORT rank %d after %.2f s: %s\n", me, seconds, error.empty() ? "no error" : error.c_str());
  std::fflush(stdout);
  // Every rank reports before the first one to exit aborts the job.
  std::this_thread::sleep_for(std::chrono::seconds(1));
  return 3;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "basic";
  try {
    CollectiveGroup* g = ProcessCollectiveGroup();
    if (mode == "killed" || mode == "mismatch") return Failure(g, mode == "killed");
    return Basic(g);
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    return 2;
  }
}
