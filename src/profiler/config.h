/*!
 * \file config.h
 * \brief The profiler's settings (MXSetProfilerConfig / mx.profiler.set_config), parsed
 *        and validated from the string pairs the C API receives.
 */
#ifndef MXNET_PROFILER_CONFIG_H_
#define MXNET_PROFILER_CONFIG_H_

#include <cstdint>
#include <string>
#include <vector>

namespace mxnet {
namespace profiler {

struct Config {
  uint32_t mode{0};  // ModeBit set; the default comes from MXNET_PROFILER_MODE
  std::string filename{"profile.json"};
  bool continuous_dump{true};
  double dump_period{1.0};  // seconds between background dumps while running
  bool aggregate_stats{false};
  bool profile_server{false};  // profile_process=server: the kvstore servers, not this process
  std::string gpu_memory_profile_filename_prefix{"gpu_memory_profile"};
};

/*! \brief Defaults, with the mode bits of MXNET_PROFILER_MODE. */
Config DefaultConfig();

/*!
 * \brief Applies key/value pairs over the defaults (as MXNet does: each call starts from
 *        the defaults). Throws ValueError naming the key and its allowed values.
 */
Config ParseConfig(const std::vector<std::string>& keys, const std::vector<std::string>& values);

}  // namespace profiler
}  // namespace mxnet

#endif  // MXNET_PROFILER_CONFIG_H_
