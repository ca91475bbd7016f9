#include "io/iter_image_recordio_threads.h"

#include <unistd.h>

#include <algorithm>

#include "engine/thread_policy.h"
#include "mxnet/env.h"

namespace mxnet {
namespace io {

namespace {
const pid_t g_load_pid = getpid();
}  // namespace

bool InForkedChild() { return getpid() != g_load_pid; }

int PreprocessThreads(bool user_set, int requested, bool ctx_cpu) {
  if (user_set) return std::max(1, requested);
  if (InForkedChild()) return std::max(1, static_cast<int>(env::GetInt(env::Var::MXNET_MP_WORKER_NTHREADS)));
  if (ctx_cpu) {
    const int workers = static_cast<int>(env::GetInt(env::Var::MXNET_CPU_WORKER_NTHREADS));
    return std::max(1, engine::DefaultOmpThreadsPerWorker(workers));
  }
  return std::max(1, std::min(requested, std::max(1, engine::NumCores() / 2)));
}

}  // namespace io
}  // namespace mxnet
