#include "c_api/api_guard.h"

#include <new>
#include <stdexcept>

#include "mxnet/env.h"
#include "mxnet/error.h"

namespace mxnet {
namespace capi {

namespace {
std::string& LastError() {
  thread_local std::string text;
  return text;
}
}  // namespace

void SetLastError(const std::string& text) { LastError() = text; }
const char* LastErrorText() { return LastError().c_str(); }

void CheckLoaded() {
  const std::string& error = env::LoadError();
  if (!error.empty()) {
    throw Error("The runtime could not start because of its environment variables:\n" + error, "MXNetError");
  }
}

int HandleException() noexcept {
  try {
    throw;
  } catch (const Error& e) {
    SetLastError(std::string(e.kind()) + ": " + e.what());
  } catch (const std::bad_alloc&) {
    SetLastError("MXNetError: out of host memory (std::bad_alloc)");
  } catch (const std::invalid_argument& e) {
    SetLastError(std::string("ValueError: ") + e.what());
  } catch (const std::out_of_range& e) {
    SetLastError(std::string("IndexError: ") + e.what());
  } catch (const std::exception& e) {
    SetLastError(std::string("MXNetError: ") + e.what());
  } catch (...) {
    SetLastError("MXNetError: unknown exception");
  }
  return -1;
}

}  // namespace capi
}  // namespace mxnet

// MX* and NN* calls share one last-error slot, as in MXNet 1.x.
extern "C" __attribute__((visibility("default"))) const char* MXGetLastError() {
  return mxnet::capi::LastErrorText();
}
extern "C" __attribute__((visibility("default"))) const char* NNGetLastError() {
  return mxnet::capi::LastErrorText();
}
