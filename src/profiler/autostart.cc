#include "profiler/autostart.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "common/shutdown.h"
#include "mxnet/env.h"
#include "profiler/profiler.h"

namespace mxnet {
namespace profiler {

namespace {
void FinishNoThrow() {
  try {
    Profiler::Get()->FinishAtExit();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "[mxnet] profiler: could not write the trace at exit: %s\n", e.what());
  }
}
}  // namespace

void EnsureWrittenAtExit() {
  static std::once_flag once;
  std::call_once(once, [] {
    // Python's atexit calls MXNotifyShutdown while the engine still runs; a C++ program that
    // never calls it still gets the file from exit(). FinishAtExit is harmless twice.
    common::RegisterShutdownHandler(&FinishNoThrow);
    std::atexit(&FinishNoThrow);
  });
}

void StartFromEnvironment() {
  if (!env::GetBool(env::Var::MXNET_PROFILER_AUTOSTART)) return;
  Profiler* p = Profiler::Get();
  p->SetConfig(DefaultConfig());  // mode bits from MXNET_PROFILER_MODE, profile.json in the cwd
  p->SetRunning(true);
}

}  // namespace profiler
}  // namespace mxnet
