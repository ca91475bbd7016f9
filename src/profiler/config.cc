#include "profiler/config.h"

#include <cmath>
#include <cstdlib>

#include "mxnet/env.h"
#include "mxnet/error.h"
#include "profiler/record.h"

namespace mxnet {
namespace profiler {

namespace {
const char* kKeys =
    "profile_all, profile_symbolic, profile_imperative, profile_memory, profile_api, filename, continuous_dump, "
    "dump_period, aggregate_stats, profile_process, gpu_memory_profile_filename_prefix";

bool ParseBool(const std::string& key, const std::string& v) {
  if (v == "True" || v == "true" || v == "1") return true;
  if (v == "False" || v == "false" || v == "0") return false;
  MX_THROW("ValueError") << "Profiler config '" << key << "': expected a boolean (True or False), got '" << v << "'";
  return false;
}
}  // namespace

Config DefaultConfig() {
  Config c;
  c.mode = static_cast<uint32_t>(env::GetInt(env::Var::MXNET_PROFILER_MODE)) & kAllModes;
  return c;
}

Config ParseConfig(const std::vector<std::string>& keys, const std::vector<std::string>& values) {
  Config c = DefaultConfig();
  // Each profile_* key given sets or clears its bit; profile_all=True turns every bit on.
  bool all = false;
  for (size_t i = 0; i < keys.size(); ++i) {
    const std::string& k = keys[i];
    const std::string& v = values[i];
    auto set_bit = [&](uint32_t bit) { c.mode = ParseBool(k, v) ? (c.mode | bit) : (c.mode & ~bit); };
    if (k == "profile_all") {
      all = ParseBool(k, v);
    } else if (k == "profile_symbolic") {
      set_bit(kSymbolic);
    } else if (k == "profile_imperative") {
      set_bit(kImperative);
    } else if (k == "profile_memory") {
      set_bit(kMemory);
    } else if (k == "profile_api") {
      set_bit(kApi);
    } else if (k == "filename") {
      MX_CHECK_KIND(!v.empty(), "ValueError") << "Profiler config 'filename' must not be empty";
      c.filename = v;
    } else if (k == "continuous_dump") {
      c.continuous_dump = ParseBool(k, v);
    } else if (k == "dump_period") {
      char* end = nullptr;
      double p = std::strtod(v.c_str(), &end);
      MX_CHECK_KIND(end != v.c_str() && *end == '\0' && std::isfinite(p) && p > 0, "ValueError")
          << "Profiler config 'dump_period': expected a positive number of seconds, got '" << v << "'";
      c.dump_period = p;
    } else if (k == "aggregate_stats") {
      c.aggregate_stats = ParseBool(k, v);
    } else if (k == "profile_process") {
      MX_CHECK_KIND(v == "worker" || v == "server", "ValueError")
          << "Profiler config 'profile_process': expected 'worker' or 'server', got '" << v << "'";
      c.profile_server = v == "server";
    } else if (k == "gpu_memory_profile_filename_prefix") {
      c.gpu_memory_profile_filename_prefix = v;
    } else {
      MX_THROW("ValueError") << "Unknown profiler config key '" << k << "'; allowed keys: " << kKeys;
    }
  }
  if (all) c.mode = kAllModes;
  return c;
}

}  // namespace profiler
}  // namespace mxnet
