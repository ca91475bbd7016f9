#include "common/fork_hooks.h"

#include <pthread.h>

#include <atomic>
#include <mutex>

#include "mxnet/error.h"

namespace mxnet {
namespace common {

namespace {

// A fixed array with an atomic count: the child handler reads it without a lock (a lock taken
// by another thread at fork time would never be released in the child).
constexpr int kMaxHooks = 16;
void (*g_hooks[kMaxHooks])() = {};
std::atomic<int> g_num_hooks{0};

void RunChildHooks() {
  const int n = g_num_hooks.load(std::memory_order_acquire);
  for (int i = 0; i < n; ++i) g_hooks[i]();
}

}  // namespace

void AddAfterForkChildHook(void (*fn)()) {
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  static const bool installed = (pthread_atfork(nullptr, nullptr, RunChildHooks) == 0);
  (void)installed;
  const int n = g_num_hooks.load(std::memory_order_relaxed);
  MX_CHECK(n < kMaxHooks) << "more than " << kMaxHooks << " after-fork hooks registered";
  g_hooks[n] = fn;
  g_num_hooks.store(n + 1, std::memory_order_release);
}

}  // namespace common
}  // namespace mxnet
