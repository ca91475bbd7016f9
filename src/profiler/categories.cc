#include "profiler/categories.h"

#include <deque>
#include <mutex>
#include <unordered_map>

namespace mxnet {
namespace profiler {

namespace {
struct Table {
  std::mutex mu;
  std::deque<std::string> names;
  std::unordered_map<std::string, uint32_t> ids;
  Table() {
    // Order matches BuiltinCategory.
    for (const char* n : {"operator", "MXNET_C_API", "Device Storage", "event"}) {
      ids.emplace(n, static_cast<uint32_t>(names.size()));
      names.emplace_back(n);
    }
  }
};
// Never destroyed: records may be written and dumped during process exit.
Table& GetTable() {
  static Table* table = new Table();
  return *table;
}
}  // namespace

uint32_t InternCategory(const std::string& name) {
  Table& t = GetTable();
  std::lock_guard<std::mutex> lock(t.mu);
  auto it = t.ids.find(name);
  if (it != t.ids.end()) return it->second;
  uint32_t id = static_cast<uint32_t>(t.names.size());
  t.names.push_back(name);
  t.ids.emplace(name, id);
  return id;
}

std::string CategoryName(uint32_t id) {
  Table& t = GetTable();
  std::lock_guard<std::mutex> lock(t.mu);
  return id < t.names.size() ? t.names[id] : std::string("<unknown>");
}

bool IsMemoryCategory(const std::string& name) { return name == "Device Storage" || name == "Pool Memory"; }

}  // namespace profiler
}  // namespace mxnet
