#include "engine/thread_policy.h"

#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <thread>

#include "engine/engine_config.h"
#include "mxnet/env.h"

#if MXNET_USE_OPENMP
#include <omp.h>
#endif

namespace mxnet {
namespace engine {

int NumCores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

int DefaultOmpThreadsPerWorker(int cpu_workers) {
  // OMP_NUM_THREADS is OpenMP's own variable, not one of ours: the user's explicit choice wins.
  if (const char* text = std::getenv("OMP_NUM_THREADS")) {
    int n = std::atoi(text);
    if (n > 0) return n;
  }
  return std::max(1, NumCores() / std::max(1, cpu_workers));
}

void SetOmpThreadsForThisThread(int n) {
#if MXNET_USE_OPENMP
  omp_set_num_threads(std::max(1, n));
#else
  (void)n;
#endif
}

EngineConfig ConfigFromEnvironment() {
  using env::GetInt;
  using env::Var;
  EngineConfig c;
  c.cpu_worker_threads = static_cast<int>(GetInt(Var::MXNET_CPU_WORKER_NTHREADS));
  c.cpu_priority_threads = static_cast<int>(GetInt(Var::MXNET_CPU_PRIORITY_NTHREADS));
  c.gpu_worker_threads = static_cast<int>(GetInt(Var::MXNET_GPU_WORKER_NTHREADS));
  // MXNet clamps the stream count: a second (aux) stream or none.
  c.gpu_worker_streams = std::min<int>(2, static_cast<int>(GetInt(Var::MXNET_GPU_WORKER_NSTREAMS)));
  c.gpu_copy_threads = static_cast<int>(GetInt(Var::MXNET_GPU_COPY_NTHREADS));
  c.forked_cpu_worker_threads = static_cast<int>(GetInt(Var::MXNET_MP_WORKER_NTHREADS));
  c.omp_threads_per_worker = DefaultOmpThreadsPerWorker(c.cpu_worker_threads);
  c.run_idle_cpu_ops_inline = env::GetBool(Var::MXNET_ENGINE_INLINE_WHEN_IDLE);
  return c;
}

}  // namespace engine
}  // namespace mxnet
