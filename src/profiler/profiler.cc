#include "profiler/profiler.h"

#include <cstdio>

#include "mxnet/error.h"
#include "profiler/autostart.h"
#include "profiler/clock.h"
#include "profiler/recorder.h"
#include "profiler/thread_buffer.h"

namespace mxnet {
namespace profiler {

Profiler* Profiler::Get() {
  static Profiler* profiler = new Profiler();
  return profiler;
}

Profiler::Profiler() : config_(DefaultConfig()) {
  RecalibrateTicks();  // anchors the tick clock before anything is recorded
  output_path_ = config_.filename;
  aggregate_ = config_.aggregate_stats;
}

void Profiler::SetConfig(const Config& config) {
  std::lock_guard<std::mutex> lock(mu_);
  config_ = config;
  {
    std::lock_guard<std::mutex> out(collect_mu_);
    aggregate_ = config.aggregate_stats;
    // A trace in progress keeps its file until finished; the new name applies to the next one.
    if (!writer_.open()) {
      output_path_ = config.filename;
      std::remove(config.filename.c_str());  // as MXNet: a stale trace must not be mistaken for this one
    }
  }
  if (running_) InstallHooks(config_.mode);
  UpdateMask();
}

Config Profiler::config() const {
  std::lock_guard<std::mutex> lock(mu_);
  return config_;
}

bool Profiler::running() const {
  std::lock_guard<std::mutex> lock(mu_);
  return running_;
}

void Profiler::UpdateMask() {
  active_mask_.store(running_ && !paused_ ? (config_.mode | kUserObjects) : 0u, std::memory_order_relaxed);
}

void Profiler::SetRunning(bool run) {
  double period = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (run == running_) return;
    MX_CHECK_KIND(!run || !config_.profile_server, "ValueError")
        << "Profiler: profile_process='server' needs a distributed kvstore with servers; this process has none";
    running_ = run;
    if (run) {
      EnsureWrittenAtExit();
      ever_run_ = true;
      paused_ = false;
      generation_.fetch_add(1, std::memory_order_relaxed);
      ResetMemoryCounters();
      {
        std::lock_guard<std::mutex> out(collect_mu_);
        output_enabled_ = true;
      }
      InstallHooks(config_.mode);
      if (config_.continuous_dump) period = config_.dump_period;
    } else {
      InstallHooks(0);
    }
    UpdateMask();
  }
  if (run && period > 0) {
    StartPeriodicDump(period);
  } else if (!run) {
    StopPeriodicDump();
    // Stopping collects, so stats and pending events are complete when the user reads them.
    std::lock_guard<std::mutex> out(collect_mu_);
    Collect();
  }
}

void Profiler::SetPaused(bool paused) {
  std::lock_guard<std::mutex> lock(mu_);
  paused_ = paused;
  UpdateMask();
}

void Profiler::Collect() {
  RecalibrateTicks();
  DrainAllBuffers([this](const Record& raw) {
    Record r = raw;
    r.start = TicksToMicros(r.start);
    r.end = r.end ? TicksToMicros(r.end) : 0;
    if (aggregate_) stats_.Add(r);
    if (output_enabled_) pending_.push_back(r);
  });
}

void Profiler::Dump(bool finished) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    MX_CHECK_KIND(ever_run_, "MXNetError")
        << "Profiler hasn't been run. Config and start the profiler (set_state('run')) before dumping.";
  }
  std::lock_guard<std::mutex> out(collect_mu_);
  Collect();
  // After a finished dump, output stays off until the profiler is started again.
  if (!output_enabled_) return;
  writer_.Write(output_path_, pending_, finished);
  pending_.clear();
  if (finished) output_enabled_ = false;
}

std::string Profiler::AggregateText(bool reset, StatsFormat format, StatsSortBy sort_by, bool ascending) {
  std::lock_guard<std::mutex> out(collect_mu_);
  MX_CHECK_KIND(aggregate_, "MXNetError")
      << "Aggregate profiler statistics are off: call set_config(aggregate_stats=True) before running the profiler";
  Collect();
  std::string text = stats_.Print(format, sort_by, ascending);
  if (reset) stats_.Clear();
  return text;
}

void Profiler::FinishAtExit() {
  SetRunning(false);
  std::lock_guard<std::mutex> out(collect_mu_);
  Collect();
  // A run not closed by dump(finished=True) is written now, even if it recorded nothing.
  if (output_enabled_) {
    try {
      writer_.Write(output_path_, pending_, true);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "[mxnet] profiler: %s\n", e.what());
    }
    pending_.clear();
    output_enabled_ = false;
  }
}

void Profiler::StartPeriodicDump(double period) {
  StopPeriodicDump();
  std::lock_guard<std::mutex> lock(periodic_mu_);
  periodic_stop_ = false;
  periodic_ = std::thread([this, period] {
    std::unique_lock<std::mutex> lk(periodic_mu_);
    const auto wait = std::chrono::duration<double>(period);
    while (!periodic_cv_.wait_for(lk, wait, [this] { return periodic_stop_; })) {
      lk.unlock();
      try {
        Dump(false);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "[mxnet] profiler: periodic dump failed: %s\n", e.what());
      }
      lk.lock();
    }
  });
}

void Profiler::StopPeriodicDump() {
  std::thread t;
  {
    std::lock_guard<std::mutex> lock(periodic_mu_);
    periodic_stop_ = true;
    t = std::move(periodic_);
  }
  periodic_cv_.notify_all();
  if (t.joinable() && t.get_id() != std::this_thread::get_id()) t.join();
}

}  // namespace profiler
}  // namespace mxnet
