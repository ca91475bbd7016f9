/*!
 * \file engine_config.h
 * \brief How an engine is sized, and the factory. The process engine is configured from
 *        the environment; tests build engines of every type with explicit settings.
 */
#ifndef MXNET_ENGINE_ENGINE_CONFIG_H_
#define MXNET_ENGINE_ENGINE_CONFIG_H_

#include <memory>
#include <string>

#include "mxnet/engine.h"

namespace mxnet {
namespace engine {

class DeviceBackend;

struct EngineConfig {
  // ThreadedEnginePerDevice
  int cpu_worker_threads{1};
  int cpu_priority_threads{4};
  int gpu_worker_threads{2};
  int gpu_worker_streams{1};  // 1 or 2 (aux stream)
  int gpu_copy_threads{2};
  // ThreadedEngine (pooled), sized as MXNet sizes it
  int pooled_worker_threads{16};
  int pooled_io_threads{1};
  /*! \brief CPU worker threads in a process forked from this one (MXNET_MP_WORKER_NTHREADS). */
  int forked_cpu_worker_threads{1};
  /*! \brief OpenMP threads each CPU worker uses inside an op. */
  int omp_threads_per_worker{1};
  /*!
   * \brief ThreadedEnginePerDevice: a CPU FnProperty::kCompute op that is ready when pushed,
   *        with nothing else in flight, runs on the pushing thread instead of a worker.
   */
  bool run_idle_cpu_ops_inline{false};
  /*! \brief Null: DefaultDeviceBackend(). Not owned. */
  DeviceBackend* device_backend{nullptr};
};

/*! \brief Sizes from MXNET_*_NTHREADS and OMP_NUM_THREADS, without oversubscribing cores. */
EngineConfig ConfigFromEnvironment();

/*! \brief "NaiveEngine", "ThreadedEngine" or "ThreadedEnginePerDevice"; throws otherwise. */
std::unique_ptr<Engine> CreateEngine(const std::string& type, const EngineConfig& config);

std::unique_ptr<Engine> CreateNaiveEngine(const EngineConfig& config);
std::unique_ptr<Engine> CreateThreadedEnginePooled(const EngineConfig& config);
std::unique_ptr<Engine> CreateThreadedEnginePerDevice(const EngineConfig& config);

/*! \brief The installed profiler hooks, or null. */
const Engine::OprHooks* CurrentOprHooks();
/*! \brief A small id per thread (stable for the thread's life), for profiler lanes. */
int CurrentThreadId();

}  // namespace engine
}  // namespace mxnet

#endif  // MXNET_ENGINE_ENGINE_CONFIG_H_
