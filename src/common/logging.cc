#include "common/logging.h"

#include <cstdio>
#include <ctime>
#include <mutex>

namespace mxnet {
namespace common {

namespace {
void Emit(const char* level, const std::string& message) {
  static std::mutex mu;  // keeps lines from different threads whole
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char stamp[16];
  std::strftime(stamp, sizeof(stamp), "%H:%M:%S", &tm);
  std::lock_guard<std::mutex> lock(mu);
  std::fprintf(stderr, "[%s] %s: %s\n", stamp, level, message.c_str());
  std::fflush(stderr);
}
}  // namespace

void LogWarning(const std::string& message) { Emit("WARNING", message); }
void LogInfo(const std::string& message) { Emit("INFO", message); }

}  // namespace common
}  // namespace mxnet
