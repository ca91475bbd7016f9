#include "profiler/aggregate_stats.h"

#include <algorithm>
#include <iomanip>
#include <sstream>
#include <vector>

#include "profiler/categories.h"
#include "profiler/json_text.h"

namespace mxnet {
namespace profiler {

namespace {
bool IsDuration(RecordKind k) {
  return k == RecordKind::kOperator || k == RecordKind::kApiCall || k == RecordKind::kTask || k == RecordKind::kFrame ||
         k == RecordKind::kEvent;
}
// Durations are microseconds shown as ms; memory is bytes shown as kB: both divide by 1000.
double Scaled(double v) { return v / 1000.0; }
}  // namespace

double AggregateStats::Stat::Avg() const {
  if (counter) return (static_cast<double>(max) - static_cast<double>(min)) / 2.0;
  return count ? static_cast<double>(total) / static_cast<double>(count) : 0.0;
}

void AggregateStats::Add(const Record& r) {
  const bool duration = IsDuration(r.kind);
  if (!duration && r.kind != RecordKind::kCounter) return;
  Stat& s = stats_[CategoryName(r.category)][r.name];
  const int64_t v = duration ? r.end - r.start : r.value;
  s.counter = !duration;
  if (s.count == 0 || v < s.min) s.min = v;
  if (s.count == 0 || v > s.max) s.max = v;
  s.total = duration ? s.total + v : v;
  ++s.count;
}

namespace {
template <typename StatT>
std::vector<std::pair<std::string, StatT>> Sorted(const std::map<std::string, StatT>& rows, StatsSortBy by,
                                                  bool ascending) {
  std::vector<std::pair<std::string, StatT>> v(rows.begin(), rows.end());
  auto key = [by](const StatT& s) -> double {
    switch (by) {
      case StatsSortBy::kAvg:
        return s.Avg();
      case StatsSortBy::kMin:
        return static_cast<double>(s.min);
      case StatsSortBy::kMax:
        return static_cast<double>(s.max);
      case StatsSortBy::kCount:
        return static_cast<double>(s.count);
      default:
        return static_cast<double>(s.total);
    }
  };
  // Stable, so equal keys keep name order and the output is deterministic.
  std::stable_sort(v.begin(), v.end(), [&](const auto& a, const auto& b) {
    return ascending ? key(a.second) < key(b.second) : key(a.second) > key(b.second);
  });
  return v;
}
}  // namespace

std::string AggregateStats::Print(StatsFormat format, StatsSortBy sort_by, bool ascending) const {
  return format == StatsFormat::kJson ? PrintJson(sort_by, ascending) : PrintTable(sort_by, ascending);
}

std::string AggregateStats::PrintTable(StatsSortBy sort_by, bool ascending) const {
  std::ostringstream os;
  os << "\nProfile Statistics:\n\tNote the difference in units for different entries.\n";
  for (const auto& cat : stats_) {
    const bool memory = IsMemoryCategory(cat.first);
    os << cat.first << "\n=================\n";
    auto col = [&os](const std::string& text) { os << " " << std::setw(16) << std::right << text; };
    os << std::setw(25) << std::left << "Name";
    col("Total Count");
    if (memory) {
      col("Min Use  (kB)"), col("Max Use  (kB)"), col("Avg Use  (kB)");
    } else {
      col("Time (ms)"), col("Min Time (ms)"), col("Max Time (ms)"), col("Avg Time (ms)");
    }
    os << "\n" << std::setw(25) << std::left << "----";
    col("-----------");
    if (!memory) col("---------");
    col("-------------"), col("-------------"), col("-------------");
    os << "\n";
    for (const auto& row : Sorted(cat.second, sort_by, ascending)) {
      const Stat& s = row.second;
      os << std::setw(25) << std::left << row.first << " " << std::setw(16) << std::right << s.count;
      os << std::fixed << std::setprecision(4);
      if (!memory) os << " " << std::setw(16) << Scaled(static_cast<double>(s.total));
      os << " " << std::setw(16) << Scaled(static_cast<double>(s.min)) << " " << std::setw(16)
         << Scaled(static_cast<double>(s.max)) << " " << std::setw(16) << Scaled(s.Avg()) << "\n";
    }
    os << "\n";
  }
  return os.str();
}

std::string AggregateStats::PrintJson(StatsSortBy sort_by, bool ascending) const {
  std::ostringstream time, memory;
  bool first_time = true, first_memory = true;
  for (const auto& cat : stats_) {
    const bool is_memory = IsMemoryCategory(cat.first);
    std::ostringstream& os = is_memory ? memory : time;
    bool& first = is_memory ? first_memory : first_time;
    os << (first ? "" : ", ") << JsonString(cat.first) << ": {";
    first = false;
    bool first_row = true;
    for (const auto& row : Sorted(cat.second, sort_by, ascending)) {
      const Stat& s = row.second;
      os << (first_row ? "" : ", ") << JsonString(row.first) << ": {\"Count\": " << s.count;
      first_row = false;
      if (!is_memory) os << ", \"Total\": " << JsonNumber(Scaled(static_cast<double>(s.total)));
      os << ", \"Min\": " << JsonNumber(Scaled(static_cast<double>(s.min)))
         << ", \"Max\": " << JsonNumber(Scaled(static_cast<double>(s.max)))
         << ", \"Avg\": " << JsonNumber(Scaled(s.Avg())) << "}";
    }
    os << "}";
  }
  return "{\"Time\": {" + time.str() + "}, \"Memory\": {" + memory.str() +
         "}, \"Unit\": {\"Time\": \"ms\", \"Memory\": \"kB\"}}";
}

}  // namespace profiler
}  // namespace mxnet
