// Shared fixtures of the engine tests: every engine type with several thread counts, and
// a gate that holds a worker inside an op until the test opens it.
#ifndef MXNET_TESTS_CPP_ENGINE_ENGINE_TEST_UTIL_H_
#define MXNET_TESTS_CPP_ENGINE_ENGINE_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "engine/engine_config.h"
#include "mxnet/engine.h"

namespace mxnet {
namespace engine {
namespace test {

struct EngineParam {
  std::string type;
  int threads;
  bool threaded() const { return type != "NaiveEngine"; }
  /*! \brief How many independent CPU ops can run at the same time. */
  int parallelism() const { return threaded() ? threads : 1; }
};

/*! \brief Lets GoogleTest print the parameter readably (ctest shows it in test names). */
inline void PrintTo(const EngineParam& p, std::ostream* os) { *os << p.type << " x" << p.threads; }

inline std::vector<EngineParam> AllEngines() {
  return {{"NaiveEngine", 1},
          {"ThreadedEngine", 2},
          {"ThreadedEngine", 16},
          {"ThreadedEnginePerDevice", 1},
          {"ThreadedEnginePerDevice", 2},
          {"ThreadedEnginePerDevice", 4}};
}

inline std::string ParamName(const testing::TestParamInfo<EngineParam>& info) {
  return info.param.type + "_" + std::to_string(info.param.threads);
}

inline EngineConfig TestConfig(const EngineParam& p, DeviceBackend* backend = nullptr) {
  EngineConfig c;
  c.cpu_worker_threads = p.threads;
  c.pooled_worker_threads = p.threads;
  c.cpu_priority_threads = 2;
  c.gpu_worker_threads = 2;
  c.gpu_copy_threads = 1;
  c.omp_threads_per_worker = 1;
  c.device_backend = backend;
  return c;
}

inline std::unique_ptr<Engine> MakeEngine(const EngineParam& p, DeviceBackend* backend = nullptr) {
  return CreateEngine(p.type, TestConfig(p, backend));
}

class EngineTest : public testing::TestWithParam<EngineParam> {
 protected:
  void SetUp() override { engine_ = MakeEngine(GetParam()); }
  void TearDown() override {
    // An op error that no wait in the test surfaced is a failure of that test; it is caught
    // here so that it fails the test by name instead of escaping into the engine's destructor.
    try {
      engine_->WaitForAll();
    } catch (const std::exception& e) {
      ADD_FAILURE() << "an op error was left pending at the end of the test: " << e.what();
    } catch (...) {
      ADD_FAILURE() << "an unknown exception was left pending at the end of the test";
    }
    engine_.reset();
  }
  std::unique_ptr<Engine> engine_;
};

/*! \brief Blocks whoever calls Wait() until Open(). */
class Gate {
 public:
  void Open() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
    cv_.notify_all();
  }
  void Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return open_; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_{false};
};

/*! \brief Polls pred for up to `seconds`. */
template <typename Pred>
bool Eventually(Pred pred, double seconds = 10) {
  auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return pred();
}

inline void SleepMs(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

}  // namespace test
}  // namespace engine
}  // namespace mxnet

#endif  // MXNET_TESTS_CPP_ENGINE_ENGINE_TEST_UTIL_H_
