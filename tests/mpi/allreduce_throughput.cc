// Allreduce throughput of the collective group against a bare MPI_Allreduce, float32 sums of
// 1 KiB to 64 MiB (run under mpirun; the two modes in separate runs, since the group's thread
// owns MPI while it lives):
//   allreduce_throughput mpi     MPI_Allreduce(MPI_IN_PLACE, ..., MPI_SUM, MPI_COMM_WORLD)
//   allreduce_throughput group   ProcessCollectiveGroup()->RunBlocking(allreduce)
//   allreduce_throughput phase   the group's data phase alone (no negotiation, no thread
//                                hand-off), on the calling thread over the MPI transport
// Prints, on rank 0, "bytes microseconds-per-allreduce".
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "kvstore/collective_data_phase.h"
#include "kvstore/collective_group.h"
#include "mxnet/tensor.h"

using namespace mxnet::kvstore;

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "mpi";
  const size_t max_bytes = argc > 2 ? std::stoul(argv[2]) : (64u << 20);
  const size_t chunk_bytes = argc > 3 ? std::stoul(argv[3]) : kDefaultChunkBytes;
  CollectiveGroup* g = nullptr;
  std::unique_ptr<Transport> transport;
  ScratchSpace scratch;
  int rank = 0;
  if (mode == "group") {
    g = ProcessCollectiveGroup();
    rank = g->rank();
  } else if (mode == "phase") {
    transport = CreateMPITransport();
    transport->Init();
    rank = transport->rank();
  } else {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  }
  for (size_t bytes = 1024; bytes <= max_bytes; bytes *= 4) {
    const size_t count = bytes / 4;
    std::vector<float> data(count, 1.0f);
    const int iters = static_cast<int>(std::clamp<size_t>((size_t{512} << 20) / bytes, 5, 2000));
    CollectiveDesc d;
    d.kind = CollectiveKind::kAllreduceSum;
    d.key = static_cast<int64_t>(bytes);
    d.count = static_cast<int64_t>(count);
    d.dtype = mxnet::kFloat32;
    auto once = [&] {
      if (g) {
        g->RunBlocking(d, data.data());
      } else if (transport) {
        auto phase = StartAllreduce(transport.get(), data.data(), count, mxnet::kFloat32, chunk_bytes, &scratch);
        bool progressed = false;
        while (!phase->Progress(&progressed)) {
        }
      } else {
        MPI_Allreduce(MPI_IN_PLACE, data.data(), static_cast<int>(count), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      }
    };
    for (int i = 0; i < 3; ++i) once();  // warm up: pages, connections
    std::vector<double> times;
    for (int i = 0; i < iters; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      once();
      times.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(times.begin(), times.end());
    if (rank == 0) std::printf("%zu %.1f\n", bytes, times[times.size() / 2]);
    std::fflush(stdout);
  }
  if (transport) transport->Finalize();
  if (mode == "mpi") MPI_Finalize();
  return 0;
}
