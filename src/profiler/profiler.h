/*!
 * \file profiler.h
 * \brief The process profiler: state (stopped/running, paused), settings, and the
 *        collector that drains the per-thread buffers into the trace file and the
 *        aggregate statistics. Recording itself is in recorder.h.
 */
#ifndef MXNET_PROFILER_PROFILER_H_
#define MXNET_PROFILER_PROFILER_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "profiler/aggregate_stats.h"
#include "profiler/config.h"
#include "profiler/record.h"
#include "profiler/trace_writer.h"

namespace mxnet {
namespace profiler {

class Profiler {
 public:
  /*! \brief The process profiler (never destroyed: hooks may fire during exit). */
  static Profiler* Get();

  void SetConfig(const Config& config);
  Config config() const;
  /*! \brief Starts or stops recording; hooks are installed only while running. */
  void SetRunning(bool run);
  bool running() const;
  void SetPaused(bool paused);

  /*! \brief Hot path: whether records of this mode bit are kept now (one relaxed load). */
  bool Recording(uint32_t bit) const { return (active_mask_.load(std::memory_order_relaxed) & bit) != 0; }
  /*! \brief Bumped at every start, so a duration begun in an earlier run is not paired later. */
  uint32_t generation() const { return generation_.load(std::memory_order_relaxed); }

  /*! \brief Writes pending events to the trace file; finished closes it. Throws if never run. */
  void Dump(bool finished);
  /*! \brief Aggregate statistics text (needs aggregate_stats); reset clears them afterwards. */
  std::string AggregateText(bool reset, StatsFormat format, StatsSortBy sort_by, bool ascending);
  /*! \brief At process end: stop, and close the trace if this run has anything unwritten. */
  void FinishAtExit();

 private:
  Profiler();
  void UpdateMask();
  void Collect();  // needs collect_mu_
  void StartPeriodicDump(double period);
  void StopPeriodicDump();

  mutable std::mutex mu_;  // state and config
  Config config_;
  bool running_{false};
  bool paused_{false};
  bool ever_run_{false};
  std::atomic<uint32_t> active_mask_{0};
  std::atomic<uint32_t> generation_{0};

  std::mutex collect_mu_;  // the single consumer of the thread buffers, and the output
  std::vector<Record> pending_;
  bool output_enabled_{false};  // false after a finished dump until the next start
  std::string output_path_;
  AggregateStats stats_;
  bool aggregate_{false};
  TraceWriter writer_;

  std::mutex periodic_mu_;
  std::condition_variable periodic_cv_;
  bool periodic_stop_{false};
  std::thread periodic_;
};

}  // namespace profiler
}  // namespace mxnet

#endif  // MXNET_PROFILER_PROFILER_H_
