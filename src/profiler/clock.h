/*!
 * \file clock.h
 * \brief The profiler's one time source: integer microseconds of a monotonic clock, so an
 *        event's end is never before its start even if the wall clock is adjusted.
 */
#ifndef MXNET_PROFILER_CLOCK_H_
#define MXNET_PROFILER_CLOCK_H_

#include <chrono>
#include <cstdint>

namespace mxnet {
namespace profiler {

inline int64_t NowMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace profiler
}  // namespace mxnet

#endif  // MXNET_PROFILER_CLOCK_H_
