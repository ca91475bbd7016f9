// Work done once when libmxnet.so is loaded. Nothing may escape from here: an exception
// thrown during dlopen would kill the host process, so errors are recorded instead and
// every C API call reports them. It lives in c_api, the top of the core layers, because it
// starts layers that know nothing of each other (env registry, profiler, signal handlers).
#include "common/stack_trace.h"
#include "mxnet/env.h"
#include "profiler/autostart.h"

namespace {

__attribute__((constructor)) void InitializeLibrary() {
  try {
    mxnet::env::LoadFromEnvironment();
    // After the registry: MXNET_PROFILER_AUTOSTART must be parsed before it is read.
    mxnet::profiler::StartFromEnvironment();
  } catch (...) {
    // LoadFromEnvironment records its own errors; anything else is left for the first call.
  }
  mxnet::common::InstallFatalSignalHandlers();
}

}  // namespace
