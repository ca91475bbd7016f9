/*!
 * \file api_guard.h
 * \brief The pair of macros around every C API entry: nothing thrown crosses the C
 *        boundary, a load-time configuration error fails every call, and the profiler
 *        can observe API calls through its hooks, which cost one load when unused.
 */
#ifndef MXNET_C_API_API_GUARD_H_
#define MXNET_C_API_API_GUARD_H_

#include <string>

#include "profiler/api_call_hooks.h"

namespace mxnet {
namespace capi {

/*! \brief Throws the error recorded while loading the library, if any. */
void CheckLoaded();
/*! \brief Converts the exception being handled into the last error; returns -1. */
int HandleException() noexcept;
/*! \brief Stores "Kind: message" as this thread's last error. */
void SetLastError(const std::string& text);
const char* LastErrorText();

class ApiCallScope {
 public:
  explicit ApiCallScope(const char* name) : name_(name), hook_(profiler::ActiveApiCallHooks()) {
    if (hook_) hook_->on_begin(name_);
  }
  ~ApiCallScope() {
    if (hook_) hook_->on_end(name_);
  }

 private:
  const char* name_;
  const profiler::ApiCallHooks* hook_;
};

/*!
 * \brief Thread-local storage for strings/arrays returned to C callers; valid until the
 *        next call of the same kind (Tag) on the same thread.
 */
template <typename Tag, typename T>
T& ThreadLocalReturn() {
  thread_local T value;
  return value;
}

}  // namespace capi
}  // namespace mxnet

#define API_BEGIN()                \
  try {                            \
    ::mxnet::capi::CheckLoaded();  \
    ::mxnet::capi::ApiCallScope mx_api_call_scope_(__func__);
#define API_END()                               \
  }                                             \
  catch (...) {                                 \
    return ::mxnet::capi::HandleException();    \
  }                                             \
  return 0;
/*! \brief For the few calls that must work even when loading failed (introspection). */
#define API_BEGIN_UNCHECKED() try {

#endif  // MXNET_C_API_API_GUARD_H_
