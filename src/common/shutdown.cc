#include "common/shutdown.h"

#include <mutex>
#include <vector>

namespace mxnet {
namespace common {

namespace {
std::mutex& HandlersMutex() {
  static std::mutex mu;
  return mu;
}
std::vector<std::function<void()>>& Handlers() {
  static std::vector<std::function<void()>> handlers;
  return handlers;
}
}  // namespace

void RegisterShutdownHandler(std::function<void()> handler) {
  std::lock_guard<std::mutex> lock(HandlersMutex());
  Handlers().push_back(std::move(handler));
}

void RunShutdownHandlers() {
  std::vector<std::function<void()>> handlers;
  {
    std::lock_guard<std::mutex> lock(HandlersMutex());
    handlers.swap(Handlers());
  }
  for (auto it = handlers.rbegin(); it != handlers.rend(); ++it) (*it)();
}

}  // namespace common
}  // namespace mxnet
