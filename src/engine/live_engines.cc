// fork() safety: a child process inherits only the forking thread, so worker threads must
// not exist (and no engine lock may be held) at the moment of the fork. Every live engine
// drains and joins its workers before the fork; parent and child restart them after. The
// child additionally limits OpenMP to one thread: GNU libgomp's pool does not survive fork.
#include "engine/live_engines.h"

#include <pthread.h>

#include <algorithm>
#include <mutex>
#include <vector>

#include "engine/thread_policy.h"
#include "engine/threaded_engine.h"

namespace mxnet {
namespace engine {

namespace {

std::mutex& RegistryMutex() {
  static auto* mu = new std::mutex();  // leaked: used by atfork handlers until the very end
  return *mu;
}
std::vector<ThreadedEngine*>& Registry() {
  static auto* engines = new std::vector<ThreadedEngine*>();
  return *engines;
}

void PrepareFork() {
  // Held across fork() so no engine is created or destroyed meanwhile; released in both.
  RegistryMutex().lock();
  for (ThreadedEngine* e : Registry()) e->BeforeFork();
}

void AfterForkInParent() {
  for (ThreadedEngine* e : Registry()) e->AfterForkParent();
  RegistryMutex().unlock();
}

void AfterForkInChild() {
  SetOmpThreadsForThisThread(1);
  for (ThreadedEngine* e : Registry()) e->AfterForkChild();
  RegistryMutex().unlock();
}

}  // namespace

void RegisterLiveEngine(ThreadedEngine* engine) {
  static std::once_flag atfork_once;
  std::call_once(atfork_once, [] { pthread_atfork(PrepareFork, AfterForkInParent, AfterForkInChild); });
  std::lock_guard<std::mutex> lock(RegistryMutex());
  Registry().push_back(engine);
}

void UnregisterLiveEngine(ThreadedEngine* engine) {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  auto& r = Registry();
  r.erase(std::remove(r.begin(), r.end(), engine), r.end());
}

bool IsLiveEngine(ThreadedEngine* engine) {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  auto& r = Registry();
  return std::find(r.begin(), r.end(), engine) != r.end();
}

}  // namespace engine
}  // namespace mxnet
