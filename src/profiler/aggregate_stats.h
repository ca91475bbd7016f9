/*!
 * \file aggregate_stats.h
 * \brief Per category and name: count, total, min and max of durations (us) and of counter
 *        values, printed as MXNet's "Profile Statistics" table or as JSON.
 */
#ifndef MXNET_PROFILER_AGGREGATE_STATS_H_
#define MXNET_PROFILER_AGGREGATE_STATS_H_

#include <cstdint>
#include <map>
#include <string>

#include "profiler/record.h"

namespace mxnet {
namespace profiler {

enum class StatsFormat : int { kTable = 0, kJson = 1 };
enum class StatsSortBy : int { kTotal = 0, kAvg = 1, kMin = 2, kMax = 3, kCount = 4 };

class AggregateStats {
 public:
  /*! \brief Folds in one record (durations and counters; other kinds are ignored). */
  void Add(const Record& r);
  std::string Print(StatsFormat format, StatsSortBy sort_by, bool ascending) const;
  void Clear() { stats_.clear(); }

 private:
  struct Stat {
    bool counter{false};
    uint64_t count{0};
    int64_t total{0};  // durations: sum of (end - start); counters: the latest value
    int64_t min{0};
    int64_t max{0};
    double Avg() const;
  };
  std::string PrintTable(StatsSortBy sort_by, bool ascending) const;
  std::string PrintJson(StatsSortBy sort_by, bool ascending) const;
  // category -> name -> stat; std::map keeps categories in sorted order.
  std::map<std::string, std::map<std::string, Stat>> stats_;
};

}  // namespace profiler
}  // namespace mxnet

#endif  // MXNET_PROFILER_AGGREGATE_STATS_H_
