// The process-wide collective group behind every distributed kvstore, and its end at exit.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "kvstore/collective_group.h"
#include "mxnet/env.h"
#include "mxnet/error.h"

namespace mxnet {
namespace kvstore {

namespace {

std::mutex g_mu;
CollectiveGroup* g_group = nullptr;  // never freed: an engine op finishing late may still Start
pid_t g_owner_pid = 0;
bool g_closed = false;

void CloseAtExit() {
  CollectiveGroup* group;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    group = g_group;
    g_closed = true;
  }
  // A forked child (a data loader worker) inherits the pointer but neither the thread nor MPI.
  if (!group || getpid() != g_owner_pid) return;
  try {
    group->Shutdown();
    if (!group->error().empty() && group->size() > 1) {
      std::fflush(nullptr);
      // mpirun may wait for ever on survivors that just exit after a peer died; ending the
      // job says it failed.
      group->AbortJob(1);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "distributed kvstore: closing at exit failed: %s\n", e.what());
  }
}

}  // namespace

CollectiveGroup* ProcessCollectiveGroup() {
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_group) {
    MX_CHECK(getpid() == g_owner_pid)
        << "a forked child process cannot use its parent's distributed kvstore (MPI belongs to the parent)";
    return g_group;
  }
  MX_CHECK(!g_closed) << "the distributed kvstore has shut down (the process is exiting)";
  std::unique_ptr<Transport> transport = CreateMPITransport();
  const double timeout = env::GetFloat(env::Var::MXNET_KVSTORE_TIMEOUT);
  const size_t fusion = static_cast<size_t>(env::GetInt(env::Var::MXNET_KVSTORE_FUSION_BYTES));
  g_group = new CollectiveGroup(std::move(transport), timeout, fusion);
  g_owner_pid = getpid();
  // Exit handlers run in reverse order: when the engine already exists (a kvstore has made
  // arrays by now) this runs before the engine's, so collectives its ops started still finish
  // and ops that start later fail at once instead of waiting.
  std::atexit(CloseAtExit);
  return g_group;
}

}  // namespace kvstore
}  // namespace mxnet
