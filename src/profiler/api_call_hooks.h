/*!
 * \file api_call_hooks.h
 * \brief How C API calls reach the profiler. The C API sits above the profiler, so it asks
 *        here at each call (ApiCallScope in c_api/api_guard.h); the answer is null unless
 *        the profiler records API calls, which keeps an unprofiled call at one load.
 */
#ifndef MXNET_PROFILER_API_CALL_HOOKS_H_
#define MXNET_PROFILER_API_CALL_HOOKS_H_

#include <atomic>

namespace mxnet {
namespace profiler {

struct ApiCallHooks {
  void (*on_begin)(const char* api_name);
  void (*on_end)(const char* api_name);
};

/*! \brief Set by InstallHooks (recorder.cc) from the profiler's mode. */
extern std::atomic<const ApiCallHooks*> g_api_call_hooks;

inline const ApiCallHooks* ActiveApiCallHooks() { return g_api_call_hooks.load(std::memory_order_relaxed); }

}  // namespace profiler
}  // namespace mxnet

#endif  // MXNET_PROFILER_API_CALL_HOOKS_H_
