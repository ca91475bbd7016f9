#include "profiler/trace_writer.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>

#include "mxnet/error.h"
#include "profiler/categories.h"
#include "profiler/devices.h"
#include "profiler/json_text.h"

namespace mxnet {
namespace profiler {

namespace {
std::string ProcessName(uint64_t pid, const std::string& name) {
  return ",\n        {\"ph\": \"M\", \"args\": {\"name\": " + JsonString(name) + "}, \"pid\": " + std::to_string(pid) +
         ", \"name\": \"process_name\"}";
}
// Non-device events live in a "process" per category, keyed by the hash of its name.
uint64_t CategoryPid(const std::string& category) { return std::hash<std::string>()(category); }
}  // namespace

void TraceWriter::AppendEvent(std::string* out, const Record& r, const char* ph, int64_t ts, const std::string& cat,
                              uint64_t pid, const std::string& extra) {
  // Appends in place: a dump of millions of events must not build temporaries per field.
  out->append(",\n        {\"name\": ");
  AppendJsonString(out, r.name);
  out->append(", \"cat\": ");
  AppendJsonString(out, cat.c_str());
  out->append(", \"ph\": \"").append(ph).append("\", \"ts\": ");
  AppendInt(out, ts);
  out->append(extra).append(", \"pid\": ");
  AppendInt(out, pid);
  out->append(", \"tid\": ");
  AppendInt(out, r.tid);
  out->push_back('}');
}

void TraceWriter::AppendRecord(std::string* out, const Record& r) {
  if (r.kind == RecordKind::kOperator) {
    const uint64_t pid = static_cast<uint64_t>(r.device_slot);
    AppendEvent(out, r, "B", r.start, "operator", pid, "");
    AppendEvent(out, r, "E", r.end, "operator", pid, "");
    return;
  }
  // Category names are looked up once per dump, not once per event.
  auto cached = category_names_.find(r.category);
  if (cached == category_names_.end()) cached = category_names_.emplace(r.category, CategoryName(r.category)).first;
  const std::string& category = cached->second;
  const uint64_t pid = CategoryPid(category);
  if (announced_.insert(r.category).second) *out += ProcessName(pid, category);
  std::string id = ", \"id\": ";
  AppendInt(&id, r.tid);
  switch (r.kind) {
    case RecordKind::kApiCall:
    case RecordKind::kTask:
      AppendEvent(out, r, "b", r.start, category, pid, id);
      AppendEvent(out, r, "e", r.end, category, pid, id);
      break;
    case RecordKind::kFrame:
      AppendEvent(out, r, "(", r.start, category, pid, "");
      AppendEvent(out, r, ")", r.end, category, pid, "");
      break;
    case RecordKind::kEvent:
      AppendEvent(out, r, "B", r.start, category, pid, "");
      AppendEvent(out, r, "E", r.end, category, pid, "");
      break;
    case RecordKind::kCounter:
      AppendEvent(out, r, "C", r.start, category, pid,
                  ", \"args\": {" + JsonString(r.name) + ": " + std::to_string(r.value) + "}");
      break;
    case RecordKind::kMarker:
      AppendEvent(out, r, "n", r.start, category + ",instant_marker", pid, std::string(", \"s\": \"") + r.scope + "\"");
      break;
    case RecordKind::kMemAlloc:
      AppendEvent(out, r, "i", r.start, category, pid,
                  ", \"s\": \"t\", \"args\": {\"requested\": " + std::to_string(r.value) + ", \"actual\": " +
                      std::to_string(r.extra) + ", \"pool_hit\": " + (r.pool_hit ? "true" : "false") + "}");
      break;
    case RecordKind::kMemFree:
      AppendEvent(out, r, "i", r.start, category, pid,
                  ", \"s\": \"t\", \"args\": {\"size\": " + std::to_string(r.value) + "}");
      break;
    default:
      break;
  }
}

void TraceWriter::Write(const std::string& path, const std::vector<Record>& records, bool finished) {
  std::string text;
  const bool starting = !open_;
  if (starting) {
    path_ = path;
    announced_.clear();
    text = "{\n    \"traceEvents\": [\n";
    // Metadata first, one per device slot; each later event starts with ",\n".
    for (int slot = 0; slot < DeviceSlotCount(); ++slot) {
      std::string meta = ProcessName(static_cast<uint64_t>(slot), DeviceSlotName(slot));
      text += slot == 0 ? meta.substr(2) : meta;
    }
  }
  category_names_.clear();
  text.reserve(text.size() + records.size() * 2 * 110);
  for (const Record& r : records) AppendRecord(&text, r);
  if (finished) text += "\n    ],\n    \"displayTimeUnit\": \"ms\"\n}\n";

  FILE* f = std::fopen(path_.c_str(), starting ? "w" : "a");
  MX_CHECK_KIND(f != nullptr, "IOError") << "Profiler: cannot open '" << path_
                                         << "' for writing: " << std::strerror(errno);
  const size_t written = std::fwrite(text.data(), 1, text.size(), f);
  const bool closed = std::fclose(f) == 0;
  const bool ok = written == text.size() && closed;
  MX_CHECK_KIND(ok, "IOError") << "Profiler: failed writing '" << path_ << "': " << std::strerror(errno);
  open_ = !finished;
}

}  // namespace profiler
}  // namespace mxnet
