// Work done once when libmxnet.so is loaded. Nothing may escape from here: an exception
// thrown during dlopen would kill the host process, so errors are recorded instead and
// every C API call reports them.
#include "common/stack_trace.h"
#include "mxnet/env.h"

namespace {

__attribute__((constructor)) void InitializeLibrary() {
  try {
    mxnet::env::LoadFromEnvironment();
  } catch (...) {
    // LoadFromEnvironment records its own errors; anything else is left for the first call.
  }
  mxnet::common::InstallFatalSignalHandlers();
}

}  // namespace
