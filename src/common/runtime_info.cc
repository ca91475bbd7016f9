#include "common/runtime_info.h"

#include <mutex>

namespace mxnet {
namespace common {

namespace {
std::mutex& InfoMutex() {
  static std::mutex mu;
  return mu;
}
std::vector<std::pair<std::string, std::string>>& Info() {
  static std::vector<std::pair<std::string, std::string>> info;
  return info;
}
}  // namespace

void SetRuntimeInfo(const std::string& key, const std::string& value) {
  std::lock_guard<std::mutex> lock(InfoMutex());
  for (auto& kv : Info()) {
    if (kv.first == key) {
      kv.second = value;
      return;
    }
  }
  Info().emplace_back(key, value);
}

std::vector<std::pair<std::string, std::string>> RuntimeInfo() {
  std::lock_guard<std::mutex> lock(InfoMutex());
  return Info();
}

}  // namespace common
}  // namespace mxnet
